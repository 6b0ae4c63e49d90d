// A value with undo and redo: each change is a step (at most 200 kept);
// reset() starts over from a value the server answered; amend() takes in
// what the server added to the present without a step.
import { useCallback, useState } from 'react';

type Steps<T> = { past: T[]; present: T; future: T[] };
const LIMIT = 200;

export function useHistory<T>(initial: T) {
  const [steps, setSteps] = useState<Steps<T>>({ past: [], present: initial, future: [] });
  const change = useCallback((next: T | ((now: T) => T)) => setSteps((s) => {
    const value = typeof next === 'function' ? (next as (now: T) => T)(s.present) : next;
    return value === s.present ? s : { past: [...s.past.slice(-(LIMIT - 1)), s.present], present: value, future: [] };
  }), []);
  const undo = useCallback(() => setSteps((s) => (s.past.length === 0 ? s : { past: s.past.slice(0, -1), present: s.past.at(-1)!, future: [s.present, ...s.future] })), []);
  const redo = useCallback(() => setSteps((s) => (s.future.length === 0 ? s : { past: [...s.past, s.present], present: s.future[0]!, future: s.future.slice(1) })), []);
  const reset = useCallback((value: T) => setSteps({ past: [], present: value, future: [] }), []);
  /** The present replaced without a step (what the server filled in on save). */
  const amend = useCallback((value: T) => setSteps((s) => ({ ...s, present: value })), []);
  return { value: steps.present, change, undo, redo, reset, amend, canUndo: steps.past.length > 0, canRedo: steps.future.length > 0 };
}
