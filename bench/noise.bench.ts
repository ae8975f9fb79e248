/**
 * One noise run end to end: a job of 10 archives × 100,000 LEEF events dispatched to three targets
 * at once (vendorA_hec, vendorB_bulk, syslog_tcp) through the real path — NoiseRunner (lease, run
 * rows, next_run_at) and the dispatcher: archives read from the local object storage in parallel,
 * rebase pass 1 over all of them (one shift), then per target and archive pass 2 (shift, labIndex
 * for syslog, LEEF → ECS for bulk) into the real drivers. Even archives route to the destination's
 * default index, odd ones to an `existing` index.
 *
 * The receivers run in a child process, so the figures are the dispatching process's own event
 * loop (on a 2-core machine the child still competes for the cores):
 *
 * - `minimal`: HTTP servers that check the credentials, inflate (HEC) and count events, answering
 *   success in the product's format, and a TCP server that counts LF-framed messages. They cost
 *   little: these runs measure the dispatch.
 * - `simulator`: the protocol-faithful simulators of test/simulators (every envelope, item and
 *   message parsed and stored), emptied every 250 ms. They cost more CPU than the dispatch.
 *
 * Figures: events/s (events delivered over all targets / wall time of the run), the run's events
 * per second (events of the job / wall time), per-target time and events/s, the preparation time
 * (download + pass 1), peak RSS of the dispatching process (sampled every 50 ms) and its CPU time.
 * The receivers' counts are checked against each run row's events_shipped; exits 1 if they differ
 * or anything failed.
 *
 * Run: npx node --expose-gc bench/noise.bench.ts (or npm run bench -- noise). Environment:
 * BENCH_NOISE_ARCHIVES (10), BENCH_NOISE_EVENTS (100,000 per archive), BENCH_NOISE_RECEIVERS
 * (minimal,simulator), BENCH_NOISE_TARGETS (hec,bulk,syslog: a subset shows each target's cost).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createDestination } from '../src/destinations/destination-service.ts';
import { createLogger } from '../src/logger.ts';
import { createJob } from '../src/noise/job-service.ts';
import { getRuns } from '../src/noise/run-store.ts';
import { builtinSiemKinds } from '../src/siems/registry.ts';
import type { SendOptions, ShipResult } from '../src/siems/siem-client.ts';
import type { AnySiemKind } from '../src/siems/siem-kind.ts';
import { buildZip } from '../test/fixtures/archives/zip-builder.ts';
import { startBulkSimulator } from '../test/simulators/bulk-simulator.ts';
import { startHecSimulator } from '../test/simulators/hec-simulator.ts';
import { startSyslogSimulator } from '../test/simulators/syslog-simulator.ts';

type ReceiverKind = 'minimal' | 'simulator';
interface Endpoints {
  hec: { url: string; token: string };
  bulk: { url: string; apiKey: string };
  syslog: { port: number };
}
interface Counts {
  hec: number;
  bulk: number;
  syslog: number;
}
type FromChild =
  | { type: 'ready'; endpoints: Endpoints }
  | { type: 'counts'; counts: Counts; cpuSeconds: number };
type ToChild = { type: 'counts' } | { type: 'close' };

const MiB = 1024 * 1024;
const DEFAULT_INDEX = 'bench';
const ODD_INDEX = 'bench-odd';
const ALL_TARGETS = ['bench-hec', 'bench-bulk', 'bench-syslog'];
const TARGETS = (process.env.BENCH_NOISE_TARGETS ?? ALL_TARGETS.join(','))
  .split(',')
  .map((name) => (name.startsWith('bench-') ? name : `bench-${name}`))
  .filter((name) => ALL_TARGETS.includes(name));

if (process.argv[2] === 'receivers') await runReceivers(process.argv[3] as ReceiverKind);
else await main();

async function main(): Promise<void> {
  const archives = Number(process.env.BENCH_NOISE_ARCHIVES ?? 10);
  const perArchive = Number(process.env.BENCH_NOISE_EVENTS ?? 100_000);
  const kinds = (process.env.BENCH_NOISE_RECEIVERS ?? 'minimal,simulator').split(',') as ReceiverKind[];
  console.log(
    `Noise dispatch, Node ${process.version}: ${archives} archives × ${perArchive} LEEF events → ` +
      `${TARGETS.length} targets, receivers in a child process`,
  );
  const started = performance.now();
  const zips = Array.from({ length: archives }, (_, a) =>
    buildZip([{ name: `fw/part-${a}.log`, data: archiveText(a, perArchive) }]),
  );
  const zipBytes = zips.reduce((n, z) => n + z.length, 0);
  console.log(
    `  built ${archives} zips (${(zipBytes / MiB).toFixed(1)} MiB compressed) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  let failed = false;
  for (const kind of kinds) {
    const child = fork(fileURLToPath(import.meta.url), ['receivers', kind], { stdio: 'inherit' });
    const [ready] = (await once(child, 'message')) as [FromChild];
    if (ready.type !== 'ready') throw new Error('receiver child did not start');
    try {
      failed = (await runOnce(kind, ready.endpoints, zips, perArchive, child)) || failed;
    } finally {
      child.send({ type: 'close' } satisfies ToChild);
      await once(child, 'exit');
    }
  }
  if (failed) process.exitCode = 1;
}

/** One dispatch of the job against one kind of receivers; true when something did not add up. */
async function runOnce(
  kind: ReceiverKind,
  endpoints: Endpoints,
  zips: Buffer[],
  perArchive: number,
  child: ReturnType<typeof fork>,
): Promise<boolean> {
  const root = path.resolve(fileURLToPath(import.meta.url), '../../.tmp');
  mkdirSync(root, { recursive: true });
  const dataDir = mkdtempSync(path.join(root, 'bench-noise-'));
  // Per target: when its client started shipping and when it was closed (its end).
  const firstShip: number[] = [];
  const closedAt = new Map<string, number>();
  const timed = (kind: AnySiemKind): AnySiemKind => ({
    ...kind,
    create(destination, deps) {
      const client = kind.create(destination, deps);
      const { send, close } = client;
      // Events or frames alike: the kind's own send, timed.
      client.send = ((input: never, options?: SendOptions) => {
        firstShip.push(performance.now());
        return (send as (input: never, options?: SendOptions) => Promise<ShipResult>).call(
          client,
          input,
          options,
        );
      }) as typeof client.send;
      client.close = async () => {
        await close.call(client);
        closedAt.set(destination.name, performance.now());
      };
      return client;
    },
  });
  const ctx = await createContext(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', SCHEDULER: 'off', PUBLIC_URL: 'http://bench.test' }),
    {
      log: createLogger('warn'),
      siemKinds: (config) => builtinSiemKinds({ hecRetryNotFound: config.hecRetryNotFound }).map(timed),
    },
  );
  try {
    await createDestination(ctx, {
      name: 'bench-hec',
      driver: 'vendorA_hec',
      url: endpoints.hec.url,
      token: endpoints.hec.token,
      index: DEFAULT_INDEX,
      sourcetype: 'leef',
    });
    await createDestination(ctx, {
      name: 'bench-bulk',
      driver: 'vendorB_bulk',
      url: endpoints.bulk.url,
      api_key: endpoints.bulk.apiKey,
      index: DEFAULT_INDEX,
    });
    await createDestination(ctx, {
      name: 'bench-syslog',
      driver: 'syslog_tcp',
      host: '127.0.0.1',
      port: endpoints.syslog.port,
      source_identity: 'bench',
      index: DEFAULT_INDEX,
    });
    for (const [i, zip] of zips.entries())
      await ctx.storage.put('noise-archives', `bench/part-${i}.zip`, zip);
    const job = await createJob(ctx, {
      name: 'bench noise',
      targets: [...TARGETS],
      schedule: { kind: 'interval', interval_seconds: 3600 },
      archives: zips.map((_, i) =>
        i % 2 === 0
          ? { position: i, storage_path: `bench/part-${i}.zip` }
          : { position: i, storage_path: `bench/part-${i}.zip`, index_mode: 'existing', index: ODD_INDEX },
      ),
    });

    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const cpuBefore = process.cpuUsage();
    const t0 = performance.now();
    const handle = await ctx.noise.runner.runJob(job.id, { trigger: 'manual', by: { actor: 'system' } });
    const result = await handle.done;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);

    child.send({ type: 'counts' } satisfies ToChild);
    const [reply] = (await once(child, 'message')) as [FromChild];
    if (reply.type !== 'counts') throw new Error('unexpected message from the receiver child');

    const rows = await getRuns(ctx.db, Object.values(handle.run_ids));
    const events = zips.length * perArchive;
    const delivered = rows.reduce((n, r) => n + r.events_shipped, 0);
    const prepSeconds = firstShip.length > 0 ? (Math.min(...firstShip) - t0) / 1000 : Number.NaN;
    console.log(
      `\n${kind} receivers: ${events} events × ${TARGETS.length} targets in ${seconds.toFixed(2)} s → ` +
        `${Math.round(delivered / seconds)} events/s delivered (${Math.round(events / seconds)} run events/s); ` +
        `ok ${result.ok}`,
    );
    console.log(
      `  preparation (download ${zips.length} archives + rebase pass 1): ${prepSeconds.toFixed(2)} s; ` +
        `peak RSS ${(peak / MiB).toFixed(0)} MiB (+${((peak - baseline) / MiB).toFixed(0)}); ` +
        `dispatch process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; ` +
        `receiver process CPU ${reply.cpuSeconds.toFixed(1)} s`,
    );
    const received: Record<string, number> = {
      'bench-hec': reply.counts.hec,
      'bench-bulk': reply.counts.bulk,
      'bench-syslog': reply.counts.syslog,
    };
    let bad = !result.ok;
    for (const siem of TARGETS) {
      const row = rows.find((r) => r.siem === siem);
      const end = closedAt.get(siem);
      const targetSeconds = end === undefined ? Number.NaN : (end - t0) / 1000;
      const holds = row !== undefined && received[siem] === row.events_shipped;
      bad ||= !holds || row?.status !== 'succeeded';
      console.log(
        `  ${siem.padEnd(13)} ${row?.status ?? '?'} shipped ${row?.events_shipped} failed ${row?.events_failed} ` +
          `done after ${targetSeconds.toFixed(2)} s → ${Math.round((row?.events_shipped ?? 0) / targetSeconds)} events/s; ` +
          `receiver holds ${received[siem]} (${holds ? 'equal' : 'DIFFERENT'})` +
          `${row?.error ? `; error: ${row.error}` : ''}`,
      );
    }
    return bad;
  } finally {
    await ctx.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Firewall-like LEEF 2.0 lines, about 380 bytes each, half behind an RFC 3164 header; devTime in
 * a named format so pass 1 and 2 parse it. Archive `a` covers its own ten minutes.
 */
function archiveText(a: number, count: number): string {
  const base = Date.UTC(2026, 0, 15, 8) + a * 600_000;
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const d = new Date(base + Math.floor((i * 600_000) / count));
    const hms = d.toISOString().slice(11, 19);
    const devTime = `${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, '0')} ${d.getUTCFullYear()} ${hms}`;
    const k = i % 997;
    const src = `10.${a}.${k % 250}.${(k * 7) % 250}`;
    const leef =
      `LEEF:2.0|Palo Alto Networks|PAN-OS Syslog Integration|11.1|trafficAllowed|^|devTime=${devTime}` +
      `^devTimeFormat=MMM dd yyyy HH:mm:ss^src=${src}^dst=192.168.${k % 200}.${(k * 3) % 250}` +
      `^srcPort=${1024 + k}^dstPort=443^proto=tcp^usrName=user${k % 97}^action=allow^cat=TRAFFIC^sev=2` +
      `^bytesIn=${k * 13}^bytesOut=${k * 29}^policy=allow-web-${k % 12}`;
    parts.push(
      i % 2 === 0
        ? leef
        : `<134>${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${hms} fw-${k % 16}.lab ${leef}`,
    );
  }
  return `${parts.join('\n')}\n`;
}

