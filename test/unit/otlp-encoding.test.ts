// pgbase's OTLP encoders against the OpenTelemetry JavaScript project's own
// (otlp-transformer's ProtobufTraceSerializer and JsonTraceSerializer), fed
// the same spans: both protobuf bodies are decoded by a strict reader of the
// proto and must say the same; both JSON bodies must parse to the same
// document. Then the batch queue: full batches go at once, spans beyond the
// queue are dropped (and said so once), a flush sends the rest.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type HrTime } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import pino from 'pino';
import { jsonTraceEncoding } from '../../server/telemetry/otlp-json.ts';
import { protobufTraceEncoding } from '../../server/telemetry/otlp-protobuf.ts';
import { otlpExport, SpanBatcher } from '../../server/telemetry/span-export.ts';
import { PgbaseTracerProvider, type RecordedSpan, type SpanLimits } from '../../server/telemetry/tracer.ts';
import { startOtlpReceiver } from '../helpers/otlp.ts';
import { decodeTraceRequest } from '../helpers/otlp-protobuf.ts';

const LIMITS: SpanLimits = { attributeCount: 128, attributeValueLength: Infinity, eventCount: 128, linkCount: 128 };
const RESOURCE = { 'service.name': 'pgbase-test', 'host.name': 'höst', 'process.pid': 4242 };

/** Spans of every shape the encoders must carry, recorded by pgbase's tracer. */
function recordSpans(): RecordedSpan[] {
  const ended: RecordedSpan[] = [];
  const tracer = new PgbaseTracerProvider(new AlwaysOnSampler(), LIMITS, (s) => ended.push(s)).getTracer('pgbase', '1.2.3');
  const other = new PgbaseTracerProvider(new AlwaysOnSampler(), LIMITS, (s) => ended.push(s)).getTracer('other-scope');
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const remote = propagation.extract(ROOT_CONTEXT, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=a1,other=b2' });
  const root = tracer.startSpan('GET /rest/v1/:table', {
    kind: SpanKind.SERVER,
    startTime: new Date('2026-11-26T12:00:00.123Z'),
    attributes: {
      'http.request.method': 'GET', 'url.path': '/rest/v1/items', 'pgbase.empty': '', 'pgbase.unicode': 'héllo ✓ 日本 🚀',
      'pgbase.long': 'x'.repeat(300), 'pgbase.int': 200, 'pgbase.negative': -7, 'pgbase.big': 2 ** 40 + 3, 'pgbase.double': 1.5,
      'pgbase.flag': true, 'pgbase.strings': ['a', 'b', 'ç'], 'pgbase.numbers': [1, 2.5, -3], 'pgbase.bools': [true, false],
    },
    links: [{ context: trace.getSpanContext(remote)!, attributes: { 'link.kind': 'follows' } }],
  }, remote);
  root.addEvent('cache miss', { 'cache.key': 'k1' }, 1_795_694_400_456.25);
  root.addEvent('no attributes');
  const child = tracer.startSpan('select public.items', { kind: SpanKind.CLIENT, startTime: 1_795_694_400_700, attributes: { 'db.system.name': 'postgresql' } }, trace.setSpan(ROOT_CONTEXT, root));
  child.setStatus({ code: SpanStatusCode.ERROR, message: '42P01' });
  child.end(1_795_694_400_789.125);
  const ok = other.startSpan('ok', { kind: SpanKind.CONSUMER, startTime: 1_795_694_400_000 });
  ok.setStatus({ code: SpanStatusCode.OK });
  ok.end(1_795_694_400_001.5);
  root.setAttribute('http.response.status_code', 200);
  root.end(1_795_694_401_000.5);
  return ended;
}

const hr = (ms: number): HrTime => {
  const whole = Math.floor(ms);
  return [Math.floor(whole / 1000), (whole % 1000) * 1e6 + Math.round((ms - whole) * 1e6)];
};

/** The same span as the SDK's ReadableSpan, for the reference serializers. */
function readable(s: RecordedSpan, resource: ReturnType<typeof resourceFromAttributes>) {
  return {
    name: s.name, kind: s.kind, spanContext: () => s.spanContext(),
    parentSpanContext: s.parentSpanId ? { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: 1, isRemote: s.parentRemote } : undefined,
    startTime: hr(s.start), endTime: hr(s.end_), duration: [0, 0] as HrTime, ended: true, status: s.status, attributes: s.attributes,
    links: (s.links ?? []).map((l) => ({ context: { traceId: l.traceId, spanId: l.spanId, traceFlags: l.traceFlags, isRemote: l.remote, traceState: l.traceState ? { serialize: () => l.traceState! } : undefined }, attributes: l.attributes, droppedAttributesCount: l.dropped })),
    events: (s.events ?? []).map((e) => ({ name: e.name, time: hr(e.time), attributes: e.attributes, droppedAttributesCount: e.dropped })),
    resource, instrumentationScope: s.scope, droppedAttributesCount: s.droppedAttributes, droppedEventsCount: s.droppedEvents, droppedLinksCount: s.droppedLinks,
  };
}

/** proto3 leaves zero values out; the two writers differ only in whether they write them. */
function withoutDefaults(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDefaults);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const y = withoutDefaults(x);
      if (y === 0 || y === '' || y === '0' || y === false || y === undefined || (Array.isArray(y) && y.length === 0)) continue;
      out[k] = y;
    }
    return out;
  }
  return typeof v === 'bigint' ? String(v) : v;
}

