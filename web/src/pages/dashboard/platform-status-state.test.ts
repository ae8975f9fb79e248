import { describe, expect, it } from 'vitest';
import {
  applyStatusEvent,
  HISTORY_PER_COMPONENT,
  initialStatusState,
  type PlatformStatusState,
  type SnapshotEventData,
  type StatusComponent,
  type StatusEventData,
} from './platform-status-state.ts';

const T0 = '2026-03-01T12:00:00.000Z';
const T1 = '2026-03-01T12:00:30.000Z';
const T2 = '2026-03-01T12:01:00.000Z';

const database: StatusComponent = {
  id: 'database',
  kind: 'database',
  name: 'Database',
  state: 'up',
  reason: null,
  since: '2026-03-01T09:00:00.000Z',
  labels: { engine: 'postgres' },
};
const storage: StatusComponent = {
  id: 'storage',
  kind: 'storage',
  name: 'Object storage',
  state: 'up',
  reason: null,
  since: '2026-03-01T09:00:00.000Z',
  labels: {},
};

function snapshot(components: StatusComponent[], cause: 'connect' | 'reset' = 'connect'): SnapshotEventData {
  return { cause, event_id: 'p-17', provider: 'builtin', polled_at: T0, components };
}

function connected(): PlatformStatusState {
  return applyStatusEvent(initialStatusState, {
    type: 'snapshot',
    data: snapshot([storage, database]),
    id: 'p-17',
    receivedAt: T0,
  });
}

const down: StatusEventData = {
  change: 'changed',
  at: T1,
  component: { ...database, state: 'down', reason: 'no answer within 10 s', since: T1 },
  previous: { state: 'up', reason: null, since: database.since },
};

