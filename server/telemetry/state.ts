// Whether this process traces, read by every span helper before it does
// anything (telemetry/tracing.ts sets it once, at start).
import type { Tracer } from '@opentelemetry/api';

export const tracing: { on: boolean; tracer: Tracer | undefined; captureMessages: boolean } = {
  /** False until startTracing turns tracing on. */
  on: false,
  /** pgbase's tracer, once tracing is on (fetched once: the API's lookup costs every span). */
  tracer: undefined,
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: model messages, tool arguments and results go into spans. */
  captureMessages: false,
};