/** Child process: the three receivers of one kind, reporting their counts on request. */
async function runReceivers(kind: ReceiverKind): Promise<void> {
  const receivers = kind === 'simulator' ? await startSimulators() : await startMinimalReceivers();
  process.send?.({ type: 'ready', endpoints: receivers.endpoints } satisfies FromChild);
  process.on('message', (m: ToChild) => {
    if (m.type === 'counts') {
      const cpu = process.cpuUsage();
      process.send?.({
        type: 'counts',
        counts: receivers.counts(),
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
      } satisfies FromChild);
    } else void receivers.close().then(() => process.exit(0));
  });
}

interface Receivers {
  endpoints: Endpoints;
  counts(): Counts;
  close(): Promise<void>;
}

async function startSimulators(): Promise<Receivers> {
  const hec = await startHecSimulator({ indexes: [DEFAULT_INDEX, ODD_INDEX] });
  const bulk = await startBulkSimulator({ flavor: 'elasticsearch', mappingConflicts: false });
  const syslog = await startSyslogSimulator({ framing: 'lf' });
  const counts: Counts = { hec: 0, bulk: 0, syslog: 0 };
  const drain = () => {
    counts.hec += hec.store.events.length;
    hec.store.clear();
    for (const index of bulk.store.indexes.values()) {
      counts.bulk += index.docs.size;
      index.docs.clear();
    }
    bulk.store.requests.length = 0;
    counts.syslog += syslog.store.messages.length;
    syslog.store.messages.length = 0;
  };
  const timer = setInterval(drain, 250);
  return {
    endpoints: {
      hec: { url: hec.url, token: hec.token },
      bulk: { url: bulk.url, apiKey: bulk.apiKey ?? '' },
      syslog: { port: syslog.port },
    },
    counts() {
      drain();
      return { ...counts };
    },
    async close() {
      clearInterval(timer);
      await Promise.all([hec.close(), bulk.close(), syslog.close()]);
    },
  };
}

