/**
 * API tail latency under a shipment: the p99 of `GET /api/me` at 200 connections while
 * `POST /api/sessions/start` ships 1,000,000 LEEF lines to a counting syslog receiver, as a ratio
 * to the same p99 with no shipment, measured in the same run (goal: at most 3×).
 *
 * The service listens on loopback on its embedded defaults (PGlite); the load generator
 * (autocannon) and the receiver run in child processes so they do not share the service's event
 * loop. One warm-up, then rounds alternating idle and shipping; each shipping round loads the API
 * for exactly as long as the session start runs.
 *
 * Each connection is its own signed-in user (BENCH_API_USERS, default one per connection), so the
 * figure is not the session cache's best case of one session shared by every request.
 *
 * Run: npm run bench -- api. Environment: BENCH_API_CONNECTIONS (200), BENCH_API_USERS (as many as
 * connections), BENCH_API_ROUNDS (3), BENCH_API_IDLE_SECONDS (8), BENCH_SESSION_EVENTS (1,000,000),
 * BENCH_API_URL (/api/me).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { buildApp } from '../src/http/build-app.ts';
import { createLogger } from '../src/logger.ts';
import { createUser } from '../src/users/user-service.ts';
import { buildArchive, runCountingReceiver } from './lib/session-fixtures.ts';

interface LoadResult {
  type: 'result';
  p50: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  seconds: number;
}
type LoadCommand =
  | { type: 'start'; url: string; cookies: string[]; connections: number; seconds?: number }
  | { type: 'stop' };

if (process.argv[2] === 'receiver') await runCountingReceiver();
else if (process.argv[2] === 'load') runLoad();
else await main();

async function main(): Promise<void> {
  const connections = Number(process.env.BENCH_API_CONNECTIONS ?? 200);
  const rounds = Number(process.env.BENCH_API_ROUNDS ?? 3);
  const idleSeconds = Number(process.env.BENCH_API_IDLE_SECONDS ?? 8);
  const total = Number(process.env.BENCH_SESSION_EVENTS ?? 1_000_000);
  const probe = process.env.BENCH_API_URL ?? '/api/me';
  const users = Number(process.env.BENCH_API_USERS ?? connections);
  const archive = buildArchive(total);
  console.log(
    `API tail latency: GET ${probe} at ${connections} connections of ${users} users, idle vs during a ${total.toLocaleString('en-US')}-line session start (${(archive.length / 1024 / 1024).toFixed(1)} MiB zip)`,
  );

  const files = createServer((_req, res) => res.end(archive));
  files.listen(0, '127.0.0.1');
  await once(files, 'listening');
  const filesPort = (files.address() as AddressInfo).port;

  const self = fileURLToPath(import.meta.url);
  const receiver = fork(self, ['receiver'], { stdio: 'inherit' });
  const [ready] = (await once(receiver, 'message')) as [{ type: 'ready'; port: number }];
  const load = fork(self, ['load'], { stdio: 'inherit' });

  const tmp = mkdtempSync(path.join(path.resolve('.tmp'), 'bench-api-'));
  const config = loadConfig({
    DATA_DIR: tmp,
    ARCHIVE_ALLOW_HTTP: 'true',
    ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${filesPort}`,
    SCHEDULER: 'off',
    LOG_LEVEL: 'warn',
  });
  const ctx = await createContext(config, { log: createLogger('warn') });
  const app = await buildApp(ctx);
  ctx.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    const cookies: string[] = [];
    for (let i = 0; i < users; i += 1) {
      const email = `bench${i}@lab.test`;
      await createUser(ctx.db, { email, password: 'bench password 1', roles: ['admin'] });
      const login = await fetch(`${base}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'bench password 1' }),
      });
      cookies.push(login.headers.getSetCookie()[0]?.split(';')[0] ?? '');
    }
    const cookie = cookies[0] as string;
    const created = await fetch(`${base}/api/destinations`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'bench',
        driver: 'syslog_tcp',
        host: '127.0.0.1',
        port: ready.port,
        source_identity: 'bench-host',
      }),
    });
    if (created.status !== 201) throw new Error(await created.text());

    const runLoadFor = async (seconds?: number): Promise<LoadResult> => {
      load.send({
        type: 'start',
        url: `${base}${probe}`,
        cookies,
        connections,
        ...(seconds ? { seconds } : {}),
      } satisfies LoadCommand);
      const [result] = (await once(load, 'message')) as [LoadResult];
      return result;
    };
    const shipping = async (): Promise<{ load: LoadResult; events: number; seconds: number }> => {
      const result = once(load, 'message') as Promise<[LoadResult]>;
      load.send({ type: 'start', url: `${base}${probe}`, cookies, connections } satisfies LoadCommand);
      const t0 = performance.now();
      const res = await fetch(`${base}/api/sessions/start`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ archiveDownloadUrl: `http://127.0.0.1:${filesPort}/x.zip`, siem: 'bench' }),
      });
      const seconds = (performance.now() - t0) / 1000;
      load.send({ type: 'stop' } satisfies LoadCommand);
      const body = (await res.json()) as { events?: number };
      if (res.status !== 200)
        throw new Error(`session start answered ${res.status}: ${JSON.stringify(body)}`);
      return { load: (await result)[0], events: body.events ?? 0, seconds };
    };

    await runLoadFor(3);
    const idle: LoadResult[] = [];
    const busy: LoadResult[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      const quiet = await runLoadFor(idleSeconds);
      idle.push(quiet);
      console.log(`  round ${round} idle      ${describe(quiet)}`);
      const run = await shipping();
      busy.push(run.load);
      console.log(
        `  round ${round} shipping  ${describe(run.load)}  (session start ${run.events.toLocaleString('en-US')} events in ${run.seconds.toFixed(1)} s)`,
      );
    }
    const idleP99 = median(idle.map((r) => r.p99));
    const busyP99 = median(busy.map((r) => r.p99));
    console.log(
      `  median p99: idle ${idleP99} ms, during the shipment ${busyP99} ms → ratio ${(busyP99 / idleP99).toFixed(2)}× (goal ≤ 3×)`,
    );
  } finally {
    load.kill();
    receiver.kill();
    await app.close();
    await ctx.close();
    files.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

function describe(r: LoadResult): string {
  const rate = Math.round(r.requests / r.seconds).toLocaleString('en-US');
  const failures = r.non2xx + r.errors > 0 ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : '';
  return `p50 ${r.p50} ms  p99 ${r.p99} ms  max ${r.max} ms  ${rate} req/s${failures}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The load generator's process: one autocannon run per `start`, ended by its duration or `stop`. */
function runLoad(): void {
  let current: autocannon.Instance | undefined;
  process.on('message', (command: LoadCommand) => {
    if (command.type === 'stop') {
      current?.stop();
      return;
    }
    const t0 = performance.now();
    // Each connection keeps one user's cookie (autocannon's context is per connection).
    let next = 0;
    current = autocannon(
      {
        url: command.url,
        connections: command.connections,
        duration: command.seconds ?? 3600,
        requests: [
          {
            method: 'GET',
            setupRequest: (request, context) => {
              const own = context as { cookie?: string };
              own.cookie ??= command.cookies[next++ % command.cookies.length];
              return { ...request, headers: { ...request.headers, cookie: own.cookie ?? '' } };
            },
          },
        ],
      },
      (err, result) => {
        current = undefined;
        if (err) throw err;
        process.send?.({
          type: 'result',
          p50: result.latency.p50,
          p99: result.latency.p99,
          max: result.latency.max,
          requests: result.requests.total,
          non2xx: result.non2xx,
          errors: result.errors,
          seconds: (performance.now() - t0) / 1000,
        } satisfies LoadResult);
      },
    );
  });
}
