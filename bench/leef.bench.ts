/**
 * The LEEF shipment path on one core, from the archive: a .zip of 1,000,000 LEEF lines is read
 * from memory (inflated), rebased (pass 1 over every line, the shift, pass 2) and formatted for
 * each kind of output, exactly as shipmentEvents and the drivers do it:
 *
 * - `syslog`: syslog frames as bytes, as the shipping path writes them for syslog_tcp
 *   (shipmentFrames: header mode synthesize_if_missing with RFC 3164 headers, LF framing,
 *   128 KiB chunks) without the socket — session start's settings;
 * - `syslog-noise`: the same with `labIndex=` on every line and octet counting — a noise run's;
 * - `hec`: the rebased LEEF lines as strings with their event times (what the HEC driver reads);
 * - `ecs`: LEEF converted to ECS documents (noise to bulk targets).
 *
 * Two archives are generated (streamed, never held as strings): `epoch` (devTime in epoch
 * milliseconds, 1 in 20 in epoch seconds) and `formatted` (devTime with devTimeFormat, five Java
 * patterns with zones, month names, AM/PM). Both mix LEEF 1.0 (TAB) and 2.0 (`^`, `x09`) lines;
 * one line in five stands behind a syslog header (15 % RFC 3164, 5 % RFC 5424); lines of
 * 200-300 bytes.
 *
 * Each measurement runs in a fresh child process. In `bare` ones the child only reads the zip
 * file, so its peak RSS (VmHWM, see peakRssBytes) is the shipment's. In `service` ones it
 * first starts the service as `serve` does (context on the embedded database in a temporary
 * folder, routes ready, not listening), so the shipment runs beside the heap a running service
 * holds (about 40 MiB live): what a session start or noise run costs there; memory is then the
 * growth of RSS during the shipment (sampled every 10 ms). `steady` ones (not run by default) time
 * the second of two shipments in a bare process: V8 has compiled the code by then, as in a
 * service that has shipped before (the first shipment of a process spends about 0.2 s of CPU on
 * V8's optimizing compiler). Figures: lines/s by CPU time of all
 * threads of the process (what one core does: inflating runs in libuv's pool), by CPU time of
 * the main thread, and by wall time; peak RSS and peak RSS minus the compressed size.
 * Targets (issue 3): >= 1,000,000 lines/s epoch, >= 400,000 lines/s formatted; peak RSS <= 300 MiB
 * above the compressed size.
 *
 * Run: npm run bench -- leef (with the service's V8 flags, src/node-flags.ts; the measuring
 * children inherit them). Environment: BENCH_LEEF_LINES
 * (1,000,000), BENCH_LEEF_RUNS (runs per archive and output, 1), BENCH_LEEF_OUTPUTS
 * (syslog,syslog-noise,hec,ecs), BENCH_LEEF_ARCHIVES (epoch,formatted), BENCH_LEEF_HEAPS
 * (bare,service; also steady), BENCH_LEEF_RETAIN_MIB (ArchiveLimits.retainBytes; default the product's).
 * The first line also gives a host check: the CPU time of a fixed integer loop, as the host's speed
 * varied between sittings. Exits 1 when a count does not add up.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { crc32, createDeflateRaw } from 'node:zlib';
import { shipmentFrames } from '../src/pipeline/frames/shipment-frames.ts';
import type { OutboundEvent } from '../src/pipeline/shipment/outbound-event.ts';
import { prepareShipment } from '../src/pipeline/shipment/prepare-shipment.ts';
import { shipmentEvents } from '../src/pipeline/shipment/shipment-events.ts';
import { compileDateFormat } from '../src/pipeline/time/date-format.ts';
import { peakRssBytes } from './lib/peak-rss.ts';

type ArchiveKind = 'epoch' | 'formatted';
type Output = 'syslog' | 'syslog-noise' | 'hec' | 'ecs';
type Heap = 'bare' | 'service' | 'steady';
type Result = {
  lines: number;
  unreadable: number;
  outputs: number;
  refused: number;
  outBytes: number;
  cpu: number;
  threadCpu: number;
  wall: number;
  pass1Cpu: number;
  maxRss: number;
  rssAtStart: number;
  zipBytes: number;
  /** service: RSS just before the shipment and its sampled peak during it. */
  rssBefore: number;
  rssPeak: number;
};

