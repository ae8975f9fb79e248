/**
 * What each stage of a session start costs on its own, in one process: the peers benchmark's
 * archives (1,000,000 LEEF lines, 300,000 ECS documents) through the pipeline's own functions,
 * with no network and no service around them, so the figures are the work itself and not the
 * scheduling of two cores shared with a receiver (peers.bench.ts measures that whole).
 *
 * Stages, each timed by the main thread's CPU (`process.threadCpuUsage`) and by the process's
 * (`process.cpuUsage`, which adds inflating on libuv's pool and V8's helper threads):
 *
 * - LEEF: pass 1 (`prepareShipment`); pass 2 as syslog frames (syslog_tcp, LF framing, the
 *   header synthesized when missing, as the peers benchmark's destination); pass 2 as events (what
 *   HEC takes); the same with HEC envelopes; with request bodies (HEC's batch limits, 5,000
 *   events or 1 MiB); gzip level 1 of those bodies, here in line (libuv's pool in the service).
 * - ECS: pass 1 on the main thread alone (the service gives half to EcsScanPool); pass 2 as
 *   events; with bulk encoding; with request bodies (5,000 documents or 5 MiB).
 * - Inflating each archive's entries once (`inflateRawSync`); a session start does it twice.
 *
 * Each round runs every stage once, in the order above; the first round compiles the code and is
 * not counted. Prints the median and the range of the counted rounds, then each kind's own work
 * per session start: the main thread's stages, gzip and inflating twice. With peers.bench.ts's
 * peer wall time P for the same archive, P × cores ÷ (that work + the receiver's CPU) is the most
 * the ratio could be if every thread's work were packed perfectly onto the cores.
 *
 * Run: npm run bench -- stages. Environment: BENCH_STAGES_LINES (1,000,000), BENCH_STAGES_DOCS
 * (300,000), BENCH_STAGES_ROUNDS (4, the first not counted).
 */
import { gzipSync, inflateRawSync } from 'node:zlib';
import { shipmentFrames } from '../src/pipeline/frames/shipment-frames.ts';
import type { OutboundEvent } from '../src/pipeline/shipment/outbound-event.ts';
import { type PreparedShipment, prepareShipment } from '../src/pipeline/shipment/prepare-shipment.ts';
import { shipmentEvents } from '../src/pipeline/shipment/shipment-events.ts';
import { createBulkEncoder, newIdPrefix } from '../src/siems/bulk/bulk-encode.ts';
import { createHecEncoder } from '../src/siems/hec/hec-encode.ts';
import type { EncodedEvent } from '../src/siems/shared/deliver.ts';
import { maxBodyBytes, writeRequestBody } from '../src/siems/shared/request-body.ts';
import { syslogFrameFormat } from '../src/siems/syslog-tcp/syslog-frame-format.ts';
import type { SyslogDestination } from '../src/siems/syslog-tcp/syslog-tcp-settings.ts';
import { buildEcsArchive } from './lib/ecs-fixtures.ts';
import { buildArchive } from './lib/session-fixtures.ts';

const LINES = Number(process.env.BENCH_STAGES_LINES ?? 1_000_000);
const DOCS = Number(process.env.BENCH_STAGES_DOCS ?? 300_000);
const ROUNDS = Math.max(2, Number(process.env.BENCH_STAGES_ROUNDS ?? 4));

/** Main-thread and whole-process CPU of one stage, in ms. */
interface Cost {
  main: number;
  all: number;
}

/** A stage's work, returning what it produced (events or bytes) so nothing is optimised away. */
type Stage = () => Promise<number>;

const costs = new Map<string, Cost[]>();

async function measure(name: string, stage: Stage): Promise<number> {
  const t0 = process.threadCpuUsage();
  const p0 = process.cpuUsage();
  const out = await stage();
  const t1 = process.threadCpuUsage(t0);
  const p1 = process.cpuUsage(p0);
  const list = costs.get(name) ?? [];
  list.push({ main: (t1.user + t1.system) / 1000, all: (p1.user + p1.system) / 1000 });
  costs.set(name, list);
  return out;
}

/** Takes every encoded event of a shipment into request bodies of the given limits. */
class Bodies {
  #held: EncodedEvent[] = [];
  #bytes = 0;
  readonly #out = Buffer.allocUnsafe(64 * 1024 * 1024);
  readonly gzipped: Buffer[] = [];
  written = 0;

