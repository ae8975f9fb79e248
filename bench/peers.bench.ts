/**
 * Socdrill against peers, as ratios measured in one run: for each SIEM kind, a session start
 * (`POST /api/sessions/start`: download, inflate, both rebase passes, encoding, the driver) and a
 * peer that ships the same events from a plain file, to the same count-only receiver, alternated
 * (Socdrill first in odd rounds, the peer first in even ones), each side in a fresh process.
 *
 * - syslog: Socdrill's `syslog_tcp` against rsyslogd (Debian's package, `.ci/run` installs it)
 *   with a private configuration and work directory: `imfile` reading the unzipped `.log` from its
 *   start, `omfwd` over TCP (LF framing, its default forwarding template) to an LF counter. Timed
 *   from spawning rsyslogd until the counter holds every line; CPU and peak RSS from /proc.
 * - hec: `vendorA_hec` against `splunk-logging` (a `Logger` batching 1,000 events or 1 MB, the
 *   line as a string event like Socdrill's, at most four requests in flight like Socdrill's
 *   driver: the library itself sends every full batch at once, without limit).
 * - bulk: `vendorB_bulk` (ECS) against `@elastic/elasticsearch`'s `helpers.bulk` (flushBytes 5 MB,
 *   concurrency 5, `index` actions, the NDJSON lines handed over as strings, no parsing).
 *
 * The peers read the unzipped file in their own process and rebase nothing; Socdrill does its full
 * work from the zip. Receivers (bench/lib/count-receivers.ts, and the LF counter of
 * bench/lib/session-fixtures.ts) run in one child process per SIEM kind, shared by both sides, and
 * report their CPU per run. Socdrill's side is a fresh child running createContext + buildApp on
 * the embedded defaults in a temporary DATA_DIR and one session start by inject; its CPU and RSS
 * figures are for the request only (process.cpuUsage; RSS sampled every 50 ms, as the growth over
 * the RSS before it and as the process's peak, which includes PGlite starting). Peers' CPU and
 * peak RSS are their whole process's.
 *
 * Prints per SIEM and round each side's events/s (wall), CPU seconds, RSS and the receiver's CPU,
 * then a table of medians, the ratio Socdrill / peer against its goal (2×), the round-by-round
 * ratios, and the CPU bound: the most the ratio could be on this host's cores with the CPU
 * Socdrill and its receiver used (when it is below the goal, only less work per event helps),
 * and a table of where Socdrill's wall time went: download, rebase pass 1, pass 2 with delivery,
 * and how long its main thread was active (see Phases).
 *
 * Run: npm run bench -- peers. Environment: BENCH_PEERS_LINES (1,000,000 LEEF lines for syslog and
 * HEC), BENCH_PEERS_DOCS (300,000 ECS documents for bulk), BENCH_PEERS_ROUNDS (3),
 * BENCH_PEERS_ONLY (syslog,hec,bulk), BENCH_PEERS_PROFILE (a directory: Socdrill's side runs with
 * --cpu-prof writing there), BENCH_PEERS_WARM (0: warm-up runs each Node side makes in its own
 * process before the measured one, which the receiver's figures leave out; a running service's
 * later session starts, a long-running shipper's later batches).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Client } from '@elastic/elasticsearch';
import { Logger as SplunkLogger } from 'splunk-logging';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { buildApp } from '../src/http/build-app.ts';
import { createLogger } from '../src/logger.ts';
import { createUser } from '../src/users/user-service.ts';
import { type CountReceivers, startCountReceivers } from './lib/count-receivers.ts';
import { buildEcsArchive, makeDoc } from './lib/ecs-fixtures.ts';
import { peakRssBytes } from './lib/peak-rss.ts';
import { buildArchive, buildLeefText, startLfCounter } from './lib/session-fixtures.ts';

type Siem = 'syslog' | 'hec' | 'bulk';
type Side = 'socdrill' | 'peer';
interface Run {
  events: number;
  seconds: number;
  cpuSeconds: number;
  /** RSS growth during the measured work (Socdrill) or 0. */
  rssGrowth: number;
  peakRss: number;
  receiverCpu?: number;
  /** Socdrill's side: where the request's wall time went (see Phases). */
  phases?: Phases;
}
/**
 * Where a session start's wall time went, from the service's own metrics
 * (socdrill_archive_download_seconds, socdrill_archive_inflate_seconds: rebase pass 1,
 * socdrill_shipment_duration_seconds: pass 2 and delivery) and the time the main thread was not
 * idle over the request (event-loop utilisation's `active`: running, or ready and waiting for a
 * core, so it can exceed the process's CPU on a loaded host). Pass 1 runs before anything is sent,
 * and a main thread active for most of the wall time is the bound a second core does not lift.
 */
