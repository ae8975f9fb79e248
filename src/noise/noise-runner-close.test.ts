import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { createJob } from './job-service.ts';
import { getRuns } from './run-store.ts';

describe('closing the noise runner', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { SCHEDULER: 'off' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('stops and waits for a dispatch that was taking its lease when the close began', async () => {
    let seen: AbortSignal | null = null;
    t.ctx.noise.dispatch = async (request, signal) => {
      seen = signal;
      // Ships for 5 s unless stopped.
      await sleep(5_000, undefined, { signal }).catch(() => {});
      return { ok: !signal.aborted, failed: signal.aborted ? request.targets : [] };
    };
    await createDestination(t.ctx.db, t.ctx.secretBox, {
      name: 'siem',
      driver: 'vendorA_hec',
      url: 'https://a:8088',
      token: 'x',
    });
    await t.ctx.storage.put('noise-archives', 'n/a.zip', Buffer.from('PK\x03\x04 stand-in'));
    const job = await createJob(
      {
        db: t.ctx.db,
        clock: t.clock,
        storage: t.ctx.storage,
        secretBox: t.ctx.secretBox,
        createDriver: undefined,
      },
      {
        name: 'late',
        targets: ['siem'],
        schedule: { kind: 'interval', interval_seconds: 86_400 },
        archives: [{ position: 0, storage_path: 'n/a.zip' }],
      },
    );
    // runJob passes the closed check at once, then awaits its lease; close() meanwhile finds
    // nothing running yet.
    const pending = t.ctx.noise.runner.runJob(job.id, { trigger: 'manual', by: { actor: 'system' } });
    const closed = await Promise.race([
      t.ctx.noise.runner.close().then(() => 'closed'),
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
