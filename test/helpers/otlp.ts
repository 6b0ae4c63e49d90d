// A small OTLP/HTTP trace receiver on 127.0.0.1, as a collector would be:
// POST /v1/traces, JSON or protobuf (decoded by otlp-protobuf.ts; the bytes are
// kept too, with their content type). Spans come back flattened, attributes as
// plain values, each with the protocol it came in.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest } from './otlp-protobuf.ts';

export type ReceivedSpan = {
  traceId: string; spanId: string; parentSpanId: string; name: string; kind: number;
  attributes: Record<string, unknown>; status: { code?: number; message?: string }; resource: Record<string, unknown>;
  protocol: 'json' | 'protobuf';
};
export type OtlpReceiver = {
  url: string; spans: ReceivedSpan[];
  /** Every request as sent: its content type and encoding, its headers, its body (still compressed). */
  raw: Array<{ contentType: string; encoding: string; headers: http.IncomingHttpHeaders; body: Buffer }>;
  /** The status the receiver answers with (200; a collector refusing: 400). */
  status: number;
  close: () => Promise<void>;
};

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

const valueOf = (v: AnyValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? (v.arrayValue ? (v.arrayValue.values ?? []).map(valueOf) : undefined);
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const raw: OtlpReceiver['raw'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const sent = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      const encoding = String(req.headers['content-encoding'] ?? '');
      raw.push({ contentType, encoding, headers: req.headers, body: sent });
      if (receiver.status !== 200) return void res.writeHead(receiver.status, { 'content-type': 'text/plain' }).end('refused');
      const body = encoding === 'gzip' ? gunzipSync(sent) : sent;
      const json = contentType.startsWith('application/json');
      if (req.url === '/v1/traces' && (json || contentType === 'application/x-protobuf')) {
        const doc = (json ? JSON.parse(body.toString('utf8')) : decodeTraceRequest(body)) as { resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> };
        for (const rs of doc.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) {
            spans.push({
              traceId: String(s.traceId), spanId: String(s.spanId), parentSpanId: String(s.parentSpanId ?? ''), name: String(s.name), kind: Number(s.kind),
              attributes: attributesOf(s.attributes as KeyValue[]), status: (s.status ?? {}) as ReceivedSpan['status'], resource, protocol: json ? 'json' : 'protobuf',
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' }).end(contentType.startsWith('application/json') ? '{}' : undefined);
    });
  });
  const receiver: OtlpReceiver = { url: '', spans, raw, status: 200, close: () => new Promise<void>((r) => server.close(() => r())) };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
