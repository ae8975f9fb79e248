import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStatusTestApp, type StatusTestApp } from '../../test/helpers/status-test-app.ts';
import { signedInAs } from '../../test/helpers/test-app.ts';
import { startSyslogSimulator } from '../../test/simulators/syslog-simulator.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { type ManualProvider, manualProvider, reading } from './manual-provider.ts';

const DISPATCH_TOKEN = 'dispatch-token-for-tests-0123456789';

describe('platform status routes', () => {
  let t: StatusTestApp;
  let provider: ManualProvider;
  let cookie: string;

  beforeAll(async () => {
    provider = manualProvider('prometheus');
    t = await buildStatusTestApp({ env: { DISPATCH_TOKEN }, platformStatus: { provider }, listen: false });
    cookie = (await signedInAs(t, [])).cookie;
  });
  afterAll(async () => {
    await t.close();
  });

  for (const url of ['/api/platform-status', '/api/platform-status/events']) {
    it(`answers 401 on ${url} without a session`, async () => {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        ok: false,
        error: { code: 'unauthenticated', message: 'Sign in first (POST /login)' },
      });
    });

    it(`answers 401 on ${url} to a Bearer token, even a valid one with a valid cookie`, async () => {
      const res = await t.app.inject({
        url,
        headers: { authorization: `Bearer ${DISPATCH_TOKEN}`, cookie },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toEqual({
        code: 'unauthenticated',
        message: 'Bearer tokens are accepted only on POST /api/noise/run',
      });
    });
  }

  it('returns the current snapshot as JSON to any signed-in user', async () => {
    provider.set([
      reading('service:app/h:1', 'down', { reason: 'connection refused', labels: { job: 'app' } }),
      reading('host:h', 'down', { kind: 'host', name: 'h' }),
    ]);
    await t.ctx.platformStatus.hub.pollNow();
    const res = await t.app.inject({ url: '/api/platform-status', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const bootId = t.ctx.platformStatus.hub.bootId;
    expect(res.json()).toEqual({
      ok: true,
      event_id: `${bootId}-2`,
      provider: 'prometheus',
      polled_at: '2026-03-01T12:00:00.000Z',
      components: [
        {
          id: 'host:h',
          kind: 'host',
          name: 'h',
          state: 'down',
          reason: null,
          since: '2026-03-01T12:00:00.000Z',
          labels: {},
        },
        {
          id: 'service:app/h:1',
          kind: 'service',
          name: 'service:app/h:1',
          state: 'down',
          reason: 'connection refused',
          since: '2026-03-01T12:00:00.000Z',
          labels: { job: 'app' },
        },
      ],
    });
  });

  it('offers no HEAD on the stream', async () => {
    const res = await t.app.inject({
      method: 'HEAD',
      url: '/api/platform-status/events',
      headers: { cookie },
    });
    expect(res.statusCode).toBe(404);
  });

  it('documents both routes, the event-stream media type and the event payloads in OpenAPI', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json', headers: { cookie } })).json();
    const events = doc.paths['/api/platform-status/events'].get;
    expect(events.description).toContain('`snapshot`');
    const schema = events.responses['200'].content['text/event-stream'].schema;
    expect(schema.anyOf.map((s: { title: string }) => s.title)).toEqual(['snapshot', 'status', 'end']);
    expect(events.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      'header:last-event-id',
    ]);
    expect(doc.paths['/api/platform-status'].get.responses['200'].content['application/json']).toBeDefined();
  });
});

describe('platform status wiring', () => {
  it('checks the database, storage and every enabled SIEM through its driver by default', async () => {
    const receiver = await startSyslogSimulator({ framing: 'lf' });
    const t = await buildStatusTestApp({ listen: false });
    try {
      await createDestination(t.ctx, {
        name: 'siem-a',
        driver: 'syslog_tcp',
        host: receiver.host,
        port: receiver.port,
        source_identity: 'lab-host',
      });
      await createDestination(t.ctx, {
        name: 'siem-down',
        driver: 'syslog_tcp',
        host: '127.0.0.1',
        port: 1,
      });
      await createDestination(t.ctx, {
        name: 'siem-off',
        driver: 'syslog_tcp',
        host: 'b.test',
        port: 514,
        enabled: false,
      });
      const hub = t.ctx.platformStatus.hub;
      expect(hub.provider.name).toBe('builtin');
      expect(hub.intervalMs).toBe(30_000);
      await hub.pollNow();
      const rows = hub.snapshot().components.map((c) => [c.id, c.kind, c.state]);
      expect(rows).toEqual([
        ['database', 'database', 'up'],
        ['siem:siem-a', 'siem', 'up'],
        ['siem:siem-down', 'siem', 'down'],
        ['storage', 'storage', 'up'],
      ]);
      const down = hub.snapshot().components.find((c) => c.id === 'siem:siem-down');
      expect(down?.reason).toMatch(/^connection: connection refused/);
      expect(receiver.store.messages).toEqual([]);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('leaves SIEMs out of the status when SIEM checks are off', async () => {
    const t = await buildStatusTestApp({ listen: false, platformStatus: { siemChecks: false } });
    try {
      await createDestination(t.ctx, {
        name: 'siem-a',
        driver: 'syslog_tcp',
        host: 'a.test',
        port: 514,
      });
      await t.ctx.platformStatus.hub.pollNow();
      const ids = t.ctx.platformStatus.hub.snapshot().components.map((c) => c.id);
      expect(ids).toContain('database');
      expect(ids.filter((id) => id.startsWith('siem:'))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('lets other features register probes of their own', async () => {
    const t = await buildStatusTestApp({ listen: false });
    try {
      t.ctx.platformStatus.probes.register({
        id: 'storage',
        kind: 'storage',
        name: 'Object storage',
        check: async () => ({ state: 'down', reason: 'bucket noise-archives missing' }),
      });
      await t.ctx.platformStatus.hub.pollNow();
      const storage = t.ctx.platformStatus.hub.snapshot().components.find((c) => c.id === 'storage');
      expect(storage).toMatchObject({ state: 'down', reason: 'bucket noise-archives missing' });
    } finally {
      await t.close();
    }
  });

  it('uses Prometheus when PROMETHEUS_URL is set, and PLATFORM_STATUS_POLL_SECONDS as interval', async () => {
    const t = await buildStatusTestApp({
      env: { PROMETHEUS_URL: 'http://127.0.0.1:1', PLATFORM_STATUS_POLL_SECONDS: '5' },
      listen: false,
    });
    try {
      expect(t.ctx.platformStatus.hub.provider.name).toBe('prometheus');
      expect(t.ctx.platformStatus.hub.intervalMs).toBe(5_000);
    } finally {
      await t.close();
    }
  });
});
