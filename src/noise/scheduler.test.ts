import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { RunEngine } from '../runs/run-engine.ts';
import type { DispatchRequest, NoiseDispatcher } from './dispatch-types.ts';
import { claimDueJobs, LEASE_EXPIRED_ERROR } from './job-lease.ts';
import { createJob } from './job-service.ts';
import { findJob } from './job-store.ts';
import { createNoiseServices, type NoiseServices } from './noise-services.ts';
import { finishRun, getRuns, markRunsRunning } from './run-store.ts';
import type { NoiseSchedulerOptions } from './scheduler.ts';

const ZIP = Buffer.from('PK\x03\x04 stand-in');

describe('noise scheduler', () => {
  let t: TestApp;
  let a: NoiseServices & { close(): Promise<void> };
  let b: NoiseServices & { close(): Promise<void> };
  const calls: Array<{ instance: string; request: DispatchRequest; signal: AbortSignal }> = [];
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => {};
  const hold = () => {
    gate = new Promise((resolve) => {
      open = resolve;
    });
  };

  /** Records the call, waits at the gate, then marks every row succeeded. */
  const dispatcher =
    (instance: string): NoiseDispatcher =>
    async (request, signal) => {
      calls.push({ instance, request, signal });
      await gate;
      for (const id of Object.values(request.run_ids)) {
        await finishRun(
          t.ctx.db,
          id,
          { status: 'succeeded', events_shipped: 1, events_failed: 0 },
          t.clock.now(),
        );
      }
      return { ok: true, failed: [] };
    };

  let seq = 0;
  const job = async (over: Record<string, unknown> = {}) =>
    createJob(t.ctx, {
      name: `scheduled-${++seq}`,
      targets: ['splunk-lab'],
      schedule: { kind: 'interval', interval_seconds: 60 },
      archives: [{ position: 0, storage_path: 'n/a.zip' }],
      ...over,
    });

  beforeAll(async () => {
    t = await buildTestApp();
    await createDestination(t.ctx, {
      name: 'splunk-lab',
      driver: 'vendorA_hec',
      url: 'https://a:8088',
      token: 'x',
      index: 'lab',
    });
    await t.ctx.storage.put('noise-archives', 'n/a.zip', ZIP);
    a = services('instance-a');
    b = services('instance-b');
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await t.close();
  });

  /** A second noise feature on the test's database, as another instance would run it. */
  const services = (instanceId: string, maxConcurrent = 4, scheduler: NoiseSchedulerOptions = {}) => {
    const engine = new RunEngine({ clock: t.clock, log: t.ctx.log, instanceId }, { leaseMs: 60_000 });
    const s = createNoiseServices(
      {
        db: t.ctx.db,
        clock: t.clock,
        log: t.ctx.log,
        audit: (e) => t.ctx.audit(e),
        engine,
        dispatcher: dispatcher(instanceId),
      },
      { scheduler: { maxConcurrent, ...scheduler } },
    );
    return {
      ...s,
      async close() {
        await s.scheduler.stop();
        await engine.close();
      },
    };
  };

  afterEach(async () => {
    open();
    await a.runner.settle();
    await b.runner.settle();
    calls.length = 0;
    // Each test starts without due jobs left over from another.
    await t.ctx.db.updateTable('noise_jobs').set({ enabled: false, next_run_at: null }).execute();
  });

  it('claims a due job once, dispatches it with trigger schedule and schedules the next run from its end', async () => {
    const created = await job();
    expect(await a.scheduler.tick()).toEqual([]);
    t.clock.advance(60_000);
    const [claim, ...more] = await a.scheduler.tick();
    expect(more).toEqual([]);
    expect(claim?.job.id).toBe(created.id);
    expect(await b.scheduler.tick()).toEqual([]);
    await a.runner.settle();
    expect(calls.map((c) => [c.instance, c.request.trigger, c.request.job_id])).toEqual([
      ['instance-a', 'schedule', created.id],
    ]);
    const rows = await getRuns(t.ctx.db, Object.values(claim?.run_ids ?? {}));
    expect(rows.map((r) => [r.siem, r.trigger, r.status])).toEqual([['splunk-lab', 'schedule', 'succeeded']]);
    const after = await findJob(t.ctx.db, created.id);
    expect(after.next_run_at).toBe(t.clock.now() + 60_000);
    expect(after.last_run_at).toBe(t.clock.now());
    expect(after.lease_owner).toBeNull();
    expect(await a.scheduler.tick()).toEqual([]);
    const audit = await t.ctx.db
      .selectFrom('audit_log')
      .select(['actor_type', 'outcome', 'target'])
      .where('action', '=', 'noise.dispatch')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit).toEqual({ actor_type: 'system', outcome: 'success', target: created.name });
  });

  it('leaves disabled jobs alone', async () => {
    await job({ enabled: false });
    t.clock.advance(3600_000);
    expect(await a.scheduler.tick()).toEqual([]);
  });

  it('never claims a job while its dispatch runs, however overdue, and continues after it', async () => {
    const created = await job();
    hold();
    t.clock.advance(60_000);
    expect(await a.scheduler.tick()).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(10_000);
      await a.runner.heartbeat();
      expect(await a.scheduler.tick()).toEqual([]);
      expect(await b.scheduler.tick()).toEqual([]);
    }
    open();
    await a.runner.settle();
    expect(calls).toHaveLength(1);
    expect((await findJob(t.ctx.db, created.id)).next_run_at).toBe(t.clock.now() + 60_000);
  });

  it("recovers a crashed instance's run once its lease expired: its rows fail and the job runs once more", async () => {
    const created = await job();
    t.clock.advance(60_000);
    // An instance claims the job and dies mid-dispatch: no heartbeat, no release.
    const [dead] = await claimDueJobs(t.ctx.db, {
      now: t.clock.now(),
      leaseMs: 60_000,
      limit: 10,
      newOwner: () => 'crashed-instance/1',
    });
    expect(dead?.job.id).toBe(created.id);
    await markRunsRunning(t.ctx.db, Object.values(dead?.run_ids ?? {}), 'crashed-instance/1', t.clock.now());

    t.clock.advance(59_999);
    expect(await b.scheduler.tick()).toEqual([]);
    t.clock.advance(1);
    const [retry, ...more] = await b.scheduler.tick();
    expect(more).toEqual([]);
    expect(retry?.job.id).toBe(created.id);
    await b.runner.settle();

    const deadRows = await getRuns(t.ctx.db, Object.values(dead?.run_ids ?? {}));
    expect(deadRows.map((r) => [r.status, r.error])).toEqual([['failed', LEASE_EXPIRED_ERROR]]);
    expect(calls.map((c) => c.instance)).toEqual(['instance-b']);
    expect(await a.scheduler.tick()).toEqual([]);
    expect(await b.scheduler.tick()).toEqual([]);
  });

  it('keeps a long dispatch leased by heartbeats and aborts it once its lease was lost', async () => {
    const created = await job();
    hold();
    t.clock.advance(60_000);
    const [first] = await a.scheduler.tick();
    t.clock.advance(50_000);
    await a.runner.heartbeat();
    t.clock.advance(50_000);
    expect(await b.scheduler.tick()).toEqual([]);
    // Instance a stalls: no heartbeat until well after the lease ran out.
    t.clock.advance(20_000);
    const [takeover] = await b.scheduler.tick();
    expect(takeover?.job.id).toBe(created.id);
    while (calls.length < 2) await new Promise((r) => setImmediate(r));
    expect(calls.map((c) => c.signal.aborted)).toEqual([false, false]);
    await a.runner.heartbeat();
    expect(calls[0]?.signal.aborted).toBe(true);
    expect(String((calls[0]?.signal.reason as Error | undefined)?.message)).toBe(
      'the dispatch lost its lease (it expired and the job was taken over)',
    );
    open();
    await a.runner.settle();
    await b.runner.settle();
    // a's late end neither overwrote b's rows nor freed b's lease early.
    const firstRows = await getRuns(t.ctx.db, Object.values(first?.run_ids ?? {}));
    expect(firstRows.map((r) => [r.status, r.error])).toEqual([['failed', LEASE_EXPIRED_ERROR]]);
    const takeoverRows = await getRuns(t.ctx.db, Object.values(takeover?.run_ids ?? {}));
    expect(takeoverRows.map((r) => r.status)).toEqual(['succeeded']);
    expect((await findJob(t.ctx.db, created.id)).lease_owner).toBeNull();
  });

  it('runs a job overdue after downtime once, then continues from that run (no catch-up)', async () => {
    const created = await job({ schedule: { kind: 'cron', cron: '*/5 * * * *' } });
    t.clock.advance(2 * 3600_000);
    expect(await a.scheduler.tick()).toHaveLength(1);
    await a.runner.settle();
    expect(await a.scheduler.tick()).toEqual([]);
    expect(calls).toHaveLength(1);
    const next = (await findJob(t.ctx.db, created.id)).next_run_at as number;
    expect(next).toBeGreaterThan(t.clock.now());
    expect(next - t.clock.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(new Date(next).getUTCMinutes() % 5).toBe(0);
  });

  it('claims no more than maxConcurrent dispatches at once', async () => {
    const small = services('instance-small', 2);
    try {
      await job();
      await job();
      await job();
      hold();
      t.clock.advance(60_000);
      expect(await small.scheduler.tick()).toHaveLength(2);
      expect(await small.scheduler.tick()).toHaveLength(0);
      expect(await b.scheduler.tick()).toHaveLength(1);
      open();
      await small.runner.settle();
    } finally {
      await small.close();
    }
  });

  it('loops on its own timer, exposes the last tick time, and stops', async () => {
    const sleeps: number[] = [];
    let wake: () => void = () => {};
    const s = services('looping', 4, {
      tickMs: 1000,
      random: () => 0.5,
      sleep: (ms: number, signal: AbortSignal) =>
        new Promise<void>((resolve) => {
          sleeps.push(ms);
          wake = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
    });
    expect(s.scheduler.lastTickAt).toBeUndefined();
    s.scheduler.start();
    expect(s.scheduler.running).toBe(true);
    while (sleeps.length < 1) await new Promise((r) => setImmediate(r));
    expect(s.scheduler.lastTickAt).toBe(t.clock.now());
    t.clock.advance(1000);
    wake();
    while (sleeps.length < 2) await new Promise((r) => setImmediate(r));
    expect(s.scheduler.lastTickAt).toBe(t.clock.now());
    expect(sleeps).toEqual([1000, 1000]);
    await s.close();
    expect(s.scheduler.running).toBe(false);
  });
});
