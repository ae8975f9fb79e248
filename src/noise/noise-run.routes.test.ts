import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SwitchableDispatcher } from '../../test/helpers/switchable-dispatcher.ts';
import { buildTestApp, signedInAs, TEST_NOW, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { AppError } from '../errors.ts';
import type { DispatchRequest, NoiseDispatcher } from './dispatch-types.ts';
import { JOB_RUNNING_REASON, NO_FINAL_STATUS_ERROR } from './noise-runner.ts';
import { createRunRows, finishRun, getRuns } from './run-store.ts';

const ZIP = Buffer.from('PK\x03\x04 stand-in');

/** A dispatcher that records its calls and waits until released; it then finishes every row. */
function gatedDispatcher(t: TestApp) {
  const calls: Array<{ request: DispatchRequest; signal: AbortSignal }> = [];
  let release: () => void = () => {};
  let gate = Promise.resolve();
  const dispatcher: NoiseDispatcher = async (request, signal) => {
    calls.push({ request, signal });
    await gate;
    for (const [siem, id] of Object.entries(request.run_ids)) {
      await finishRun(
        t.ctx.db,
        id,
        siem === 'elastic-lab'
          ? { status: 'partial', events_shipped: 7, events_failed: 2, error: '2 documents rejected' }
          : { status: 'succeeded', events_shipped: 9, events_failed: 0 },
        t.ctx.clock.now(),
      );
    }
    return {
      ok: !('elastic-lab' in request.run_ids),
      failed: 'elastic-lab' in request.run_ids ? ['elastic-lab'] : [],
    };
  };
  return {
    calls,
    dispatcher,
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
  };
}

describe('noise runs', () => {
  let t: TestApp;
  let cookie: string;
  let jobId: string;
  const dispatch = new SwitchableDispatcher();

  beforeAll(async () => {
    t = await buildTestApp({ overrides: { noiseDispatcher: dispatch.override } });
    cookie = (await signedInAs(t, ['noise_operator'])).cookie;
    for (const [name, driver, extra] of [
      ['splunk-lab', 'vendorA_hec', { url: 'https://a:8088', token: 'x', index: 'lab' }],
      ['elastic-lab', 'vendorB_bulk', { url: 'https://b:9200', index: 'lab' }],
    ] as const) {
      await createDestination(t.ctx, { name, driver, ...extra });
    }
    await t.ctx.storage.put('noise-archives', 'n/a.zip', ZIP);
    await t.ctx.storage.put('noise-archives', 'n/b.zip', ZIP);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/noise/jobs',
      headers: { cookie },
      payload: {
        name: 'two targets',
        targets: ['splunk-lab', 'elastic-lab'],
        schedule: { kind: 'interval', interval_seconds: 600 },
        archives: [
          { position: 1, storage_path: 'n/b.zip', index_mode: 'existing', index: 'auth' },
          { position: 0, storage_path: 'n/a.zip' },
        ],
      },
    });
    jobId = res.json().id;
  });
  afterEach(async () => {
    await t.ctx.noise.runner.settle();
    dispatch.reset();
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (payload?: object, id = jobId) =>
    t.app.inject({
      method: 'POST',
      url: `/api/noise/jobs/${id}/runs`,
      headers: { cookie },
      ...(payload ? { payload } : {}),
    });
  const runs = async (query: string) =>
    (await t.app.inject({ url: `/api/noise/runs?${query}`, headers: { cookie } })).json();

  it('creates one pending manual row per target without dispatching when dispatch is false', async () => {
    const gated = gatedDispatcher(t);
    dispatch.use(gated.dispatcher);
    const res = await post({ dispatch: false });
    expect(res.statusCode).toBe(201);
    const { run_ids, dispatched } = res.json();
    expect(dispatched).toBe(false);
    expect(Object.keys(run_ids)).toEqual(['splunk-lab', 'elastic-lab']);
    expect(gated.calls).toEqual([]);
    const rows = await runs(`job_id=${jobId}&status=pending`);
    expect(rows.map((r: { id: string }) => r.id).sort()).toEqual(Object.values(run_ids).sort());
    expect(rows[0]).toEqual({
      id: expect.any(String),
      job_id: jobId,
      siem: expect.any(String),
      trigger: 'manual',
      status: 'pending',
      events_shipped: 0,
      events_failed: 0,
      error: null,
      created_at: new Date(TEST_NOW).toISOString(),
      started_at: null,
      finished_at: null,
    });
  });

  it('dispatches with exactly the body of POST /api/noise/run and records the final rows', async () => {
    const gated = gatedDispatcher(t);
    gated.hold();
    dispatch.use(gated.dispatcher);
    const res = await post();
    expect(res.statusCode).toBe(201);
    const { run_ids, dispatched } = res.json();
    expect(dispatched).toBe(true);
    // The dispatcher has the request while the rows are running and the lease is held.
    await until(() => gated.calls.length === 1);
    expect(gated.calls[0]?.request).toEqual({
      job_id: jobId,
      trigger: 'manual',
      run_ids,
      archives: [
        { position: 0, storage_path: 'n/a.zip' },
        { position: 1, storage_path: 'n/b.zip' },
      ],
      targets: ['splunk-lab', 'elastic-lab'],
      schedule: { kind: 'interval', interval_seconds: 600 },
    });
    expect((await getRuns(t.ctx.db, Object.values(run_ids))).map((r) => r.status)).toEqual([
      'running',
      'running',
    ]);
    const job = (await t.app.inject({ url: `/api/noise/jobs/${jobId}`, headers: { cookie } })).json();
    expect(job.running).toBe(true);

    t.clock.advance(4000);
    gated.release();
    await t.ctx.noise.runner.settle();
    const rows = await getRuns(t.ctx.db, Object.values(run_ids));
    const bySiem = Object.fromEntries(rows.map((r) => [r.siem, r]));
    expect(bySiem['splunk-lab']).toMatchObject({
      status: 'succeeded',
      events_shipped: 9,
      events_failed: 0,
      error: null,
      started_at: new Date(TEST_NOW).toISOString(),
      finished_at: new Date(TEST_NOW + 4000).toISOString(),
    });
    expect(bySiem['elastic-lab']).toMatchObject({
      status: 'partial',
      events_shipped: 7,
      events_failed: 2,
      error: '2 documents rejected',
    });
    const after = (await t.app.inject({ url: `/api/noise/jobs/${jobId}`, headers: { cookie } })).json();
    expect(after).toMatchObject({
      running: false,
      last_run_at: new Date(TEST_NOW + 4000).toISOString(),
      next_run_at: new Date(TEST_NOW + 4000 + 600_000).toISOString(),
    });
    const audit = await t.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'outcome', 'actor_type', 'details'])
      .where('action', '=', 'noise.dispatch')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({
      outcome: 'failure',
      actor_type: 'user',
      details: { job_id: jobId, trigger: 'manual', run_ids, failed: ['elastic-lab'] },
    });
  });

  it('answers 409 job_running while a run is in progress and marks the new rows skipped', async () => {
    const gated = gatedDispatcher(t);
    gated.hold();
    dispatch.use(gated.dispatcher);
    const first = await post();
    expect(first.statusCode).toBe(201);
    const second = await post();
    expect(second.statusCode).toBe(409);
    const error = second.json().error;
    expect(error.code).toBe('job_running');
    const skippedIds = Object.values(error.details.run_ids as Record<string, string>);
    expect(skippedIds).toHaveLength(2);
    const skipped = await getRuns(t.ctx.db, skippedIds);
    expect(skipped.map((r) => [r.status, r.error, r.trigger])).toEqual([
      ['skipped', JOB_RUNNING_REASON, 'manual'],
      ['skipped', JOB_RUNNING_REASON, 'manual'],
    ]);
    // Creating pending rows without dispatch is not a run and is allowed meanwhile.
    expect((await post({ dispatch: false })).statusCode).toBe(201);
    gated.release();
    await t.ctx.noise.runner.settle();
    expect(gated.calls).toHaveLength(1);
    const denied = await t.ctx.db
      .selectFrom('audit_log')
      .select(['outcome', 'details'])
      .where('action', '=', 'noise.dispatch')
      .where(({ eb, ref }) => eb(ref('details', '->>').key('reason' as never), '=', 'job_running'))
      .execute();
    expect(denied.length).toBeGreaterThanOrEqual(1);
  });

  it('ships through the real dispatcher: stand-in archives fail every row naming the archive', async () => {
    const { run_ids, done } = await t.ctx.noise.runner.runJob(jobId, {
      trigger: 'manual',
      by: { actor: 'system' },
    });
    const result = await done;
    expect(result).toMatchObject({ ok: false, failed: ['splunk-lab', 'elastic-lab'] });
    const rows = await getRuns(t.ctx.db, Object.values(run_ids));
    const unreadable =
      'invalid archive: n/a.zip: the archive is not a readable zip file: End of central directory ' +
      'record signature not found. Either not a zip file, or file is truncated.';
    expect(rows.map((r) => [r.status, r.error, r.events_shipped])).toEqual([
      ['failed', unreadable, 0],
      ['failed', unreadable, 0],
    ]);
  });

  it('fails the rows with the error when the dispatcher throws, and frees the job', async () => {
    dispatch.use(async () => {
      throw new Error('archive n/a.zip could not be read');
    });
    const { run_ids, done } = await t.ctx.noise.runner.runJob(jobId, {
      trigger: 'manual',
      by: { actor: 'system' },
    });
    expect((await done).ok).toBe(false);
    const rows = await getRuns(t.ctx.db, Object.values(run_ids));
    expect(new Set(rows.map((r) => `${r.status}: ${r.error}`))).toEqual(
      new Set(['failed: the dispatch failed: archive n/a.zip could not be read']),
    );
    expect(
      (await t.app.inject({ url: `/api/noise/jobs/${jobId}`, headers: { cookie } })).json().running,
    ).toBe(false);
  });

  it('fails the rows a dispatcher returned without finishing, and trusts the rows over its answer', async () => {
    dispatch.use(async (request) => {
      await finishRun(
        t.ctx.db,
        request.run_ids['splunk-lab'] as string,
        { status: 'succeeded', events_shipped: 3, events_failed: 0 },
        t.ctx.clock.now(),
      );
      return { ok: true, failed: [] };
    });
    const { run_ids, done } = await t.ctx.noise.runner.runJob(jobId, {
      trigger: 'manual',
      by: { actor: 'system' },
    });
    expect(await done).toMatchObject({ ok: false, failed: ['elastic-lab'] });
    const [row] = await getRuns(t.ctx.db, [run_ids['elastic-lab'] as string]);
    expect([row?.status, row?.error]).toEqual(['failed', NO_FINAL_STATUS_ERROR]);
  });

  it('dispatches only the given targets (the wipe re-fire)', async () => {
    const gated = gatedDispatcher(t);
    dispatch.use(gated.dispatcher);
    const { run_ids, done } = await t.ctx.noise.runner.runJob(jobId, {
      trigger: 'manual',
      targets: ['splunk-lab'],
      by: { actor: 'system' },
    });
    expect(Object.keys(run_ids)).toEqual(['splunk-lab']);
    expect(await done).toMatchObject({ ok: true, failed: [] });
    expect(gated.calls[0]?.request.targets).toEqual(['splunk-lab']);
    await expect(
      t.ctx.noise.runner.runJob(jobId, { trigger: 'manual', targets: ['nope'], by: { actor: 'system' } }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });

  describe('dispatch of rows created beforehand (POST /api/noise/run)', () => {
    const pending = async () =>
      createRunRows(t.ctx.db, {
        jobId,
        targets: ['splunk-lab', 'elastic-lab'],
        trigger: 'schedule',
        now: t.ctx.clock.now(),
      });
    const requestFor = (run_ids: Record<string, string>): DispatchRequest => ({
      job_id: jobId,
      trigger: 'schedule',
      run_ids,
      archives: [{ position: 0, storage_path: 'n/a.zip' }],
      targets: Object.keys(run_ids),
      schedule: { kind: 'interval', interval_seconds: 600 },
    });

    it('runs them and resolves done with the final rows', async () => {
      const gated = gatedDispatcher(t);
      dispatch.use(gated.dispatcher);
      const run_ids = await pending();
      const handle = await t.ctx.noise.runner.dispatch(requestFor(run_ids), { actor: { kind: 'token' } });
      const result = await handle.done;
      expect(result.ok).toBe(false);
      expect(result.runs.map((r) => r.status).sort()).toEqual(['partial', 'succeeded']);
      expect(gated.calls[0]?.request).toEqual(requestFor(run_ids));
    });

    it('refuses a target without a run id, rows of another target, and rows already dispatched', async () => {
      const run_ids = await pending();
      const missing = {
        ...requestFor(run_ids),
        targets: ['splunk-lab', 'elastic-lab'],
        run_ids: { 'splunk-lab': run_ids['splunk-lab'] as string },
      };
      await expect(t.ctx.noise.runner.dispatch(missing, { actor: 'system' })).rejects.toMatchObject({
        code: 'invalid_input',
        details: { fields: { 'targets.1': '"elastic-lab" has no entry in run_ids' } },
      });
      const swapped = requestFor({
        'splunk-lab': run_ids['elastic-lab'] as string,
        'elastic-lab': run_ids['splunk-lab'] as string,
      });
      await expect(t.ctx.noise.runner.dispatch(swapped, { actor: 'system' })).rejects.toMatchObject({
        code: 'invalid_input',
      });
      const handle = await t.ctx.noise.runner.dispatch(requestFor(run_ids), { actor: 'system' });
      await handle.done;
      const again = t.ctx.noise.runner.dispatch(requestFor(run_ids), { actor: 'system' });
      await expect(again).rejects.toBeInstanceOf(AppError);
      await expect(again).rejects.toMatchObject({ code: 'conflict' });
    });

    it('answers job_running and skips the rows while the job runs', async () => {
      const gated = gatedDispatcher(t);
      gated.hold();
      dispatch.use(gated.dispatcher);
      await post();
      const run_ids = await pending();
      await expect(
        t.ctx.noise.runner.dispatch(requestFor(run_ids), { actor: 'system' }),
      ).rejects.toMatchObject({
        code: 'job_running',
      });
      expect((await getRuns(t.ctx.db, Object.values(run_ids))).map((r) => r.status)).toEqual([
        'skipped',
        'skipped',
      ]);
      gated.release();
    });

    it('answers 404 for an unknown job', async () => {
      const request = { ...requestFor({ 'splunk-lab': crypto.randomUUID() }), job_id: crypto.randomUUID() };
      await expect(t.ctx.noise.runner.dispatch(request, { actor: 'system' })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  it('answers 404 for runs of an unknown job and 400 for a bad body', async () => {
    expect((await post(undefined, crypto.randomUUID())).statusCode).toBe(404);
    expect((await post(undefined, 'not-a-job-id')).statusCode).toBe(404);
    const bad = await post({ dispatch: 'yes' });
    expect(bad.statusCode).toBe(400);
  });

  it('lists runs newest first, filtered and paged', async () => {
    const all = await runs(`job_id=${jobId}&limit=1000`);
    expect(all.length).toBeGreaterThan(6);
    const page = await runs(`job_id=${jobId}&limit=3`);
    expect(page).toEqual(all.slice(0, 3));
    const next = await runs(`job_id=${jobId}&limit=3&before=${page[2].id}`);
    expect(next).toEqual(all.slice(3, 6));
    const skipped = await runs('status=skipped');
    expect(skipped.every((r: { status: string }) => r.status === 'skipped')).toBe(true);
    expect((await runs('siem=elastic-lab')).every((r: { siem: string }) => r.siem === 'elastic-lab')).toBe(
      true,
    );
    expect((await t.app.inject({ url: '/api/noise/runs?status=done', headers: { cookie } })).statusCode).toBe(
      400,
    );
  });
});

/**
 * Waits (without a timer) until `check` holds, letting pending I/O run in between; bounded by
 * real time, not a count of turns, which a loaded machine with a remote database can exhaust.
 */
async function until(check: () => boolean): Promise<void> {
  const end = performance.now() + 10_000;
  while (!check() && performance.now() < end) await new Promise((r) => setImmediate(r));
  if (!check()) throw new Error('condition never held');
}
