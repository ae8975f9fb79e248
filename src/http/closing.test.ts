import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { createJob } from '../noise/job-service.ts';

describe('requests that arrive while the app closes', () => {
  let t: TestApp;
  afterEach(async () => {
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('get 503 in the error shape with Connection: close, while running work drains', async () => {
    t = await buildTestApp({ env: { SCHEDULER: 'off' } });
    // A dispatch that takes a while to stop after the abort keeps the close draining.
    let aborted = false;
    let started = false;
    t.ctx.noise.dispatch = async (request, signal) => {
      started = true;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted = true;
      await sleep(1_000);
      return { ok: false, failed: request.targets };
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
        name: 'slow',
        targets: ['siem'],
        schedule: { kind: 'interval', interval_seconds: 86_400 },
        archives: [{ position: 0, storage_path: 'n/a.zip' }],
      },
    );
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const handle = await t.ctx.noise.runner.runJob(job.id, { trigger: 'manual', by: { actor: null } });
    for (let i = 0; i < 100 && !started; i++) await sleep(10);
    expect(started).toBe(true);

    const closing = t.app.close();
    for (let i = 0; i < 100 && !aborted; i++) await sleep(10);
    expect(aborted).toBe(true);
    const res = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(res.status).toBe(503);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    await closing;
    await handle.done;
  });
});
