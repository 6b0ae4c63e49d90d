// OpenTelemetry traces, off unless the standard OTEL_* variables ask for them.
// Once per process (several platforms in one test process share it): a
// tracer provider with a batch processor and the OTLP/HTTP exporter the
// protocol names, the AsyncLocalStorage context manager and the W3C
// propagator. While it is off nothing is registered: every span helper
// checks `tracing.on` first and calls straight through.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler,
} from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import { patchPgForSpans } from './sql-spans.ts';
import { tracing } from './state.ts';

let provider: TracerProvider | undefined;

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
  if (provider) return;
  const plan = tracingPlan(env);
  if ('off' in plan) {
    log.debug({ reason: plan.off }, 'tracing off');
    return;
  }
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the default name.
  const detected = detectResources({ detectors: [hostDetector, processDetector, envDetector] });
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'pgbase' })).merge(detected);
  const exporter = plan.protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter();
  provider = new TracerProvider({ resource, sampler: plan.sampler, spanProcessors: [new BatchSpanProcessor({ exporter, ...batchOptions(env) })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  patchPgForSpans();
  tracing.captureMessages = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
  tracing.on = true;
  log.info({ protocol: plan.protocol, sampler: plan.samplerName }, 'tracing on: exporting spans over OTLP/HTTP');
}

/** The batch processor's standard variables (OTEL_BSP_*), where given. */
function batchOptions(env: NodeJS.ProcessEnv) {
  const ms = (name: string) => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name}: a positive integer, got ${JSON.stringify(v)}`);
    return n;
  };
  const options = {
    scheduledDelayMillis: ms('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: ms('OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: ms('OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: ms('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<Record<keyof typeof options, number>>;
}

/** Sends what is batched (a platform stopping; the provider stays for others in the process). */
export async function flushTracing(): Promise<void> {
  await provider?.forceFlush().catch(() => undefined);
}
