import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { createJob } from './job-service.ts';
import { createNoiseServices } from './noise-services.ts';

describe('noise services', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await createDestination(t.ctx.db, t.ctx.secretBox, {
      name: 'siem',
      driver: 'vendorA_hec',
      url: 'https://a:8088',
      token: 'x',
    });
    await t.ctx.storage.put('noise-archives', 'n/a.zip', Buffer.from('PK\x03\x04 stand-in'));
  });
  afterAll(async () => {
    await t.close();
  });

  it('waits out the grace period for a dispatch ignoring its abort once, however often it is closed', async () => {
    const graceMs = 400;
    const services = createNoiseServices(
      { db: t.ctx.db, clock: t.clock, log: t.ctx.log, audit: (entry) => t.ctx.audit(entry) },
      { runner: { shutdownGraceMs: graceMs } },
    );
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A dispatch stuck where the abort cannot reach it (e.g. a stalled download).
    services.dispatch = async (request) => {
      await released;
      return { ok: false, failed: request.targets };
    };
    const job = await createJob(
      {
        db: t.ctx.db,
        clock: t.clock,
        storage: t.ctx.storage,
        secretBox: t.ctx.secretBox,
        createDriver: undefined,
      },
      {
        name: 'stuck',
        targets: ['siem'],
        schedule: { kind: 'interval', interval_seconds: 60 },
        archives: [{ position: 0, storage_path: 'n/a.zip' }],
      },
    );
    const handle = await services.runner.runJob(job.id, { trigger: 'manual', by: { actor: 'system' } });
    try {
      // The app closes the services at shutdown, then the context closes them again.
      let since = performance.now();
      await services.close();
      expect(performance.now() - since).toBeGreaterThanOrEqual(graceMs - 20);
      since = performance.now();
      await services.close();
      expect(performance.now() - since).toBeLessThan(graceMs / 2);
    } finally {
      release();
      await handle.done;
    }
  });
});