const encodeWith = (encoding: ReturnType<typeof protobufTraceEncoding>, spans: RecordedSpan[]) => {
  const batch = encoding.batch(spans.length);
  for (const s of spans) batch.add(s);
  assert.equal(batch.count, spans.length);
  return Buffer.from(batch.finish());
};

describe('OTLP encoding', () => {
  const spans = recordSpans();
  const resource = resourceFromAttributes(RESOURCE);
  // The reference groups spans by scope in the order it meets them; so do ours.
  const reference = spans.map((s) => readable(s, resource)) as unknown as Parameters<typeof ProtobufTraceSerializer.serializeRequest>[0];

  it('writes the protobuf body the OpenTelemetry serializer writes, field for field', () => {
    const ours = decodeTraceRequest(encodeWith(protobufTraceEncoding(RESOURCE, undefined), spans));
    const theirs = decodeTraceRequest(Buffer.from(ProtobufTraceSerializer.serializeRequest(reference)!));
    assert.deepEqual(withoutDefaults(ours), withoutDefaults(theirs));
    // And what it says, read back: exact nanoseconds (times a double holds exactly), ids, remote parent flags, unicode, a long string, numbers.
    const [rs] = ours.resourceSpans as Array<{ scopeSpans: Array<{ scope: { name: string; version?: string }; spans: Array<Record<string, any>> }> }>;
    assert.deepEqual(rs!.scopeSpans.map((s) => s.scope), [{ name: 'pgbase', version: '1.2.3' }, { name: 'other-scope' }]);
    const root = rs!.scopeSpans[0]!.spans.find((s) => s.name === 'GET /rest/v1/:table')!;
    assert.equal(root.startTimeUnixNano, '1795694400123000000');
    assert.equal(root.endTimeUnixNano, '1795694401000500000');
    assert.equal(root.parentSpanId, 'b7ad6b7169203331');
    assert.equal(root.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(root.traceState, 'vendor=a1,other=b2');
    assert.equal(root.flags, 0x301, 'sampled, with a remote parent');
    const attr = (k: string) => root.attributes.find((a: { key: string }) => a.key === k).value;
    assert.deepEqual(attr('pgbase.unicode'), { stringValue: 'héllo ✓ 日本 🚀' });
    assert.equal(attr('pgbase.long').stringValue.length, 300);
    assert.deepEqual(attr('pgbase.negative'), { intValue: -7 });
    assert.deepEqual(attr('pgbase.big'), { intValue: 2 ** 40 + 3 });
    assert.deepEqual(attr('pgbase.double'), { doubleValue: 1.5 });
    assert.deepEqual(attr('pgbase.numbers'), { arrayValue: { values: [{ intValue: 1 }, { doubleValue: 2.5 }, { intValue: -3 }] } });
    const child = rs!.scopeSpans[0]!.spans.find((s) => s.name === 'select public.items')!;
    assert.equal(child.parentSpanId, root.spanId);
    assert.deepEqual(child.status, { message: '42P01', code: SpanStatusCode.ERROR });
    assert.equal(child.endTimeUnixNano, '1795694400789125000');
  });

  it('writes the JSON body the OpenTelemetry serializer writes', () => {
    const ours = JSON.parse(encodeWith(jsonTraceEncoding(RESOURCE, undefined), spans).toString('utf8'));
    const theirs = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(reference)!).toString('utf8'));
    // OTLP/JSON lets a 64-bit integer be a number or a string: compared as numbers.
    const numbers = (v: unknown): unknown => JSON.parse(JSON.stringify(withoutDefaults(v)), (k, x) => (k === 'intValue' || k.endsWith('UnixNano') ? String(x) : x));
    assert.deepEqual(numbers(ours), numbers(theirs));
  });

  it('takes the sampler\'s decision: an unsampled trace records nothing and is not sent', () => {
    const ended: RecordedSpan[] = [];
    const tracer = new PgbaseTracerProvider(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }), LIMITS, (s) => ended.push(s)).getTracer('pgbase');
    const span = tracer.startSpan('dropped', {}, ROOT_CONTEXT);
    assert.equal(span.isRecording(), false);
    assert.equal(span.spanContext().traceFlags, 0);
    const child = tracer.startSpan('child', {}, trace.setSpan(context.active(), span));
    assert.equal(child.spanContext().traceId, span.spanContext().traceId, 'the trace id still flows to children and outbound calls');
    span.end();
    child.end();
    assert.equal(ended.length, 0);
  });

  it('keeps the span limits: attributes beyond the count are dropped and counted, values cut to the length', () => {
    const ended: RecordedSpan[] = [];
    const tracer = new PgbaseTracerProvider(new AlwaysOnSampler(), { ...LIMITS, attributeCount: 2, attributeValueLength: 3 }, (s) => ended.push(s)).getTracer('pgbase');
    const list = ['xyzw', 1];
    const span = tracer.startSpan('limited', { attributes: { a: 'abcdef', b: list } }, ROOT_CONTEXT);
    span.setAttribute('c', 'dropped').setAttribute('a', 'replaced').setAttribute('__proto__', 'x');
    list.push('changed after');
    span.end();
    span.setAttribute('after', 'end');
    assert.deepEqual(ended[0]!.attributes, { a: 'rep', b: ['xyz', 1] });
    assert.equal(ended[0]!.droppedAttributes, 1);
    assert.equal(Object.getPrototypeOf(ended[0]!.attributes), Object.prototype);
  });
});