interface Phases {
  download: number;
  pass1: number;
  ship: number;
  mainActive: number;
}
interface Targets {
  syslogPort: number;
  hec: CountReceivers['info']['hec'];
  bulk: CountReceivers['info']['bulk'];
}
type FromReceiver =
  | { type: 'ready'; targets: Partial<Targets> }
  | { type: 'count'; events: number; cpuSeconds: number };

const MiB = 1024 * 1024;
/** Cores this process may use: the ceiling for CPU seconds per wall second of a run (cpuBound). */
const CORES = availableParallelism();
const RSYSLOGD = '/usr/sbin/rsyslogd';
/** Warm-up runs each side makes in its own process before the measured one (BENCH_PEERS_WARM). */
const WARM_RUNS = Number(process.env.BENCH_PEERS_WARM ?? 0);
const PEERS: Record<Siem, string> = {
  syslog: 'rsyslog imfile → omfwd',
  hec: 'splunk-logging',
  bulk: 'ES helpers.bulk',
};
const self = fileURLToPath(import.meta.url);
/** BENCH_PEERS_RECEIVER_WARMUP=0: measure with a fresh receiver (its first-use cost on the first side). */
const NO_RECEIVER_WARMUP = process.env.BENCH_PEERS_RECEIVER_WARMUP === '0';

switch (process.argv[2]) {
  case 'receiver':
    await runReceiver(process.argv[3] as Siem);
    break;
  case 'socdrill':
    await runSocdrill(JSON.parse(process.argv[3] as string) as SocdrillJob);
    break;
  case 'splunk':
    await runSplunkLogging(JSON.parse(process.argv[3] as string) as PeerJob);
    break;
  case 'es':
    await runEsHelper(JSON.parse(process.argv[3] as string) as PeerJob);
    break;
  default:
    await main();
}

