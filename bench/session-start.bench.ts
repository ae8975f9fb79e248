/**
 * Session start end to end: POST /api/sessions/start with a 1,000,000-event LEEF archive, through
 * the real route (sign-in, validation, SSRF-checked download over loopback, zip reading, both
 * rebase passes, syslog headers, framing, the syslog_tcp driver) to a receiver in a child process
 * that only counts LF-framed messages (so the figure is Socdrill's own work).
 *
 * Mix: half epoch-ms devTime, a quarter devTime with devTimeFormat, a quarter with an RFC 3164
 * header; header mode synthesize_if_missing.
 *
 * Figures: events/s (events shipped / wall time of the request), peak RSS of this process during
 * the request (sampled every 50 ms) and its growth over the RSS before the request, compressed
 * archive size.
 *
 * Run: npx node bench/session-start.bench.ts (or npm run bench -- session). BENCH_SESSION_EVENTS
 * sets the event count. Exits 1 when the receiver's count differs from the answer's `events`.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { buildApp } from '../src/http/build-app.ts';
import { createLogger } from '../src/logger.ts';
import { createUser } from '../src/users/user-service.ts';
import { buildArchive, runCountingReceiver } from './lib/session-fixtures.ts';

type FromChild = { type: 'ready'; port: number } | { type: 'count'; messages: number };

if (process.argv[2] === 'receiver') await runCountingReceiver();
else await main();

async function main(): Promise<void> {
  const total = Number(process.env.BENCH_SESSION_EVENTS ?? 1_000_000);
  const archive = buildArchive(total);
  console.log(
    `session start: ${total} LEEF events, archive ${(archive.length / 1024 / 1024).toFixed(1)} MiB compressed`,
  );

  const files = createServer((_req, res) => res.end(archive));
  files.listen(0, '127.0.0.1');
  await once(files, 'listening');
  const filesPort = (files.address() as AddressInfo).port;

  const child = fork(fileURLToPath(import.meta.url), ['receiver'], { stdio: 'inherit' });
  const [ready] = (await once(child, 'message')) as [FromChild];
  if (ready.type !== 'ready') throw new Error('receiver did not start');

  const tmp = mkdtempSync(path.join(path.resolve('.tmp'), 'bench-session-'));
  const config = loadConfig({
    DATA_DIR: tmp,
    ARCHIVE_ALLOW_HTTP: 'true',
    ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${filesPort}`,
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
        port: ready.port,
        source_identity: 'bench-host',
      },
    });
    if (created.statusCode !== 201) throw new Error(created.body);

    global.gc?.();
    const rssBefore = process.memoryUsage.rss();
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 50);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: '/api/sessions/start',
      headers: { cookie },
      payload: { archiveDownloadUrl: `http://127.0.0.1:${filesPort}/exercise.zip`, siem: 'bench' },
    });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    if (res.statusCode !== 200) throw new Error(`start failed: ${res.statusCode} ${res.body}`);
    const body = res.json() as { events: number; files: number; shiftDays: number };

    child.send({ type: 'count' });
    const [counted] = (await once(child, 'message')) as [FromChild];
    const received = counted.type === 'count' ? counted.messages : -1;
    const MiB = 1024 * 1024;
    console.log(
      [
        `  events shipped      ${body.events} (receiver counted ${received}), files ${body.files}, shiftDays ${body.shiftDays.toFixed(3)}`,
        `  wall time           ${seconds.toFixed(2)} s  → ${Math.round(body.events / seconds).toLocaleString('en-US')} events/s`,
        `  CPU (this process)  ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`,
        `  RSS before / peak   ${(rssBefore / MiB).toFixed(0)} / ${(peak / MiB).toFixed(0)} MiB  (growth ${((peak - rssBefore) / MiB).toFixed(0)} MiB)`,
      ].join('\n'),
    );
    if (received !== body.events || body.events !== total) process.exitCode = 1;
  } finally {
    await app.close();
    await ctx.close();
    child.kill();
    files.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