describe('the span queue', () => {
  const logs = () => {
    const logged: string[] = [];
    return { logged, log: pino({ level: 'warn' }, new Writable({ write: (c: Buffer, _e, cb) => { logged.push(c.toString()); cb(); } })) };
  };
  // The exporter reads the standard variables when it is made.
  const withEnv = async (vars: Record<string, string>, fn: () => Promise<void>) => {
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    try {
      await fn();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  };

  it('sends a full batch at once, drops what overflows the queue (saying so once) and sends the rest on flush', async () => {
    const receiver = await startOtlpReceiver();
    const { logged, log } = logs();
    try {
      await withEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces` }, async () => {
        const batcher = new SpanBatcher(Promise.resolve(otlpExport('http/protobuf', RESOURCE, undefined)), { maxQueueSize: 5, maxExportBatchSize: 3, scheduledDelayMillis: 60_000, exportTimeoutMillis: 5000 }, log);
        const tracer = new PgbaseTracerProvider(new AlwaysOnSampler(), LIMITS, batcher.add).getTracer('pgbase');
        await new Promise((r) => setImmediate(r));
        for (let i = 1; i <= 7; i++) tracer.startSpan(`span ${i}`, {}, ROOT_CONTEXT).end();
        await batcher.flush();
        assert.deepEqual(receiver.spans.map((s) => s.name), ['span 1', 'span 2', 'span 3', 'span 4', 'span 5'], 'spans 6 and 7 found the queue full');
        assert.equal(receiver.raw.length, 2, 'one request for the full batch, one for the rest');
        assert.ok(receiver.spans.every((s) => s.protocol === 'protobuf' && s.resource['service.name'] === 'pgbase-test'));
        assert.equal(logged.filter((l) => l.includes('span queue is full')).length, 1, 'one warning when the drops begin');
        assert.equal(JSON.parse(logged.find((l) => l.includes('spans were dropped'))!).dropped, 2, 'and how many were lost once the queue frees');
        // The queue frees as batches go: a span now is sent (in a buffer an earlier batch used).
        tracer.startSpan('span 8', {}, ROOT_CONTEXT).end();
        await batcher.flush();
        assert.equal(receiver.spans.at(-1)!.name, 'span 8');
      });
    } finally {
      await receiver.close();
    }
  });

  it('sends the collector its headers (OTEL_EXPORTER_OTLP_TRACES_HEADERS), gzipped when asked; a refusal is a warning, and the next batch goes', async () => {
    const receiver = await startOtlpReceiver();
    const { logged, log } = logs();
    try {
      await withEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-collector-key=k-123', OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip' }, async () => {
        const batcher = new SpanBatcher(Promise.resolve(otlpExport('http/json', RESOURCE, undefined)), { maxQueueSize: 10, maxExportBatchSize: 10, scheduledDelayMillis: 60_000, exportTimeoutMillis: 5000 }, log);
        const tracer = new PgbaseTracerProvider(new AlwaysOnSampler(), LIMITS, batcher.add).getTracer('pgbase');
        receiver.status = 400;
        tracer.startSpan('refused', {}, ROOT_CONTEXT).end();
        await batcher.flush();
        assert.equal(receiver.spans.length, 0);
        assert.equal(logged.filter((l) => l.includes('an export to the collector failed')).length, 1);
        receiver.status = 200;
        tracer.startSpan('accepted', {}, ROOT_CONTEXT).end();
        await batcher.flush();
        assert.deepEqual(receiver.spans.map((s) => [s.name, s.protocol]), [['accepted', 'json']]);
        const last = receiver.raw.at(-1)!;
        assert.equal(last.headers['x-collector-key'], 'k-123');
        assert.equal(last.encoding, 'gzip');
        assert.equal(last.contentType, 'application/json');
      });
    } finally {
      await receiver.close();
    }
  });
});
