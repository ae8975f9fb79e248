import { describe, expect, it } from 'vitest';
import { canTransition, finalStatus, RUN_STATUSES, type RunStatus } from './run-status.ts';

describe('canTransition', () => {
  it('allows exactly the documented moves', () => {
    const allowed = RUN_STATUSES.flatMap((from) =>
      RUN_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`),
    );
    expect(allowed).toEqual([
      'pending→running',
      'pending→failed',
      'pending→skipped',
      'running→succeeded',
      'running→partial',
      'running→failed',
    ]);
  });

  it('never changes a final status', () => {
    for (const from of ['succeeded', 'partial', 'failed', 'skipped'] as RunStatus[]) {
      expect(RUN_STATUSES.some((to) => canTransition(from, to))).toBe(false);
    }
  });
});

describe('finalStatus', () => {
  it.each([
    [{ shipped: 10, failed: 0 }, 'succeeded'],
    [{ shipped: 10, failed: 1 }, 'partial'],
    [{ shipped: 10, failed: 0, error: 'connection reset after 10 events' }, 'partial'],
    [{ shipped: 0, failed: 5 }, 'failed'],
    [{ shipped: 0, failed: 0 }, 'failed'],
    [{ shipped: 0, failed: 0, error: 'archive not found' }, 'failed'],
  ] as const)('%j → %s', (counts, status) => {
    expect(finalStatus(counts)).toBe(status);
  });
});
