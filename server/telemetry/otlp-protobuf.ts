// OTLP/HTTP's protobuf body for a batch of spans
// (opentelemetry-proto, trace/v1 ExportTraceServiceRequest), written with
// the wire primitives of protobuf-writer.ts: ids as bytes from their hex,
// times as fixed64 nanoseconds, attributes as KeyValue/AnyValue. Field
// numbers are the proto's; each message below names its fields.
import { SpanStatusCode, type Attributes, type AttributeValue } from '@opentelemetry/api';
import { LEN, varintSize, Writer } from './protobuf-writer.ts';
import type { RecordedSpan, Scope, SpanEvent, SpanLink, TraceEncoding } from './tracer.ts';

// AnyValue: 1 string, 2 bool, 3 int64, 4 double, 5 ArrayValue (1 values).
function anyValue(w: Writer, field: number, v: AttributeValue | null | undefined): void {
  const at = w.open(field);
  if (typeof v === 'string') w.string(1, v);
  else if (typeof v === 'boolean') w.uint(2, v ? 1 : 0);
  else if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) w.uint(3, v);
    else w.double(4, v);
  } else if (Array.isArray(v)) {
    const array = w.open(5);
    for (const e of v) anyValue(w, 1, e);
    w.close(array);
  }
  w.close(at);
}

// KeyValue: 1 key, 2 value.
function attributes(w: Writer, field: number, attrs: Attributes): void {
  for (const key in attrs) {
    const value = attrs[key];
    if (value === undefined) continue;
    const at = w.open(field);
    w.string(1, key);
    anyValue(w, 2, value);
    w.close(at);
  }
}

// Event: 1 time_unix_nano, 2 name, 3 attributes, 4 dropped_attributes_count.
function event(w: Writer, e: SpanEvent): void {
  const at = w.open(11);
  w.nanos(1, e.time);
  w.string(2, e.name);
  attributes(w, 3, e.attributes);
  if (e.dropped) w.uint(4, e.dropped);
  w.close(at);
}

// Link: 1 trace_id, 2 span_id, 3 trace_state, 4 attributes, 5 dropped_attributes_count, 6 flags.
function link(w: Writer, l: SpanLink): void {
  const at = w.open(13);
  w.hexBytes(1, l.traceId);
  w.hexBytes(2, l.spanId);
  if (l.traceState) w.string(3, l.traceState);
  attributes(w, 4, l.attributes);
  if (l.dropped) w.uint(5, l.dropped);
  w.fixed32(6, (l.traceFlags & 0xff) | 0x100 | (l.remote ? 0x200 : 0));
  w.close(at);
}

// Span: 1 trace_id, 2 span_id, 3 trace_state, 4 parent_span_id, 5 name, 6 kind (the API's + 1),
// 7 start, 8 end, 9 attributes, 10 dropped attributes, 11 events, 12 dropped events, 13 links,
// 14 dropped links, 15 status (2 message, 3 code), 16 flags (trace flags, 0x100: the parent's
// remoteness is known, 0x200: it is remote).
function span(w: Writer, s: RecordedSpan): void {
  const at = w.open(2);
  w.hexBytes(1, s.traceId);
  w.hexBytes(2, s.spanId);
  const state = s.traceState?.serialize();
  if (state) w.string(3, state);
  if (s.parentSpanId) w.hexBytes(4, s.parentSpanId);
  w.string(5, s.name);
  w.uint(6, s.kind + 1);
  w.nanos(7, s.start);
  w.nanos(8, s.end_);
  attributes(w, 9, s.attributes);
  if (s.droppedAttributes) w.uint(10, s.droppedAttributes);
  if (s.events) for (const e of s.events) event(w, e);
  if (s.droppedEvents) w.uint(12, s.droppedEvents);
  if (s.links) for (const l of s.links) link(w, l);
  if (s.droppedLinks) w.uint(14, s.droppedLinks);
  const status = w.open(15);
  if (s.status.code === SpanStatusCode.ERROR && s.status.message) w.string(2, s.status.message);
  if (s.status.code !== SpanStatusCode.UNSET) w.uint(3, s.status.code);
  w.close(status);
  w.fixed32(16, (s.traceFlags & 0xff) | 0x100 | (s.parentRemote ? 0x200 : 0));
  w.close(at);
}

