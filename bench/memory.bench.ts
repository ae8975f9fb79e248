/**
 * Memory of the service on the embedded database (PGlite):
 *
 * 1. `socdrill serve` started as an operator starts it (bin/socdrill.js, so with the service's V8
 *    flags) on a new data dir, then again on that same dir: its RSS 5 s and 25 s (settled: after
 *    V8's memory reducer ran) after /api/health first answers (idle) and its peak RSS (VmHWM); for the new dir also the peak of the
 *    short-lived initdb child process (create-db.ts), polled every 50 ms.
 * 2. In this process, a context on a new data dir, then ten session starts in a row of a
 *    1,000,000-event LEEF archive over the syslog_tcp driver: RSS before, peak during the first
 *    (sampled every 50 ms), and RSS 2 s after each start, then again after a full collection
 *    (gc(): `npm run bench` gives --expose-gc), to tell garbage V8 has not collected yet from
 *    memory the process keeps.
 *
 * The archive is built and served, and the syslog messages counted, by a child process, so this
 * process holds only what the service holds.
 *
 * Run: npm run bench -- memory. BENCH_MEMORY_EVENTS sets the event count, BENCH_MEMORY_STARTS the
 * number of session starts.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { buildApp } from '../src/http/build-app.ts';
import { createLogger } from '../src/logger.ts';
import { createUser } from '../src/users/user-service.ts';
import { buildArchive, startLfCounter } from './lib/session-fixtures.ts';

type FromHelper =
  | { type: 'ready'; filesPort: number; syslogPort: number }
  | { type: 'count'; messages: number };

const MiB = 1024 * 1024;
const BIN = fileURLToPath(new URL('../bin/socdrill.js', import.meta.url));

if (process.argv[2] === 'helper') await runHelper();
else await main();

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(path.resolve('.tmp'), 'bench-memory-'));
  try {
    console.log('serve, idle 5 s and 25 s after start (MiB):');
    const dataDir = path.join(tmp, 'serve');
    console.log(`  new data dir       ${await serveOnce(dataDir)}`);
    console.log(`  existing data dir  ${await serveOnce(dataDir)}`);
    await sessionStarts(path.join(tmp, 'starts'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The /proc status field of `pid` in MiB (VmRSS: now, VmHWM: peak), 0 when it is gone. */
function procMiB(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number | undefined): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

async function serveOnce(dataDir: string): Promise<string> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: 'bench@lab.test',
      ADMIN_PASSWORD: 'bench password 1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const t0 = performance.now();
  let initdbPeak = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
    for (const pid of childrenOf(child.pid)) initdbPeak = Math.max(initdbPeak, procMiB(pid, 'VmHWM'));
    const up = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const ready = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 5000));
  const idle = procMiB(child.pid, 'VmRSS');
  // V8's memory reducer shrinks the young generation the start grew about 15 s after the work
  // stops: what an idle service holds from then on.
  await new Promise((r) => setTimeout(r, 20_000));
  const settled = procMiB(child.pid, 'VmRSS');
  const peak = procMiB(child.pid, 'VmHWM');
  await stop(child);
  const initdb = initdbPeak > 0 ? `, initdb child peak ${initdbPeak.toFixed(0)}` : '';
  return `ready ${ready.toFixed(1)} s, idle ${idle.toFixed(0)} at 5 s / ${settled.toFixed(0)} at 25 s, peak ${peak.toFixed(0)}${initdb}`;
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
}

