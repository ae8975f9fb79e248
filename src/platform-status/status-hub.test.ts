import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../clock.ts';
import { createLogger } from '../logger.ts';
import { manualProvider, reading } from './manual-provider.ts';
import { StatusHub } from './status-hub.ts';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const log = createLogger('silent');

interface Frame {
  id?: string;
  event?: string;
  data: string;
}

/** Parses concatenated SSE frames (the subset the hub writes). */
function parseFrames(chunk: Buffer | string): Frame[] {
  const text = chunk.toString();
  if (text === '') return [];
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const frame: Frame = { data: '' };
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(': ');
        const value = rest.join(': ');
        if (field === 'id') frame.id = value;
        if (field === 'event') frame.event = value;
        if (field === 'data') frame.data = value;
      }
      return frame;
    });
}

describe('status hub', () => {
  const hubs: StatusHub[] = [];
  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((h) => h.close()));
  });
  const makeHub = (options: { replayLimit?: number; replayMaxAgeMs?: number } = {}) => {
    const provider = manualProvider();
    const clock = manualClock(T0);
    const hub = new StatusHub({ provider, clock, log, ...options });
    hubs.push(hub);
    return { hub, provider, clock };
  };

  it('starts with an empty snapshot that was never polled', () => {
    const { hub } = makeHub();
    expect(hub.snapshot()).toEqual({
      event_id: `${hub.bootId}-0`,
      provider: 'builtin',
      polled_at: null,
      components: [],
    });
    expect(hub.bootId).toMatch(/^[0-9a-f]{12}$/);
  });

  it('numbers each change and sends it to every listener as one encoded frame', async () => {
    const { hub, provider } = makeHub();
    const a: Buffer[] = [];
    const b: Buffer[] = [];
    hub.subscribe((c) => a.push(c));
    hub.subscribe((c) => b.push(c));
    provider.set([reading('db', 'up'), reading('siem:x', 'down', { reason: 'refused' })]);
    await hub.pollNow();
    expect(a).toHaveLength(1);
    expect(b[0]).toBe(a[0]);
    const frames = parseFrames(a[0] as Buffer);
    expect(frames.map((f) => [f.id, f.event])).toEqual([
      [`${hub.bootId}-1`, 'status'],
      [`${hub.bootId}-2`, 'status'],
    ]);
    expect(JSON.parse(frames[1]?.data ?? '')).toEqual({
      change: 'added',
      at: '2026-03-01T12:00:00.000Z',
      component: {
        id: 'siem:x',
        kind: 'service',
        name: 'siem:x',
        state: 'down',
        reason: 'refused',
        labels: {},
        since: '2026-03-01T12:00:00.000Z',
      },
      previous: null,
    });
    expect(hub.lastEventId).toBe(`${hub.bootId}-2`);
  });

  it('publishes nothing when a poll changes nothing, but records the poll time', async () => {
    const { hub, provider, clock } = makeHub();
    provider.set([reading('db', 'up')]);
    await hub.pollNow();
    const seen: Buffer[] = [];
    hub.subscribe((c) => seen.push(c));
    clock.advance(30_000);
    await hub.pollNow();
    expect(seen).toEqual([]);
    expect(hub.snapshot().polled_at).toBe('2026-03-01T12:00:30.000Z');
  });

  it('starts a new subscription with a snapshot event carrying the current state', async () => {
    const { hub, provider } = makeHub();
    provider.set([reading('db', 'up')]);
    await hub.pollNow();
    const sub = hub.subscribe(() => {});
    expect(sub.resumed).toBe(false);
    const [frame] = parseFrames(sub.initial);
    expect(frame?.id).toBe(`${hub.bootId}-1`);
    expect(frame?.event).toBe('snapshot');
    expect(JSON.parse(frame?.data ?? '')).toEqual({ cause: 'connect', ...hub.snapshot() });
  });

  it('replays exactly the events after Last-Event-ID, in order, and then continues live', async () => {
    const { hub, provider } = makeHub();
    provider.set([reading('a', 'up')]);
    await hub.pollNow();
    const resumeFrom = hub.lastEventId;
    provider.set([reading('a', 'down')]);
    await hub.pollNow();
    provider.set([reading('a', 'down'), reading('b', 'up')]);
    await hub.pollNow();
    const live: Buffer[] = [];
    const sub = hub.subscribe((c) => live.push(c), resumeFrom);
    expect(sub.resumed).toBe(true);
    expect(parseFrames(sub.initial).map((f) => f.id)).toEqual([`${hub.bootId}-2`, `${hub.bootId}-3`]);
    provider.set([reading('b', 'up')]);
    await hub.pollNow();
    expect(parseFrames(live[0] as Buffer).map((f) => f.id)).toEqual([`${hub.bootId}-4`]);
  });

  it('resumes with nothing to send when the client saw the last event', async () => {
    const { hub, provider } = makeHub();
    provider.set([reading('a', 'up')]);
    await hub.pollNow();
    const sub = hub.subscribe(() => {}, hub.lastEventId);
    expect(sub.resumed).toBe(true);
    expect(sub.initial.length).toBe(0);
  });

  it('sends a reset snapshot for an id outside the window, of another process, or malformed', async () => {
    const { hub, provider, clock } = makeHub({ replayLimit: 2, replayMaxAgeMs: 60_000 });
    provider.set([reading('a', 'up')]);
    await hub.pollNow();
    const old = hub.lastEventId;
    for (const state of ['down', 'up', 'down'] as const) {
      provider.set([reading('a', state)]);
      await hub.pollNow();
    }
    const recent = `${hub.bootId}-3`;
    expect(hub.subscribe(() => {}, recent).resumed).toBe(true);
    for (const id of [old, `000000000000-3`, 'garbage', `${hub.bootId}-99`, '']) {
      const sub = hub.subscribe(() => {}, id);
      expect(sub.resumed, id).toBe(false);
      const [frame] = parseFrames(sub.initial);
      expect(frame?.event).toBe('snapshot');
      expect(JSON.parse(frame?.data ?? '').cause).toBe('reset');
    }
    clock.advance(61_000);
    expect(hub.subscribe(() => {}, recent).resumed).toBe(false);
  });

  it('stops sending to a listener once it unsubscribes', async () => {
    const { hub, provider } = makeHub();
    const seen: Buffer[] = [];
    const sub = hub.subscribe((c) => seen.push(c));
    sub.unsubscribe();
    expect(hub.listenerCount).toBe(0);
    provider.set([reading('a', 'up')]);
    await hub.pollNow();
    expect(seen).toEqual([]);
  });

  it('keeps the state when a poll fails', async () => {
    const { hub, provider } = makeHub();
    provider.set([reading('a', 'up')]);
    await hub.pollNow();
    provider.fail(new Error('boom'));
    await hub.pollNow();
    expect(hub.snapshot().components.map((c) => c.state)).toEqual(['up']);
  });

  it('polls at start and then on its interval until closed', async () => {
    const provider = manualProvider('builtin', 20);
    const hub = new StatusHub({ provider, clock: manualClock(T0), log });
    hubs.push(hub);
    hub.start();
    hub.start();
    const deadline = Date.now() + 5_000;
    while (provider.polls < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(provider.polls).toBeGreaterThanOrEqual(3);
    await hub.close();
    const after = provider.polls;
    await new Promise((r) => setTimeout(r, 60));
    expect(provider.polls).toBe(after);
  });
});
