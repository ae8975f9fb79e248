import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildStatusTestApp,
  openSse,
  type SseTestClient,
  type StatusTestApp,
  waitUntil,
} from '../../test/helpers/status-test-app.ts';
import { signedInAs, testTempDir } from '../../test/helpers/test-app.ts';

/** Debian's Prometheus (`apt-get install prometheus`); .ci/run installs it. */
function findPrometheus(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').concat('/usr/bin')) {
    const candidate = path.join(dir, 'prometheus');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

const binary = findPrometheus();
if (!binary && process.env.CI) {
  throw new Error(
    'prometheus is not installed but CI is set: apt-get install -y --no-install-recommends prometheus',
  );
}
if (!binary) {
  console.warn(
    'Skipping the Prometheus integration test: no prometheus binary (apt-get install prometheus).',
  );
}

async function freePort(host: string): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, host, resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** A scrape target whose one metric the test sets; listens on its own loopback address. */
async function startMetricsServer(
  host: string,
): Promise<{ server: Server; port: number; setDegraded(v: 0 | 1): void }> {
  let degraded = 0;
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(`# TYPE demo_degraded gauge\ndemo_degraded ${degraded}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    setDegraded: (v) => {
      degraded = v;
    },
  };
}

const T2 = Date.parse('2026-03-01T13:00:00.000Z');

describe.skipIf(!binary)('platform status from a real Prometheus', () => {
  let prometheus: ChildProcess;
  let promPort: number;
  let closedPort: number;
  let target: Awaited<ReturnType<typeof startMetricsServer>>;
  let t: StatusTestApp;
  let cookie: string;
  let logFile: string;
  let dir: string;

  beforeAll(async () => {
    dir = testTempDir('prometheus-');
    target = await startMetricsServer('127.0.0.2');
    closedPort = await freePort('127.0.0.3');
    promPort = await freePort('127.0.0.1');
    writeFileSync(
      path.join(dir, 'rules.yml'),
      [
        'groups:',
        '  - name: demo',
        '    rules:',
        '      - alert: DemoDegraded',
        '        expr: demo_degraded == 1',
        '        labels: { severity: warning }',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s, scrape_timeout: 800ms }',
        'rule_files: [rules.yml]',
        'scrape_configs:',
        `  - { job_name: prometheus, static_configs: [{ targets: ['127.0.0.1:${promPort}'] }] }`,
        `  - { job_name: closed, static_configs: [{ targets: ['127.0.0.3:${closedPort}'] }] }`,
        `  - { job_name: app, static_configs: [{ targets: ['127.0.0.2:${target.port}'] }] }`,
      ].join('\n'),
    );
    logFile = path.join(dir, 'prometheus.log');
    const log = openSync(logFile, 'w');
    prometheus = spawn(
      binary as string,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: ['ignore', log, log] },
    );
    await waitUntil(
      'Prometheus to be ready',
      () => prometheus.exitCode === null && readFileSync(logFile, 'utf8').includes('Server is ready'),
      30_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    });

    t = await buildStatusTestApp({
      env: { PROMETHEUS_URL: `http://127.0.0.1:${promPort}` },
      platformStatus: { pollIntervalMs: 250 },
    });
    cookie = (await signedInAs(t, [])).cookie;
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    target?.server.closeAllConnections();
    await new Promise((resolve) => target?.server.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const ids = () => ({
    self: `service:prometheus/127.0.0.1:${promPort}`,
    closed: `service:closed/127.0.0.3:${closedPort}`,
    app: `service:app/127.0.0.2:${target.port}`,
  });
  const stateOf = (id: string) =>
    t.ctx.platformStatus.hub.snapshot().components.find((c) => c.id === id)?.state;
  const statusEvents = (client: SseTestClient, id: string) =>
    client
      .events()
      .filter((e) => e.event === 'status')
      .map((e) => JSON.parse(e.data))
      .filter((d) => d.component.id === id);

  it('lists itself up and the closed target down, then reports degradation and a target going down', async () => {
    const { self, closed, app } = ids();
    await waitUntil(
      'all three targets to be scraped',
      () => stateOf(self) === 'up' && stateOf(closed) === 'down' && stateOf(app) === 'up',
      30_000,
    );

    const client = await openSse(`${t.url}/api/platform-status/events`, { cookie });
    try {
      await client.waitFor('the snapshot', () => client.events().length >= 1);
      const snapshot = JSON.parse(client.events()[0]?.data ?? '');
      expect(client.events()[0]?.event).toBe('snapshot');
      expect(snapshot.provider).toBe('prometheus');
      const byId = new Map(snapshot.components.map((c: { id: string }) => [c.id, c]));
      expect(byId.get('monitoring:prometheus')).toMatchObject({
        kind: 'monitoring',
        state: 'up',
        reason: null,
      });
      expect(byId.get(self)).toMatchObject({
        kind: 'service',
        name: `prometheus 127.0.0.1:${promPort}`,
        state: 'up',
        reason: null,
        labels: { instance: `127.0.0.1:${promPort}`, job: 'prometheus' },
      });
      expect(byId.get(closed)).toMatchObject({
        kind: 'service',
        state: 'down',
        reason: `Get "http://127.0.0.3:${closedPort}/metrics": dial tcp 127.0.0.3:${closedPort}: connect: connection refused`,
      });
      expect(byId.get('host:127.0.0.1')).toMatchObject({ kind: 'host', state: 'up' });
      expect(byId.get('host:127.0.0.3')).toMatchObject({
        kind: 'host',
        state: 'down',
        reason: `closed 127.0.0.3:${closedPort} down`,
      });
      expect(byId.get(app)).toMatchObject({ state: 'up' });

      target.setDegraded(1);
      await client.waitFor(
        'the alert to degrade the target',
        () => statusEvents(client, app).length >= 1,
        20_000,
      );
      expect(statusEvents(client, app)[0]).toMatchObject({
        change: 'changed',
        component: { state: 'degraded', reason: 'alert DemoDegraded firing' },
        previous: { state: 'up' },
      });

      t.clock.set(T2);
      target.server.closeAllConnections();
      await new Promise((resolve) => target.server.close(resolve));
      await client.waitFor('the target to go down', () => statusEvents(client, app).length >= 2, 20_000);
      const down = statusEvents(client, app)[1];
      expect(down).toMatchObject({
        change: 'changed',
        at: new Date(T2).toISOString(),
        component: { state: 'down', since: new Date(T2).toISOString() },
        previous: { state: 'degraded', reason: 'alert DemoDegraded firing' },
      });
      expect(down.component.reason).toMatch(/connection refused/);
      await client.waitFor(
        'its host to go down',
        () => statusEvents(client, 'host:127.0.0.2').length >= 2,
        5_000,
      );
      expect(statusEvents(client, 'host:127.0.0.2').at(-1)?.component.state).toBe('down');
    } finally {
      client.close();
    }
  }, 90_000);
});
