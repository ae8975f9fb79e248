import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SwitchableDispatcher } from '../../test/helpers/switchable-dispatcher.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import type { DispatchRequest, DispatchTrigger, NoiseDispatcher } from './dispatch-types.ts';
import { claimDueJobs } from './job-lease.ts';
import { findJob } from './job-store.ts';
import { JOB_RUNNING_REASON } from './noise-runner.ts';
import { createRunRows, finishRun, getRuns, type RunView } from './run-store.ts';

const ZIP = Buffer.from('PK\x03\x04 stand-in');
const DISPATCH_TOKEN = 'noise-runner-test-token-0123456789';
const DAILY = { kind: 'interval', interval_seconds: 86_400 } as const;
const BY = { actor: 'system' } as const;

/** Releases of every held dispatcher: afterEach opens them, so a failed test never leaves a run hanging. */
const gates: Array<() => void> = [];

/**
 * A dispatcher that records each call and holds it until released (or not at all when built
 * open), then ends every row succeeded with `shipped` events, as the real one does through finishRun.
 */
function heldDispatcher(t: TestApp, opts: { shipped?: number; open?: boolean } = {}) {
  const calls: DispatchRequest[] = [];
  let release: () => void = () => {};
  const gate = opts.open ? Promise.resolve() : new Promise<void>((resolve) => (release = resolve));
  gates.push(() => release());
  let called: () => void = () => {};
  const firstCall = new Promise<void>((resolve) => (called = resolve));
  const dispatcher: NoiseDispatcher = async (request) => {
    calls.push(request);
    called();
    await gate;
    for (const id of Object.values(request.run_ids)) {
      await finishRun(
        t.ctx.db,
        id,
        { status: 'succeeded', events_shipped: opts.shipped ?? 10, events_failed: 0 },
        t.clock.now(),
      );
    }
    return { ok: true, failed: [] };
  };
  return { calls, dispatcher, firstCall, release: () => release() };
}

