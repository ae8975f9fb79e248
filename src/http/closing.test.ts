import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SwitchableDispatcher } from '../../test/helpers/switchable-dispatcher.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { createJob } from '../noise/job-service.ts';

describe('requests that arrive while the app closes', () => {
  let t: TestApp;
  const dispatch = new SwitchableDispatcher();
  afterEach(async () => {
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('get 503 in the error shape with Connection: close, while running work drains', async () => {
    t = await buildTestApp({ env: { SCHEDULER: 'off' }, overrides: { noiseDispatcher: dispatch.override } });
    // A dispatch that takes a while to stop after the abort keeps the close draining.
    let aborted = false;
    let started = false;
    dispatch.use(async (request, signal) => {
      started = true;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted = true;
      await sleep(1_000);
      return { ok: false, failed: request.targets };
    });
    await createDestination(t.ctx, {
      name: 'siem',
      driver: 'vendorA_hec',
      index: 'lab',
      url: 'https://a:8088',
      token: 'x',
    });
    await t.ctx.storage.put('noise-archives', 'n/a.zip', Buffer.from('PK\x03\x04 stand-in'));
    const job = await createJob(t.ctx, {
      name: 'slow',
      targets: ['siem'],
      schedule: { kind: 'interval', interval_seconds: 86_400 },
      archives: [{ position: 0, storage_path: 'n/a.zip' }],
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const handle = await t.ctx.noise.runner.runJob(job.id, { trigger: 'manual', by: { actor: null } });
    for (let i = 0; i < 100 && !started; i++) await sleep(10);
    expect(started).toBe(true);

    const closing = t.drain();
    for (let i = 0; i < 100 && !aborted; i++) await sleep(10);
    expect(aborted).toBe(true);
    const res = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(res.status).toBe(503);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    await closing;
    await handle.done;
  });

  it('closes the connection of an answer sent while closing, so the close does not wait for keep-alive', async () => {
    // An archive server that answers after 1.5 s: the session start is in flight when the close begins.
    const slow = http.createServer((_req, res) => setTimeout(() => res.writeHead(404).end('gone'), 1_500));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const filesPort = (slow.address() as AddressInfo).port;
    t = await buildTestApp({
      env: { SCHEDULER: 'off', ARCHIVE_ALLOW_HTTP: 'true', ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${filesPort}` },
    });
    await createDestination(t.ctx, {
      name: 'siem',
      driver: 'vendorA_hec',
      index: 'lab',
      url: 'https://a:8088',
      token: 'x',
    });
    const { cookie } = await signedInAs(t, ['author']);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true });
    try {
      const answered = new Promise<string | undefined>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/sessions/start',
            agent,
            headers: { cookie, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.headers.connection));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ archiveDownloadUrl: `http://127.0.0.1:${filesPort}/a.zip`, siem: 'siem' }));
      });
      await sleep(300);
      const closing = t.drain();
      expect(await answered).toBe('close');
      const closed = await Promise.race([
        closing.then(() => 'closed'),
        sleep(5_000).then(() => 'still closing'),
      ]);
      expect(closed).toBe('closed');
    } finally {
      agent.destroy();
      slow.closeAllConnections();
      slow.close();
    }
  });
});
