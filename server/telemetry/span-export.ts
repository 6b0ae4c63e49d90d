// Ended spans on their way to the collector. Each span is encoded as it ends
// (so no span object outlives its request and reaches the old generation of
// the heap) into the open batch; a batch is sent when it holds
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans or OTEL_BSP_SCHEDULE_DELAY has passed,
// one at a time, and spans beyond OTEL_BSP_MAX_QUEUE_SIZE waiting are
// dropped: the batch span processor's rules. Sending goes through the
// OpenTelemetry OTLP/HTTP exporter's transport (its endpoint, headers,
// compression, timeout and retry variables).
import type { Attributes } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import type { Logger } from 'pino';
import { jsonTraceEncoding } from './otlp-json.ts';
import { protobufTraceEncoding } from './otlp-protobuf.ts';
import type { RecordedSpan, SpanBatch, TraceEncoding } from './tracer.ts';

export type BatchOptions = { maxQueueSize: number; maxExportBatchSize: number; scheduledDelayMillis: number; exportTimeoutMillis: number };
export const DEFAULT_BATCH: BatchOptions = { maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 5000, exportTimeoutMillis: 30000 };

type Sealed = { count: number; body: Uint8Array; release?: () => void };
type Exporter = { export(batch: Sealed, done: (result: ExportResult) => void): void; forceFlush(): Promise<void> };
export type SpanExport = { encoding: TraceEncoding; exporter: Exporter };

/** The encoding and OTLP/HTTP exporter for `protocol`, configured by the OTEL_EXPORTER_OTLP_* variables. */
export function otlpExport(protocol: 'http/protobuf' | 'http/json', resource: Attributes, schemaUrl: string | undefined): SpanExport {
  const json = protocol === 'http/json';
  const options = convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': json ? 'application/json' : 'application/x-protobuf' });
  // The collector's answer (a partial success) is not read: a refusal is already a failed status.
  const serializer = { serializeRequest: (batch: Sealed) => batch.body, deserializeResponse: () => ({}) };
  const counting = { name: 'span' as const, countItems: (batch: Sealed) => batch.count };
  return {
    encoding: json ? jsonTraceEncoding(resource, schemaUrl) : protobufTraceEncoding(resource, schemaUrl),
    exporter: new OTLPExporterBase(createOtlpHttpExportDelegate(options, serializer, 'otlp_http_span_exporter', counting, undefined)),
  };
}

/** The queue between ending spans and the exporter. */
export class SpanBatcher {
  private readonly target: Promise<SpanExport>;
  private readonly options: BatchOptions;
  private readonly log: Logger;
  /** Spans that end before the exporter is ready (a resource detector still reading). */
  private early: RecordedSpan[] = [];
  private encoding: TraceEncoding | undefined;
  private open: SpanBatch | undefined;
  private readonly sealed: Sealed[] = [];
  private waiting = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private dropped = 0;
  private failures = 0;

  constructor(target: Promise<SpanExport>, options: BatchOptions, log: Logger) {
    this.target = target;
    this.options = options;
    this.log = log;
    void target.then(({ encoding }) => {
      this.encoding = encoding;
      const early = this.early;
      this.early = [];
      for (const span of early) this.encode(span);
    }, (err: Error) => log.warn({ err: err.message }, 'tracing: the exporter could not start; spans are dropped'));
  }

  readonly add = (span: RecordedSpan): void => {
    if (this.waiting >= this.options.maxQueueSize) {
      if (this.dropped++ === 0) this.log.warn({ max_queue_size: this.options.maxQueueSize }, 'tracing: the span queue is full; spans are dropped until the exporter catches up');
      return;
    }
    this.waiting++;
    if (this.encoding) this.encode(span);
    else this.early.push(span);
  };

  private encode(span: RecordedSpan): void {
    const batch = (this.open ??= this.encoding!.batch(this.options.maxExportBatchSize));
    batch.add(span);
    if (batch.count >= this.options.maxExportBatchSize) void this.send();
    else this.timer ??= setTimeout(() => void this.send(), this.options.scheduledDelayMillis).unref();
  }

  /** Sends what is waiting (a platform stopping) and waits for it. */
  async flush(): Promise<void> {
    // Spans that ended before the exporter was ready are encoded as it becomes ready (the constructor's turn comes first).
    const target = await this.target.catch(() => undefined);
    while (this.sending || this.sealed.length || this.open?.count) await this.send();
    await target?.exporter.forceFlush().catch(() => undefined);
  }

  /** Seals the open batch and sends every sealed one, in order, one at a time. */
  private send(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.open?.count) {
      const open = this.open;
      this.sealed.push({ count: open.count, body: open.finish(), release: () => open.release?.() });
      this.open = undefined;
    }
    this.sending ??= this.drain().finally(() => {
      this.sending = undefined;
      // Spans that ended while the last batch was out wait for their batch to fill or the timer.
      if (this.sealed.length) void this.send();
      else if (this.open?.count) this.timer ??= setTimeout(() => void this.send(), this.options.scheduledDelayMillis).unref();
    });
    return this.sending;
  }

  private async drain(): Promise<void> {
    const target = await this.target.catch(() => undefined);
    if (!target) {
      this.sealed.length = 0;
      this.waiting = 0;
      return;
    }
    const { exporter } = target;
    for (let batch = this.sealed.shift(); batch; batch = this.sealed.shift()) {
      await this.exportOne(exporter, batch);
      this.waiting -= batch.count;
      // The end of a spell of drops: how many were lost (the first drop of the next spell warns again).
      if (this.dropped && this.waiting < this.options.maxQueueSize) {
        this.log.warn({ dropped: this.dropped }, 'tracing: spans were dropped while the queue was full');
        this.dropped = 0;
      }
    }
  }

  private exportOne(exporter: Exporter, batch: Sealed): Promise<void> {
    return new Promise<void>((resolve) => {
      const timeout = setTimeout(resolve, this.options.exportTimeoutMillis).unref();
      try {
        exporter.export(batch, (result) => {
          clearTimeout(timeout);
          // Only now is the body no longer read (a timeout above may come first: then it is not reused).
          batch.release?.();
          if (result.code !== ExportResultCode.SUCCESS && this.failures++ % 100 === 0) {
            this.log.warn({ spans: batch.count, failures: this.failures, err: result.error?.message }, 'tracing: an export to the collector failed');
          }
          resolve();
        });
      } catch (err) {
        clearTimeout(timeout);
        this.log.warn({ err: (err as Error).message }, 'tracing: a batch could not be exported');
        resolve();
      }
    });
  }
}
