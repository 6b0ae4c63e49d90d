// One agent: its settings, tools, hooks, knowledge and MCP servers beside its playground.
import { Link, useParams } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { AgentHooks } from './AgentHooks.tsx';
import { AgentKnowledge } from './AgentKnowledge.tsx';
import { AgentMcpServers } from './AgentMcpServers.tsx';
import { AgentSettings } from './AgentSettings.tsx';
import { AgentTools } from './AgentTools.tsx';
import { Playground } from './Playground.tsx';
import { agentTarget } from './chatTarget.ts';
import { useMemo } from 'react';

export default function AgentPage() {
  const { id = '', session = null } = useParams();
  const target = useMemo(() => agentTarget(id), [id]);
  const agent = useAsync(() => must(ai.GET('/api/agents/{id}', { params: { path: { id } } })), [id]);
  if (!agent.value) return agent.error ? <ErrorNote error={agent.error} /> : <Loading what="the agent" />;
  return (
    <div className="agent-page">
      <div className="agent-config">
        <h1><Link to="/agents">Agents</Link> / {agent.value.name}</h1>
        <Link to={`/agents/${id}/runs`}>Run history</Link>
        <AgentSettings key={agent.value.updated_at} agent={agent.value} onSaved={agent.reload} />
        <AgentTools agentId={id} />
        <AgentHooks agentId={id} />
        <AgentKnowledge agentId={id} />
        <AgentMcpServers agentId={id} />
      </div>
      <Playground target={target} sessionId={session} />
    </div>
  );
}
