// The tracer behind every pgbase span: the OpenTelemetry API's Tracer and
// Span, sampled by the SDK's samplers, each span one plain record that the
// batch exporter encodes as it ends. Why not the SDK's span: on a single-row
// GET (bench:rest) the SDK's span objects and its OTLP transformer cost about
// 25 µs of a 100 µs request; this record and the encoder beside it
// (otlp-protobuf.ts) do the same in under half (bench/RESULTS.md, "Tracing").
import {
  context, INVALID_SPAN_CONTEXT, isSpanContextValid, SpanKind, SpanStatusCode, trace, TraceFlags,
  type Attributes, type AttributeValue, type Context, type Exception, type HrTime, type Link, type Span, type SpanContext,
  type SpanOptions, type SpanStatus, type TimeInput, type Tracer, type TracerProvider, type TraceState,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import { SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace';
import { randomFillSync } from 'node:crypto';

/** The span limits the standard variables set (OTEL_SPAN_*_LIMIT, OTEL_ATTRIBUTE_*_LIMIT). */
export type SpanLimits = { attributeCount: number; attributeValueLength: number; eventCount: number; linkCount: number };

export type Scope = { name: string; version?: string };
export type SpanEvent = { name: string; time: number; attributes: Attributes; dropped: number };
export type SpanLink = { traceId: string; spanId: string; traceState?: string; traceFlags: number; remote: boolean; attributes: Attributes; dropped: number };

/** Where an ended, sampled span goes (the batch exporter). */
export type SpanSink = (span: RecordedSpan) => void;
/** Spans being encoded into one export request (otlp-protobuf.ts, otlp-json.ts); released once sent, its memory may serve the next. */
export type SpanBatch = { count: number; add(span: RecordedSpan): void; finish(): Uint8Array; release?(): void };
/** A protocol's encoding: a new batch, sized for `expected` spans. */
export type TraceEncoding = { batch(expected: number): SpanBatch };

// Milliseconds since the epoch, to a fraction of a microsecond.
const origin = performance.timeOrigin;
const now = () => origin + performance.now();

function millis(t: TimeInput | undefined): number {
  if (t === undefined) return now();
  if (typeof t === 'number') return t <= performance.now() ? origin + t : t;
  if (t instanceof Date) return t.getTime();
  return (t as HrTime)[0] * 1e3 + (t as HrTime)[1] / 1e6;
}

// Ids from a pool of random bytes, refilled 4 KiB at a time.
let pool = Buffer.alloc(0);
let taken = 0;
function randomHex(bytes: number): string {
  if (taken + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(4096));
    taken = 0;
  }
  const hex = pool.toString('hex', taken, (taken += bytes));
  // An all-zero id is invalid; one in 2^64 draws.
  return /[^0]/.test(hex) ? hex : randomHex(bytes);
}

const isPrimitive = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const validValue = (v: unknown): v is AttributeValue => isPrimitive(v) || (Array.isArray(v) && v.every((e) => e == null || isPrimitive(e)));

/** Adds `value` under `key` within the limits: 1 when the key is new, 0 when replaced or ignored, -1 when dropped. */
function addAttribute(into: Attributes, count: number, key: string, value: unknown, limits: SpanLimits): number {
  // `__proto__` would set the record's prototype rather than an attribute.
  if (!key || key === '__proto__' || value == null || !validValue(value)) return 0;
  const added = key in into ? 0 : 1;
  if (added && count >= limits.attributeCount) return -1;
  const max = limits.attributeValueLength;
  // An array is copied: the caller may change it after the call.
  into[key] = typeof value === 'string' ? (max === Infinity ? value : value.slice(0, max))
    : Array.isArray(value) ? value.map((e) => (typeof e === 'string' && max !== Infinity ? e.slice(0, max) : e)) as AttributeValue : value;
  return added;
}

function limitedAttributes(attributes: Attributes | undefined, limits: SpanLimits): { attributes: Attributes; dropped: number } {
  const out: Attributes = {};
  let count = 0;
  let dropped = 0;
  for (const key in attributes) {
    const added = addAttribute(out, count, key, attributes[key], limits);
    if (added < 0) dropped++;
    else count += added;
  }
  return { attributes: out, dropped };
}

/** A recording span, and the record the exporter encodes once it ends. */
export class RecordedSpan implements Span {
  attributes: Attributes = {};
  droppedAttributes = 0;
  events: SpanEvent[] | undefined;
  droppedEvents = 0;
  links: SpanLink[] | undefined;
  droppedLinks = 0;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  /** Milliseconds since the epoch; 0 while the span runs. */
  end_ = 0;
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly traceState: TraceState | undefined;
  readonly parentSpanId: string | undefined;
  /** The parent came from another process (a `traceparent` received or stored). */
  readonly parentRemote: boolean;
  name: string;
  readonly kind: SpanKind;
  /** Milliseconds since the epoch. */
  readonly start: number;
  readonly scope: Scope;
  private count = 0;
  private readonly limits: SpanLimits;
  private readonly sink: SpanSink;
  private readonly context_: SpanContext;

  constructor(init: {
    traceId: string; spanId: string; traceFlags: number; traceState: TraceState | undefined; parent: SpanContext | undefined;
    name: string; kind: SpanKind; start: number; scope: Scope; limits: SpanLimits; sink: SpanSink;
  }) {
    this.traceId = init.traceId;
    this.spanId = init.spanId;
    this.traceFlags = init.traceFlags;
    this.traceState = init.traceState;
    this.parentSpanId = init.parent?.spanId;
    this.parentRemote = init.parent?.isRemote === true;
    this.name = init.name;
    this.kind = init.kind;
    this.start = init.start;
    this.scope = init.scope;
    this.limits = init.limits;
    this.sink = init.sink;
    this.context_ = init.traceState ? { traceId: init.traceId, spanId: init.spanId, traceFlags: init.traceFlags, traceState: init.traceState } : { traceId: init.traceId, spanId: init.spanId, traceFlags: init.traceFlags };
  }

  spanContext(): SpanContext {
    return this.context_;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (this.end_) return this;
    const added = addAttribute(this.attributes, this.count, key, value, this.limits);
    if (added < 0) this.droppedAttributes++;
    else this.count += added;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.end_) return this;
    const given = attributesOrTime !== undefined && (typeof attributesOrTime === 'number' || Array.isArray(attributesOrTime) || attributesOrTime instanceof Date);
    const events = (this.events ??= []);
    if (events.length >= this.limits.eventCount) {
      this.droppedEvents++;
      return this;
    }
    const { attributes, dropped } = limitedAttributes(given ? undefined : (attributesOrTime as Attributes | undefined), this.limits);
    events.push({ name, time: millis(given ? (attributesOrTime as TimeInput) : time), attributes, dropped });
    return this;
  }

  addLink(link: Link): this {
    if (this.end_) return this;
    const links = (this.links ??= []);
    if (links.length >= this.limits.linkCount) {
      this.droppedLinks++;
      return this;
    }
    const { attributes, dropped } = limitedAttributes(link.attributes, this.limits);
    const c = link.context;
    const traceState = c.traceState?.serialize();
    links.push({ traceId: c.traceId, spanId: c.spanId, ...(traceState ? { traceState } : {}), traceFlags: c.traceFlags, remote: c.isRemote === true, attributes, dropped });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  /** As the specification says: UNSET is ignored, OK is final, a message only with ERROR. */
  setStatus(status: SpanStatus): this {
    if (this.end_ || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status = status.code === SpanStatusCode.ERROR && typeof status.message === 'string' ? { code: status.code, message: status.message } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.end_) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.end_) return;
    this.end_ = Math.max(millis(endTime), this.start);
    if (this.traceFlags & TraceFlags.SAMPLED) this.sink(this);
  }

  isRecording(): boolean {
    return this.end_ === 0;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      const type = exception.code ?? exception.name;
      if (type !== undefined) attributes['exception.type'] = String(type);
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    this.addEvent('exception', attributes, time);
  }
}