/**
 * Receivers that do the least a real one must: check the credentials, inflate (HEC), check the
 * bulk body's final newline, count events and answer success in the product's format; count
 * LF-framed syslog messages.
 */
async function startMinimalReceivers(): Promise<Receivers> {
  const token = 'bench-hec-token';
  const apiKey = Buffer.from('bench:key').toString('base64');
  const counts: Counts = { hec: 0, bulk: 0, syslog: 0 };
  const collect = (req: http.IncomingMessage, done: (body: Buffer) => void) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks)));
  };
  const hec = http.createServer((req, res) =>
    collect(req, (raw) => {
      if (req.headers.authorization !== `Splunk ${token}`) {
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"text":"Invalid token","code":4}');
        return;
      }
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      // Every envelope ends with a newline, and JSON strings cannot hold a raw one.
      counts.hec += countByte(body, 10);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"Success","code":0}');
    }),
  );
  const bulk = http.createServer((req, res) =>
    collect(req, (body) => {
      if (req.headers.authorization !== `ApiKey ${apiKey}`) {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"error":"unauthorized","status":401}');
        return;
      }
      if (body.at(-1) !== 10) {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"error":"no final newline","status":400}');
        return;
      }
      const items = countByte(body, 10) / 2;
      counts.bulk += items;
      const list = `${'{"create":{"status":201}},'.repeat(items - 1)}{"create":{"status":201}}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"errors":false,"items":[${list}]}`);
    }),
  );
  const syslog = net.createServer((socket) => {
    socket.on('data', (chunk: Buffer) => {
      counts.syslog += countByte(chunk, 10);
    });
    socket.on('error', () => {});
  });
  const listen = async (server: net.Server) => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  return {
    endpoints: {
      hec: { url: `http://127.0.0.1:${await listen(hec)}`, token },
      bulk: { url: `http://127.0.0.1:${await listen(bulk)}`, apiKey },
      syslog: { port: await listen(syslog) },
    },
    counts: () => ({ ...counts }),
    async close() {
      hec.closeAllConnections();
      bulk.closeAllConnections();
      await Promise.all([
        new Promise((r) => hec.close(r)),
        new Promise((r) => bulk.close(r)),
        new Promise((r) => syslog.close(r)),
      ]);
    },
  };
}

function countByte(buffer: Buffer, byte: number): number {
  let n = 0;
  for (let i = buffer.indexOf(byte); i !== -1; i = buffer.indexOf(byte, i + 1)) n++;
  return n;
}