async function main(): Promise<void> {
  const lines = Number(process.env.BENCH_PEERS_LINES ?? 1_000_000);
  const docs = Number(process.env.BENCH_PEERS_DOCS ?? 300_000);
  const rounds = Number(process.env.BENCH_PEERS_ROUNDS ?? 3);
  const only = (process.env.BENCH_PEERS_ONLY ?? 'syslog,hec,bulk').split(',') as Siem[];
  const dir = mkdtempSync(path.join(path.resolve('.tmp'), 'bench-peers-'));
  const leefLog = path.join(dir, 'firewall.log');
  const ecsLog = path.join(dir, 'ecs.ndjson');
  const zips: Partial<Record<'leef' | 'ecs', Buffer>> = {};
  if (only.includes('syslog') || only.includes('hec')) {
    writeFileSync(leefLog, buildLeefText(lines));
    zips.leef = buildArchive(lines);
  }
  if (only.includes('bulk')) {
    writeFileSync(ecsLog, `${Array.from({ length: docs }, (_, i) => makeDoc(i)).join('\n')}\n`);
    zips.ecs = await buildEcsArchive(docs);
  }
  const files = createServer((req, res) => res.end(req.url?.startsWith('/ecs') ? zips.ecs : zips.leef));
  files.listen(0, '127.0.0.1');
  await once(files, 'listening');
  const filesPort = (files.address() as AddressInfo).port;
  console.log(
    `Socdrill vs peers, Node ${process.version}, ${rounds} round(s) alternated: ${lines.toLocaleString('en-US')} LEEF lines` +
      ` (zip ${((zips.leef?.length ?? 0) / MiB).toFixed(1)} MiB), ${docs.toLocaleString('en-US')} ECS documents` +
      ` (zip ${((zips.ecs?.length ?? 0) / MiB).toFixed(1)} MiB)`,
  );

  const summary: string[] = [];
  const medianNotes: string[] = [];
  const phaseRows: string[] = [];
  let failed = false;
  try {
    for (const siem of only) {
      const total = siem === 'bulk' ? docs : lines;
      const receiver = fork(self, ['receiver', siem], { stdio: 'inherit' });
      const [ready] = (await once(receiver, 'message')) as [FromReceiver];
      if (ready.type !== 'ready') throw new Error('receiver did not start');
      const targets = ready.targets as Targets;
      if (!NO_RECEIVER_WARMUP) await warmReceiver(siem, targets);
      const count = async (): Promise<{ events: number; cpuSeconds: number }> => {
        receiver.send('count');
        const [m] = (await once(receiver, 'message')) as [FromReceiver];
        if (m.type !== 'count') throw new Error('unexpected message from the receiver');
        return m;
      };
      const runs: Record<Side, Run[]> = { socdrill: [], peer: [] };
      console.log(`\n${siem}: Socdrill vs ${PEERS[siem]}, ${total.toLocaleString('en-US')} events`);
      for (let round = 1; round <= rounds; round++) {
        const order: Side[] = round % 2 === 1 ? ['socdrill', 'peer'] : ['peer', 'socdrill'];
        for (const side of order) {
          let before = await count();
          // A side's child calls this once its warm-up runs are done, just before the measured one.
          const measuring = async () => {
            before = await count();
          };
          const run =
            side === 'socdrill'
              ? await socdrillSide(siem, filesPort, targets, measuring)
              : await peerSide(
                  siem,
                  total,
                  siem === 'bulk' ? ecsLog : leefLog,
                  targets,
                  dir,
                  count,
                  measuring,
                );
          const after = await count();
          run.receiverCpu = after.cpuSeconds - before.cpuSeconds;
          const received = after.events - before.events;
          const ok = received === total && run.events === total;
          failed ||= !ok;
          runs[side].push(run);
          console.log(
            `  round ${round} ${side === 'socdrill' ? 'Socdrill' : 'peer    '}  ${describe(run)}` +
              `${ok ? '' : `  COUNT MISMATCH: sent ${run.events}, received ${received} of ${total}`}`,
          );
        }
      }
      receiver.kill();
      summary.push(table(siem, runs));
      medianNotes.push(
        `${siem}: the ratio of the two sides' median events/s (rounds unpaired) is ` +
          `${(median(runs.socdrill.map((r) => r.events / r.seconds)) / median(runs.peer.map((r) => r.events / r.seconds))).toFixed(2)}×`,
      );
      phaseRows.push(phasesRow(siem, runs.socdrill));
    }
  } finally {
    files.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\nMedians over ${rounds} round(s); ratio = the median of the rounds' ratios of Socdrill's to the` +
      " peer's events/s (goal ≥ 2×; see table); CPU bound = the" +
      ` most the ratio can be with Socdrill's CPU and its receiver's on ${CORES} core(s) (see cpuBound)`,
  );
  console.log(
    '| SIEM   | side                      | events/s  | CPU s | peak RSS MiB | receiver CPU s | ratio | CPU bound | ratio by round      |',
  );
  console.log(
    '| ------ | ------------------------- | --------- | ----- | ------------ | -------------- | ----- | --------- | ------------------- |',
  );
  for (const rows of summary) console.log(rows);
  for (const note of medianNotes) console.log(note);
  console.log(
    "\nSocdrill's session start by phase, medians in seconds (share of its wall time): pass 1 runs before" +
      ' anything is sent; main thread active = not idle (running or waiting for a core): active for' +
      ' most of the wall time, it is the bound a second core does not lift',
  );
  console.log('| SIEM   | wall s | download     | pass 1       | pass 2 and delivery | main thread active |');
  console.log('| ------ | ------ | ------------ | ------------ | ------------------- | ------------------ |');
  for (const row of phaseRows) console.log(row);
  if (failed) process.exitCode = 1;
}

function describe(r: Run): string {
  return (
    `${Math.round(r.events / r.seconds)
      .toLocaleString('en-US')
      .padStart(9)} events/s  ${r.seconds.toFixed(2)} s wall  CPU ${r.cpuSeconds.toFixed(2)} s` +
    `  peak RSS ${(r.peakRss / MiB).toFixed(0)} MiB${r.rssGrowth ? ` (request +${(r.rssGrowth / MiB).toFixed(0)})` : ''}` +
    `  receiver CPU ${(r.receiverCpu ?? 0).toFixed(2)} s` +
    (r.phases
      ? `\n${' '.repeat(20)}download ${r.phases.download.toFixed(2)} s, pass 1 ${r.phases.pass1.toFixed(2)} s,` +
        ` pass 2 and delivery ${r.phases.ship.toFixed(2)} s, main thread active ${r.phases.mainActive.toFixed(2)} s`
      : '')
  );
}

/** A row of the phases table: Socdrill's medians for one SIEM (see Phases). */
function phasesRow(siem: Siem, runs: Run[]): string {
  const med = (f: (r: Run) => number) => median(runs.map(f));
  const share = (f: (p: Phases) => number) => med((r) => (r.phases ? f(r.phases) / r.seconds : 0));
  const cell = (f: (p: Phases) => number, width: number) =>
    `${med((r) => (r.phases ? f(r.phases) : 0)).toFixed(2)} (${(share(f) * 100).toFixed(0)} %)`.padStart(
      width,
    );
  return (
    `| ${siem.padEnd(6)} | ${med((r) => r.seconds)
      .toFixed(2)
      .padStart(6)} | ${cell((p) => p.download, 12)} |` +
    ` ${cell((p) => p.pass1, 12)} | ${cell((p) => p.ship, 19)} | ${cell((p) => p.mainActive, 18)} |`
  );
}

/**
 * One SIEM's rows. The ratio is the median of the rounds' own ratios, as the CPU bound is: a round
 * runs its two sides back to back, while the host's speed drifts between rounds (a 5-round HEC run
 * went from the peer's 6.5-7.1 s in rounds 1-2 to 4.5-5.1 s in rounds 4-5), so the ratio of the
 * two sides' medians can pair runs minutes apart (there 1.65× against rounds of 1.60-2.01×).
 */
function table(siem: Siem, runs: Record<Side, Run[]>): string {
  const med = (side: Side, f: (r: Run) => number) => median(runs[side].map(f));
  const rate = (side: Side) => med(side, (r) => r.events / r.seconds);
  const byRound = runs.socdrill.map((r, k) => runs.peer[k]!.seconds / r.seconds);
  const ratio = median(byRound);
  const bound = median(runs.socdrill.map((r, k) => cpuBound(r, runs.peer[k]!)));
  const row = (side: Side, label: string, last: string[]) =>
    `| ${siem.padEnd(6)} | ${label.padEnd(25)} | ${Math.round(rate(side)).toLocaleString('en-US').padStart(9)} | ` +
    `${med(side, (r) => r.cpuSeconds)
      .toFixed(2)
      .padStart(5)} | ${(med(side, (r) => r.peakRss) / MiB).toFixed(0).padStart(12)} | ` +
    `${med(side, (r) => r.receiverCpu ?? 0)
      .toFixed(2)
      .padStart(14)} | ${last[0]!.padStart(5)} | ${last[1]!.padStart(9)} | ${last[2]!.padEnd(19)} |`;
  return [
    row('socdrill', 'Socdrill session start', [
      `${ratio.toFixed(2)}×`,
      `${bound.toFixed(2)}×`,
      byRound.map((x) => `${x.toFixed(2)}×`).join(', '),
    ]),
    row('peer', PEERS[siem], [ratio >= 2 ? 'met' : 'short', '', '']),
  ].join('\n');
}

/**
 * The highest ratio Socdrill's run could have had against `peer` given the CPU it and the receiver
 * used: on CORES cores its wall time is at least (its CPU + the receiver's CPU) / CORES, so the
 * ratio (peer wall / Socdrill wall) is at most peer wall × CORES / that CPU. Below the goal, no
 * scheduling (more threads, more requests in flight) reaches it: only less CPU per event does.
 */
function cpuBound(socdrill: Run, peer: Run): number {
  return (peer.seconds * CORES) / (socdrill.cpuSeconds + (socdrill.receiverCpu ?? 0));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

/**
 * A child's figures, or its failure. Before its measured run the child says `measuring` and waits
 * for `go`: the parent reads the receiver's counters in between, so warm-up runs are not counted.
 */
async function result(child: ChildProcess, measuring: () => Promise<void>): Promise<Run> {
  const exited = once(child, 'exit');
  let got: Run | { error: string } | undefined;
  for (;;) {
    const message = (await Promise.race([once(child, 'message'), exited.then(() => [undefined])])) as [
      Run | { error: string } | 'measuring' | undefined,
    ];
    if (message[0] !== 'measuring') {
      got = message[0];
      break;
    }
    await measuring();
    child.send('go');
  }
  if (!got) throw new Error(`the ${child.spawnargs[2]} side exited without figures`);
  if ('error' in got) throw new Error(got.error);
  await exited;
  return got;
}

// --- Socdrill's side -----------------------------------------------------------------------------

interface SocdrillJob {
  siem: Siem;
  filesPort: number;
  targets: Targets;
}

async function socdrillSide(
  siem: Siem,
  filesPort: number,
  targets: Targets,
  measuring: () => Promise<void>,
): Promise<Run> {
  const profile = process.env.BENCH_PEERS_PROFILE;
  const child = fork(self, ['socdrill', JSON.stringify({ siem, filesPort, targets } satisfies SocdrillJob)], {
    stdio: 'inherit',
    execArgv: [
      ...process.execArgv,
      ...(profile
        ? [
            '--cpu-prof',
            `--cpu-prof-dir=${path.resolve(profile)}`,
            `--cpu-prof-name=socdrill-${siem}-${Date.now()}.cpuprofile`,
          ]
        : []),
    ],
  });
  return result(child, measuring);
}

/** In a side's child: tells the parent the measured run starts and waits for its `go`. */
async function startMeasuring(): Promise<void> {
  const go = once(process, 'message');
  process.send?.('measuring');
  await go;
}

async function runSocdrill(job: SocdrillJob): Promise<void> {
  const tmp = mkdtempSync(path.join(path.resolve('.tmp'), 'bench-peers-socdrill-'));
  const config = loadConfig({
    DATA_DIR: tmp,
    ARCHIVE_ALLOW_HTTP: 'true',
    ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${job.filesPort}`,
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
    const { targets } = job;
    const destination =
      job.siem === 'syslog'
        ? { driver: 'syslog_tcp', host: '127.0.0.1', port: targets.syslogPort, source_identity: 'bench-host' }
        : job.siem === 'hec'
          ? { driver: 'vendorA_hec', url: targets.hec.url, token: targets.hec.token, index: 'bench' }
          : { driver: 'vendorB_bulk', url: targets.bulk.url, api_key: targets.bulk.apiKey, index: 'bench' };
    const created = await app.inject({
      method: 'POST',
      url: '/api/destinations',
      headers: { cookie },
      payload: { name: 'bench', ...destination },
    });
    if (created.statusCode !== 201) throw new Error(created.body);

    const start = () =>
      app.inject({
        method: 'POST',
        url: '/api/sessions/start',
        headers: { cookie },
        payload: {
          archiveDownloadUrl: `http://127.0.0.1:${job.filesPort}/${job.siem === 'bulk' ? 'ecs' : 'leef'}.zip`,
          siem: 'bench',
        },
      });
    for (let k = 0; k < WARM_RUNS; k++) {
      const warm = await start();
      if (warm.statusCode !== 200)
        throw new Error(`a warm-up start answered ${warm.statusCode}: ${warm.body}`);
    }
    const sums0 = await phaseSums(ctx);
    await startMeasuring();
    global.gc?.();
    const rssBefore = process.memoryUsage.rss();
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 50);
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await start();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const mainActive = performance.eventLoopUtilization(elu0).active / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    if (res.statusCode !== 200) throw new Error(`session start answered ${res.statusCode}: ${res.body}`);
    const body = res.json() as { events: number };
    const sums = await phaseSums(ctx);
    process.send?.({
      events: body.events,
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      rssGrowth: peak - rssBefore,
      peakRss: Math.max(peak, peakRssBytes()),
      phases: {
        download: sums.download - sums0.download,
        pass1: sums.pass1 - sums0.pass1,
        ship: sums.ship - sums0.ship,
        mainActive,
      },
    } satisfies Run);
  } catch (err) {
    process.send?.({ error: String(err) });
  } finally {
    await app.close();
    await ctx.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The phase histograms' sums so far (see Phases); a run's phases are the difference. */
async function phaseSums(
  ctx: Awaited<ReturnType<typeof createContext>>,
): Promise<Omit<Phases, 'mainActive'>> {
  return {
    download: await histogramSum(ctx, 'socdrill_archive_download_seconds'),
    pass1: await histogramSum(ctx, 'socdrill_archive_inflate_seconds'),
    ship: await histogramSum(ctx, 'socdrill_shipment_duration_seconds'),
  };
}

/** The sum of a histogram of the context's metrics over all its labels (0 when nothing was observed). */
async function histogramSum(ctx: Awaited<ReturnType<typeof createContext>>, name: string): Promise<number> {
  const metric = ctx.metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  // A histogram's values are its buckets, `_sum` and `_count`, each named.
  const sums = values.filter((v) => (v as { metricName?: string }).metricName === `${name}_sum`);
  return sums.reduce((sum, v) => sum + v.value, 0);
}

// --- Peers ---------------------------------------------------------------------------------------

interface PeerJob {
  file: string;
  targets: Targets;
}

async function peerSide(
  siem: Siem,
  total: number,
  file: string,
  targets: Targets,
  dir: string,
  count: () => Promise<{ events: number }>,
  measuring: () => Promise<void>,
): Promise<Run> {
  // rsyslogd is native code with nothing to warm up: its run starts with its process.
  if (siem === 'syslog') return rsyslogSide(total, file, targets.syslogPort, dir, count);
  const job = JSON.stringify({ file, targets } satisfies PeerJob);
  // Plain Node for the peers: the service's V8 flags are Socdrill's tuning.
  return result(
    fork(self, [siem === 'hec' ? 'splunk' : 'es', job], { stdio: 'inherit', execArgv: [] }),
    measuring,
  );
}

/** rsyslogd with a private configuration: imfile from the file's start, omfwd TCP to the counter. */
async function rsyslogSide(
  total: number,
  file: string,
  port: number,
  dir: string,
  count: () => Promise<{ events: number }>,
): Promise<Run> {
  const work = mkdtempSync(path.join(dir, 'rsyslog-'));
  const conf = path.join(work, 'rsyslog.conf');
  writeFileSync(
    conf,
    [
      `global(workDirectory="${work}" maxMessageSize="64k")`,
      'module(load="imfile" mode="inotify")',
      `input(type="imfile" file="${file}" tag="leef:" facility="local0" severity="info" ruleset="forward")`,
      `ruleset(name="forward") { action(type="omfwd" target="127.0.0.1" port="${port}" protocol="tcp") }`,
      '',
    ].join('\n'),
  );
  const start = (await count()).events;
  const t0 = performance.now();
  const child = spawn(RSYSLOGD, ['-n', '-f', conf, '-i', path.join(work, 'rsyslogd.pid')], {
    env: { ...process.env, TZ: 'UTC' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let got = 0;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`rsyslogd exited with ${child.exitCode}`);
      got = (await count()).events - start;
      if (got >= total) break;
      await sleep(10);
    }
    const seconds = (performance.now() - t0) / 1000;
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return { events: got, seconds, cpuSeconds, rssGrowth: 0, peakRss: Number(hwm?.[1] ?? 0) * 1024 };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
}

/** The measured part of a peer's process: figures of the whole process, wall time of the work. */
async function measuredPeer(work: () => Promise<number>): Promise<void> {
  try {
    for (let k = 0; k < WARM_RUNS; k++) await work();
    await startMeasuring();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const events = await work();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    process.send?.({
      events,
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      rssGrowth: 0,
      peakRss: peakRssBytes(),
    } satisfies Run);
  } catch (err) {
    process.send?.({ error: String(err) });
  }
  process.disconnect?.();
}

async function* fileLines(file: string): AsyncGenerator<string> {
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity }))
    if (line !== '') yield line;
}

