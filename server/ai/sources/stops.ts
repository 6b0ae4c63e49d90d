// The extraction runs this process carries, stopped the moment their source
// is cancelled, queued again or deleted: SQL says so after commit on NOTIFY
// ai_extraction_stop '<source id>:<run>' (sql/0097), and the run's signal
// aborts its parser thread (runtime/extraction/pool.ts). After the listening
// connection comes back, every run carried here is checked, as a notice may
// have been missed meanwhile.
import type { Logger } from 'pino';
import { listenChannel } from '../../../db/listener.ts';
import type { AiCalls } from '../calls.ts';

export type ExtractionStops = {
  /** The signal that aborts when this run must stop; release it when the run ends. */
  watch: (sourceId: string, run: number) => { signal: AbortSignal; release: () => void };
  stop: () => Promise<void>;
};

export function extractionStops(opts: { calls: AiCalls; adminUrl: string; log: Logger }): ExtractionStops {
  const running = new Map<string, AbortController>();
  const listener = listenChannel({
    url: opts.adminUrl, channel: 'ai_extraction_stop', name: 'extraction-stops', log: opts.log,
    onNotify: (key) => running.get(key)?.abort(),
    onListening: async (again) => {
      if (!again || running.size === 0) return;
      const keys = [...running.keys()];
      const still = new Set((await opts.calls.asService<{ key: string }>(
        `select id::text || ':' || extraction_run::text as key from ai.sources where extraction_status = 'extracting' and id::text || ':' || extraction_run::text = any($1)`, [keys])).map((r) => r.key));
      for (const key of keys) if (!still.has(key)) running.get(key)?.abort();
    },
  });
  return {
    watch: (sourceId, run) => {
      const key = `${sourceId}:${run}`;
      const controller = new AbortController();
      running.set(key, controller);
      return { signal: controller.signal, release: () => void (running.get(key) === controller && running.delete(key)) };
    },
    stop: () => listener.stop(),
  };
}
