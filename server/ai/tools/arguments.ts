// Reading a model's tool arguments: the model may send anything, so each
// read checks its type and says what was expected.
import { Failure } from '../failures.ts';

/** A non-empty string argument, else a Failure naming it. */
export const requiredString = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v === '') throw new Failure(`${what} is required`);
  return v;
};

/** A positive number argument, capped at `max`; `fallback` when absent or not positive. */
export const positiveNumber = (v: unknown, fallback: number, max: number): number =>
  typeof v === 'number' && v > 0 ? Math.min(v, max) : fallback;
