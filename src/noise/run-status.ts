/** Status of a noise run row (decisions.md §4). */
export const RUN_STATUSES = ['pending', 'running', 'succeeded', 'partial', 'failed', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses a run row ends in; nothing changes it afterwards. */
export const FINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'partial', 'failed', 'skipped'];
/** Statuses of a row whose dispatch has not ended. */
export const OPEN_STATUSES: readonly RunStatus[] = ['pending', 'running'];

/** How a run row ended, as the dispatch reports it. */
export type FinalRunStatus = 'succeeded' | 'partial' | 'failed';

const NEXT: Record<RunStatus, readonly RunStatus[]> = {
  // pending: created, waiting for its dispatch; skipped when the job was already running.
  pending: ['running', 'skipped', 'failed'],
  running: ['succeeded', 'partial', 'failed'],
  succeeded: [],
  partial: [],
  failed: [],
  skipped: [],
};

/** True when a row may move from `from` to `to`. */
export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return NEXT[from].includes(to);
}

/**
 * The final status of one target from its counters: every event shipped → succeeded; some shipped
 * and some failed → partial; nothing shipped, or an error that stopped the target → failed.
 */
export function finalStatus(counts: {
  shipped: number;
  failed: number;
  error?: string | null;
}): FinalRunStatus {
  if (counts.shipped > 0 && counts.failed === 0 && !counts.error) return 'succeeded';
  if (counts.shipped > 0) return 'partial';
  return 'failed';
}

/** True when `value` is a run status. */
export function isRunStatus(value: string): value is RunStatus {
  return (RUN_STATUSES as readonly string[]).includes(value);
}
