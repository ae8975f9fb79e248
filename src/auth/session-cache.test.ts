import { describe, expect, it } from 'vitest';
import { manualClock } from '../clock.ts';
import { SessionCache } from './session-cache.ts';
import { SessionEvents } from './session-events.ts';
import { hashSessionToken, type ResolvedSession } from './sessions.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');

function session(token: string, userId = 'u1', validUntil = NOW + 3_600_000): ResolvedSession {
  return {
    actor: {
      kind: 'user',
      userId,
      email: `${userId}@lab.test`,
      displayName: userId,
      capabilities: new Set(),
      sessionHash: hashSessionToken(token),
    },
    validUntil,
  };
}

function setup() {
  const clock = manualClock(NOW);
  const events = new SessionEvents();
  const cache = new SessionCache(clock, events, 2_000);
  const calls: string[] = [];
  const lookup = (result: (token: string) => ResolvedSession | null) => async (token: string) => {
    calls.push(token);
    await new Promise((r) => setImmediate(r));
    return result(token);
  };
  return { clock, events, cache, calls, lookup };
}

describe('session cache', () => {
  it('serves 200 concurrent requests of one session with one lookup', async () => {
    const { cache, calls, lookup } = setup();
    const found = lookup((t) => session(t));
    const all = await Promise.all(Array.from({ length: 200 }, () => cache.resolve('tok', found)));
    expect(calls).toEqual(['tok']);
    expect(new Set(all.map((s) => s?.actor.userId))).toEqual(new Set(['u1']));
  });

  it('answers from memory for the cache time, then asks again', async () => {
    const { clock, cache, calls, lookup } = setup();
    const found = lookup((t) => session(t));
    await cache.resolve('tok', found);
    clock.advance(1_999);
    await cache.resolve('tok', found);
    expect(calls).toHaveLength(1);
    clock.advance(1);
    await cache.resolve('tok', found);
    expect(calls).toHaveLength(2);
  });

  it('never answers a session from memory past its absolute or idle expiry', async () => {
    const { clock, cache, calls, lookup } = setup();
    let result: ResolvedSession | null = session('tok', 'u1', NOW + 500);
    const found = lookup(() => result);
    expect(await cache.resolve('tok', found)).not.toBeNull();
    clock.advance(500);
    result = null;
    expect(await cache.resolve('tok', found)).toBeNull();
    expect(calls).toHaveLength(2);
  });

  it('keeps no refusal: an unknown token is looked up every time', async () => {
    const { cache, calls, lookup } = setup();
    const none = lookup(() => null);
    expect(await cache.resolve('nope', none)).toBeNull();
    expect(await cache.resolve('nope', none)).toBeNull();
    expect(calls).toHaveLength(2);
  });

  it('drops a session at once when it ends, by session or by user, and all of them when access changes', async () => {
    const { events, cache, calls, lookup } = setup();
    const found = lookup((t) => session(t, t === 'c' ? 'u2' : 'u1'));
    for (const t of ['a', 'b', 'c']) await cache.resolve(t, found);
    expect(calls).toHaveLength(3);

    events.ended({ sessionHash: hashSessionToken('a') });
    for (const t of ['a', 'b', 'c']) await cache.resolve(t, found);
    expect(calls.slice(3)).toEqual(['a']);

    events.ended({ userId: 'u1' });
    for (const t of ['a', 'b', 'c']) await cache.resolve(t, found);
    expect(calls.slice(4)).toEqual(['a', 'b']);

    events.accessChanged();
    for (const t of ['a', 'b', 'c']) await cache.resolve(t, found);
    expect(calls.slice(6)).toEqual(['a', 'b', 'c']);
  });

  it('does not remember a lookup that was under way when the session ended', async () => {
    const { events, cache, calls, lookup } = setup();
    const found = lookup((t) => session(t));
    const early = cache.resolve('tok', found);
    events.ended({ userId: 'u1' });
    // A request after the sign-out must not join the lookup that began before it.
    const late = cache.resolve('tok', found);
    await Promise.all([early, late]);
    expect(calls).toHaveLength(2);
    await cache.resolve('tok', found);
    expect(calls).toHaveLength(2);
  });

  it('passes a failed lookup on and keeps nothing of it', async () => {
    const { cache, calls } = setup();
    const failing = async (token: string) => {
      calls.push(token);
      throw new Error('database gone');
    };
    await expect(cache.resolve('tok', failing)).rejects.toThrow('database gone');
    await expect(cache.resolve('tok', failing)).rejects.toThrow('database gone');
    expect(calls).toHaveLength(2);
  });
});
