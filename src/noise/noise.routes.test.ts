import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SwitchableDispatcher } from '../../test/helpers/switchable-dispatcher.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import type { DispatchRequest, NoiseDispatcher } from './dispatch-types.ts';
import { createJob } from './job-service.ts';
import { findJob } from './job-store.ts';
import { finishRun, getRuns } from './run-store.ts';

const DISPATCH_TOKEN = 'noise-shutdown-token-0123456789abcdef';
/** How long a dispatch ships when nobody stops it: far beyond the close bounds below. */
const DISPATCH_MS = 20_000;
/** main.ts force-exits 15 s after SIGTERM; a graceful close must end well inside that. */
const CLOSE_BOUND_MS = 5_000;
const SHUTDOWN_REASON = 'the service stopped during the dispatch';

describe('closing the app (graceful shutdown) with noise dispatches in flight', () => {
  let t: TestApp;
  const dispatch = new SwitchableDispatcher();
  const started: Array<{ request: DispatchRequest; signal: AbortSignal }> = [];

  /** Like the real dispatcher: ships for a while, returns soon after `signal` aborts (rows left to the runner). */
  const dispatcher: NoiseDispatcher = async (request, signal) => {
    started.push({ request, signal });
    await sleep(DISPATCH_MS, undefined, { signal }).catch(() => {});
    if (signal.aborted) return { ok: false, failed: request.targets };
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

  const setUp = async () => {
    started.length = 0;
    t = await buildTestApp({
      env: { DISPATCH_TOKEN, SCHEDULER: 'on' },
      overrides: { noiseDispatcher: dispatch.override },
    });
    dispatch.use(dispatcher);
    await createDestination(t.ctx, {
      name: 'siem',
      driver: 'vendorA_hec',
      index: 'lab',
      url: 'https://a:8088',
      token: 'x',
    });
    await t.ctx.storage.put('noise-archives', 'n/a.zip', Buffer.from('PK\x03\x04 stand-in'));
  };
  const job = async (name: string, interval_seconds: number) =>
    createJob(t.ctx, {
      name,
      targets: ['siem'],
      schedule: { kind: 'interval', interval_seconds },
      archives: [{ position: 0, storage_path: 'n/a.zip' }],
    });
  const until = async (what: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!what() && Date.now() < end) await sleep(20);
    return what();
  };
  const within = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p.then(() => 'closed' as const), sleep(ms).then(() => 'still waiting' as const)]);

  afterEach(async () => {
    // A failed test may leave a kept-alive connection that would hold the close for 72 s.
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('cancels a POST /api/noise/run dispatch, answers it, frees the lease, and closes within the shutdown window', async () => {
    await setUp();
    const external = await job('external', 86_400);
    await job('every second', 1);
    const run_ids = await t.ctx.noise.runner.createRuns(external.id, { trigger: 'schedule' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const answer = fetch(`http://127.0.0.1:${port}/api/noise/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DISPATCH_TOKEN}` },
      body: JSON.stringify({
        job_id: external.id,
        trigger: 'schedule',
        run_ids,
        archives: [{ position: 0, storage_path: 'n/a.zip' }],
        targets: ['siem'],
        schedule: { kind: 'interval', interval_seconds: 86_400 },
      }),
    })
      .then(async (r) => ({ status: r.status, body: await r.json() }))
      .catch((err: unknown) => ({ status: 0, body: String(err) }));
    expect(await until(() => started.length === 1, 5_000)).toBe(true);

    // Dispatches started before the close, by count: a time taken in the same millisecond as the
    // last start could not tell them apart.
    const startedBeforeClose = started.length;
    const closing = t.drain();
    // Once the dispatch is aborted the scheduler has stopped; make the other job due then.
    await until(() => started[0]?.signal.aborted === true, 2_000);
    t.clock.advance(2_000);
    expect(await within(closing, CLOSE_BOUND_MS)).toBe('closed');
    await sleep(1_500); // more than a scheduler tick

    expect(await answer).toEqual({ status: 200, body: { ok: false, failed: ['siem'] } });
    const rows = await getRuns(t.ctx.db, Object.values(run_ids));
    expect(rows.map((r) => ({ status: r.status, error: r.error }))).toEqual([
      { status: 'failed', error: SHUTDOWN_REASON },
    ]);
    const after = await findJob(t.ctx.db, external.id);
    expect(after.lease_owner).toBeNull();
    expect(after.last_run_at).not.toBeNull();
    expect(started.slice(startedBeforeClose)).toEqual([]);
  });

  it("stops the scheduler claiming, then cancels the scheduler's running dispatch", async () => {
    await setUp();
    const first = await job('first', 1);
    t.clock.advance(1_500);
    expect(await until(() => started.length === 1, 5_000)).toBe(true);
    const run_ids = Object.values(started[0]?.request.run_ids ?? {});
    await job('second', 1);

    expect(await within(t.drain(), CLOSE_BOUND_MS)).toBe('closed');
    const rows = await getRuns(t.ctx.db, run_ids);
    expect(rows.map((r) => ({ status: r.status, error: r.error }))).toEqual([
      { status: 'failed', error: SHUTDOWN_REASON },
    ]);
    expect((await findJob(t.ctx.db, first.id)).lease_owner).toBeNull();

    // Both jobs are due now; a scheduler still ticking would claim them.
    t.clock.advance(5_000);
    await sleep(1_500);
    expect(started).toHaveLength(1);
  });

  it('closes the connection of a noise answer sent after the server stopped listening, not holding the close for the keep-alive', async () => {
    await setUp();
    const { cookie } = await signedInAs(t, ['noise_operator']);
    let entered = false;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const list = t.ctx.storage.list.bind(t.ctx.storage);
    vi.spyOn(t.ctx.storage, 'list').mockImplementation(async (...args) => {
      entered = true;
      await gate;
      return list(...args);
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const answer = fetch(`http://127.0.0.1:${port}/api/noise/archives`, { headers: { cookie } }).then(
      (r) => r.status,
      (err: unknown) => String(err),
    );
    expect(await until(() => entered, 5_000)).toBe(true);

    const closing = t.drain();
    // server.close() has reaped the idle connections; this one answers only now (as a dispatch
    // that outlived the runner's grace period would).
    expect(await until(() => !t.app.server.listening, 2_000)).toBe(true);
    open();
    expect(await answer).toBe(200);
    expect(await within(closing, CLOSE_BOUND_MS)).toBe('closed');
  });
});