  readonly maxEvents: number;
  readonly maxBytes: number;
  readonly gzip: boolean;

  constructor(maxEvents: number, maxBytes: number, gzip: boolean) {
    this.maxEvents = maxEvents;
    this.maxBytes = maxBytes;
    this.gzip = gzip;
  }

  add(event: EncodedEvent): void {
    if (this.#held.length === this.maxEvents || this.#bytes + event.size > this.maxBytes) this.flush();
    this.#held.push(event);
    this.#bytes += event.size;
  }

  flush(): void {
    if (this.#held.length === 0) return;
    if (maxBodyBytes(this.#held) > this.#out.length) throw new Error('a body larger than the bench allows');
    const n = writeRequestBody(this.#held, this.#out);
    this.written += n;
    if (this.gzip) this.gzipped.push(gzipSync(this.#out.subarray(0, n), { level: 1, chunkSize: 64 * 1024 }));
    this.#held = [];
    this.#bytes = 0;
  }
}

function isEncoded(e: EncodedEvent | { error: string }): e is EncodedEvent {
  return !('error' in e);
}

async function leefStages(zip: Buffer, round: number): Promise<void> {
  const now = Date.now();
  let shipment: PreparedShipment | undefined;
  await measure('LEEF pass 1', async () => {
    shipment = await prepareShipment([{ data: zip, kind: 'zip', label: 'bench' }], { format: 'leef', now });
    return shipment.events;
  });
  const s = shipment as PreparedShipment;
  const destination = {
    source_identity: 'bench-host',
    header_mode: 'synthesize_if_missing',
    syslog_format: 'rfc3164',
    framing: 'lf',
    facility: 16,
    severity: 6,
  } as unknown as SyslogDestination;
  const frames = await measure('LEEF pass 2, syslog frames', async () => {
    let events = 0;
    for await (const piece of shipmentFrames(s, 0, syslogFrameFormat(destination, undefined))) {
      if (piece.kind === 'frames') events += piece.events;
    }
    return events;
  });
  const hec = async (upTo: 'events' | 'envelopes' | 'bodies' | 'gzip'): Promise<number> => {
    const encode = createHecEncoder({ format: 'leef', index: 'bench', source: null, sourcetype: null, now });
    const bodies = new Bodies(5_000, 1 << 20, upTo === 'gzip');
    let n = 0;
    for await (const batch of shipmentEvents(s, 0, { kind: 'leef' })) {
      for (const event of batch as OutboundEvent[]) {
        n++;
        if (upTo === 'events') continue;
        const encoded = encode(event, n);
        if (!isEncoded(encoded)) throw new Error(encoded.error);
        if (upTo !== 'envelopes') bodies.add(encoded);
      }
    }
    bodies.flush();
    return upTo === 'gzip' ? bodies.gzipped.length : n;
  };
  const counts = [
    frames,
    await measure('HEC: pass 2 events', () => hec('events')),
    await measure('HEC: events and envelopes', () => hec('envelopes')),
    await measure('HEC: … and request bodies', () => hec('bodies')),
  ];
  await measure('HEC: … and gzip level 1', () => hec('gzip'));
  if (round === 0 && counts.some((c) => c !== LINES))
    throw new Error(`LEEF stages saw ${counts.join(', ')} events, not ${LINES}`);
}

async function ecsStages(zip: Buffer, round: number): Promise<void> {
  const now = Date.now();
  let shipment: PreparedShipment | undefined;
  await measure('ECS pass 1 (one thread)', async () => {
    shipment = await prepareShipment([{ data: zip, kind: 'zip', label: 'bench' }], { format: 'ecs', now });
    return shipment.events;
  });
  const s = shipment as PreparedShipment;
  const bulk = async (upTo: 'events' | 'encoded' | 'bodies'): Promise<number> => {
    const encode = createBulkEncoder('bench', newIdPrefix());
    const bodies = new Bodies(5_000, 5 << 20, false);
    let n = 0;
    for await (const batch of shipmentEvents(s, 0, { kind: 'ecs' })) {
      for (const event of batch) {
        n++;
        if (upTo === 'events') continue;
        const encoded = encode(event, n);
        if (!isEncoded(encoded)) throw new Error(encoded.error);
        if (upTo === 'bodies') bodies.add(encoded);
      }
    }
    bodies.flush();
    return n;
  };
  const counts = [
    await measure('bulk: pass 2 events', () => bulk('events')),
    await measure('bulk: events and encoding', () => bulk('encoded')),
    await measure('bulk: … and request bodies', () => bulk('bodies')),
  ];
  if (round === 0 && counts.some((c) => c !== DOCS))
    throw new Error(`ECS stages saw ${counts.join(', ')} documents, not ${DOCS}`);
}

/** The deflated entries of a zip the fixtures built (no data descriptors, sizes in local headers). */
function deflatedEntries(zip: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let o = 0;
  while (o + 30 <= zip.length && zip.readUInt32LE(o) === 0x04034b50) {
    if ((zip.readUInt16LE(o + 6) & 8) !== 0) throw new Error('zip entry with a data descriptor');
    const method = zip.readUInt16LE(o + 8);
    const size = zip.readUInt32LE(o + 18);
    const start = o + 30 + zip.readUInt16LE(o + 26) + zip.readUInt16LE(o + 28);
    if (method === 8) out.push(zip.subarray(start, start + size));
    o = start + size;
  }
  return out;
}

function inflateStage(name: string, zip: Buffer): Promise<number> {
  const entries = deflatedEntries(zip);
  return measure(name, async () => {
    let bytes = 0;
    for (const e of entries) bytes += inflateRawSync(e, { chunkSize: 512 * 1024 }).length;
    return bytes;
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

const leefZip = buildArchive(LINES);
const ecsZip = await buildEcsArchive(DOCS);
process.stdout.write(
  `Stages of a session start in one process, Node ${process.version}: ${fmt(LINES)} LEEF lines, ${fmt(DOCS)} ECS documents, ${ROUNDS} rounds (the first not counted)\n`,
);
for (let round = 0; round < ROUNDS; round++) {
  if (round === 1) costs.clear();
  await leefStages(leefZip, round);
  await ecsStages(ecsZip, round);
  await inflateStage('inflating the LEEF entry once', leefZip);
  await inflateStage('inflating the ECS entries once', ecsZip);
  globalThis.gc?.();
}

const rows = [...costs].map(([name, list]) => {
  const main = list.map((c) => c.main);
  const all = list.map((c) => c.all);
  return {
    name,
    main: median(main),
    all: median(all),
    range: `${fmt(Math.min(...main))}–${fmt(Math.max(...main))}`,
  };
});
const width = Math.max(...rows.map((r) => r.name.length));
process.stdout.write(`\n| ${'stage'.padEnd(width)} | main thread ms | range     | all threads ms |\n`);
process.stdout.write(`| ${'-'.repeat(width)} | -------------- | --------- | -------------- |\n`);
for (const r of rows)
  process.stdout.write(
    `| ${r.name.padEnd(width)} | ${fmt(r.main).padStart(14)} | ${r.range.padEnd(9)} | ${fmt(r.all).padStart(14)} |\n`,
  );

const at = (name: string): number => rows.find((r) => r.name === name)?.main ?? Number.NaN;
const leefPass1 = at('LEEF pass 1');
const frames = at('LEEF pass 2, syslog frames');
const leefInflate = 2 * at('inflating the LEEF entry once');
const hecBodies = at('HEC: … and request bodies');
const hecGzip = at('HEC: … and gzip level 1') - hecBodies;
const ecsPass1 = at('ECS pass 1 (one thread)');
const bulkBodies = at('bulk: … and request bodies');
const ecsInflate = 2 * at('inflating the ECS entries once');
process.stdout.write(
  '\nOwn work of a session start, ms of CPU (main-thread stages, gzip, inflating twice):\n' +
    `  syslog ${fmt(leefPass1 + frames + leefInflate)} (pass 1 ${fmt(leefPass1)}, frames ${fmt(frames)}, inflating ${fmt(leefInflate)})\n` +
    `  HEC    ${fmt(leefPass1 + hecBodies + hecGzip + leefInflate)} (pass 1 ${fmt(leefPass1)}, events to bodies ${fmt(hecBodies)}, gzip ${fmt(hecGzip)}, inflating ${fmt(leefInflate)})\n` +
    `  bulk   ${fmt(ecsPass1 + bulkBodies + ecsInflate)} (pass 1 ${fmt(ecsPass1)}, events to bodies ${fmt(bulkBodies)}, inflating ${fmt(ecsInflate)})\n`,
);
