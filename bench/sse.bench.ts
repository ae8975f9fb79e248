/**
 * Platform-status stream under load: N concurrent streams (default 1,000), each with its own
 * session, held for H seconds (default 60) while one component changes every 5 s.
 *
 * Figures: server memory per open stream (heap and RSS, after GC), time to fan one change out to
 * every stream (from the poll to the last client having the event, measured by the clients in a
 * separate process), the synchronous write loop alone, one heartbeat with its session re-check,
 * heap growth over the hold, and file descriptors after the clients disconnect.
 *
 * Run: npx node --expose-gc bench/sse.bench.ts   (BENCH_SSE_STREAMS, BENCH_SSE_HOLD_SECONDS)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createSession } from '../src/auth/sessions.ts';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { buildApp } from '../src/http/build-app.ts';
import { sessionCookieName } from '../src/http/session-cookie.ts';
import { createLogger } from '../src/logger.ts';
import { manualProvider, reading } from '../src/platform-status/manual-provider.ts';
import { createUser } from '../src/users/user-service.ts';

type ToClient = { type: 'open'; port: number; cookies: string[] } | { type: 'close' };
/** `first`/`last`: wall-clock ms (timeOrigin + now) at which the first and the last stream had the change. */
type ToServer =
  | { type: 'ready'; ms: number }
  | { type: 'got'; change: number; first: number; last: number }
  | { type: 'closed' };

const wallNow = () => performance.timeOrigin + performance.now();

const CHANGE_EVERY_MS = 5_000;
const TOKEN = 'event: status\n';
const MiB = 1024 * 1024;

if (process.argv[2] === 'client') {
  runClient();
} else {
  await runServer();
}

async function runServer(): Promise<void> {
  const streams = Number(process.env.BENCH_SSE_STREAMS ?? 1000);
  const holdSeconds = Number(process.env.BENCH_SSE_HOLD_SECONDS ?? 60);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc: npx node --expose-gc bench/sse.bench.ts');
  const root = path.resolve(fileURLToPath(import.meta.url), '../../.tmp');
  const dir = mkdtempSync(path.join(root, 'bench-sse-'));
  const provider = manualProvider('builtin', 3_600_000);
  provider.set([reading('service:bench/h:1', 'up'), reading('database', 'up', { kind: 'database' })]);
  const config = loadConfig({
    DATA_DIR: dir,
    SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
    PUBLIC_URL: 'http://bench.test',
    LOG_LEVEL: 'silent',
    SCHEDULER: 'off',
  });
  const ctx = await createContext(config, {
    log: createLogger('silent'),
    platformStatus: { provider, pollIntervalMs: 3_600_000 },
  });
  const app = await buildApp(ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  await ctx.platformStatus.hub.pollNow();

  const user = await createUser(ctx.db, {
    email: 'bench@example.test',
    password: 'bench password 1',
    roles: [],
  });
  const cookieName = sessionCookieName(config);
  const cookies: string[] = [];
  for (let i = 0; i < streams; i += 1) {
    const { token } = await createSession(ctx.db, ctx.clock, ctx.sessionPolicy, user.id, {
      ip: null,
      userAgent: null,
    });
    cookies.push(`${cookieName}=${token}`);
  }

  const measure = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return { rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers };
  };
  const fds = () => readdirSync('/proc/self/fd').length;

  const client = fork(fileURLToPath(import.meta.url), ['client'], { stdio: 'inherit' });
  const waiting = new Map<string, (msg: ToServer) => void>();
  client.on('message', (msg: ToServer) => {
    const key = msg.type === 'got' ? `got:${msg.change}` : msg.type;
    waiting.get(key)?.(msg);
    waiting.delete(key);
  });
  const next = (key: string) => new Promise<ToServer>((resolve) => waiting.set(key, resolve));
  const send = (msg: ToClient) => client.send(msg);

  const base = measure();
  const baseFds = fds();
  const ready = next('ready');
  send({ type: 'open', port, cookies });
  const readyMsg = (await ready) as Extract<ToServer, { type: 'ready' }>;
  while (ctx.platformStatus.streams.size < streams) await new Promise((r) => setTimeout(r, 10));
  const open = measure();
  const openFds = fds();

  const fanOut: number[] = [];
  const firstClient: number[] = [];
  const lastClient: number[] = [];
  const writeLoop: number[] = [];
  const holdStart = performance.now();
  let change = 0;
  while (performance.now() - holdStart < holdSeconds * 1000) {
    change += 1;
    provider.set([
      reading('service:bench/h:1', change % 2 === 1 ? 'down' : 'up', {
        reason: change % 2 === 1 ? `connection refused (${change})` : null,
      }),
      reading('database', 'up', { kind: 'database' }),
    ]);
    const got = next(`got:${change}`);
    const t0 = performance.now();
    const wall0 = wallNow();
    await ctx.platformStatus.hub.pollNow();
    writeLoop.push(performance.now() - t0);
    const gotMsg = (await got) as Extract<ToServer, { type: 'got' }>;
    fanOut.push(performance.now() - t0);
    firstClient.push(gotMsg.first - wall0);
    lastClient.push(gotMsg.last - wall0);
    const wait = CHANGE_EVERY_MS - (performance.now() - t0);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const t0 = performance.now();
  await ctx.platformStatus.streams.tick();
  const tickMs = performance.now() - t0;
  const held = measure();
  const heldFds = fds();
  const stats = ctx.platformStatus.streams.stats();

  const closed = next('closed');
  send({ type: 'close' });
  await closed;
  while (ctx.platformStatus.streams.size > 0) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 200));
  const afterFds = fds();
  const after = measure();

  client.kill();
  await app.close();
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });

  const perStream = (a: number, b: number) => `${((a - b) / streams / 1024).toFixed(1)} KiB`;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const sorted = [...fanOut].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  const rows: Array<[string, string]> = [
    ['node', process.version],
    ['streams', String(streams)],
    ['hold', `${holdSeconds} s, one change every ${CHANGE_EVERY_MS / 1000} s (${fanOut.length} changes)`],
    ['connect all streams (client side)', ms(readyMsg.ms)],
    ['heap per stream (open − baseline)', perStream(open.heap, base.heap)],
    ['RSS per stream (open − baseline)', perStream(open.rss, base.rss)],
    ['external+arrayBuffers per stream', perStream(open.external, base.external)],
    ['heap per stream after the hold', perStream(held.heap, base.heap)],
    ['fan-out of one change to all streams: median', ms(pct(50))],
    ['fan-out: p90 / max', `${ms(pct(90))} / ${ms(sorted.at(-1) ?? 0)}`],
    ['first / last stream has the change: median', `${ms(median(firstClient))} / ${ms(median(lastClient))}`],
    ['poll + write loop alone: median', ms(median(writeLoop))],
    ['heartbeat + session re-check of all streams', ms(tickMs)],
    ['heap growth over the hold (after GC)', `${((held.heap - open.heap) / MiB).toFixed(2)} MiB`],
    [
      'RSS baseline / open / after hold',
      `${(base.rss / MiB).toFixed(0)} / ${(open.rss / MiB).toFixed(0)} / ${(held.rss / MiB).toFixed(0)} MiB`,
    ],
    [
      'file descriptors baseline / open / held / after close',
      `${baseFds} / ${openFds} / ${heldFds} / ${afterFds}`,
    ],
    ['streams dropped during the hold', String(stats.closed.buffer_full + stats.closed.stalled)],
    ['heap after close − baseline', `${((after.heap - base.heap) / MiB).toFixed(1)} MiB`],
  ];
  console.log('\nPlatform-status stream load (bench/sse.bench.ts)\n');
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);
}

