// OTLP/HTTP's JSON body for a batch of spans (OTEL_EXPORTER_OTLP_PROTOCOL=
// http/json): the protobuf messages in their JSON mapping, as OTLP asks
// (ids in hex, not base64; nanoseconds as decimal strings; kind and status
// code as integers).
import { SpanStatusCode, type Attributes, type AttributeValue } from '@opentelemetry/api';
import type { RecordedSpan, Scope, TraceEncoding } from './tracer.ts';

type AnyValue = { stringValue: string } | { boolValue: boolean } | { intValue: number } | { doubleValue: number } | { arrayValue: { values: AnyValue[] } } | Record<string, never>;

function anyValue(v: AttributeValue | null | undefined): AnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isSafeInteger(v) ? { intValue: v } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: (v as Array<AttributeValue | null | undefined>).map(anyValue) } };
  return {};
}

const keyValues = (attrs: Attributes) => Object.entries(attrs).filter(([, v]) => v !== undefined).map(([key, v]) => ({ key, value: anyValue(v) }));

/** Milliseconds since the epoch as a decimal string of nanoseconds. */
const nanos = (ms: number) => String(BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.round((ms - Math.floor(ms)) * 1e6)));

function span(s: RecordedSpan) {
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    ...(s.traceState ? { traceState: s.traceState.serialize() } : {}),
    ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
    flags: (s.traceFlags & 0xff) | 0x100 | (s.parentRemote ? 0x200 : 0),
    name: s.name,
    kind: s.kind + 1,
    startTimeUnixNano: nanos(s.start),
    endTimeUnixNano: nanos(s.end_),
    attributes: keyValues(s.attributes),
    droppedAttributesCount: s.droppedAttributes,
    events: (s.events ?? []).map((e) => ({ timeUnixNano: nanos(e.time), name: e.name, attributes: keyValues(e.attributes), droppedAttributesCount: e.dropped })),
    droppedEventsCount: s.droppedEvents,
    links: (s.links ?? []).map((l) => ({
      traceId: l.traceId, spanId: l.spanId, ...(l.traceState ? { traceState: l.traceState } : {}), attributes: keyValues(l.attributes), droppedAttributesCount: l.dropped, flags: (l.traceFlags & 0xff) | 0x100 | (l.remote ? 0x200 : 0),
    })),
    droppedLinksCount: s.droppedLinks,
    status: s.status.code === SpanStatusCode.ERROR && s.status.message ? { code: s.status.code, message: s.status.message } : { code: s.status.code },
  };
}

/** Spans written out as they end, a batch holding their JSON text by scope. */
export function jsonTraceEncoding(resourceAttributes: Attributes, schemaUrl: string | undefined): TraceEncoding {
  const resource = JSON.stringify({ attributes: keyValues(resourceAttributes), droppedAttributesCount: 0 });
  const encoder = new TextEncoder();
  return {
    batch() {
      const scopes = new Map<Scope, string[]>();
      return {
        count: 0,
        add(s) {
          let list = scopes.get(s.scope);
          if (!list) scopes.set(s.scope, (list = []));
          list.push(JSON.stringify(span(s)));
          this.count++;
        },
        finish() {
          const scopeSpans = [...scopes].map(([scope, list]) => `{"scope":${JSON.stringify(scope)},"spans":[${list.join(',')}]}`);
          return encoder.encode(`{"resourceSpans":[{"resource":${resource},"scopeSpans":[${scopeSpans.join(',')}]${schemaUrl ? `,"schemaUrl":${JSON.stringify(schemaUrl)}` : ''}}]}`);
        },
      };
    },
  };
}
