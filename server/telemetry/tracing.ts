// OpenTelemetry traces, off unless the standard OTEL_* variables ask for them.
// Once per process (several platforms in one test process share it): the
// tracer provider (tracer.ts) with the sampler the variables name, a batch
// queue to the OTLP/HTTP exporter (span-export.ts), the AsyncLocalStorage
// context manager and the W3C propagator. While it is off nothing is registered: every span helper
// checks `tracing.on` first and calls straight through.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import { DEFAULT_BATCH, otlpExport, SpanBatcher, type BatchOptions } from './span-export.ts';
import { patchPgForSpans } from './sql-spans.ts';
import { tracing } from './state.ts';
import { PgbaseTracerProvider, type SpanLimits } from './tracer.ts';

let batcher: SpanBatcher | undefined;

export type TracingPlan = { protocol: 'http/protobuf' | 'http/json'; sampler: Sampler; samplerName: string } | { off: string };

/**
 * What the standard variables ask for. On when an OTLP endpoint is given
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and
 * OTEL_TRACES_EXPORTER is `otlp` (its default); OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none turn it off.
 */
export function tracingPlan(env: NodeJS.ProcessEnv): TracingPlan {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { off: 'OTEL_SDK_DISABLED' };
  const exporters = (env.OTEL_TRACES_EXPORTER || 'otlp').split(',').map((e) => e.trim().toLowerCase());
  if (!exporters.includes('otlp')) return { off: `OTEL_TRACES_EXPORTER=${exporters.join(',')}` };
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return { off: 'no OTLP endpoint' };
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf or http/json (grpc is not supported), got ${JSON.stringify(protocol)}`);
  const samplerName = (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on').trim().toLowerCase();
  return { protocol, sampler: samplerFrom(samplerName, env.OTEL_TRACES_SAMPLER_ARG), samplerName };
}

/** The specification's sampler names (OTEL_TRACES_SAMPLER and its ratio argument). */
function samplerFrom(name: string, arg: string | undefined): Sampler {
  const ratio = () => {
    const r = arg === undefined || arg === '' ? 1 : Number(arg);
    if (!Number.isFinite(r) || r < 0 || r > 1) throw new Error(`OTEL_TRACES_SAMPLER_ARG: a ratio from 0 to 1, got ${JSON.stringify(arg)}`);
    return new TraceIdRatioBasedSampler(r);
  };
  switch (name) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return ratio();
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: ratio() });
    default: throw new Error(`OTEL_TRACES_SAMPLER: always_on, always_off, traceidratio or their parentbased_ forms, got ${JSON.stringify(name)}`);
  }
}

/** Turns tracing on for this process if the environment asks for it (once; later calls only report). */
export function startTracing(env: NodeJS.ProcessEnv, log: Logger): void {
  if (batcher) return;
  const plan = tracingPlan(env);
  if ('off' in plan) {
    log.debug({ reason: plan.off }, 'tracing off');
    return;
  }
  // Every variable is read (and refused, if it must be) before anything is set up.
  const options = batchOptions(env);
  const limits = spanLimits(env);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the default name.
  const detected = detectResources({ detectors: [hostDetector, processDetector, envDetector] });
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'pgbase' })).merge(detected);
  // A detector may still be reading (the host id): the exporter starts once it is done.
  const target = (resource.waitForAsyncAttributes?.() ?? Promise.resolve()).then(() => otlpExport(plan.protocol, resource.attributes, resource.schemaUrl));
  batcher = new SpanBatcher(target, options, log);
  const provider = new PgbaseTracerProvider(plan.sampler, limits, batcher.add);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  patchPgForSpans();
  tracing.captureMessages = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
  tracing.tracer = provider.getTracer('pgbase');
  tracing.on = true;
  log.info({ protocol: plan.protocol, sampler: plan.samplerName }, 'tracing on: exporting spans over OTLP/HTTP');
}

/** A variable that must be a positive integer, where given. */
function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name}: a positive integer, got ${JSON.stringify(v)}`);
  return n;
}

/** The batch processor's standard variables (OTEL_BSP_*); a batch is never larger than the queue. */
function batchOptions(env: NodeJS.ProcessEnv): BatchOptions {
  const maxQueueSize = positive(env, 'OTEL_BSP_MAX_QUEUE_SIZE') ?? DEFAULT_BATCH.maxQueueSize;
  return {
    maxQueueSize,
    maxExportBatchSize: Math.min(positive(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? DEFAULT_BATCH.maxExportBatchSize, maxQueueSize),
    scheduledDelayMillis: positive(env, 'OTEL_BSP_SCHEDULE_DELAY') ?? DEFAULT_BATCH.scheduledDelayMillis,
    exportTimeoutMillis: positive(env, 'OTEL_BSP_EXPORT_TIMEOUT') ?? DEFAULT_BATCH.exportTimeoutMillis,
  };
}

/** The span limits' standard variables: the span's own, else the general attribute ones, else 128 and no length limit. */
function spanLimits(env: NodeJS.ProcessEnv): SpanLimits {
  const first = (...names: string[]) => names.map((n) => positive(env, n)).find((v) => v !== undefined);
  return {
    attributeCount: first('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT') ?? 128,
    attributeValueLength: first('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? Infinity,
    eventCount: first('OTEL_SPAN_EVENT_COUNT_LIMIT') ?? 128,
    linkCount: first('OTEL_SPAN_LINK_COUNT_LIMIT') ?? 128,
  };
}

/** Sends what is batched (a platform stopping; the provider stays for others in the process). */
export async function flushTracing(): Promise<void> {
  await batcher?.flush().catch(() => undefined);
}
