// How much one run may be given, the same on every way into a run: the
// agent and orchestration routes, /api/v1, MCP agent tools and workflow
// agent blocks (runs/session-run.ts checks every new run, so no path can skip it).
import { z } from 'zod';
import { aiErrors } from '../errors.ts';

/** The user's message of one run. */
export const RUN_MESSAGE_MAX_CHARS = 200_000;
/** The earlier turns a client seeds a new session with (/api/v1 without X-Session-Id), all together. */
export const SEEDED_HISTORY_MAX_CHARS = 1_000_000;

const count = (n: number) => n.toLocaleString('en-US');

/** A run's `message` in a route's body schema. */
export const runMessage = z.string({ error: 'message is required' }).trim().min(1, 'message is required')
  .max(RUN_MESSAGE_MAX_CHARS, `message is longer than ${count(RUN_MESSAGE_MAX_CHARS)} characters`);

/** 400 unless `message` fits one run; `what` names it as the caller sent it. */
export function checkRunMessage(message: string, what = 'message'): void {
  if (message.length > RUN_MESSAGE_MAX_CHARS) throw aiErrors.validation(`${what} is longer than ${count(RUN_MESSAGE_MAX_CHARS)} characters`);
}

/** 400 unless the seeded turns fit: each as a message, all together within SEEDED_HISTORY_MAX_CHARS. */
export function checkSeededHistory(turns: Array<{ content: string }>): void {
  let total = 0;
  for (const [i, t] of turns.entries()) {
    checkRunMessage(t.content, `messages[${i}]`);
    total += t.content.length;
  }
  if (total > SEEDED_HISTORY_MAX_CHARS) throw aiErrors.validation(`the earlier messages are longer than ${count(SEEDED_HISTORY_MAX_CHARS)} characters together: continue a session (X-Session-Id) instead of sending it all again`);
}
