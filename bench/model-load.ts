// Load generator for bench/runs.ts, run as a child process (it must not share
// the server's event loop). Two kinds:
//   {kind: "sdk", baseURL, apiKey, model, stream, concurrency, seconds}
//     the model called directly with the openai SDK: the floor a run is measured against
//   {kind: "run-stream", url, headers, body, concurrency, seconds}
//     POST …/run/stream through the platform, until its first content_delta
// Prints {count, errors, p50, p99, first_p50, cpu_ms} (ms; first_*: to the first token; cpu_ms: this process's CPU).
import OpenAI from 'openai';

type Spec =
  | { kind: 'sdk'; baseURL: string; apiKey: string; model: string; stream: boolean; concurrency: number; seconds: number }
  | { kind: 'run-stream'; url: string; headers: Record<string, string>; body: string; concurrency: number; seconds: number };
const spec = JSON.parse(process.argv[2]!) as Spec;
const whole: number[] = [];
const first: number[] = [];
let errors = 0;

const sdk = spec.kind === 'sdk' ? new OpenAI({ baseURL: spec.baseURL, apiKey: spec.apiKey, maxRetries: 0 }) : undefined;

async function once(): Promise<void> {
  const t0 = performance.now();
  if (spec.kind === 'sdk') {
    if (!spec.stream) {
      await sdk!.chat.completions.create({ model: spec.model, messages: [{ role: 'user', content: 'Say ok' }] });
    } else {
      const stream = await sdk!.chat.completions.create({ model: spec.model, messages: [{ role: 'user', content: 'Say ok' }], stream: true });
      let seen = false;
      for await (const chunk of stream) {
        if (!seen && chunk.choices[0]?.delta?.content) {
          seen = true;
          first.push(performance.now() - t0);
        }
      }
    }
  } else {
    const res = await fetch(spec.url, { method: 'POST', headers: spec.headers, body: spec.body });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    const decoder = new TextDecoder();
    let text = '';
    let seen = false;
    for await (const chunk of res.body!) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (!seen && text.includes('"type":"content_delta"')) {
        seen = true;
        first.push(performance.now() - t0);
      }
    }
    if (!text.includes('"type":"complete"')) throw new Error('the run did not complete');
  }
  whole.push(performance.now() - t0);
}

const end = Date.now() + spec.seconds * 1000;
await Promise.all(Array.from({ length: spec.concurrency }, async () => {
  while (Date.now() < end) {
    try {
      await once();
    } catch {
      errors++;
    }
  }
}));
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ count: whole.length, errors, p50: q(whole, 0.5), p99: q(whole, 0.99), first_p50: q(first, 0.5), seconds: spec.seconds, cpu_ms: (cpu.user + cpu.system) / 1000 }) + '\n');
