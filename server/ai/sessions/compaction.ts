// Compaction of long sessions (settings category `compaction`). Before a run
// sends a session's history, its size is estimated (characters divided by
// CHARS_PER_TOKEN); when it would pass the context window (the agent's
// settings.max_context_tokens, else DEFAULT_MAX_CONTEXT_TOKENS) less
// COMPACTION_BUFFER, the older messages are summarised by
// DEFAULT_COMPACTION_MODEL (at most COMPACTION_MAX_OUTPUT_TOKENS) together with
// any earlier summary, and only the last COMPACTION_KEEP_LAST_N messages are
// sent as they are. The kept part starts at a user message, so a tool result
// never loses the call it answers. The summary is kept on the session
// (sql/0034); the messages stay as they were. An agent may tune it with
// settings.compaction: {enabled, model, keep_last_n}. A summary that cannot be
// made is reported (compaction_error) and the full history is sent.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import type { ChatMessage, ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { chatMessageOf } from './conversation.ts';
import { aiErrors } from '../errors.ts';
import type { Emit } from '../steps/events.ts';
import type { StoredMessage } from '../steps/step.ts';

type MessageRow = StoredMessage & { id: string; name: string | null };
type SessionRow = { summary: string | null; summary_through: string | null; messages: MessageRow[] };

const SUMMARY_PROMPT = 'You compress a conversation for the assistant that continues it. Write concise notes that keep every fact, decision, name, number, ' +
  'preference and open task the assistant will need; drop pleasantries. If notes from earlier are given, fold them in.';
const MAX_TOOL_CHARS = 2000;

export const summaryMessage = (summary: string): ChatMessage => ({ role: 'system', content: `Summary of the earlier conversation:\n${summary}` });

const sizeOf = (m: MessageRow) => (m.content?.length ?? 0) + (m.tool_calls ?? []).reduce((n, c) => n + c.name.length + (c.arguments?.length ?? 0), 0);

function transcript(rows: MessageRow[]): string {
  return rows.map((m) => {
    if (m.role === 'user') return `User: ${m.content ?? ''}`;
    if (m.role === 'tool') {
      const text = m.content ?? '';
      return `Tool ${m.name ?? ''} returned: ${text.length > MAX_TOOL_CHARS ? `${text.slice(0, MAX_TOOL_CHARS)} [cut]` : text}`;
    }
    const calls = (m.tool_calls ?? []).map((c) => `Assistant called ${c.name} with ${c.arguments}`);
    return [...(m.content ? [`Assistant: ${m.content}`] : []), ...calls].join('\n');
  }).join('\n');
}

export type Compaction = { settings?: Record<string, unknown>; system: string | null; message: string; userId: string | null; runId: string; feature: string; signal: AbortSignal; emit?: Emit | undefined };

export function compactor(opts: { calls: AiCalls; models: ModelRouter; settings: Settings }) {
  const { calls, models, settings } = opts;
  return {
    /** The session's history as the model gets it: its summary (if any), then the messages after it; compacted first when too long. */
    history: async (caller: RequestContext, sessionId: string, c: Compaction): Promise<ChatMessage[]> => {
      // One read: the session (404 when the caller cannot use it), its summary and the messages after it.
      const [session] = await calls.as<SessionRow>(caller, `select s.summary, s.summary_through,
          coalesce((select json_agg(json_build_object('id', m.id, 'role', m.role, 'content', m.content, 'tool_calls', m.tool_calls, 'tool_call_id', m.tool_call_id, 'name', m.name) order by m.id)
                      from ai.session_messages m where m.session_id = s.id and m.id > coalesce(s.summary_through, 0)), '[]') as messages
         from ai.sessions s where s.id = $1`, [sessionId]);
      if (!session) throw aiErrors.notFound('Session');
      const rows = session.messages;
      const summary = session.summary;
      const asChat = (s: string | null, kept: MessageRow[]) => [...(s ? [summaryMessage(s)] : []), ...kept.map(chatMessageOf)];

      const tuning = (c.settings ?? {}) as { max_context_tokens?: unknown; compaction?: { enabled?: unknown; model?: unknown; keep_last_n?: unknown } };
      const own = tuning.compaction && typeof tuning.compaction === 'object' ? tuning.compaction : {};
      if (own.enabled === false || rows.length === 0) return asChat(summary, rows);
      const charsPerToken = await settings.number('CHARS_PER_TOKEN');
      const window = typeof tuning.max_context_tokens === 'number' && tuning.max_context_tokens > 0 ? tuning.max_context_tokens : await settings.number('DEFAULT_MAX_CONTEXT_TOKENS');
      const limit = window - (await settings.number('COMPACTION_BUFFER'));
      const chars = (c.system?.length ?? 0) + (summary?.length ?? 0) + c.message.length + rows.reduce((n, m) => n + sizeOf(m), 0);
      const before = Math.ceil(chars / charsPerToken);
      if (before <= limit) return asChat(summary, rows);

      const keepN = typeof own.keep_last_n === 'number' && Number.isInteger(own.keep_last_n) && own.keep_last_n >= 0 ? own.keep_last_n : await settings.number('COMPACTION_KEEP_LAST_N');
      // The kept part starts at a user message at or before the last keepN.
      let split = Math.max(0, rows.length - keepN);
      while (split > 0 && split < rows.length && rows[split]!.role !== 'user') split--;
      if (split === 0) return asChat(summary, rows);
      const older = rows.slice(0, split);
      const kept = rows.slice(split);
      const model = typeof own.model === 'string' && own.model ? own.model : await settings.string('DEFAULT_COMPACTION_MODEL');
      try {
        const result = await models.chat({
          model,
          messages: [{ role: 'system', content: SUMMARY_PROMPT }, { role: 'user', content: `${summary ? `Notes so far:\n${summary}\n\n` : ''}Conversation:\n${transcript(older)}` }],
          settings: { max_tokens: await settings.number('COMPACTION_MAX_OUTPUT_TOKENS') },
          signal: c.signal,
          context: { userId: c.userId, feature: c.feature, runId: c.runId, step: 'compaction' },
        });
        const next = (result.content ?? '').trim();
        if (!next) throw new Error('the compaction model answered nothing');
        await calls.as(caller, 'update ai.sessions set summary = $2, summary_through = $3, compacted_at = now(), compactions = compactions + 1 where id = $1',
          [sessionId, next, older.at(-1)!.id]);
        const after = Math.ceil(((c.system?.length ?? 0) + next.length + c.message.length + kept.reduce((n, m) => n + sizeOf(m), 0)) / charsPerToken);
        c.emit?.({ type: 'compaction', model, summarized_messages: older.length, kept_messages: kept.length, estimated_tokens_before: before, estimated_tokens_after: after });
        return asChat(next, kept);
      } catch (err) {
        if (c.signal.aborted) throw err;
        c.emit?.({ type: 'compaction_error', model, error: (err as Error).message });
        return asChat(summary, rows);
      }
    },
  };
}

export type Compactor = ReturnType<typeof compactor>;
