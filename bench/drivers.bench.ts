/**
 * SIEM drivers end to end: 1,000,000 LEEF lines through the HEC driver and 300,000 ECS documents
 * through the bulk driver (encoding, gzip for HEC, batching, four requests in flight, answer
 * classification, counting), each against two receivers running in a child process:
 *
 * - `minimal`: an HTTP server that checks the credentials, inflates / reads the body, counts the
 *   events and answers success in the product's format. It costs little, so this figure is the
 *   driver's own throughput (the receiver still shares the machine's cores).
 * - `simulator`: the protocol-faithful simulators of test/simulators (every HEC envelope parsed and
 *   validated, every bulk item parsed, mapped and stored). Their per-event work costs more CPU
 *   than the driver's, so on a 2-core machine this figure is bounded by the simulator.
 *
 * Inputs are generated from 1,000 distinct LEEF lines / ECS documents cycled (the driver encodes
 * every event anyway), so the figures do not include building test data. ECS documents are given
 * as JSON text (`json`), as a shipment from an archive gives them. The receivers count what they
 * took (the simulators forget their store every 250 ms to keep their memory flat) and the counts
 * are checked against the driver's `shipped`. The bulk simulator runs without mapping checks
 * unless BENCH_BULK_MAPPING=1.
 *
 * Figures: events/s, wall time, retries, payload bytes, peak RSS of the driver process (sampled
 * every 50 ms) and its growth over the baseline, the heap still held after a forced GC (with
 * --expose-gc, as `npm run bench` runs it), the CPU time of the driver process (all threads, and
 * its main thread alone: gzip runs in libuv's pool) and of the receiver process, and the 1-minute
 * load average before and after (the machine is shared). With BENCH_RUNS > 1 every run starts new
 * receivers and a summary gives min, median and max events/s.
 *
 * Run: npx node --expose-gc bench/drivers.bench.ts
 *      (BENCH_HEC_EVENTS, BENCH_BULK_DOCS, BENCH_RECEIVERS=minimal,simulator, BENCH_RUNS, BENCH_BULK_MAPPING)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/logger.ts';
import type { OutboundEvent } from '../src/pipeline/shipment/outbound-event.ts';
import { createBulkDriver } from '../src/siems/bulk/bulk-driver.ts';
import type { BulkDestination } from '../src/siems/bulk/bulk-settings.ts';
import { createHecDriver } from '../src/siems/hec/hec-driver.ts';
import type { HecDestination } from '../src/siems/hec/hec-settings.ts';
import type { EventSiemClient, ShipResult } from '../src/siems/siem-client.ts';
import { startBulkSimulator } from '../test/simulators/bulk-simulator.ts';
import { startHecSimulator } from '../test/simulators/hec-simulator.ts';
import { type CountReceivers, startCountReceivers } from './lib/count-receivers.ts';

type ReceiverKind = 'minimal' | 'simulator';
type Receivers = CountReceivers['info'];
type FromChild =
  | { type: 'ready'; receivers: Receivers }
  | { type: 'counts'; hec: number; bulk: number; cpuSeconds: number };
type ToChild = { type: 'counts' } | { type: 'close' };

const MiB = 1024 * 1024;
const INPUT_BATCH = 1_000;
const BENCH_INDEX = 'bench';

if (process.argv[2] === 'receivers') await runReceivers(process.argv[3] as ReceiverKind);
else await main();

async function main(): Promise<void> {
  const hecEvents = Number(process.env.BENCH_HEC_EVENTS ?? 1_000_000);
  const bulkDocs = Number(process.env.BENCH_BULK_DOCS ?? 300_000);
  const kinds = (process.env.BENCH_RECEIVERS ?? 'minimal,simulator').split(',') as ReceiverKind[];
  const runs = Number(process.env.BENCH_RUNS ?? 1);
  console.log(
    `SIEM drivers, Node ${process.version}, receivers in a child process, ${runs} run(s)` +
      `${process.env.BENCH_BULK_MAPPING === '1' ? ', bulk simulator with mapping checks' : ''}`,
  );
  const rates = new Map<string, number[]>();
  let failed = false;
  for (let run = 0; run < runs; run++) {
    for (const kind of kinds) {
      const child = fork(fileURLToPath(import.meta.url), ['receivers', kind], { stdio: 'inherit' });
      const [ready] = (await once(child, 'message')) as [FromChild];
      if (ready.type !== 'ready') throw new Error('receiver child did not start');
      const receiverCpu = async () => {
        child.send({ type: 'counts' } satisfies ToChild);
        const [counts] = (await once(child, 'message')) as [FromChild];
        if (counts.type !== 'counts') throw new Error('unexpected message from the receiver child');
        return counts;
      };
      const { hec, bulk } = await runDrivers(kind, ready.receivers, hecEvents, bulkDocs, receiverCpu);
      const counts = await receiverCpu();
      const holds = counts.hec === hec.shipped && counts.bulk === bulk.shipped;
      console.log(
        `  receivers hold: HEC ${counts.hec}, bulk ${counts.bulk} — ${holds ? 'equal to' : 'DIFFERENT FROM'} shipped`,
      );
      for (const [name, result] of [
        [`HEC → ${kind}`, hec],
        [`bulk → ${kind}`, bulk],
      ] as const) {
        if (result.rate > 0) rates.set(name, [...(rates.get(name) ?? []), result.rate]);
      }
      failed ||= !holds || hec.failed > 0 || bulk.failed > 0;
      child.send({ type: 'close' } satisfies ToChild);
      await once(child as ChildProcess, 'exit');
    }
  }
  if (runs > 1) {
    console.log('events/s over the runs (min – median – max):');
    for (const [name, list] of rates) {
      const sorted = [...list].sort((a, b) => a - b);
      const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
      const fmt = (n: number) => Math.round(n).toLocaleString('en');
      console.log(`  ${name.padEnd(18)} ${fmt(sorted[0]!)} – ${fmt(median)} – ${fmt(sorted.at(-1)!)}`);
    }
  }
  if (failed) process.exitCode = 1;
}

async function runDrivers(
  kind: ReceiverKind,
  receivers: Receivers,
  hecEvents: number,
  bulkDocs: number,
  receiverCpu: () => Promise<{ cpuSeconds: number }>,
): Promise<{ hec: Measured; bulk: Measured }> {
  const log = createLogger('warn');
  const clock = { now: () => Date.now() };
  const common = { id: 'bench', enabled: true, tls_verify: true, ca_pem: null, index: BENCH_INDEX } as const;
  const hecDestination: HecDestination = {
    ...common,
    name: 'bench-hec',
    driver: 'vendorA_hec',
    payload_format: 'leef',
    url: receivers.hec.url,
    token: receivers.hec.token,
    management_url: null,
    management_token: null,
    management_username: null,
    management_password: null,
    sourcetype: 'leef',
    source: 'socdrill-bench',
    channel: null,
  };
  const bulkDestination: BulkDestination = {
    ...common,
    name: 'bench-bulk',
    driver: 'vendorB_bulk',
    payload_format: 'ecs',
    url: receivers.bulk.url,
    api_key: receivers.bulk.apiKey,
    username: null,
    password: null,
  };
  const hecDriver = createHecDriver(hecDestination, { log, clock });
  const bulkDriver = createBulkDriver(bulkDestination, { log, clock });
  try {
    const hec = await measure(`HEC → ${kind}`, hecEvents, hecDriver, leefEvents(hecEvents), receiverCpu);
    const bulk = await measure(`bulk → ${kind}`, bulkDocs, bulkDriver, ecsEvents(bulkDocs), receiverCpu);
    return { hec, bulk };
  } finally {
    await Promise.all([hecDriver.close(), bulkDriver.close()]);
  }
}

/** A shipment's result with its rate in events per second (0 when nothing was shipped). */
type Measured = ShipResult & { rate: number };