const MiB = 1024 * 1024;
const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const START = Date.UTC(2024, 2, 11, 0, 0, 0);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

async function main(): Promise<void> {
  const lines = Number(process.env.BENCH_LEEF_LINES ?? 1_000_000);
  const runs = Number(process.env.BENCH_LEEF_RUNS ?? 1);
  const outputs = (process.env.BENCH_LEEF_OUTPUTS ?? 'syslog,syslog-noise,hec,ecs').split(',') as Output[];
  const archives = (process.env.BENCH_LEEF_ARCHIVES ?? 'epoch,formatted').split(',') as ArchiveKind[];
  const heaps = (process.env.BENCH_LEEF_HEAPS ?? 'bare,service').split(',') as Heap[];
  const heapTitle = {
    bare: 'bare process',
    service: 'beside the started service',
    steady: 'second shipment of a bare process',
  };
  const dir = path.resolve('.tmp', `bench-leef-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  console.log(
    `node ${process.version}; ${os.availableParallelism()} CPUs; load average ${loadText()} at the start; ` +
      `host check ${hostCheck().toFixed(2)} s`,
  );
  let bad = false;
  try {
    for (const kind of archives) {
      const file = path.join(dir, `${kind}.zip`);
      const g0 = performance.now();
      const { bytes } = await writeArchive(file, kind, lines);
      const zipBytes = statSync(file).size;
      console.log(
        `\n${kind}: ${lines.toLocaleString('en-US')} lines, ${(bytes / MiB).toFixed(0)} MiB inflated ` +
          `(avg ${(bytes / lines).toFixed(0)} bytes/line), zip ${(zipBytes / MiB).toFixed(1)} MiB ` +
          `(generated in ${((performance.now() - g0) / 1000).toFixed(1)} s)`,
      );
      for (const heap of heaps) {
        if (heaps.length > 1) console.log(`  ${heapTitle[heap]}:`);
        for (const output of outputs) {
          for (let run = 0; run < runs; run++) {
            const child = fork(fileURLToPath(import.meta.url), ['measure', file, output, heap], {
              stdio: 'inherit',
              // service and steady collect garbage before the timed shipment (startService, measure).
              execArgv: heap === 'bare' ? process.execArgv : [...process.execArgv, '--expose-gc'],
            });
            const [r] = (await once(child, 'message')) as [Result];
            await once(child, 'exit');
            const ok =
              r.lines === lines && r.unreadable === 0 && r.outputs + r.refused === lines && r.refused === 0;
            bad ||= !ok;
            const rate = (s: number) =>
              `${Math.round(r.lines / s)
                .toLocaleString('en-US')
                .padStart(9)}`;
            const memory =
              heap === 'bare'
                ? `peak RSS ${(r.maxRss / MiB).toFixed(0)} MiB, ${((r.maxRss - r.zipBytes) / MiB).toFixed(0)} MiB above the zip (at start ${(r.rssAtStart / MiB).toFixed(0)})`
                : `RSS ${(r.rssBefore / MiB).toFixed(0)} MiB before, peak ${(r.rssPeak / MiB).toFixed(0)} MiB, +${((r.rssPeak - r.rssBefore) / MiB).toFixed(0)} MiB`;
            console.log(
              `  ${output.padEnd(13)} ${rate(r.cpu)} lines/s CPU (all threads) ${rate(r.threadCpu)} main thread ` +
                `${rate(r.wall)} wall | pass 1 ${r.pass1Cpu.toFixed(2)} s, total ${r.cpu.toFixed(2)} s CPU ` +
                `| out ${(r.outBytes / MiB).toFixed(0)} MiB | ${memory} ` +
                `| load ${loadText()}${ok ? '' : ' | COUNTS DO NOT ADD UP'}`,
            );
          }
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (bad) process.exitCode = 1;
}

/**
 * CPU seconds of a fixed integer loop (10^8 dependent multiply-adds): the host's speed at the time,
 * which swung by 3× between sittings with the same code; compare figures only with this in view.
 */
function hostCheck(): number {
  const c0 = process.cpuUsage();
  let x = 0;
  for (let i = 0; i < 100_000_000; i++) x = (x * 31 + i) | 0;
  const c1 = process.cpuUsage(c0);
  hostSink = x;
  return (c1.user + c1.system) / 1e6;
}

/** The loop's result, kept so the compiler cannot drop the loop. */
export let hostSink = 0;

function loadText(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}

/** Child: one archive through one output, timed (after starting the service for `service`). */
async function measure(file: string, output: Output, heap: Heap): Promise<Result> {
  const rssAtStart = peakRssBytes();
  let stop = async () => {};
  if (heap === 'service') stop = await startService(path.join(path.dirname(file), `service-${process.pid}`));
  if (heap === 'steady') {
    await measure(file, output, 'bare');
    // The first shipment's garbage is collected before the timed one, not inside it.
    (globalThis as { gc?: () => void }).gc?.();
  }
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 10);
  const zip = readFileSync(file);
  const retainMiB = process.env.BENCH_LEEF_RETAIN_MIB;
  const limits = retainMiB === undefined ? {} : { retainBytes: Number(retainMiB) * MiB };
  const c0 = process.cpuUsage();
  const t0c = process.threadCpuUsage();
  const w0 = performance.now();
  const shipment = await prepareShipment([{ data: zip, kind: 'zip', label: 'bench.zip' }], {
    format: 'leef',
    now: NOW,
    limits,
  });
  const c1 = process.cpuUsage();
  let outputs = 0;
  let refused = 0;
  let outBytes = 0;
  if (output === 'syslog' || output === 'syslog-noise') {
    const noise = output === 'syslog-noise';
    const format = {
      header: { mode: 'synthesize_if_missing', format: 'rfc3164', sourceIdentity: 'lab-fw01' },
      framing: noise ? 'octet_counting' : 'lf',
      maxMessageBytes: 65_536,
      chunkBytes: 128 * 1024,
      longFrameBytes: 4096,
    } as const;
    for await (const piece of shipmentFrames(shipment, 0, format, { labIndex: noise ? 'soc-lab' : null })) {
      if (piece.kind === 'refused') refused += piece.events;
      else {
        outputs += piece.events;
        outBytes += piece.data.length;
      }
    }
  } else {
    for await (const batch of shipmentEvents(shipment, 0, { kind: output === 'hec' ? 'leef' : 'ecs' })) {
      for (let i = 0; i < batch.length; i++) {
        const event = batch[i] as OutboundEvent;
        if (event.time === null) refused++;
        else outputs++;
        outBytes += output === 'hec' ? (event.line as string).length : 1;
      }
    }
  }
  const w1 = performance.now();
  const t1c = process.threadCpuUsage();
  const c2 = process.cpuUsage();
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  await stop();
  return {
    lines: shipment.events,
    unreadable: shipment.unreadable,
    outputs,
    refused,
    outBytes,
    cpu: (c2.user + c2.system - c0.user - c0.system) / 1e6,
    threadCpu: (t1c.user + t1c.system - t0c.user - t0c.system) / 1e6,
    wall: (w1 - w0) / 1000,
    pass1Cpu: (c1.user + c1.system - c0.user - c0.system) / 1e6,
    maxRss: peakRssBytes(),
    rssAtStart,
    zipBytes: zip.length,
    rssBefore,
    rssPeak,
  };
}

/**
 * Starts the service as `serve` does, without listening: its context on the embedded database in
 * `dir` and its routes, then one full collection so the heap is what a started service keeps.
 * Returns what closes it again.
 */
async function startService(dir: string): Promise<() => Promise<void>> {
  const { loadConfig } = await import('../src/config.ts');
  const { createContext } = await import('../src/context.ts');
  const { buildApp } = await import('../src/http/build-app.ts');
  const ctx = await createContext(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'warn' }));
  const app = await buildApp(ctx);
  await app.ready();
  (globalThis as { gc?: () => void }).gc?.();
  return async () => {
    await app.close();
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

const FORMATS = [
  ["yyyy-MM-dd'T'HH:mm:ss.SSSXXX", '2024-01-02T03:04:05.006+02:00'],
  ['MMM dd yyyy HH:mm:ss.SSS z', 'Jan 02 2024 03:04:05.006 GMT'],
  ['dd/MMM/yyyy:HH:mm:ss Z', '02/Jan/2024:03:04:05 -0800'],
  ['MM/dd/yyyy hh:mm:ss a', '01/02/2024 03:04:05 PM'],
  ['yyyy-MM-dd HH:mm:ss', '2024-01-02 03:04:05'],
].map(([pattern, sample]) => {
  const f = compileDateFormat(pattern as string);
  const style = f.read(sample as string);
  return { pattern: pattern as string, write: (ms: number) => f.format(ms, style) };
});

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Line i of an archive: header, LEEF version and values from i; devTime per kind. */
function makeLine(i: number, kind: ArchiveKind): string {
  const ms = START + i * 37 + (i % 1000);
  const d = new Date(ms);
  let devTime: string;
  let format = '';
  if (kind === 'formatted') {
    const f = FORMATS[i % FORMATS.length] as (typeof FORMATS)[number];
    devTime = f.write(ms);
    format = f.pattern;
  } else {
    devTime = i % 20 === 7 ? String(Math.floor(ms / 1000)) : String(ms);
  }
  const v2 = i % 3 === 0;
  const delim = v2 && i % 2 === 0 ? '^' : '\t';
  const field = v2 ? (delim === '^' ? '^|' : 'x09|') : '';
  const attrs = [
    format ? `devTimeFormat=${format}` : '',
    `devTime=${devTime}`,
    `cat=${i % 2 ? 'Logon' : 'Traffic'}`,
    `src=10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    `srcPort=${1024 + (i % 60000)}`,
    `dst=192.168.${i % 200}.${i % 250}`,
    `dstPort=${i % 2 ? 443 : 3389}`,
    'proto=tcp',
    `usrName=user${i % 5000}`,
    `policy=allow-web-${i % 40}`,
    i % 4 === 0 ? `msg=session ${i} closed after ${i % 900} seconds` : `sev=${i % 10}`,
  ]
    .filter((a) => a !== '')
    .join(delim);
  const leef = `LEEF:${v2 ? '2.0' : '1.0'}|Lab Vendor|Lab Firewall|7.2.4|${1000 + (i % 50)}|${field}${attrs}`;
  const h = i % 20;
  if (h < 3) {
    const day = d.getUTCDate();
    return `<189>${MONTHS[d.getUTCMonth()]} ${day < 10 ? ` ${day}` : day} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} fw${i % 7} ${leef}`;
  }
  if (h < 4) return `<14>1 ${d.toISOString()} fw${i % 7} - - - ${leef}`;
  return leef;
}

