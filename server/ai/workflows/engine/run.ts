// The scheduler: runs a graph from its trigger block along its edges. A
// block runs once every block before it has settled; independent branches
// run at once. A branching block may take only some of its edges: the
// blocks only those edges lead to are skipped, not failed. A block may
// retry ({retry: {max, backoff_ms}}) and may fail softly ({on_error:
// "continue"}: the error becomes its output). A block that owns its
// downstream (split) runs that part of the graph itself through runPath;
// each item's end is logged (block_type split_item, its place as path), so
// a resumed split runs only the items that had not finished. A block that
// parks (a wait, an approval in its child run) stops the run starting
// blocks; those in flight settle, then the run parks (Parked) and is taken
// up again from its settled blocks.
// Every block's resolved input, output, error and timings are logged; every
// step is reported as a RunEvent. The type string only reaches the registry.
import { BLOCK_HANDLERS, TRIGGERS } from './registry.ts';
import { blockIndex, resolveConfig } from './references.ts';
import { type Block, type EngineServices, type Graph, type RunEvent } from './types.ts';
import { Failure, HandedOver, Parked } from '../../failures.ts';
import { failSpan, inSpan, type Span } from '../../../telemetry/spans.ts';

export type BlockLog = {
  block_id: string; block_type: string; status: 'succeeded' | 'failed' | 'skipped'; input: unknown; output: unknown; error: string | null;
  attempts: number; logs: string[]; started_at: Date; finished_at: Date;
  /** The targets a branching block took (null: all); where it ran ('' at the top, '<split>[i]/' in a split's item). */
  taken: string[] | null; path: string;
};

/** A block a resumed run had already settled at the top level (its log): not run again. */
export type SettledBlock = Pick<BlockLog, 'block_id' | 'status' | 'output' | 'error' | 'taken'>;

export type RunOptions = {
  graph: Graph;
  variables: Record<string, unknown>;
  trigger: keyof typeof TRIGGERS;
  services: EngineServices;
  signal: AbortSignal;
  emit: (event: RunEvent) => void;
  record: (log: BlockLog) => Promise<void>;
  /** A resumed run: the top-level blocks its dead process had settled, in the order they settled. */
  settled?: SettledBlock[];
  /** A resumed run: the split items that had finished, by their place (`split[3]`), with what each ended with. */
  items?: ReadonlyMap<string, unknown>;
  /** Whether an abort is the server's stop handing the run over (then a block cut off is not logged). */
  handedOver?: () => boolean;
};

// A run that failed throws Failure (failures.ts) with the block at fault in its detail.

type State = 'pending' | 'running' | 'done' | 'skipped';