async function measure(
  name: string,
  total: number,
  driver: EventSiemClient,
  events: AsyncIterable<OutboundEvent[]>,
  receiverCpu: () => Promise<{ cpuSeconds: number }>,
): Promise<Measured> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const baseline = process.memoryUsage().rss;
  const receiverBefore = (await receiverCpu()).cpuSeconds;
  const loadBefore = os.loadavg()[0]!;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const threadBefore = process.threadCpuUsage();
  const result = await driver.send(events);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const thread = process.threadCpuUsage(threadBefore);
  clearInterval(sampler);
  const receiverSeconds = (await receiverCpu()).cpuSeconds - receiverBefore;
  peak = Math.max(peak, process.memoryUsage().rss);
  gc?.();
  const retained = process.memoryUsage().heapUsed - heapBefore;
  const rate = total > 0 ? result.shipped / seconds : 0;
  console.log(
    `${name.padEnd(18)} ${String(total).padStart(9)} events ${seconds.toFixed(2).padStart(6)} s ` +
      `${String(Math.round(rate)).padStart(8)} events/s  shipped ${result.shipped} ` +
      `failed ${result.failed} retried ${result.retried}  ${(result.bytes / MiB).toFixed(0)} MiB payload  ` +
      `peak RSS ${(peak / MiB).toFixed(0)} MiB (+${((peak - baseline) / MiB).toFixed(0)})` +
      `${gc ? `, heap kept after GC ${(retained / MiB).toFixed(1)} MiB` : ''}  ` +
      `driver CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (main thread ${((thread.user + thread.system) / 1e6).toFixed(1)} s), ` +
      `receiver CPU ${receiverSeconds.toFixed(1)} s, load average ${loadBefore.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}`,
  );
  if (result.errors.length > 0) console.log(`  errors: ${result.errors.join(' | ')}`);
  return { ...result, rate };
}

