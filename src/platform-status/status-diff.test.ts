import { describe, expect, it } from 'vitest';
import { diffReadings, MAX_REASON_LENGTH } from './status-diff.ts';
import type { StatusComponent, StatusReading } from './status-types.ts';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const T1 = T0 + 15_000;

const reading = (id: string, state: StatusReading['state'], reason: string | null = null): StatusReading => ({
  id,
  kind: 'service',
  name: id,
  state,
  reason,
  labels: {},
});

describe('diffing readings into status changes', () => {
  it('adds every component of the first poll with since set to the poll time', () => {
    const { next, changes } = diffReadings(
      new Map(),
      [reading('b', 'up'), reading('a', 'down', 'refused')],
      T0,
    );
    expect(changes).toEqual([
      {
        change: 'added',
        at: '2026-03-01T12:00:00.000Z',
        component: { ...reading('a', 'down', 'refused'), since: '2026-03-01T12:00:00.000Z' },
        previous: null,
      },
      {
        change: 'added',
        at: '2026-03-01T12:00:00.000Z',
        component: { ...reading('b', 'up'), since: '2026-03-01T12:00:00.000Z' },
        previous: null,
      },
    ]);
    expect([...next.keys()]).toEqual(['b', 'a']);
  });

  it('reports nothing when nothing changed and keeps since', () => {
    const first = diffReadings(new Map(), [reading('a', 'up')], T0);
    const second = diffReadings(first.next, [reading('a', 'up')], T1);
    expect(second.changes).toEqual([]);
    expect(second.next.get('a')?.since).toBe('2026-03-01T12:00:00.000Z');
  });

  it('moves since on a state change and reports the previous state', () => {
    const first = diffReadings(new Map(), [reading('a', 'up')], T0);
    const second = diffReadings(first.next, [reading('a', 'down', 'connection refused')], T1);
    expect(second.changes).toEqual([
      {
        change: 'changed',
        at: '2026-03-01T12:00:15.000Z',
        component: { ...reading('a', 'down', 'connection refused'), since: '2026-03-01T12:00:15.000Z' },
        previous: { state: 'up', reason: null, since: '2026-03-01T12:00:00.000Z' },
      },
    ]);
  });

  it('reports a new reason without moving since', () => {
    const first = diffReadings(new Map(), [reading('a', 'down', 'refused')], T0);
    const second = diffReadings(first.next, [reading('a', 'down', 'timed out')], T1);
    expect(second.changes).toHaveLength(1);
    expect(second.changes[0]?.component).toMatchObject({
      reason: 'timed out',
      since: '2026-03-01T12:00:00.000Z',
    });
  });

  it('reports label changes but not label order', () => {
    const a = { ...reading('a', 'up'), labels: { x: '1', y: '2' } };
    const first = diffReadings(new Map(), [a], T0);
    expect(diffReadings(first.next, [{ ...a, labels: { y: '2', x: '1' } }], T1).changes).toEqual([]);
    expect(diffReadings(first.next, [{ ...a, labels: { x: '1', y: '3' } }], T1).changes).toHaveLength(1);
  });

  it('removes components that are no longer read, reporting their last record', () => {
    const first = diffReadings(new Map(), [reading('a', 'up'), reading('b', 'down', 'x')], T0);
    const second = diffReadings(first.next, [reading('a', 'up')], T1);
    const last: StatusComponent = { ...reading('b', 'down', 'x'), since: '2026-03-01T12:00:00.000Z' };
    expect(second.changes).toEqual([
      { change: 'removed', at: '2026-03-01T12:00:15.000Z', component: last, previous: null },
    ]);
    expect(second.next.has('b')).toBe(false);
  });

  it('keeps the first of duplicate ids, turns empty reasons into null and caps long ones', () => {
    const { next } = diffReadings(
      new Map(),
      [reading('a', 'up', ''), reading('a', 'down'), reading('c', 'down', 'x'.repeat(2000))],
      T0,
    );
    expect(next.get('a')).toMatchObject({ state: 'up', reason: null });
    expect(next.get('c')?.reason).toHaveLength(MAX_REASON_LENGTH);
  });
});
