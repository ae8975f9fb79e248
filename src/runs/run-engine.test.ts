import { describe, expect, it } from 'vitest';
import { manualClock } from '../clock.ts';
import { createLogger } from '../logger.ts';
import { RunEngine, type RunLease } from './run-engine.ts';

const log = createLogger('silent');

/** A lease whose extensions are counted and can be made to fail (lost). */
function lease(key = 'job-1') {
  const state = { extended: 0, held: true };
  const value: RunLease = {
    key,
    owner: `i/${key}`,
    extend: async () => {
      state.extended++;
      return state.held;
    },
  };
  return { lease: value, state };
}

describe('RunEngine', () => {
  it('extends the leases of running work and aborts a run whose lease was lost, with its wording', async () => {
    const engine = new RunEngine({ clock: manualClock(0), log, instanceId: 'i' }, { leaseMs: 60_000 });
    const a = lease('a');
    const b = lease('b');
    const reasons: string[] = [];
    const runA = engine.run(a.lease, (signal) =>
      until(signal).then(() => reasons.push(String(signal.reason))),
    );
    const runB = engine.run(
      b.lease,
      (signal) => until(signal).then(() => reasons.push(String(signal.reason))),
      {
        leaseLost: 'b lost its lease',
      },
    );
    expect(engine.inFlight).toBe(2);
    b.state.held = false;
    await engine.heartbeat();
    await runB;
    expect(reasons).toEqual(['Error: b lost its lease']);
    expect(a.state.extended).toBe(1);
    expect(engine.inFlight).toBe(1);
    await engine.close();
    await runA;
    expect(reasons).toEqual(['Error: b lost its lease', 'Error: the service stopped during the run']);
    expect(engine.inFlight).toBe(0);
  });

  it('refuses new starts once closing, and stops a run that started while close() waited for it', async () => {
    const engine = new RunEngine({ clock: manualClock(0), log, instanceId: 'i' });
    let letStart = () => {};
    const gate = new Promise<void>((resolve) => {
      letStart = resolve;
    });
    let aborted = false;
    const starting = engine.starting(async () => {
      await gate;
      return engine.run(lease().lease, async (signal) => {
        aborted = signal.aborted;
      });
    }, 'noise dispatch');
    const closed = engine.close();
    await expect(engine.starting(async () => 1, 'noise dispatch')).rejects.toThrow(
      'The service is stopping; no new noise dispatch starts',
    );
    letStart();
    await await starting;
    await closed;
    expect(aborted).toBe(true);
  });

  it('waits out the grace period for a run ignoring its abort once, however often it is closed', async () => {
    const graceMs = 400;
    const engine = new RunEngine(
      { clock: manualClock(0), log, instanceId: 'i' },
      { shutdownGraceMs: graceMs },
    );
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A run stuck where the abort cannot reach it (e.g. a stalled download).
    const run = engine.run(lease().lease, () => released);
    try {
      let since = performance.now();
      await engine.close();
      expect(performance.now() - since).toBeGreaterThanOrEqual(graceMs - 20);
      since = performance.now();
      await engine.close();
      expect(performance.now() - since).toBeLessThan(graceMs / 2);
    } finally {
      release();
      await run;
    }
  });

  it('gives every run of this instance its own owner', () => {
    const engine = new RunEngine({ clock: manualClock(0), log, instanceId: 'host:1:ab' });
    const [a, b] = [engine.newOwner(), engine.newOwner()];
    expect(a).toMatch(/^host:1:ab\/[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });
});

function until(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