class PgbaseTracer implements Tracer {
  private readonly provider: PgbaseTracerProvider;
  private readonly scope: Scope;

  constructor(provider: PgbaseTracerProvider, scope: Scope) {
    this.provider = provider;
    this.scope = scope;
  }

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    if (isTracingSuppressed(ctx)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentSpan = options.root ? undefined : trace.getSpan(ctx);
    // A parent recorded here is valid by construction; one received is checked.
    const parent = parentSpan instanceof RecordedSpan ? parentSpan.spanContext() : parentSpan?.spanContext();
    const hasParent = parent !== undefined && (parentSpan instanceof RecordedSpan || isSpanContextValid(parent));
    const traceId = hasParent ? parent.traceId : randomHex(16);
    const spanId = randomHex(8);
    const kind = options.kind ?? SpanKind.INTERNAL;
    const p = this.provider;
    const sampling = p.sampler.shouldSample(hasParent || !options.root ? ctx : trace.deleteSpan(ctx), traceId, name, kind, options.attributes ?? {}, options.links ?? []);
    const traceState = sampling.traceState ?? (hasParent ? parent.traceState : undefined);
    const traceFlags = sampling.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
    if (sampling.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(traceState ? { traceId, spanId, traceFlags, traceState } : { traceId, spanId, traceFlags });
    const span = new RecordedSpan({
      traceId, spanId, traceFlags, traceState, parent: hasParent ? parent : undefined, name, kind, start: millis(options.startTime), scope: this.scope, limits: p.limits, sink: p.sink,
    });
    if (options.attributes) span.setAttributes(options.attributes);
    if (sampling.attributes) span.setAttributes(sampling.attributes);
    if (options.links) span.addLinks(options.links);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...args: unknown[]): ReturnType<F> {
    const fn = args[args.length - 1] as F;
    const options = (args.length > 1 ? args[0] : undefined) as SpanOptions | undefined;
    const ctx = (args.length > 2 ? args[1] : undefined) as Context | undefined ?? context.active();
    const span = this.startSpan(name, options, ctx);
    return context.with(trace.setSpan(ctx, span), () => fn(span)) as ReturnType<F>;
  }
}

/** One per process: the tracers by scope, the sampler, the limits and where ended spans go. */
export class PgbaseTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, PgbaseTracer>();
  readonly sampler: Sampler;
  readonly limits: SpanLimits;
  readonly sink: SpanSink;

  constructor(sampler: Sampler, limits: SpanLimits, sink: SpanSink) {
    this.sampler = sampler;
    this.limits = limits;
    this.sink = sink;
  }

  getTracer(name: string, version?: string): Tracer {
    const key = `${name}@${version ?? ''}`;
    let tracer = this.tracers.get(key);
    if (!tracer) this.tracers.set(key, (tracer = new PgbaseTracer(this, version ? { name, version } : { name })));
    return tracer;
  }
}
