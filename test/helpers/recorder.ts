// A tool's receiver on 127.0.0.1 for run tests: records each call's `n`
// argument and its Idempotency-Key, answers {"recorded":true}.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type CallRecorder = { url: string; calls: Array<{ n: number; key: string }>; close: () => void };

export async function startCallRecorder(): Promise<CallRecorder> {
  const calls: CallRecorder['calls'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      calls.push({ n: (JSON.parse(body) as { n: number }).n, key: req.headers['idempotency-key'] as string });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"recorded":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => server.close() };
}