/** What `write` writes, as bytes of their own. */
function bytesOf(write: (w: Writer) => void): Uint8Array {
  const w = new Writer(256);
  write(w);
  return w.buf.subarray(0, w.pos);
}

/**
 * Spans encoded as they end, so a batch holds bytes rather than span
 * objects: ExportTraceServiceRequest (1 resource_spans) with one
 * ResourceSpans (1 resource, 2 scope_spans, 3 schema_url) holding a
 * ScopeSpans (1 scope, 2 spans) per instrumentation scope.
 */
export function protobufTraceEncoding(resourceAttributes: Attributes, schemaUrl: string | undefined): TraceEncoding {
  // Resource: 1 attributes. InstrumentationScope: 1 name, 2 version.
  const resource = bytesOf((w) => {
    const at = w.open(1);
    attributes(w, 1, resourceAttributes);
    w.close(at);
  });
  const schema = schemaUrl ? bytesOf((w) => w.string(3, schemaUrl)) : new Uint8Array(0);
  const scopeHeader = (scope: Scope) => bytesOf((w) => {
    const at = w.open(1);
    w.string(1, scope.name);
    if (scope.version) w.string(2, scope.version);
    w.close(at);
  });
  // Buffers whose batch has been sent, for the next ones: a batch is ~128 KiB, and allocating that
  // afresh a few times a second weighs on the collector of external memory.
  const spare: Buffer[] = [];
  // The request's and the scope's headers, written in front of a scope's spans once their length is known.
  const reserve = resource.length + 64;
  const headers = (scopes: Array<[Scope, Writer]>) => {
    const w = new Writer(reserve + 64);
    const sizes = scopes.map(([scope, spans]) => ({ header: scopeHeader(scope), length: spans.pos - reserve }));
    const inner = resource.length + schema.length + sizes.reduce((n, s) => n + 1 + varintSize(s.header.length + s.length) + s.header.length + s.length, 0);
    w.tag(1, LEN);
    w.varint(inner);
    w.raw(resource);
    return { w, sizes };
  };
  return {
    batch(expected) {
      const scopes = new Map<Scope, Writer>();
      return {
        count: 0,
        add(s) {
          let w = scopes.get(s.scope);
          if (!w) scopes.set(s.scope, (w = new Writer(expected * 256, reserve, spare.pop())));
          span(w, s);
          this.count++;
        },
        release() {
          for (const w of scopes.values()) if (spare.length < 2) spare.push(w.buf);
          scopes.clear();
        },
        finish() {
          const list = [...scopes];
          const { w: head, sizes } = headers(list);
          const scopeSpans = (w: Writer, i: number) => {
            w.tag(2, LEN);
            w.varint(sizes[i]!.header.length + sizes[i]!.length);
            w.raw(sizes[i]!.header);
          };
          if (list.length === 1) {
            // One scope (the usual case): the headers go in the room kept in front of its spans; no copy.
            const [[, spans]] = list as [[Scope, Writer]];
            scopeSpans(head, 0);
            if (head.pos <= reserve) {
              const from = reserve - head.pos;
              spans.buf.set(head.buf.subarray(0, head.pos), from);
              spans.raw(schema);
              return spans.buf.subarray(from, spans.pos);
            }
            head.raw(spans.buf.subarray(reserve, spans.pos));
          } else {
            list.forEach(([, spans], i) => {
              scopeSpans(head, i);
              head.raw(spans.buf.subarray(reserve, spans.pos));
            });
          }
          head.raw(schema);
          return head.buf.subarray(0, head.pos);
        },
      };
    },
  };
}