export async function runGraph(opts: RunOptions): Promise<unknown> {
  const { graph, signal } = opts;
  const byId = new Map(graph.blocks.map((b) => [b.id, b]));
  const index = blockIndex(graph.blocks);
  const outgoing = new Map<string, string[]>(graph.blocks.map((b) => [b.id, []]));
  const incoming = new Map<string, string[]>(graph.blocks.map((b) => [b.id, []]));
  for (const e of graph.edges) {
    outgoing.get(e.source)?.push(e.target);
    incoming.get(e.target)?.push(e.source);
  }
  const descendants = (starts: string[]): Set<string> => {
    const seen = new Set<string>();
    const stack = [...starts];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...(outgoing.get(id) ?? []));
    }
    return seen;
  };

  const triggerType = TRIGGERS[opts.trigger];
  const start = graph.blocks.find((b) => b.type === triggerType) ?? graph.blocks.find((b) => b.type === 'starter');
  if (!start) throw new Failure(`The workflow has no ${triggerType} block to start from`);

  /**
   * Runs the blocks of `scope`, beginning with `starts`, on top of the
   * outputs known so far; answers the outputs of what ran, in completion order.
   */
  const execute = async (scope: Set<string>, starts: string[], known: Map<string, unknown>, path = ''): Promise<{ outputs: Map<string, unknown>; finished: string[] }> => {
    const outputs = new Map(known);
    const state = new Map<string, State>([...scope].map((id) => [id, 'pending']));
    const taken = new Map<string, Set<string> | null>(); // a settled block's chosen targets (null: all)
    const finished: string[] = [];
    const inFlight = new Set<Promise<void>>();
    let failure: Error | undefined;
    let parked: Parked | undefined;

    /** Whether the edge from `source` to `target` carries the run (sources outside the scope always do). */
    const carries = (source: string, target: string) => {
      if (!scope.has(source)) return true;
      if (state.get(source) !== 'done') return false;
      const chosen = taken.get(source);
      return chosen === null || chosen === undefined || chosen.has(target);
    };
    const settled = (id: string) => !scope.has(id) || state.get(id) === 'done' || state.get(id) === 'skipped';

    const readyOrSkipped = (id: string): 'ready' | 'skip' | 'wait' => {
      if (starts.includes(id) && state.get(id) === 'pending') return 'ready';
      const before = (incoming.get(id) ?? []).filter((s) => scope.has(s) || starts.includes(id));
      if (before.length === 0) return 'wait';
      if (!before.every(settled)) return 'wait';
      return before.some((s) => carries(s, id)) ? 'ready' : 'skip';
    };

    const skip = async (id: string) => {
      state.set(id, 'skipped');
      const block = byId.get(id)!;
      const now = new Date();
      await opts.record({ block_id: id, block_type: block.type, status: 'skipped', input: null, output: null, error: null, attempts: 0, logs: [], started_at: now, finished_at: now, taken: null, path });
      opts.emit({ type: 'block_skipped', block_id: id, block_type: block.type });
    };

    /** A block in its span (`block {id}`), which a failure marks failed. */
    const runBlock = (block: Block) => inSpan(`block ${block.id}`, {
      attributes: { 'pgbase.block.id': block.id, 'pgbase.block.type': block.type, ...(path ? { 'pgbase.block.path': path } : {}) },
    }, (span) => runBlockIn(block, span));

    const runBlockIn = async (block: Block, span: Span | undefined) => {
      state.set(block.id, 'running');
      const handler = BLOCK_HANDLERS.get(block.type);
      const started = new Date();
      const logs: string[] = [];
      const retry = block.config.retry as { max?: unknown; backoff_ms?: unknown } | undefined;
      const maxRetries = typeof retry?.max === 'number' ? Math.max(0, Math.min(10, Math.floor(retry.max))) : 0;
      const backoff = typeof retry?.backoff_ms === 'number' ? Math.max(0, Math.min(60_000, retry.backoff_ms)) : 500;
      opts.emit({ type: 'block_started', block_id: block.id, block_type: block.type });
      let input: Record<string, unknown> | null = null;
      let attempts = 0;
      try {
        if (!handler) throw new Failure(`No handler for block type ${block.type}`);
        input = resolveConfig(block.config, { variables: opts.variables, outputs, blocks: index });
        let result;
        for (;;) {
          attempts++;
          try {
            result = await handler.run({
              block, config: input, variables: opts.variables, outputs, targets: outgoing.get(block.id) ?? [], signal, services: opts.services, callPath: `${path}${block.id}`,
              log: (line) => void logs.push(line),
              delta: (text) => opts.emit({ type: 'content_delta', block_id: block.id, delta: text }),
              waiting: (what) => opts.emit({ type: 'block_waiting', block_id: block.id, block_type: block.type, ...what }),
              runPath: async (pathStarts, item, i) => {
                const place = `${path}${block.id}[${i}]`;
                if (opts.items?.has(place)) return opts.items.get(place);
                const itemStarted = new Date();
                const sub = await execute(descendants(pathStarts), pathStarts, new Map([...outputs, [block.id, { item, index: i }]]), `${place}/`);
                const end = endOf(sub, descendants(pathStarts));
                await opts.record({ block_id: block.id, block_type: 'split_item', status: 'succeeded', input: { index: i }, output: end, error: null, attempts: 1, logs: [], started_at: itemStarted, finished_at: new Date(), taken: null, path: place });
                return end;
              },
            });
            break;
          } catch (err) {
            // Parked or handed over is not a failure to retry.
            if (signal.aborted || attempts > maxRetries || err instanceof Parked || err instanceof HandedOver) throw err;
            logs.push(`attempt ${attempts} failed: ${(err as Error).message}; retrying`);
            await new Promise((r) => setTimeout(r, backoff * 2 ** (attempts - 1)));
          }
        }
        outputs.set(block.id, result.output);
        taken.set(block.id, result.take ? new Set(result.take) : null);
        if (handler.ownsDownstream) for (const id of descendants(outgoing.get(block.id) ?? [])) if (scope.has(id)) state.set(id, 'done');
        state.set(block.id, 'done');
        finished.push(block.id);
        // Stored before it is told: a block followers saw settle is one a resumed run does not run again.
        const finishedAt = new Date();
        await opts.record({ block_id: block.id, block_type: block.type, status: 'succeeded', input, output: result.output, error: null, attempts, logs, started_at: started, finished_at: finishedAt, taken: result.take ?? null, path });
        opts.emit({ type: 'block_completed', block_id: block.id, block_type: block.type, output: result.output, duration_ms: finishedAt.getTime() - started.getTime() });
      } catch (err) {
        // Its log could not be written because another process carries the run now: stop, writing nothing.
        if (err instanceof HandedOver) {
          failure ??= err;
          return;
        }
        // It waits: the run parks once what is in flight has settled; the block runs again when it is taken up.
        if (err instanceof Parked) {
          parked ??= err;
          return;
        }
        // Cut off as the server stops and the run is handed over: the block did not settle, nothing is logged
        // or told (the resumed run runs it again). A cancel or the time limit is logged as the block's end.
        if (signal.aborted && opts.handedOver?.()) return;
        const message = signal.aborted ? 'The run was stopped' : (err as Error).message;
        failSpan(span, err, signal.aborted ? 'stopped' : 'block_failed');
        const continued = block.config.on_error === 'continue' && !signal.aborted;
        await opts.record({ block_id: block.id, block_type: block.type, status: 'failed', input, output: continued ? { error: message } : null, error: message, attempts, logs, started_at: started, finished_at: new Date(), taken: null, path });
        opts.emit({ type: 'block_failed', block_id: block.id, block_type: block.type, error: message, continued });
        if (!continued) {
          failure ??= new Failure(`Block "${block.id}" (${block.type}) failed: ${message}`, { blockId: block.id });
          return;
        }
        outputs.set(block.id, { error: message });
        taken.set(block.id, null);
        state.set(block.id, 'done');
        finished.push(block.id);
      }
    };

    // A resumed run's blocks that had settled: as they were (a split's downstream with it).
    for (const b of path === '' ? opts.settled ?? [] : []) {
      const block = byId.get(b.block_id);
      if (!block || !scope.has(block.id)) continue;
      if (b.status === 'skipped') {
        state.set(block.id, 'skipped');
        continue;
      }
      if (b.status === 'failed' && block.config.on_error !== 'continue') throw new Failure(`Block "${block.id}" (${block.type}) failed: ${b.error ?? 'unknown error'}`, { blockId: block.id });
      outputs.set(block.id, b.output);
      taken.set(block.id, b.taken ? new Set(b.taken) : null);
      if (BLOCK_HANDLERS.get(block.type)?.ownsDownstream) for (const id of descendants(outgoing.get(block.id) ?? [])) if (scope.has(id)) state.set(id, 'done');
      state.set(block.id, 'done');
      finished.push(block.id);
    }

    // Settles whatever can be settled, starting ready blocks, until nothing is pending or running.
    for (;;) {
      if (failure || parked || signal.aborted) break;
      let progressed = false;
      for (const id of scope) {
        if (state.get(id) !== 'pending') continue;
        const verdict = readyOrSkipped(id);
        if (verdict === 'skip') {
          await skip(id);
          progressed = true;
        } else if (verdict === 'ready') {
          const p: Promise<void> = runBlock(byId.get(id)!).finally(() => inFlight.delete(p));
          inFlight.add(p);
          progressed = true;
        }
      }
      if (progressed) continue;
      if (inFlight.size === 0) break;
      await Promise.race(inFlight);
    }
    await Promise.allSettled(inFlight);
    if (failure) throw failure;
    if (parked && !signal.aborted) throw parked;
    if (signal.aborted) throw new Failure('The run was stopped');
    return { outputs, finished };
  };

  /** What a part of the graph ended with: the last response block's output, else its last block's. */
  const endOf = (result: { outputs: Map<string, unknown>; finished: string[] }, scope: Set<string>): unknown => {
    const responses = result.finished.filter((id) => scope.has(id) && byId.get(id)!.type === 'response');
    const last = responses.at(-1) ?? result.finished.filter((id) => scope.has(id)).at(-1);
    return last === undefined ? null : result.outputs.get(last);
  };

  const reachable = descendants([start.id]);
  const result = await execute(reachable, [start.id], new Map());
  return endOf(result, reachable);
}