describe('applyStatusEvent', () => {
  it('takes a snapshot as the whole state, sorted by id, with no history', () => {
    const state = connected();
    expect(state.components.map((c) => c.id)).toEqual(['database', 'storage']);
    expect(state).toMatchObject({ provider: 'builtin', polledAt: T0, eventId: 'p-17', source: 'stream' });
    expect(state.changes).toEqual([]);
    expect(state.connection).toBe('open');
  });

  it('replaces all components on a reset snapshot and records what differs', () => {
    const before = applyStatusEvent(connected(), { type: 'status', data: down, id: 'p-18', receivedAt: T1 });
    const siem: StatusComponent = { ...storage, id: 'siem:lab', kind: 'siem', name: 'lab', since: T2 };
    const after = applyStatusEvent(before, {
      type: 'snapshot',
      data: { ...snapshot([{ ...database, since: T2 }, siem], 'reset'), event_id: 'q-3', polled_at: T2 },
      id: 'q-3',
      receivedAt: T2,
    });
    expect(after.components.map((c) => c.id)).toEqual(['database', 'siem:lab']);
    expect(after.eventId).toBe('q-3');
    const found = after.changes.filter((c) => c.via === 'snapshot');
    expect(found.map((c) => [c.componentId, c.change])).toEqual(
      expect.arrayContaining([
        ['database', 'changed'],
        ['siem:lab', 'added'],
        ['storage', 'removed'],
      ]),
    );
    expect(found).toHaveLength(3);
    expect(after.history.database?.[0]).toMatchObject({ state: 'up', previous: { state: 'down' } });
  });

  it('replaces the first-paint state without inventing history when the first snapshot arrives', () => {
    const painted = applyStatusEvent(initialStatusState, {
      type: 'initial',
      data: { ok: true, event_id: 'p-16', provider: 'builtin', polled_at: T0, components: [database] },
      receivedAt: T0,
    });
    expect(painted.source).toBe('initial');
    const state = applyStatusEvent(painted, { type: 'snapshot', data: snapshot([database]), receivedAt: T0 });
    expect(state.changes).toEqual([]);
    // A late first-paint answer never overwrites the stream.
    const late = applyStatusEvent(state, {
      type: 'initial',
      data: { ok: true, event_id: 'p-1', provider: 'builtin', polled_at: null, components: [] },
      receivedAt: T1,
    });
    expect(late).toBe(state);
  });

  it('changes one component on a status event and records it with its previous state', () => {
    const state = applyStatusEvent(connected(), { type: 'status', data: down, id: 'p-18', receivedAt: T1 });
    expect(state.components.find((c) => c.id === 'database')).toMatchObject({ state: 'down', since: T1 });
    expect(state.components.find((c) => c.id === 'storage')).toEqual(storage);
    expect(state.eventId).toBe('p-18');
    expect(state.polledAt).toBe(T1);
    expect(state.history.database).toHaveLength(1);
    expect(state.history.database?.[0]).toMatchObject({
      change: 'changed',
      at: T1,
      state: 'down',
      reason: 'no answer within 10 s',
      previous: { state: 'up', since: database.since },
      via: 'stream',
    });
    expect(state.changes).toHaveLength(1);
  });

  it('adds a component on an added event', () => {
    const siem: StatusComponent = { ...storage, id: 'siem:lab', kind: 'siem', name: 'lab', since: T1 };
    const state = applyStatusEvent(connected(), {
      type: 'status',
      data: { change: 'added', at: T1, component: siem, previous: null },
      receivedAt: T1,
    });
    expect(state.components.map((c) => c.id)).toEqual(['database', 'siem:lab', 'storage']);
  });

  it('removes a component on a removed event and keeps the removal in the page-wide log', () => {
    const state = applyStatusEvent(connected(), {
      type: 'status',
      data: { change: 'removed', at: T1, component: storage, previous: null },
      receivedAt: T1,
    });
    expect(state.components.map((c) => c.id)).toEqual(['database']);
    expect(state.changes[0]).toMatchObject({
      componentId: 'storage',
      change: 'removed',
      name: 'Object storage',
    });
  });

  it('keeps the newest changes only', () => {
    let state = connected();
    for (let i = 0; i < HISTORY_PER_COMPONENT + 5; i++) {
      const flip = i % 2 === 0 ? 'down' : 'up';
      const at = new Date(Date.parse(T1) + i * 1000).toISOString();
      state = applyStatusEvent(state, {
        type: 'status',
        data: { ...down, at, component: { ...database, state: flip, since: at } },
        receivedAt: at,
      });
    }
    expect(state.history.database).toHaveLength(HISTORY_PER_COMPONENT);
    expect(state.history.database?.[0]?.at).toBe(
      new Date(Date.parse(T1) + (HISTORY_PER_COMPONENT + 4) * 1000).toISOString(),
    );
  });

  it('goes stale on an error, keeps the first time, and clears on the next event', () => {
    let state = applyStatusEvent(connected(), { type: 'error', closed: false, receivedAt: T1 });
    expect(state.staleSince).toBe(T1);
    expect(state.connection).toBe('connecting');
    state = applyStatusEvent(state, { type: 'error', closed: false, receivedAt: T2 });
    expect(state.staleSince).toBe(T1);
    state = applyStatusEvent(state, { type: 'status', data: down, receivedAt: T2 });
    expect(state.staleSince).toBeNull();
    expect(state.connection).toBe('open');
  });

  it('clears the stale state when the stream reopens (the replay brings what was missed)', () => {
    const stale = applyStatusEvent(connected(), { type: 'error', closed: false, receivedAt: T1 });
    expect(applyStatusEvent(stale, { type: 'open', receivedAt: T2 }).staleSince).toBeNull();
  });

  it('records an end: a lost session closes, a shutdown keeps reconnecting until the next event', () => {
    const ended = applyStatusEvent(connected(), {
      type: 'end',
      data: { reason: 'session_ended' },
      receivedAt: T1,
    });
    expect(ended).toMatchObject({ ended: 'session_ended', connection: 'closed' });
    expect(ended.components).toHaveLength(2);
    const expired = applyStatusEvent(connected(), {
      type: 'end',
      data: { reason: 'session_expired' },
      receivedAt: T1,
    });
    expect(expired).toMatchObject({ ended: 'session_expired', connection: 'closed' });

    let state = applyStatusEvent(connected(), { type: 'end', data: { reason: 'shutdown' }, receivedAt: T1 });
    expect(state).toMatchObject({ ended: 'shutdown', connection: 'open' });
    state = applyStatusEvent(state, { type: 'error', closed: false, receivedAt: T1 });
    expect(state).toMatchObject({ ended: 'shutdown', staleSince: T1 });
    state = applyStatusEvent(state, {
      type: 'snapshot',
      data: snapshot([database, storage], 'reset'),
      receivedAt: T2,
    });
    expect(state).toMatchObject({ ended: null, staleSince: null, connection: 'open' });
  });
});
