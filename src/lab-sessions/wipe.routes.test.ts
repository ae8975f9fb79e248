import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { SwitchableDispatcher } from '../../test/helpers/switchable-dispatcher.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { type BulkSimulator, startBulkSimulator } from '../../test/simulators/bulk-simulator.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { type SyslogSimulator, startSyslogSimulator } from '../../test/simulators/syslog-simulator.ts';
import type { DispatchRequest } from '../noise/dispatch-types.ts';
import { finishRun } from '../noise/run-store.ts';

const LEEF = buildZip([
  {
    name: 'a.log',
    data: 'LEEF:1.0|V|P|1|E|src=10.0.0.1\tdevTime=1717236000000\nLEEF:1.0|V|P|1|E|src=10.0.0.2\tdevTime=1717236060000\n',
  },
]);
const ECS = buildZip([
  {
    name: 'a.ndjson',
    data: '{"@timestamp":"2024-06-01T10:00:00Z","message":"x"}\n{"@timestamp":"2024-06-01T10:01:00Z","message":"y"}\n',
  },
]);

describe('DELETE /api/sessions', () => {
  let t: TestApp;
  const dispatch = new SwitchableDispatcher();
  let author: string;
  let admin: string;
  let hec: HecSimulator;
  let bulk: BulkSimulator;
  let syslog: SyslogSimulator;
  let files: Server;
  let filesPort = 0;
  let jobId = '';
  let otherJobId = '';
  const dispatched: DispatchRequest[] = [];
  let failTarget: string | null = null;

  const start = (siem: string, archive: string, indexName?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/sessions/start',
      headers: { cookie: author },
      payload: {
        archiveDownloadUrl: `http://127.0.0.1:${filesPort}/${archive}`,
        siem,
        ...(indexName ? { indexName } : {}),
      },
    });
  const wipe = (query: string, cookie = author) =>
    t.app.inject({ method: 'DELETE', url: `/api/sessions${query}`, headers: { cookie } });

  beforeAll(async () => {
    files = createServer((req, res) => res.end(req.url?.startsWith('/ecs') ? ECS : LEEF));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    filesPort = (files.address() as AddressInfo).port;
    hec = await startHecSimulator({ indexes: ['lab', 'web-noise'] });
    bulk = await startBulkSimulator({ flavor: 'opensearch' });
    syslog = await startSyslogSimulator({ framing: 'lf' });
    t = await buildTestApp({
      env: { ARCHIVE_ALLOW_HTTP: 'true', ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${filesPort}` },
      overrides: { noiseDispatcher: dispatch.override },
    });
    admin = (await signedInAs(t, ['admin'])).cookie;
    author = (await signedInAs(t, ['author'])).cookie;
    const create = async (url: string, body: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: { cookie: admin }, payload: body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    await create('/api/destinations', {
      name: 'splunk',
      driver: 'vendorA_hec',
      url: hec.url,
      token: hec.token,
      index: 'lab',
      management_url: hec.managementUrl,
      management_token: hec.managementToken,
    });
    await create('/api/destinations', {
      name: 'elastic',
      driver: 'vendorB_bulk',
      url: bulk.url,
      username: bulk.username,
      password: bulk.password,
      index: 'lab-events',
    });
    await create('/api/destinations', {
      name: 'qradar',
      driver: 'syslog_tcp',
      host: syslog.host,
      port: syslog.port,
      source_identity: 'lab',
      index: 'syslog-lab',
    });
    await t.ctx.storage.put('noise-archives', 'noise/web.zip', LEEF);
    const job = await create('/api/noise/jobs', {
      name: 'web noise',
      targets: ['splunk', 'elastic', 'qradar'],
      schedule: { kind: 'interval', interval_seconds: 3600 },
      propagate_on_wipe: true,
      archives: [{ position: 0, storage_path: 'noise/web.zip', index_mode: 'new', index: 'web-noise' }],
    });
    jobId = job.id;
    const other = await create('/api/noise/jobs', {
      name: 'not propagated',
      targets: ['splunk'],
      schedule: { kind: 'interval', interval_seconds: 3600 },
      propagate_on_wipe: false,
      archives: [{ position: 0, storage_path: 'noise/web.zip' }],
    });
    otherJobId = other.id;
    // A dispatcher that records what it was asked and finishes the rows (shipping is tested elsewhere).
    dispatch.use(async (request) => {
      dispatched.push(request);
      const failed: string[] = [];
      for (const [siem, runId] of Object.entries(request.run_ids)) {
        const bad = siem === failTarget;
        if (bad) failed.push(siem);
        await finishRun(
          t.ctx.db,
          runId,
          {
            status: bad ? 'failed' : 'succeeded',
            events_shipped: bad ? 0 : 2,
            events_failed: bad ? 2 : 0,
            error: bad ? 'receiver down' : null,
          },
          t.clock.now(),
        );
      }
      return { ok: failed.length === 0, failed };
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([hec.close(), bulk.close(), syslog.close()]);
    await new Promise((r) => files.close(r));
  });
  beforeEach(async () => {
    dispatched.length = 0;
    failTarget = null;
    hec.managementFaults.clear();
    hec.store.clear();
    bulk.store.clear();
    for (const [siem, archive, index] of [
      ['splunk', 'leef.zip', undefined],
      ['splunk', 'leef.zip', 'web-noise'],
      ['elastic', 'ecs.zip', undefined],
      ['elastic', 'ecs.zip', 'web-noise'],
    ] as const) {
      const res = await start(siem, archive, index);
      expect(res.statusCode, res.body).toBe(200);
    }
    bulk.refresh();
  });

  it('wipes custom noise indexes then the default on HEC and bulk, skips syslog, re-fires propagated jobs', async () => {
    expect(hec.store.searchable('lab')).toHaveLength(2);
    expect(hec.store.searchable('web-noise')).toHaveLength(2);
    const res = await wipe('?siem=splunk&siem=elastic&siem=qradar');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      wiped: ['splunk', 'elastic'],
      skipped: ['qradar'],
      re_fired: [
        { siem: 'splunk', job_ids: [jobId] },
        { siem: 'elastic', job_ids: [jobId] },
      ],
      re_fire_errors: [],
    });
    expect(hec.store.searchable('lab')).toEqual([]);
    expect(hec.store.searchable('web-noise')).toEqual([]);
    expect(bulk.store.docs('lab-events')).toEqual([]);
    expect(bulk.store.docs('web-noise')).toEqual([]);
    // Custom index first, then the default.
    const searches = hec.store.managementRequests
      .filter((r) => r.method === 'POST' && r.path.startsWith('/services/search/jobs'))
      .map((r) => new URLSearchParams(r.body.toString()).get('search'));
    expect(searches).toEqual(['search index=web-noise | delete', 'search index=lab | delete']);
    // Re-fired to the wiped SIEMs it targets only (not to qradar); the other job is not propagated.
    expect(dispatched.map((d) => [d.job_id, [...d.targets].sort(), d.trigger])).toEqual([
      [jobId, ['elastic', 'splunk'], 'manual'],
    ]);
    expect(dispatched.some((d) => d.job_id === otherJobId)).toBe(false);
  });

  it('audits each wipe before it starts and after it ends, with deleted counts', async () => {
    const before = await t.ctx.db
      .selectFrom('audit_log')
      .select('id')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    await wipe('?siem=elastic');
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'session.wipe')
      .where('id', '>', before?.id ?? '0')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.target, r.outcome])).toEqual([
      ['elastic', 'started'],
      ['elastic', 'success'],
    ]);
    expect(rows[1]?.details).toMatchObject({
      indexes: ['web-noise', 'lab-events'],
      deleted: { 'web-noise': 2, 'lab-events': 2 },
      // The end names its start, so an unnamed `started` record is an interrupted wipe.
      started_id: String(rows[0]?.id),
    });
    expect(rows[0]?.actor_label).toMatch(/@example\.test$/);

    // A syslog SIEM is skipped (nothing to delete through it), and the request is audited too.
    await wipe('?siem=qradar');
    const skipped = await t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'session.wipe')
      .where('target', '=', 'qradar')
      .where('id', '>', before?.id ?? '0')
      .execute();
    expect(skipped.map((r) => [r.outcome, r.details])).toEqual([
      ['success', { driver: 'syslog_tcp', skipped: true, reason: 'syslog_tcp has no delete API' }],
    ]);
  });

  it('takes a DELETE that says application/json but sends no body (the route takes none)', async () => {
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/api/sessions?siem=elastic',
      headers: { cookie: author, 'content-type': 'application/json' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, wiped: ['elastic'] });
  });

  it('answers 502 with errors when one SIEM fails, still wiping the others', async () => {
    hec.managementFaults.next(20, { status: 401 });
    const res = await wipe('?siem=splunk&siem=elastic');
    expect(res.statusCode, res.body).toBe(502);
    const body = res.json();
    expect(body).toMatchObject({
      ok: false,
      wiped: ['elastic'],
      skipped: [],
      re_fired: [{ siem: 'elastic', job_ids: [jobId] }],
      re_fire_errors: [],
      error: { code: 'bad_gateway' },
    });
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].siem).toBe('splunk');
    expect(body.errors[0].message).toContain('splunk');
    expect(hec.store.searchable('lab')).toHaveLength(2);
    expect(bulk.store.docs('lab-events')).toEqual([]);
  });

  it('reports a failed re-fire in re_fire_errors, not as a failed request', async () => {
    failTarget = 'elastic';
    const res = await wipe('?siem=elastic');
    expect(res.statusCode).toBe(200);
    expect(res.json().re_fire_errors).toEqual([
      `Noise job "web noise" (${jobId}) re-fired to "elastic" ended failed: receiver down`,
    ]);
  });

  it('reports a re-fire whose dispatch threw as a line of re_fire_errors, still 200', async () => {
    const spy = vi.spyOn(t.ctx.noise.runner, 'runJob').mockImplementation(async (id) => ({
      job_id: id,
      run_ids: {},
      done: Promise.reject(new Error('audit log unavailable')),
    }));
    try {
      const res = await wipe('?siem=elastic');
      expect(res.statusCode).toBe(200);
      expect(res.json().re_fire_errors).toEqual([
        `Noise job "web noise" (${jobId}) re-fire failed: audit log unavailable`,
      ]);
    } finally {
      spy.mockRestore();
    }
  });

  it('ignores other query parameters, such as a token, and authenticates by the cookie alone', async () => {
    const res = await wipe('?siem=qradar&token=abc&socdrill_session=xyz');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, wiped: [], skipped: ['qradar'] });
    const anonymous = await wipe('?siem=qradar&socdrill_session=xyz', '');
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses a missing or unknown SIEM with 400 and wipes nothing', async () => {
    const none = await wipe('');
    expect(none.statusCode).toBe(400);
    expect(none.json().error.details.fields).toHaveProperty('siem');
    const unknown = await wipe('?siem=splunk&siem=ghost');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('"ghost"');
    // Names are matched exactly as configured: a padded name is unknown, not trimmed into another.
    const padded = await wipe('?siem=%20splunk');
    expect(padded.statusCode).toBe(400);
    expect(padded.json().error.details.fields.siem).toContain('" splunk"');
    expect(hec.store.searchable('lab')).toHaveLength(2);
    expect(dispatched).toEqual([]);
  });

  it('needs manage_exercises', async () => {
    const analyst = (await signedInAs(t, ['analyst'])).cookie;
    expect((await wipe('?siem=splunk', analyst)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/sessions?siem=splunk' })).statusCode).toBe(401);
    expect(hec.store.searchable('lab')).toHaveLength(2);
  });
});