/** The client side, in its own process so its sockets do not count in the server's memory. */
function runClient(): void {
  const sockets: Socket[] = [];
  const counts: number[] = [];
  let expected = 0;
  let gotCount = 0;
  let first = 0;
  process.on('message', async (msg: ToClient) => {
    if (msg.type === 'close') {
      for (const s of sockets) s.destroy();
      process.send?.({ type: 'closed' } satisfies ToServer);
      return;
    }
    const started = performance.now();
    let withSnapshot = 0;
    const all = msg.cookies.map((cookie, i) => {
      counts[i] = 0;
      return () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect(msg.port, '127.0.0.1');
          sockets.push(socket);
          let tail = '';
          let snapshot = false;
          let head = '';
          socket.setEncoding('utf8');
          socket.on('error', reject);
          socket.on('connect', () => {
            socket.write(
              `GET /api/platform-status/events HTTP/1.1\r\nHost: bench.test\r\nCookie: ${cookie}\r\n\r\n`,
            );
          });
          socket.on('data', (chunk: string) => {
            const text = tail + chunk;
            if (!snapshot) head += chunk;
            if (!snapshot && head.includes('event: snapshot')) {
              snapshot = true;
              withSnapshot += 1;
              resolve();
            }
            let found = 0;
            let end = 0;
            for (let at = text.indexOf(TOKEN); at !== -1; at = text.indexOf(TOKEN, end)) {
              found += 1;
              end = at + TOKEN.length;
            }
            // Keep just enough to find a token split across chunks, never one already counted.
            tail = text.slice(Math.max(end, text.length - TOKEN.length + 1));
            if (found > 0) {
              counts[i] = (counts[i] ?? 0) + found;
              if (counts[i] === expected + 1) {
                gotCount += 1;
                if (gotCount === 1) first = wallNow();
                if (gotCount === sockets.length) {
                  expected += 1;
                  gotCount = 0;
                  process.send?.({
                    type: 'got',
                    change: expected,
                    first,
                    last: wallNow(),
                  } satisfies ToServer);
                }
              }
            }
          });
        });
    });
    // Connect in waves so the listen backlog is never overrun.
    for (let i = 0; i < all.length; i += 100) await Promise.all(all.slice(i, i + 100).map((f) => f()));
    if (withSnapshot !== all.length) throw new Error('not every stream got its snapshot');
    process.send?.({ type: 'ready', ms: performance.now() - started } satisfies ToServer);
  });
}
