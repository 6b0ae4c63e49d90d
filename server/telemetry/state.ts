// Whether this process traces, read by every span helper before it does
// anything (telemetry/tracing.ts sets it once, at start).
export const tracing = {
  /** False until startTracing turns tracing on. */
  on: false,
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: model messages, tool arguments and results go into spans. */
  captureMessages: false,
};