/** LEEF 2.0 lines with syslog headers, firewall-like, about 420 bytes each. */
async function* leefEvents(total: number): AsyncGenerator<OutboundEvent[]> {
  const t0 = Date.UTC(2026, 2, 1, 10);
  const lines = Array.from({ length: 1000 }, (_, i) => {
    const src = `10.0.${i % 250}.${(i * 7) % 250}`;
    return (
      `<134>Mar  1 10:00:${String(i % 60).padStart(2, '0')} fw-${i % 16}.lab LEEF:2.0|Palo Alto Networks|` +
      `PAN-OS Syslog Integration|11.1|trafficAllowed|^|devTime=Mar 01 2026 10:00:${String(i % 60).padStart(2, '0')}` +
      `^devTimeFormat=MMM dd yyyy HH:mm:ss^src=${src}^dst=192.168.${i % 200}.${(i * 3) % 250}^srcPort=${1024 + i}` +
      `^dstPort=443^proto=tcp^usrName=user${i % 97}^action=allow^cat=TRAFFIC^sev=2^identSrc=${src}` +
      `^bytesIn=${i * 13}^bytesOut=${i * 29}^policy=allow-web-${i % 12}`
    );
  });
  for (let n = 0; n < total; n += INPUT_BATCH) {
    const batch: OutboundEvent[] = [];
    for (let i = n; i < Math.min(total, n + INPUT_BATCH); i++)
      batch.push({ line: lines[i % 1000] as string, time: t0 + i });
    yield batch;
  }
}

/**
 * ECS documents of a web proxy, about 600 bytes each as JSON, given as JSON text (`json`) the way
 * a shipment from an archive hands rebased documents to the driver.
 */
async function* ecsEvents(total: number): AsyncGenerator<OutboundEvent[]> {
  const t0 = Date.UTC(2026, 2, 1, 10);
  const docs = Array.from({ length: 1000 }, (_, i) => ({
    '@timestamp': new Date(t0 + i).toISOString(),
    event: {
      kind: 'event',
      category: ['network', 'web'],
      type: ['connection'],
      action: 'allowed',
      outcome: 'success',
    },
    source: { ip: `10.0.${i % 250}.${(i * 7) % 250}`, port: 1024 + i },
    destination: { ip: `192.168.${i % 200}.${(i * 3) % 250}`, port: 443, domain: `site${i % 500}.example` },
    url: { full: `https://site${i % 500}.example/path/${i}?q=${i * 31}` },
    user: { name: `user${i % 97}` },
    host: { name: `proxy-${i % 8}.lab` },
    http: { request: { method: 'GET' }, response: { status_code: 200, bytes: i * 97 } },
    observer: { vendor: 'Socdrill', product: 'bench-proxy', type: 'proxy' },
    message: `GET https://site${i % 500}.example/path/${i} 200`,
  }));
  const texts = docs.map((doc) => JSON.stringify(doc));
  for (let n = 0; n < total; n += INPUT_BATCH) {
    const batch: OutboundEvent[] = [];
    for (let i = n; i < Math.min(total, n + INPUT_BATCH); i++)
      batch.push({ json: texts[i % 1000] as string, time: t0 + i });
    yield batch;
  }
}

/** Child process: the receivers of one kind, reporting their counts on request. */
async function runReceivers(kind: ReceiverKind): Promise<void> {
  const receivers = kind === 'simulator' ? await startSimulators() : await startCountReceivers();
  process.send?.({ type: 'ready', receivers: receivers.info } satisfies FromChild);
  process.on('message', (m: ToChild) => {
    if (m.type === 'counts') {
      const cpu = process.cpuUsage();
      const cpuSeconds = (cpu.user + cpu.system) / 1e6;
      process.send?.({ type: 'counts', ...receivers.counts(), cpuSeconds } satisfies FromChild);
    } else void receivers.close().then(() => process.exit(0));
  });
}

async function startSimulators(): Promise<CountReceivers> {
  const hec = await startHecSimulator({ indexes: [BENCH_INDEX] });
  // Mapping checks are off unless asked for: the figure is about the driver, and the bench's
  // documents all have one shape (the checks pass after the first document anyway).
  const bulk = await startBulkSimulator({
    flavor: 'elasticsearch',
    mappingConflicts: process.env.BENCH_BULK_MAPPING === '1',
  });
  let hecCount = 0;
  let bulkCount = 0;
  const drain = () => {
    hecCount += hec.store.events.length;
    hec.store.clear();
    const index = bulk.store.indexes.get(BENCH_INDEX);
    if (index) {
      bulkCount += index.docs.size;
      index.docs.clear();
    }
    bulk.store.requests.length = 0;
  };
  const timer = setInterval(drain, 250);
  return {
    info: { hec: { url: hec.url, token: hec.token }, bulk: { url: bulk.url, apiKey: bulk.apiKey ?? '' } },
    counts() {
      drain();
      return { hec: hecCount, bulk: bulkCount };
    },
    async close() {
      clearInterval(timer);
      await Promise.all([hec.close(), bulk.close()]);
    },
  };
}
