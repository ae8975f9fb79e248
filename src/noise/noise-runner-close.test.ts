import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchableDispatcher } from '../../test/helpers/switchable-dispatcher.ts';
import { buildTestApp, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { createJob } from './job-service.ts';
import { getRuns } from './run-store.ts';

describe('closing the noise runner', () => {
  let t: TestApp;
  const dispatch = new SwitchableDispatcher();
  beforeAll(async () => {
    t = await buildTestApp({ env: { SCHEDULER: 'off' }, overrides: { noiseDispatcher: dispatch.override } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('stops and waits for a dispatch that was taking its lease when the close began', async () => {
    let seen: AbortSignal | null = null;
    dispatch.use(async (request, signal) => {
      seen = signal;
      // Ships for 5 s unless stopped.
      await sleep(5_000, undefined, { signal }).catch(() => {});
      return { ok: !signal.aborted, failed: signal.aborted ? request.targets : [] };
    });
    await createDestination(t.ctx, {
      name: 'siem',
      driver: 'vendorA_hec',
      url: 'https://a:8088',
      token: 'x',
      index: 'lab',
    });
    await t.ctx.storage.put('noise-archives', 'n/a.zip', Buffer.from('PK\x03\x04 stand-in'));
    const job = await createJob(t.ctx, {
      name: 'late',
      targets: ['siem'],
      schedule: { kind: 'interval', interval_seconds: 86_400 },
      archives: [{ position: 0, storage_path: 'n/a.zip' }],
    });
    // runJob passes the closed check at once, then awaits its lease; close() meanwhile finds
    // nothing running yet.
    const pending = t.ctx.noise.runner.runJob(job.id, { trigger: 'manual', by: { actor: 'system' } });
    const closed = await Promise.race([
      t.ctx.runs.close().then(() => 'closed'),
      sleep(3_000).then(() => 'still closing'),
    ]);
    expect(closed).toBe('closed');
    // close() waited for it (its rows are final below, read without waiting for it), so the
    // database, closed after the runner, is not pulled from under it.
    const handle = await pending;
    expect((seen as AbortSignal | null)?.aborted).toBe(true);
    const rows = await getRuns(t.ctx.db, Object.values(handle.run_ids));
    expect(rows.map((r) => [r.status, r.error])).toEqual([
      ['failed', 'the service stopped during the dispatch'],
    ]);
  });
});
