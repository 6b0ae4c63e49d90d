// What a resumed run's followers already have (runs/resume.ts unrepeated),
// of a delegation in flight and of the run itself: each goes on from its last
// stored step, so the tool calls of that step, their results and the text
// streamed before the crash are not sent again; what is new is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unrepeated } from '../../server/ai/runs/resume.ts';

type E = { type: string; [k: string]: unknown };
const D = 'del-1';
const started = { type: 'delegation_started', delegation_id: D, agent_id: 'a', agent_name: 'rec', task: 't' };
const call = (id: string, step: number) => ({ type: 'tool_call', id, name: 'record', arguments: '{}', step, delegation_id: D });
const result = (id: string) => ({ type: 'tool_result', id, name: 'record', ok: true, result: 'ok', latency_ms: 3, delegation_id: D });
const delta = (text: string) => ({ type: 'delegation_delta', delegation_id: D, delta: text });

function follow(stored: E[], resumedAt: number, events: E[]): E[] {
  const sent: E[] = [];
  const emit = unrepeated(stored as never, resumedAt, (e) => void sent.push(e as E));
  for (const e of events) emit(e as never);
  return sent;
}

describe('a delegation in flight, as a resumed run reports it', () => {
  it('does not send again the tool call of its last step or its result, even when an earlier step used the same call id', () => {
    const stored = [started, call('m1', 1), result('m1'), call('m1', 2)];
    const sent = follow(stored, 1, [call('m1', 2), result('m1'), delta('Done.')]);
    // The call of step 2 repeats; its result was never stored, so it is new (step 1's result is not its).
    assert.deepEqual(sent.map((e) => e.type), ['tool_result', 'delegation_delta']);
  });

  it('drops the text the member streamed before the crash, sending only the rest', () => {
    const stored = [started, call('m1', 1), result('m1'), delta('Recorded '), delta('1 a')];
    const sent = follow(stored, 1, [delta('Recorded '), delta('1 and 2.'), delta(' Bye')]);
    assert.deepEqual(sent.map((e) => e.delta), ['nd 2.', ' Bye']);
  });

  it('sends what differs from what was streamed as it is', () => {
    const stored = [started, delta('Recorded 1')];
    const sent = follow(stored, 1, [delta('Nothing to record.')]);
    assert.deepEqual(sent.map((e) => e.delta), ['Nothing to record.']);
  });

  it('leaves another delegation\'s events alone', () => {
    const stored = [started, call('m1', 1)];
    const other = { ...call('m1', 1), delegation_id: 'del-2' };
    assert.deepEqual(follow(stored, 1, [other]), [other]);
  });
});

describe('the run\'s own last step, as a resumed run reports it', () => {
  const own = (e: E) => { const { delegation_id: _d, ...rest } = e; return rest as E; };
  it('sends a stored result again only when followers never had it, even when an earlier step used the same call id', () => {
    // Step 1's c1 was told with its result; step 2 reused the id, and its result was stored but its event lost.
    const stored = [call('c1', 1), result('c1'), call('c1', 2)].map(own);
    const sent = follow(stored, 2, [call('c1', 2), result('c1')].map(own));
    assert.deepEqual(sent.map((e) => e.type), ['tool_result'], 'step 2\'s call repeats; its result is new (step 1\'s result is not its)');
  });

  it('drops a call and its result that followers have, once each', () => {
    const stored = [call('c1', 2), result('c1')].map(own);
    assert.deepEqual(follow(stored, 2, [call('c1', 2), result('c1'), call('c2', 2)].map(own)).map((e) => e.id), ['c2']);
  });
});
