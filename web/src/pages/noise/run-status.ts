import type { Run, RunStatus } from './types.ts';

/** Statuses a run leaves by itself: while one is shown, the list is fetched again. */
export const LIVE_STATUSES: readonly RunStatus[] = ['pending', 'running'];

/** Whether any run is still pending or running. */
export function anyLive(runs: readonly Pick<Run, 'status'>[] | undefined): boolean {
  return (runs ?? []).some((run) => LIVE_STATUSES.includes(run.status));
}

/** How many runs have each status, in a fixed order, leaving out zeros. */
export function countByStatus(
  runs: readonly Pick<Run, 'status'>[],
): Array<{ status: RunStatus; count: number }> {
  const order: RunStatus[] = ['pending', 'running', 'succeeded', 'partial', 'failed', 'skipped'];
  return order
    .map((status) => ({ status, count: runs.filter((run) => run.status === status).length }))
    .filter((entry) => entry.count > 0);
}
