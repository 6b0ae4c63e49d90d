// How a run's status reads: the statuses that ended badly (a workflow run
// `failed` or `cancelled`, an agent run the same, a timeout) and the badge
// each status wears; a workflow's `succeeded` and an agent's `completed` both
// ended well.
export const ENDED_BADLY = new Set(['failed', 'cancelled', 'timed_out']);
const ENDED_WELL = new Set(['succeeded', 'completed']);

export const runBadge = (status: string) => (ENDED_WELL.has(status) ? 'badge-ok' : ENDED_BADLY.has(status) ? 'badge-error' : 'badge-info');
