// wait: holds the run for a duration (`seconds`), until a time (`until`,
// ISO 8601), or until an event (`event`: a name; POST
// …/executions/{id}/events with that name ends it, its `data` becoming the
// block's output) with an optional `timeout_seconds` and `on_timeout`
// (`continue`, the default: the block answers {timed_out: true}; `fail`).
// The run holds no process while it waits: the block parks the run (a row
// and a resume job, sql/0103) and the run is taken up again where it
// stopped when the time comes or the event arrives.
import { type BlockHandler, type WaitSpec } from '../types.ts';
import { Failure, Parked } from '../../../failures.ts';

/** The longest a wait may last: a year. */
const MAX_SECONDS = 366 * 24 * 3600;
const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,200}$/;

function seconds(value: unknown, key: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_SECONDS) throw new Failure(`wait: ${key} must be a number of seconds from 0 to ${MAX_SECONDS}`);
  return value;
}

/** What the config asks for: exactly one of seconds, until, event. */
export function waitSpec(config: Record<string, unknown>, now = Date.now()): WaitSpec {
  const given = ['seconds', 'until', 'event'].filter((k) => config[k] !== undefined && config[k] !== null && config[k] !== '');
  if (given.length !== 1) throw new Failure('wait needs exactly one of seconds, until (a time) or event (a name)');
  const onTimeout = config.on_timeout === undefined ? 'continue' : config.on_timeout;
  if (onTimeout !== 'continue' && onTimeout !== 'fail') throw new Failure('wait: on_timeout is continue or fail');
  if (given[0] === 'seconds') return { kind: 'duration', due: new Date(now + seconds(config.seconds, 'seconds') * 1000), event: null, onTimeout };
  if (given[0] === 'until') {
    const at = typeof config.until === 'string' && /^\d{4}-\d\d-\d\dT/.test(config.until) ? new Date(config.until) : new Date(NaN);
    if (Number.isNaN(at.getTime())) throw new Failure('wait: until must be a time in ISO 8601 (2026-12-01T09:00:00Z)');
    if (at.getTime() - now > MAX_SECONDS * 1000) throw new Failure('wait: until is more than a year away');
    return { kind: 'until', due: at, event: null, onTimeout };
  }
  if (typeof config.event !== 'string' || !EVENT_NAME.test(config.event)) throw new Failure('wait: event must be a name of letters, digits and _ . : - (at most 200)');
  const timeout = config.timeout_seconds === undefined || config.timeout_seconds === null ? null : seconds(config.timeout_seconds, 'timeout_seconds');
  return { kind: 'event', due: timeout === null ? null : new Date(now + timeout * 1000), event: config.event, onTimeout };
}

export const wait: BlockHandler = {
  run: async (ctx) => {
    const spec = waitSpec(ctx.config);
    // Begun once: a resumed run reads the wait it began (its due time is the first one's).
    const w = await ctx.services.wait({ ...spec, place: ctx.callPath });
    switch (w.status) {
      case 'elapsed':
        return { output: { waited: true, until: w.due_at, resumed_at: w.settled_at } };
      case 'received':
        return { output: { event: spec.event, data: w.data, received_at: w.settled_at } };
      case 'timed_out':
        if (spec.onTimeout === 'fail') throw new Failure(`wait: no ${spec.event} event came before its timeout`);
        return { output: { event: spec.event, timed_out: true, data: null } };
      case 'cancelled':
        throw new Failure('wait: the run was cancelled');
      default:
        ctx.waiting(spec.kind === 'event' ? { event: spec.event!, until: w.due_at } : { until: w.due_at });
        throw new Parked(ctx.services.executionId, 'The run waits; it is taken up again when the wait ends');
    }
  },
};