/** splunk-logging: batches of 1,000 events or 1 MB, string events, at most four flushes in flight. */
async function runSplunkLogging(job: PeerJob): Promise<void> {
  await measuredPeer(async () => {
    const logger = new SplunkLogger({
      token: job.targets.hec.token,
      url: job.targets.hec.url,
      maxBatchCount: 1000,
      maxBatchSize: 1024 * 1024,
      maxRetries: 2,
    });
    logger.eventFormatter = (message) => message as string;
    let failure: unknown;
    logger.error = (err) => {
      failure ??= err;
    };
    let inFlight = 0;
    let sent = 0;
    let wake: (() => void) | undefined;
    const done = () => {
      inFlight--;
      wake?.();
    };
    const flushed = (batch: number) => () => {
      sent += batch;
      done();
    };
    let queued = 0;
    const metadata = { source: 'socdrill-bench', sourcetype: 'leef', index: 'bench', host: 'bench-host' };
    for await (const line of fileLines(job.file)) {
      queued++;
      const full = queued === 1000;
      // A full batch makes send() post it: count it as in flight with its size.
      if (full) inFlight++;
      logger.send({ message: line, metadata }, full ? flushed(queued) : undefined);
      if (full) queued = 0;
      while (inFlight >= 4) await new Promise<void>((r) => (wake = r));
    }
    if (queued > 0) {
      inFlight++;
      logger.flush(flushed(queued));
    }
    while (inFlight > 0) await new Promise<void>((r) => (wake = r));
    if (failure) throw failure;
    return sent;
  });
}

