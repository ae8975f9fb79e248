import { describe, expect, it } from 'vitest';
import { anyLive, countByStatus } from './run-status.ts';

describe('run status', () => {
  it('is live while a run is pending or running', () => {
    expect(anyLive([{ status: 'succeeded' }, { status: 'pending' }])).toBe(true);
    expect(anyLive([{ status: 'running' }])).toBe(true);
    expect(anyLive([{ status: 'failed' }, { status: 'skipped' }, { status: 'partial' }])).toBe(false);
    expect(anyLive(undefined)).toBe(false);
  });

  it('counts runs by status in a fixed order, without zeros', () => {
    expect(countByStatus([{ status: 'failed' }, { status: 'succeeded' }, { status: 'failed' }])).toEqual([
      { status: 'succeeded', count: 1 },
      { status: 'failed', count: 2 },
    ]);
  });
});
