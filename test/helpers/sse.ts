// Reading server-sent events as the AI streams send them (`data: <json>`
// blocks, an `id:` line before it in the runs' streams, separated by a blank
// line; `: keep-alive` comments skipped).
import assert from 'node:assert/strict';

type Event = { type: string; [key: string]: any };

/** Every event of a finished stream, in order. */
export async function sseEvents<T extends object = Event>(res: Response): Promise<T[]> {
  return (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as T);
}

/** The events of a stream as they arrive (after asserting a 200). */
export async function* sseStream<T extends object = Event>(res: Response): AsyncGenerator<T> {
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      // A block may carry an `id:` line before its data (the runs' streams do).
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined) yield JSON.parse(data) as T;
    }
  }
}

/** Reads a live stream up to the first event of `type` (the ones before it go to `seen`). */
export async function untilEvent<T extends { type: string }>(stream: AsyncGenerator<T>, type: string, seen: T[] = []): Promise<T> {
  // next(), not for-await: leaving a for-await loop would close the stream.
  for (let r = await stream.next(); !r.done; r = await stream.next()) {
    seen.push(r.value);
    if (r.value.type === type) return r.value;
  }
  throw new Error(`the stream ended before ${type}: ${seen.map((e) => e.type).join(', ')}`);
}

/** A stream's events with their `id:` numbers (null where a block has none), from its whole text. */
export function numberedEvents<T extends object = Event>(text: string): Array<{ id: number | null; event: T }> {
  return text.split('\n\n').filter((b) => b.includes('data: ')).map((block) => {
    const id = /^id: (\d+)$/m.exec(block)?.[1];
    return { id: id === undefined ? null : Number(id), event: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as T };
  });
}