async function sessionStarts(dataDir: string): Promise<void> {
  const total = Number(process.env.BENCH_MEMORY_EVENTS ?? 1_000_000);
  const starts = Number(process.env.BENCH_MEMORY_STARTS ?? 10);
  const helper = fork(fileURLToPath(import.meta.url), ['helper', String(total)], { stdio: 'inherit' });
  const [ready] = (await once(helper, 'message')) as [FromHelper];
  if (ready.type !== 'ready') throw new Error('helper did not start');
  const config = loadConfig({
    DATA_DIR: dataDir,
    ARCHIVE_ALLOW_HTTP: 'true',
    ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${ready.filesPort}`,
    SCHEDULER: 'off',
    LOG_LEVEL: 'warn',
  });
  const ctx = await createContext(config, { log: createLogger('warn') });
  const app = await buildApp(ctx);
  await app.ready();
  try {
    await createUser(ctx.db, { email: 'bench@lab.test', password: 'bench password 1', roles: ['admin'] });
    const login = await app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: 'bench@lab.test', password: 'bench password 1' },
    });
    const cookie = login.headers['set-cookie']?.toString().split(';')[0] ?? '';
    const created = await app.inject({
      method: 'POST',
      url: '/api/destinations',
      headers: { cookie },
      payload: {
        name: 'bench',
        driver: 'syslog_tcp',
        host: '127.0.0.1',
        port: ready.syslogPort,
        source_identity: 'bench-host',
      },
    });
    if (created.statusCode !== 201) throw new Error(created.body);
    await new Promise((r) => setTimeout(r, 2000));
    const before = process.memoryUsage.rss();
    let peak = before;
    const after: number[] = [];
    const afterGc: number[] = [];
    const parts: string[] = [];
    let events = 0;
    for (let i = 0; i < starts; i++) {
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 50);
      const res = await app.inject({
        method: 'POST',
        url: '/api/sessions/start',
        headers: { cookie },
        payload: { archiveDownloadUrl: `http://127.0.0.1:${ready.filesPort}/exercise.zip`, siem: 'bench' },
      });
      clearInterval(sampler);
      if (res.statusCode !== 200) throw new Error(`start failed: ${res.statusCode} ${res.body}`);
      events += (res.json() as { events: number }).events;
      if (i === 0) peak = Math.max(peak, process.memoryUsage.rss());
      await new Promise((r) => setTimeout(r, 2000));
      after.push(process.memoryUsage.rss());
      global.gc?.();
      await new Promise((r) => setTimeout(r, 500));
      afterGc.push(process.memoryUsage.rss());
      if (i === 0 || i === starts - 1) parts.push(breakdown());
      if (i === 0)
        console.log(
          `session start of ${total} events (MiB): before ${mib(before)}, peak ${mib(peak)} (+${mib(peak - before)})`,
        );
    }
    helper.send({ type: 'count' });
    const [counted] = (await once(helper, 'message')) as [FromHelper];
    const received = counted.type === 'count' ? counted.messages : -1;
    for (const [name, rss] of [
      ['2 s after', after],
      ['then gc()', afterGc],
    ] as const) {
      const first = rss[0] ?? 0;
      const last = rss.at(-1) ?? 0;
      console.log(
        `  RSS ${name} start 1 / ${starts}: ${mib(first)} / ${mib(last)} MiB (${(((last - first) / first) * 100).toFixed(1)} %), each: ${rss.map(mib).join(' ')}`,
      );
    }
    global.gc?.();
    await new Promise((r) => setTimeout(r, 1000));
    console.log(
      `  after start 1: ${parts[0]}; after start ${starts}: ${parts.at(-1)}; then gc(): ${breakdown()}`,
    );
    console.log(`  events shipped ${events}, receiver counted ${received}`);
    if (received !== events) process.exitCode = 1;
  } finally {
    await app.close();
    await ctx.close();
    helper.kill();
  }
}

/** RSS and what V8 knows of it: its heap, external memory (Buffers, PGlite's WebAssembly memory). */
function breakdown(): string {
  const m = process.memoryUsage();
  return `rss ${mib(m.rss)} (V8 heap ${mib(m.heapTotal)}, external ${mib(m.external)})`;
}

function mib(bytes: number): string {
  return (bytes / MiB).toFixed(0);
}

/** Builds and serves the archive, counts the syslog messages (child process). */
async function runHelper(): Promise<void> {
  const archive = buildArchive(Number(process.argv[3]));
  const files = createServer((_req, res) => res.end(archive));
  files.listen(0, '127.0.0.1');
  await once(files, 'listening');
  const counter = await startLfCounter();
  process.send?.({
    type: 'ready',
    filesPort: (files.address() as AddressInfo).port,
    syslogPort: counter.port,
  });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'count') process.send?.({ type: 'count', messages: counter.count() });
  });
}
