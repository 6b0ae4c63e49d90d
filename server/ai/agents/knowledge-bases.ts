// /api/agents/{id}/knowledge-bases (spec 4.9): knowledge bases assigned to an
// agent. Each is a search tool of the agent's (run.ts), named after the
// knowledge base (ai.kb_tool_name) and described by its description.
import type { Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse, UUID } from '../parse.ts';
import type { agentStore } from './store.ts';

type Agents = ReturnType<typeof agentStore>;
export const KnowledgeBaseAssignBody = z.object({ knowledge_base_id: z.string({ error: 'knowledge_base_id is required' }).regex(UUID, 'knowledge_base_id must be a knowledge base id').transform((s) => s.toLowerCase()) });
const ASSIGNMENT = `a.id, a.agent_id, a.kb_id as knowledge_base_id, k.name, k.description, k.strategy as indexing_strategy, ai.kb_tool_name(k.name) as tool_name, a.created_at`;

export function agentKnowledgeBaseRoutes(r: Router, calls: AiCalls, agents: Agents): void {
  r.get('/:id/knowledge-bases', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    await agents.get(req, id);
    res.json(await calls.call(req, `select ${ASSIGNMENT} from ai.agent_knowledge_bases a join ai.knowledge_bases k on k.id = a.kb_id where a.agent_id = $1 order by a.created_at, a.id`, [id]));
  }));

  r.post('/:id/knowledge-bases', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const body = parse(KnowledgeBaseAssignBody, req.body);
    await agents.requireOwn(req, id);
    const [made] = await calls.call<{ id: string }>(req, 'select (ai.assign_knowledge_base($1, $2)).id', [id, body.knowledge_base_id]);
    const [row] = await calls.call(req, `select ${ASSIGNMENT} from ai.agent_knowledge_bases a join ai.knowledge_bases k on k.id = a.kb_id where a.id = $1`, [made!.id]);
    res.status(201).json(row);
  }));

  r.delete('/:id/knowledge-bases/:assignmentId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    await agents.requireOwn(req, id);
    const assignment = idOf(req.params.assignmentId, 'Knowledge base assignment');
    const gone = await calls.call(req, 'delete from ai.agent_knowledge_bases where id = $1 and agent_id = $2 returning id', [assignment, id]);
    if (!gone.length) throw aiErrors.notFound('Knowledge base assignment');
    res.json({ message: 'Knowledge base assignment deleted', id: assignment });
  }));
}