describe('noise runner', () => {
  let t: TestApp;
  let cookie: string;
  const dispatch = new SwitchableDispatcher();
  let seq = 0;

  beforeAll(async () => {
    t = await buildTestApp({ env: { DISPATCH_TOKEN }, overrides: { noiseDispatcher: dispatch.override } });
    cookie = (await signedInAs(t, ['noise_operator'])).cookie;
    await createDestination(t.ctx, {
      name: 'siem',
      driver: 'vendorA_hec',
      index: 'lab',
      url: 'https://a:8088',
      token: 'x',
    });
    await t.ctx.storage.put('noise-archives', 'n/a.zip', ZIP);
  });
  afterEach(async () => {
    for (const open of gates.splice(0)) open();
    await t.ctx.noise.runner.settle();
    dispatch.reset();
  });
  afterAll(async () => {
    await t.close();
  });

  /** A new job on `siem`, daily unless told otherwise; its first run is a day away. */
  async function newJob(schedule: object = DAILY): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/noise/jobs',
      headers: { cookie },
      payload: {
        name: `runner job ${++seq}`,
        targets: ['siem'],
        schedule,
        archives: [{ position: 0, storage_path: 'n/a.zip' }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  /** The body of POST /api/noise/run for the job's rows. */
  function bodyFor(
    jobId: string,
    run_ids: Record<string, string>,
    trigger: DispatchTrigger = 'schedule',
  ): DispatchRequest {
    return {
      job_id: jobId,
      trigger,
      run_ids,
      archives: [{ position: 0, storage_path: 'n/a.zip' }],
      targets: Object.keys(run_ids),
      schedule: { ...DAILY },
    };
  }

  const postRun = (payload: object) =>
    t.app.inject({
      method: 'POST',
      url: '/api/noise/run',
      headers: { authorization: `Bearer ${DISPATCH_TOKEN}` },
      payload,
    });

  const rowsOf = async (run_ids: Record<string, string>): Promise<RunView[]> =>
    getRuns(t.ctx.db, Object.values(run_ids));

  describe('a dispatch of rows another dispatch is running', () => {
    it('answers the same dispatch sent twice at once with job_running and leaves the rows to the one that runs', async () => {
      const jobId = await newJob();
      // Several rounds: on PostgreSQL the second call may find the job row locked or already leased.
      for (let round = 0; round < 5; round++) {
        const held = heldDispatcher(t, { shipped: 10 });
        dispatch.use(held.dispatcher);
        const run_ids = await t.ctx.noise.runner.createRuns(jobId, { trigger: 'schedule' });
        const body = bodyFor(jobId, run_ids);
        const [a, b] = await Promise.allSettled([
          t.ctx.noise.runner.dispatch(body, BY),
          t.ctx.noise.runner.dispatch(body, BY),
        ]);
        const won = [a, b].filter((s) => s.status === 'fulfilled');
        const lost = [a, b].flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
        expect(won).toHaveLength(1);
        expect((await rowsOf(run_ids)).map((r) => [r.status, r.error])).toEqual([['running', null]]);
        expect(lost).toHaveLength(1);
        expect(lost[0]).toMatchObject({
          code: 'job_running',
          details: { job_id: jobId, run_ids: {}, in_progress: ['siem'] },
        });

        held.release();
        const done = await (won[0] as PromiseFulfilledResult<{ done: Promise<unknown> }>).value.done;
        expect(done).toMatchObject({ ok: true, failed: [] });
        expect(held.calls).toHaveLength(1);
        expect(
          (await rowsOf(run_ids)).map((r) => [r.status, r.events_shipped, r.events_failed, r.error]),
        ).toEqual([['succeeded', 10, 0, null]]);
      }
    });

    it('answers job_running to a dispatch of rows the scheduler claimed and leaves them to that run', async () => {
      const jobId = await newJob();
      // Due now; every other job of this file is at least minutes away.
      await t.ctx.db
        .updateTable('noise_jobs')
        .set({ next_run_at: new Date(t.clock.now()) })
        .where('id', '=', jobId)
        .execute();
      const [claim, ...others] = await claimDueJobs(t.ctx.db, {
        now: t.clock.now(),
        leaseMs: t.ctx.noise.runner.leaseMs,
        limit: 10,
        newOwner: () => t.ctx.noise.runner.newOwner(),
      });
      expect(others).toEqual([]);
      expect(claim?.job.id).toBe(jobId);
      if (!claim) return;
      // The claimed rows are still pending (the dispatch has not started): they are the claim's.
      const refused = await t.ctx.noise.runner.dispatch(bodyFor(jobId, claim.run_ids), BY).catch((e) => e);
      expect((await rowsOf(claim.run_ids)).map((r) => [r.status, r.error])).toEqual([['pending', null]]);
      expect(refused).toMatchObject({ code: 'job_running', details: { run_ids: {}, in_progress: ['siem'] } });

      dispatch.use(heldDispatcher(t, { shipped: 3, open: true }).dispatcher);
      expect(await t.ctx.noise.runner.runClaimed(claim).done).toMatchObject({ ok: true });
      expect((await rowsOf(claim.run_ids)).map((r) => [r.status, r.events_shipped, r.error])).toEqual([
        ['succeeded', 3, null],
      ]);
    });
  });

  describe('a schedule changed while the job runs', () => {
    const paths = ['POST /api/noise/jobs/:id/runs', 'the scheduler', 'POST /api/noise/run'] as const;
    for (const path of paths) {
      it(`applies from the next run: next_run_at follows the new schedule (${path})`, async () => {
        const jobId = await newJob();
        const held = heldDispatcher(t);
        dispatch.use(held.dispatcher);
        let done: Promise<unknown>;
        if (path === 'POST /api/noise/jobs/:id/runs') {
          done = t.ctx.noise.runner.runJob(jobId, { trigger: 'manual', by: BY }).then((h) => h.done);
        } else if (path === 'the scheduler') {
          await t.ctx.db
            .updateTable('noise_jobs')
            .set({ next_run_at: new Date(t.clock.now()) })
            .where('id', '=', jobId)
            .execute();
          const claims = await t.ctx.noise.scheduler.tick();
          expect(claims.map((c) => c.job.id)).toEqual([jobId]);
          done = t.ctx.noise.runner.settle();
        } else {
          // The body carries the schedule the job had when the caller built it.
          const run_ids = await t.ctx.noise.runner.createRuns(jobId, { trigger: 'schedule' });
          done = t.ctx.noise.runner.dispatch(bodyFor(jobId, run_ids), BY).then((h) => h.done);
        }
        await held.firstCall;

        const patch = await t.app.inject({
          method: 'PATCH',
          url: `/api/noise/jobs/${jobId}`,
          headers: { cookie },
          payload: { schedule: { kind: 'interval', interval_seconds: 300 } },
        });
        expect(patch.statusCode, patch.body).toBe(200);
        t.clock.advance(5000);
        const finishedAt = t.clock.now();
        held.release();
        await done;

        const job = await findJob(t.ctx.db, jobId);
        expect(job.last_run_at).toBe(finishedAt);
        expect(job.next_run_at).toBe(finishedAt + 300_000);
      });
    }
  });

  describe('the trigger of run rows', () => {
    it('gives rows the trigger of the POST /api/noise/run that runs them', async () => {
      const jobId = await newJob();
      dispatch.use(heldDispatcher(t, { open: true }).dispatcher);
      // An external scheduler creates its rows through the API (trigger manual until dispatched) …
      const created = await t.app.inject({
        method: 'POST',
        url: `/api/noise/jobs/${jobId}/runs`,
        headers: { cookie },
        payload: { dispatch: false },
      });
      expect(created.statusCode, created.body).toBe(201);
      const fromApi: Record<string, string> = created.json().run_ids;
      expect((await rowsOf(fromApi)).map((r) => r.trigger)).toEqual(['manual']);
      // … and dispatches them as a scheduler call.
      const scheduled = await postRun(bodyFor(jobId, fromApi, 'schedule'));
      expect(scheduled.json()).toEqual({ ok: true });
      expect((await rowsOf(fromApi)).map((r) => [r.trigger, r.status])).toEqual([['schedule', 'succeeded']]);

      // Rows inserted as the pg_cron recipe does, dispatched by a person: manual.
      const inserted = await createRunRows(t.ctx.db, {
        jobId,
        targets: ['siem'],
        trigger: 'schedule',
        now: t.clock.now(),
      });
      const manual = await postRun(bodyFor(jobId, inserted, 'manual'));
      expect(manual.json()).toEqual({ ok: true });
      expect((await rowsOf(inserted)).map((r) => [r.trigger, r.status])).toEqual([['manual', 'succeeded']]);
    });

    it('gives the rows a refused dispatch skipped the trigger of that dispatch', async () => {
      const jobId = await newJob();
      const held = heldDispatcher(t);
      dispatch.use(held.dispatcher);
      const running = await t.ctx.noise.runner.runJob(jobId, { trigger: 'manual', by: BY });
      const run_ids = await t.ctx.noise.runner.createRuns(jobId, { trigger: 'manual' });

      const refused = await postRun(bodyFor(jobId, run_ids, 'schedule'));
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error).toMatchObject({ code: 'job_running', details: { run_ids } });
      expect((await rowsOf(run_ids)).map((r) => [r.status, r.trigger, r.error])).toEqual([
        ['skipped', 'schedule', JOB_RUNNING_REASON],
      ]);
      held.release();
      await running.done;
    });
  });
});