/**
 * Writes a one-entry .zip of `lines` generated lines, deflated (level 6) as a stream, so neither
 * the lines nor the inflated text are ever held in memory (the CRC and sizes go into a data
 * descriptor and the central directory).
 */
async function writeArchive(file: string, kind: ArchiveKind, lines: number): Promise<{ bytes: number }> {
  const name = Buffer.from(`exercise/${kind}.log`);
  const deflater = createDeflateRaw({ level: 6, chunkSize: 256 * 1024 });
  const compressed: Buffer[] = [];
  deflater.on('data', (c: Buffer) => compressed.push(c));
  let crc = 0;
  let bytes = 0;
  const STEP = 5_000;
  for (let from = 0; from < lines; from += STEP) {
    const part: string[] = [];
    for (let i = from; i < Math.min(lines, from + STEP); i++) part.push(makeLine(i, kind));
    const chunk = Buffer.from(`${part.join('\n')}\n`, 'latin1');
    crc = crc32(chunk, crc);
    bytes += chunk.length;
    if (!deflater.write(chunk)) await once(deflater, 'drain');
  }
  deflater.end();
  await once(deflater, 'end');
  const data = Buffer.concat(compressed);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0x08, 6); // sizes and CRC in the data descriptor
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(name.length, 26);
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(crc >>> 0, 4);
  descriptor.writeUInt32LE(data.length, 8);
  descriptor.writeUInt32LE(bytes, 12);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0x08, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(bytes, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42);
  const cdOffset = local.length + name.length + data.length + descriptor.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  writeFileSync(file, Buffer.concat([local, name, data, descriptor, central, name, end]));
  return { bytes };
}

if (process.argv[2] === 'measure') {
  const result = await measure(process.argv[3] as string, process.argv[4] as Output, process.argv[5] as Heap);
  process.send?.(result);
} else {
  await main();
}
