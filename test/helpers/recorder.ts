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

/**
 * A tool's receiver for crash tests: records each call's `n` and
 * Idempotency-Key and answers {"recorded": n}, except the call `holdAt(n)`
 * names, which it holds unanswered (the process that made it is killed
 * meanwhile); `holdAt` resolves once that call has arrived.
 */
/** dropConnections: ends every open connection (a held call then fails at its caller). */
export type HoldingRecorder = { url: string; calls: Array<{ n: number; key: string }>; holdAt: (n: number) => Promise<void>; dropConnections: () => void; close: () => void };

export async function startHoldingRecorder(): Promise<HoldingRecorder> {
  const calls: HoldingRecorder['calls'] = [];
  let held: { n: number; arrived: () => void } | undefined;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const { n } = JSON.parse(body) as { n: number };
      calls.push({ n, key: req.headers['idempotency-key'] as string });
      if (held && n === held.n) {
        const { arrived } = held;
        held = undefined;
        return arrived();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ recorded: n }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    holdAt: (n) => new Promise<void>((arrived) => (held = { n, arrived })),
    dropConnections: () => server.closeAllConnections(),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
