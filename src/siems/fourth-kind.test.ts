// A fourth SIEM kind, added the way docs/ARCHITECTURE.md says: its folder (test/siems/lines/, a
// test-only JSON-lines SIEM) and one registry line (the `siemKinds` below). Nothing else knows it,
// yet every feature works with it — proof that domain code asks kinds for capabilities, not names.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { buildStatusTestApp, type StatusTestApp } from '../../test/helpers/status-test-app.ts';
import { signedInAs } from '../../test/helpers/test-app.ts';
import { linesKind } from '../../test/siems/lines/lines-kind.ts';
import { type LinesReceiver, startLinesReceiver } from '../../test/siems/lines/lines-receiver.ts';
import { builtinSiemKinds } from './registry.ts';

const T = Date.UTC(2024, 5, 1, 10, 0, 0);
const LINES = [0, 1, 2].map(
  (i) => `LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.${i}\tdevTime=${T + i * 1000}`,
);
const ARCHIVE = buildZip([{ name: 'a.log', data: LINES.join('\n') }]);

describe('a fourth SIEM kind from one folder and one registry line', () => {
  let t: StatusTestApp;
  let receiver: LinesReceiver;
  let files: Server;
  let admin: string;
  let archiveUrl: string;

  beforeAll(async () => {
    receiver = await startLinesReceiver({ indexes: ['lab'] });
    files = createServer((_req, res) => res.writeHead(200).end(ARCHIVE));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    const filesPort = (files.address() as AddressInfo).port;
    t = await buildStatusTestApp({
      listen: false,
      env: { ARCHIVE_ALLOW_HTTP: 'true', ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${filesPort}` },
      overrides: {
        // The registry line.
        siemKinds: (config) => [
          ...builtinSiemKinds({ hecRetryNotFound: config.hecRetryNotFound }),
          linesKind(),
        ],
      },
    });
    admin = (await signedInAs(t, ['admin'])).cookie;
    archiveUrl = `http://127.0.0.1:${filesPort}/lab.zip`;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    files?.close();
  });

  const req = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie: admin }, ...(payload ? { payload } : {}) });

  it('is listed with its settings schema, and its destinations are checked against it', async () => {
    const kinds = (await req('GET', '/api/siem-kinds')).json();
    expect(kinds.map((k: { name: string }) => k.name)).toEqual([
      'vendorA_hec',
      'syslog_tcp',
      'vendorB_bulk',
      'test_lines',
    ]);
    expect(kinds[3]).toMatchObject({
      capabilities: { indexes: 'native', wipe: true, index_creation: true },
      secret_fields: ['token'],
      settings: { properties: { url: { format: 'siem-url' }, token: { writeOnly: true } } },
    });
    const bad = await req('POST', '/api/destinations', {
      name: 'lines',
      driver: 'test_lines',
      url: 'ftp://x',
    });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().error.details.fields).sort()).toEqual(['index', 'token', 'url']);

    const created = await req('POST', '/api/destinations', {
      name: 'lines',
      driver: 'test_lines',
      url: receiver.url,
      token: receiver.token,
      index: 'lab',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ driver: 'test_lines', url: receiver.url, secrets_set: ['token'] });
    expect(created.body).not.toContain(receiver.token);
    const openapi = JSON.stringify((await req('GET', '/api/openapi.json')).json());
    expect(openapi).toContain('test_lines');
  });

  it('is checked live', async () => {
    const res = await req('POST', '/api/destinations/lines/test');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      ok: true,
      driver: 'test_lines',
      checks: [{ name: 'health', ok: true }],
    });
  });

  it('is shipped to by a session start and by a noise run, with index creation and routing', async () => {
    const start = await req('POST', '/api/sessions/start', { archiveDownloadUrl: archiveUrl, siem: 'lines' });
    expect(start.statusCode, start.body).toBe(200);
    expect(start.json()).toMatchObject({ ok: true, driver: 'test_lines', events: 3, files: 1 });
    // Rebased: each line's devTime is the event time the client was handed.
    const lab = receiver.indexes.get('lab') ?? [];
    expect(lab).toHaveLength(3);
    for (const e of lab) expect(e.event as string).toContain(`devTime=${e.time}`);

    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/noise/archives/noise/lab.zip',
      headers: { cookie: admin, 'content-type': 'application/octet-stream' },
      payload: ARCHIVE,
    });
    expect(put.statusCode, put.body).toBe(201);
    const job = await req('POST', '/api/noise/jobs', {
      name: 'lines noise',
      targets: ['lines'],
      schedule: { kind: 'interval', interval_seconds: 3600 },
      propagate_on_wipe: true,
      archives: [{ position: 0, storage_path: 'noise/lab.zip', index_mode: 'new', index: 'lines-noise' }],
    });
    expect(job.statusCode, job.body).toBe(201);
    // Created on save, as on every kind that creates indexes.
    expect(job.json().warnings).toEqual([]);
    expect(receiver.indexes.get('lines-noise')).toEqual([]);
    const run = await req('POST', `/api/noise/jobs/${job.json().id}/runs`, {});
    expect(run.statusCode, run.body).toBe(201);
    await t.ctx.noise.runner.settle();
    expect(receiver.indexes.get('lines-noise')).toHaveLength(3);
  });

  it('is wiped, its custom index first, and its noise re-fired', async () => {
    const res = await req('DELETE', '/api/sessions?siem=lines');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, wiped: ['lines'], skipped: [], re_fire_errors: [] });
    expect(res.json().re_fired).toEqual([{ siem: 'lines', job_ids: [expect.any(String)] }]);
    // The session's events are gone; the re-fired noise is back in its own index.
    expect(receiver.indexes.get('lab')).toEqual([]);
    expect(receiver.indexes.get('lines-noise')).toHaveLength(3);
  });

  it('is shown in platform status', async () => {
    await t.ctx.platformStatus.hub.pollNow();
    const component = t.ctx.platformStatus.hub.snapshot().components.find((c) => c.id === 'siem:lines');
    expect(component).toMatchObject({ kind: 'siem', state: 'up', labels: { driver: 'test_lines' } });
  });
});
