import { describe, expect, it } from 'vitest';
import { manualClock } from '../clock.ts';
import { createBuiltinProvider } from './builtin-provider.ts';
import { ProbeRegistry, type ProbeResult, type StatusProbe } from './status-probes.ts';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const signal = new AbortController().signal;

function probe(
  id: string,
  kind: StatusProbe['kind'],
  check: () => Promise<ProbeResult>,
): StatusProbe & {
  calls: number;
} {
  const p = {
    id,
    kind,
    name: id,
    calls: 0,
    check: async () => {
      p.calls += 1;
      return check();
    },
  };
  return p;
}

describe('built-in provider', () => {
  it('reports every registered probe and every SIEM probe as a component', async () => {
    const probes = new ProbeRegistry();
    probes.register({
      ...probe('database', 'database', async () => ({ state: 'up' })),
      labels: { engine: 'pglite' },
    });
    probes.register(probe('storage', 'storage', async () => ({ state: 'down', reason: 'bucket missing' })));
    const provider = createBuiltinProvider({
      probes,
      clock: manualClock(T0),
      listSiemProbes: async () => [
        probe('siem:a', 'siem', async () => ({ state: 'degraded', reason: 'slow' })),
      ],
    });
    expect(provider.name).toBe('builtin');
    expect(provider.intervalMs).toBe(30_000);
    expect(await provider.poll(signal)).toEqual([
      {
        id: 'database',
        kind: 'database',
        name: 'database',
        state: 'up',
        reason: null,
        labels: { engine: 'pglite' },
      },
      {
        id: 'storage',
        kind: 'storage',
        name: 'storage',
        state: 'down',
        reason: 'bucket missing',
        labels: {},
      },
      { id: 'siem:a', kind: 'siem', name: 'siem:a', state: 'degraded', reason: 'slow', labels: {} },
    ]);
  });

  it('turns a thrown error into down with the message', async () => {
    const probes = new ProbeRegistry();
    probes.register(
      probe('database', 'database', async () => Promise.reject(new Error('connection terminated'))),
    );
    const [r] = await createBuiltinProvider({ probes, clock: manualClock(T0) }).poll(signal);
    expect(r).toMatchObject({ state: 'down', reason: 'check failed: connection terminated' });
  });

  it('gives up on a check that does not answer in time, even one that ignores its signal', async () => {
    const probes = new ProbeRegistry();
    let aborted = false;
    probes.register({
      id: 'storage',
      kind: 'storage',
      name: 'Storage',
      check: (s) =>
        new Promise(() => {
          s.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    });
    const [r] = await createBuiltinProvider({ probes, clock: manualClock(T0), timeoutMs: 50 }).poll(signal);
    expect(r).toMatchObject({ state: 'down', reason: 'no answer within 0.05 s' });
    expect(aborted).toBe(true);
  });

  it('runs at most `concurrency` checks at once', async () => {
    let running = 0;
    let peak = 0;
    const slow = async (): Promise<ProbeResult> => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running -= 1;
      return { state: 'up' };
    };
    const siems = Array.from({ length: 12 }, (_, i) => probe(`siem:${i}`, 'siem', slow));
    const provider = createBuiltinProvider({
      probes: new ProbeRegistry(),
      clock: manualClock(T0),
      concurrency: 3,
      listSiemProbes: async () => siems,
    });
    const readings = await provider.poll(signal);
    expect(readings).toHaveLength(12);
    expect(peak).toBe(3);
  });

  it('checks a failing SIEM less and less often, keeping its last reading, until it recovers', async () => {
    const clock = manualClock(T0);
    let state: ProbeResult = { state: 'down', reason: 'connection refused' };
    const siem = probe('siem:q', 'siem', async () => state);
    const provider = createBuiltinProvider({
      probes: new ProbeRegistry(),
      clock,
      intervalMs: 1_000,
      maxBackoffMs: 4_000,
      listSiemProbes: async () => [siem],
    });
    const checkedAt: number[] = [];
    for (let i = 0; i < 16; i += 1) {
      const before = siem.calls;
      const [r] = await provider.poll(signal);
      expect(r).toMatchObject({ state: 'down', reason: 'connection refused' });
      if (siem.calls > before) checkedAt.push(i);
      clock.advance(1_000);
    }
    // Gaps of 1, 2, 4 intervals, then capped at 4.
    expect(checkedAt).toEqual([0, 1, 3, 7, 11, 15]);
    state = { state: 'up' };
    clock.advance(4_000);
    await provider.poll(signal);
    const calls = siem.calls;
    clock.advance(1_000);
    const [r] = await provider.poll(signal);
    expect(r).toMatchObject({ state: 'up', reason: null });
    expect(siem.calls).toBe(calls + 1);
  });

  it('does not back off other dependencies', async () => {
    const clock = manualClock(T0);
    const probes = new ProbeRegistry();
    const db = probe('database', 'database', async () => ({ state: 'down', reason: 'x' }));
    probes.register(db);
    const provider = createBuiltinProvider({ probes, clock, intervalMs: 1_000 });
    for (let i = 0; i < 5; i += 1) {
      await provider.poll(signal);
      clock.advance(1_000);
    }
    expect(db.calls).toBe(5);
  });

  it('keeps the SIEMs last seen as unknown when the destinations cannot be read', async () => {
    let fail = false;
    const provider = createBuiltinProvider({
      probes: new ProbeRegistry(),
      clock: manualClock(T0),
      listSiemProbes: async () => {
        if (fail) throw new Error('secret key mismatch');
        return [probe('siem:a', 'siem', async () => ({ state: 'up' }))];
      },
    });
    await provider.poll(signal);
    fail = true;
    expect(await provider.poll(signal)).toEqual([
      {
        id: 'siem:a',
        kind: 'siem',
        name: 'siem:a',
        state: 'unknown',
        reason: 'destinations cannot be read: secret key mismatch',
        labels: {},
      },
    ]);
  });

  it('gives up listing destinations that do not come in time', async () => {
    let first = true;
    const provider = createBuiltinProvider({
      probes: new ProbeRegistry(),
      clock: manualClock(T0),
      timeoutMs: 50,
      listSiemProbes: async () => {
        if (first) {
          first = false;
          return [probe('siem:a', 'siem', async () => ({ state: 'up' }))];
        }
        return new Promise(() => {});
      },
    });
    await provider.poll(signal);
    expect((await provider.poll(signal)).map((r) => [r.id, r.state, r.reason])).toEqual([
      ['siem:a', 'unknown', 'destinations cannot be read: no answer within 0.05 s'],
    ]);
  });

  it('throws when the poll is cancelled', async () => {
    const controller = new AbortController();
    const probes = new ProbeRegistry();
    probes.register(probe('database', 'database', () => new Promise(() => {})));
    const pending = createBuiltinProvider({ probes, clock: manualClock(T0) }).poll(controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});
