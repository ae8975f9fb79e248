import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { buildTestApp, signedInAs, TEST_NOW, type TestApp } from '../../test/helpers/test-app.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { type MetricsServer, serveMetrics } from './metrics-server.ts';

const T = TEST_NOW - 24 * 3_600_000;
const LEEF = zip([
  [
    'exercise/a.log',
    [0, 1, 2]
      .map((i) => `LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.${i}\tdevTime=${T + i * 1000}`)
      .join('\n'),
  ],
]);

function zip(entries: Array<[string, string]>): Buffer {
  return buildZip(entries.map(([name, data]) => ({ name, data })));
}

/** A port nothing listens on right now (bound to 0, then released). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/** The samples of the exposition text: metric name, labels and value per line. */
function samples(body: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const out: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1] as string] = l[2] as string;
    }
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample named `name` whose labels include `labels`. */
function sampleValue(body: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples(body).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}

describe('Prometheus exporter (METRICS_PORT)', () => {
  let t: TestApp;
  let hec: HecSimulator;
  let files: Server;
  let filesPort = 0;
  let metricsPort = 0;
  let exporter: MetricsServer | undefined;
  let author: string;
  let operator: string;

  beforeAll(async () => {
    files = createServer((req, res) => {
      if (req.url === '/leef.zip') res.writeHead(200, { 'content-type': 'application/zip' }).end(LEEF);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    filesPort = (files.address() as AddressInfo).port;
    hec = await startHecSimulator({ indexes: ['lab'] });
    metricsPort = await freePort();
    t = await buildTestApp({
      env: {
        METRICS_PORT: String(metricsPort),
        ARCHIVE_ALLOW_HTTP: 'true',
        ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${filesPort}`,
      },
    });
    exporter = await serveMetrics(t.ctx);
    const admin = (await signedInAs(t, ['admin'])).cookie;
    author = (await signedInAs(t, ['author'])).cookie;
    operator = (await signedInAs(t, ['noise_operator'])).cookie;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/destinations',
      headers: { cookie: admin },
      payload: { name: 'splunk', driver: 'vendorA_hec', url: hec.url, token: hec.token, index: 'lab' },
    });
    expect(res.statusCode, res.body).toBe(201);
  });
  afterAll(async () => {
    await exporter?.close();
    await t?.close();
    await hec?.close();
    await new Promise((r) => files?.close(r));
  });

  const scrape = async (path = '/metrics') => fetch(`http://127.0.0.1:${metricsPort}${path}`);

  it('listens on METRICS_PORT at METRICS_HOST, without the API and without authentication', async () => {
    expect(exporter?.address).toMatchObject({ address: '127.0.0.1', port: metricsPort });
    expect((await scrape('/api/me')).status).toBe(404);
    expect((await scrape('/metrics/x')).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status).toBe(404);
    const res = await scrape('/metrics?debug=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('counts a session start, a noise run and a scheduled claim, and the HTTP requests they were', async () => {
    const start = await t.app.inject({
      method: 'POST',
      url: '/api/sessions/start',
      headers: { cookie: author },
      payload: { archiveDownloadUrl: `http://127.0.0.1:${filesPort}/leef.zip`, siem: 'splunk' },
    });
    expect(start.statusCode, start.body).toBe(200);
    expect(start.json().events).toBe(3);

    await t.ctx.storage.put('noise-archives', 'm/leef.zip', LEEF);
    const job = await t.app.inject({
      method: 'POST',
      url: '/api/noise/jobs',
      headers: { cookie: operator },
      payload: {
        name: 'metrics noise',
        targets: ['splunk'],
        schedule: { kind: 'interval', interval_seconds: 600 },
        archives: [{ position: 0, storage_path: 'm/leef.zip', index_mode: 'default' }],
      },
    });
    expect(job.statusCode, job.body).toBe(201);
    const run = await t.app.inject({
      method: 'POST',
      url: `/api/noise/jobs/${job.json().id}/runs`,
      headers: { cookie: operator },
      payload: {},
    });
    expect(run.statusCode, run.body).toBe(201);
    await t.ctx.noise.runner.settle();
    // Due 600 s after the manual run ended; the scheduler claims it 90 s late.
    t.clock.advance(690_000);
    expect(await t.ctx.noise.scheduler.tick()).toHaveLength(1);
    await t.ctx.noise.runner.settle();
    expect(hec.store.searchable('lab')).toHaveLength(9);

    const res = await scrape();
    expect(res.status).toBe(200);
    const body = await res.text();
    const splunk = { destination: 'splunk', kind: 'vendorA_hec' };

    expect(sampleValue(body, 'socdrill_shipments_total', { ...splunk, outcome: 'succeeded' })).toBe(3);
    expect(sampleValue(body, 'socdrill_shipments_total', { ...splunk, outcome: 'failed' })).toBeUndefined();
    expect(sampleValue(body, 'socdrill_events_shipped_total', splunk)).toBe(9);
    expect(sampleValue(body, 'socdrill_events_failed_total', splunk)).toBeUndefined();
    expect(sampleValue(body, 'socdrill_shipment_duration_seconds_count', splunk)).toBe(3);
    expect(sampleValue(body, 'socdrill_shipment_duration_seconds_sum', splunk)).toBeGreaterThan(0);
    expect(sampleValue(body, 'socdrill_shipment_bytes_count', splunk)).toBe(3);
    expect(sampleValue(body, 'socdrill_shipment_bytes_sum', splunk)).toBeGreaterThan(0);
    expect(sampleValue(body, 'socdrill_shipment_bytes_bucket', { ...splunk, le: '+Inf' })).toBe(3);

    expect(sampleValue(body, 'socdrill_archive_download_seconds_count', { use: 'session_start' })).toBe(1);
    expect(sampleValue(body, 'socdrill_archive_download_seconds_count', { use: 'noise' })).toBe(2);
    expect(sampleValue(body, 'socdrill_archive_inflate_seconds_count', { use: 'session_start' })).toBe(1);
    expect(sampleValue(body, 'socdrill_archive_inflate_seconds_count', { use: 'noise' })).toBe(2);

    expect(sampleValue(body, 'socdrill_noise_runs_total', { status: 'succeeded', trigger: 'manual' })).toBe(
      1,
    );
    expect(sampleValue(body, 'socdrill_noise_runs_total', { status: 'succeeded', trigger: 'schedule' })).toBe(
      1,
    );
    expect(sampleValue(body, 'socdrill_scheduler_lag_seconds_count')).toBe(1);
    expect(sampleValue(body, 'socdrill_scheduler_lag_seconds_sum')).toBe(90);

    // By route pattern, never the raw URL.
    const http = 'socdrill_http_request_duration_seconds_count';
    expect(
      sampleValue(body, http, { method: 'POST', route: '/api/sessions/start', status_code: '200' }),
    ).toBe(1);
    expect(
      sampleValue(body, http, { method: 'POST', route: '/api/noise/jobs/:id/runs', status_code: '201' }),
    ).toBe(1);
    expect(body).not.toContain(job.json().id);

    expect(sampleValue(body, 'socdrill_sse_clients')).toBe(0);
    expect(sampleValue(body, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(body, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(body).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('labels requests no route matched as "unmatched"', async () => {
    expect((await t.app.inject({ url: '/no/such/path/42' })).statusCode).toBe(404);
    const body = await (await scrape()).text();
    expect(
      sampleValue(body, 'socdrill_http_request_duration_seconds_count', {
        route: 'unmatched',
        status_code: '404',
      }),
    ).toBe(1);
    expect(body).not.toContain('/no/such/path/42');
  });
});

describe('without METRICS_PORT', () => {
  it('nothing listens, and no process metrics are collected', async () => {
    const t = await buildTestApp();
    try {
      expect(t.ctx.config.metricsPort).toBeUndefined();
      expect(await serveMetrics(t.ctx)).toBeUndefined();
      const { body } = await t.ctx.metrics.scrape();
      expect(body).toContain('socdrill_shipments_total');
      expect(body).not.toContain('process_cpu_user_seconds_total');
    } finally {
      await t.close();
    }
  });
});