/** The Elasticsearch client's bulk helper: flushBytes 5 MB, concurrency 5, `index` actions. */
async function runEsHelper(job: PeerJob): Promise<void> {
  await measuredPeer(async () => {
    const client = new Client({ node: job.targets.bulk.url, auth: { apiKey: job.targets.bulk.apiKey } });
    const stats = await client.helpers.bulk({
      datasource: fileLines(job.file),
      onDocument: () => ({ index: { _index: 'bench' } }),
      flushBytes: 5_000_000,
      concurrency: 5,
    });
    await client.close();
    if (stats.failed > 0) throw new Error(`${stats.failed} documents failed`);
    return stats.successful;
  });
}

// --- Receivers -----------------------------------------------------------------------------------

/**
 * Sends a receiver the kinds of traffic both sides will send (about 400 MiB in all), before any
 * run is measured. A fresh receiver process spends about twice the CPU on its first few hundred
 * bodies as on later ones (0.84 s against 0.41-0.46 s for 200 gzip HEC bodies of 1 MiB, 20,000
 * page faults against 1,100: its heap and allocator growing, its code compiling); without this,
 * that cost falls on whichever side runs first (Socdrill in round 1), on the two cores both share.
 */
async function warmReceiver(siem: Siem, targets: Targets): Promise<void> {
  const BODIES = 200;
  if (siem === 'syslog') {
    const line = Buffer.from(`<13>Nov 27 10:00:00 fw01 LEEF:2.0|V|P|1.0|100|src=10.0.0.1\tdst=10.0.0.2\n`);
    const chunk = Buffer.from(line.toString().repeat(Math.floor(MiB / line.length)));
    const socket = connect(targets.syslogPort, '127.0.0.1');
    await once(socket, 'connect');
    for (let i = 0; i < 2 * BODIES; i++) if (!socket.write(chunk)) await once(socket, 'drain');
    socket.end();
    await once(socket, 'close');
    return;
  }
  const post = async (url: string, headers: Record<string, string>, body: Buffer) => {
    const res = await fetch(url, { method: 'POST', headers, body });
    await res.arrayBuffer();
  };
  if (siem === 'hec') {
    const envelope =
      '{"time":1700000000.123,"host":"fw01","sourcetype":"leef","event":"<13>Nov 27 10:00:00 fw01 ' +
      'LEEF:2.0|Vendor|Product|1.0|100|src=10.0.0.1\\tdst=10.0.0.2\\tdevTime=1700000000123"}\n';
    const raw = Buffer.from(envelope.repeat(Math.floor(MiB / envelope.length)));
    const gz = gzipSync(raw, { level: 1 });
    const url = `${targets.hec.url}/services/collector/event`;
    const auth = { authorization: `Splunk ${targets.hec.token}` };
    for (let i = 0; i < BODIES; i++) {
      await post(url, { ...auth, 'content-encoding': 'gzip' }, gz);
      await post(url, auth, raw);
    }
    return;
  }
  const doc = `{"create":{"_index":"warm"}}\n${JSON.stringify({ '@timestamp': '2026-11-27T10:00:00Z', n: 1 })}\n`;
  const body = Buffer.from(doc.repeat(Math.floor(MiB / doc.length)));
  const headers = { authorization: `ApiKey ${targets.bulk.apiKey}`, 'content-type': 'application/x-ndjson' };
  for (let i = 0; i < BODIES; i++) {
    await post(`${targets.bulk.url}/_bulk?filter_path=errors,items.*.status,items.*.error`, headers, body);
    await post(`${targets.bulk.url}/_bulk`, headers, body);
  }
}

/** One SIEM kind's count-only receiver; answers each message with its events and CPU seconds. */
async function runReceiver(siem: Siem): Promise<void> {
  const cpuSeconds = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1e6;
  };
  let events: () => number;
  if (siem === 'syslog') {
    const counter = await startLfCounter();
    events = counter.count;
    process.send?.({ type: 'ready', targets: { syslogPort: counter.port } } satisfies FromReceiver);
  } else {
    const receivers = await startCountReceivers();
    events = () => receivers.counts()[siem];
    process.send?.({ type: 'ready', targets: receivers.info } satisfies FromReceiver);
  }
  process.on('message', () =>
    process.send?.({ type: 'count', events: events(), cpuSeconds: cpuSeconds() } satisfies FromReceiver),
  );
}
