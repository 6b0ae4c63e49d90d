// An agent's (or a coordinator's) `settings` split in two: the step cap the
// loop keeps (`max_steps`, default 10, at most 100) and the tuning passed to
// the model unchanged (temperature, max_tokens, ...). The one parser of it.
const DEFAULT_MAX_STEPS = 10;
const MAX_STEPS_CEILING = 100;

export function stepCap(settings: Record<string, unknown>, cap?: number): { maxSteps: number; tuning: Record<string, unknown> } {
  const { max_steps: asked, ...tuning } = settings;
  let maxSteps = typeof asked === 'number' && Number.isInteger(asked) && asked > 0 ? Math.min(asked, MAX_STEPS_CEILING) : DEFAULT_MAX_STEPS;
  if (cap !== undefined) maxSteps = Math.min(maxSteps, cap);
  return { maxSteps, tuning };
}
