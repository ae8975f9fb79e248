/**
 * The syslog_tcp driver end to end: 1,000,000 rebased LEEF lines (a third bare, a third with an
 * RFC 3164 header, a third with an RFC 5424 header; header mode synthesize_if_missing, so header
 * detection runs) through the real driver — header writing, framing, chunking, back-pressure,
 * connection rotation for confirmation, counting — to the syslog simulator, once with LF framing
 * and once with octet counting.
 *
 * The receiver runs in a child process so the figures are the driver's own event loop; on a
 * 2-core machine the child competes for the cores (the simulator copies and decodes every
 * message), so these are lower bounds. The child counts what it received and forgets it every
 * 250 ms so its memory does not grow; its count is checked against the driver's `shipped`.
 * `BENCH_SYSLOG_RECEIVER=minimal` replaces the simulator with a receiver that only counts frames,
 * to show what the driver alone can do.
 *
 * Figures: events/s, MiB/s of frames, wall time, connections, peak RSS of the driver process
 * (sampled every 50 ms) and its growth over the baseline, driver CPU time.
 *
 * Run: npx node bench/syslog.bench.ts (or npm run bench -- syslog). Environment: BENCH_SYSLOG_EVENTS
 * (1,000,000), BENCH_SYSLOG_RUNS (1 per framing), BENCH_SYSLOG_RECEIVER (simulator | minimal),
 * BENCH_SYSLOG_CONFIRM_MIB and BENCH_SYSLOG_CHUNK_KIB (driver window and write size, to compare).
 * Exits 1 when the receiver's count differs from `shipped` or an event failed.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../src/logger.ts';
import { eventFrames } from '../src/pipeline/frames/shipment-frames.ts';
import type { OutboundEvent } from '../src/pipeline/shipment/outbound-event.ts';
import type { Framing } from '../src/pipeline/syslog/syslog-options.ts';
import type { ShipResult } from '../src/siems/siem-client.ts';
import { createSyslogDriver } from '../src/siems/syslog-tcp/syslog-driver.ts';
import { syslogFrameFormat } from '../src/siems/syslog-tcp/syslog-frame-format.ts';
import { syslogDestination } from '../test/fixtures/syslog-destination.ts';
import { startSyslogSimulator } from '../test/simulators/syslog-simulator.ts';

type Receiver = 'simulator' | 'minimal';
type ToChild = { type: 'counts' } | { type: 'close' };
type FromChild =
  | { type: 'ready'; port: number }
  | { type: 'counts'; messages: number; connections: number; errors: number; cpuSeconds: number };

const MiB = 1024 * 1024;
const INPUT_BATCH = 1_000;

if (process.argv[2] === 'receiver')
  await runReceiver(process.argv[3] as Receiver, process.argv[4] as Framing);
else await main();

async function main(): Promise<void> {
  const total = Number(process.env.BENCH_SYSLOG_EVENTS ?? 1_000_000);
  const receiver = (process.env.BENCH_SYSLOG_RECEIVER ?? 'simulator') as Receiver;
  const runs = Number(process.env.BENCH_SYSLOG_RUNS ?? 1);
  console.log(`syslog_tcp driver: ${total} LEEF events per run, receiver: ${receiver} (child process)`);
  let failed = false;
  for (const framing of ['lf', 'octet_counting'] as const) {
    for (let run = 0; run < runs; run++) {
      const child = fork(fileURLToPath(import.meta.url), ['receiver', receiver, framing], {
        stdio: 'inherit',
      });
      const [ready] = (await once(child, 'message')) as [FromChild];
      if (ready.type !== 'ready') throw new Error('receiver child did not start');
      const result = await shipTo(ready.port, framing, total);
      child.send({ type: 'counts' } satisfies ToChild);
      const [counts] = (await once(child, 'message')) as [FromChild];
      if (counts.type !== 'counts') throw new Error('unexpected message from the receiver child');
      const holds = counts.messages === result.shipped && counts.errors === 0;
      console.log(
        `  receiver holds ${counts.messages} messages over ${counts.connections} connections — ` +
          `${holds ? 'equal to' : 'DIFFERENT FROM'} shipped; framing errors ${counts.errors}; ` +
          `receiver CPU ${counts.cpuSeconds.toFixed(1)} s`,
      );
      failed ||= !holds || result.failed > 0;
      child.send({ type: 'close' } satisfies ToChild);
      await once(child, 'exit');
    }
  }
  if (failed) process.exitCode = 1;
}

async function shipTo(port: number, framing: Framing, total: number): Promise<ShipResult> {
  const destination = syslogDestination({
    id: 'bench',
    name: 'bench-syslog',
    index: 'bench',
    port,
    framing,
  });
  const confirmMiB = Number(process.env.BENCH_SYSLOG_CONFIRM_MIB ?? 0);
  const chunkKiB = Number(process.env.BENCH_SYSLOG_CHUNK_KIB ?? 0);
  const driver = createSyslogDriver(
    destination,
    { log: createLogger('warn'), clock: { now: () => Date.now() } },
    confirmMiB > 0 ? { confirm: { bytes: confirmMiB * MiB } } : {},
  );
  // Events framed as the shipping path frames them for syslog_tcp, then delivered.
  const format = syslogFrameFormat(
    destination,
    undefined,
    chunkKiB > 0 ? { chunkBytes: chunkKiB * 1024 } : {},
  );
  const events = eventFrames(leefEvents(total), format, Date.now());
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const result = await driver.send(events);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  await driver.close();
  console.log(
    `${framing.padEnd(15)} ${String(total).padStart(9)} events ${seconds.toFixed(2).padStart(6)} s ` +
      `${String(Math.round(result.shipped / seconds)).padStart(8)} events/s ` +
      `${(result.bytes / MiB / seconds).toFixed(0).padStart(4)} MiB/s  shipped ${result.shipped} ` +
      `failed ${result.failed} retried ${result.retried}  ${(result.bytes / MiB).toFixed(0)} MiB of frames  ` +
      `peak RSS ${(peak / MiB).toFixed(0)} MiB (+${((peak - baseline) / MiB).toFixed(0)})  ` +
      `driver CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (user ${(cpu.user / 1e6).toFixed(1)})`,
  );
  if (result.errors.length > 0) console.log(`  errors: ${result.errors.join(' | ')}`);
  return result;
}

/**
 * Firewall-like LEEF 2.0 lines of about 330-390 bytes, as the rebase stage hands them over: a
 * third bare, a third behind an RFC 3164 header, a third behind an RFC 5424 header.
 */
async function* leefEvents(total: number): AsyncGenerator<OutboundEvent[]> {
  const t0 = Date.UTC(2026, 2, 1, 10);
  const lines = Array.from({ length: 999 }, (_, i) => {
    const ss = String(i % 60).padStart(2, '0');
    const src = `10.0.${i % 250}.${(i * 7) % 250}`;
    const leef =
      `LEEF:2.0|Palo Alto Networks|PAN-OS Syslog Integration|11.1|trafficAllowed|^|devTime=${t0 + i * 1000}` +
      `^src=${src}^dst=192.168.${i % 200}.${(i * 3) % 250}^srcPort=${1024 + i}^dstPort=443^proto=tcp` +
      `^usrName=user${i % 97}^action=allow^cat=TRAFFIC^sev=2^identSrc=${src}^bytesIn=${i * 13}` +
      `^bytesOut=${i * 29}^policy=allow-web-${i % 12}^labIndex=bench`;
    if (i % 3 === 0) return leef;
    if (i % 3 === 1) return `<134>Mar  1 10:00:${ss} fw-${i % 16}.lab ${leef}`;
    return `<134>1 2026-03-01T10:00:${ss}.000Z fw-${i % 16}.lab - - - ${leef}`;
  });
  for (let n = 0; n < total; n += INPUT_BATCH) {
    const batch: OutboundEvent[] = [];
    for (let i = n; i < Math.min(total, n + INPUT_BATCH); i++) {
      batch.push({ line: lines[i % lines.length] as string, time: t0 + i });
    }
    yield batch;
  }
}

/** Child process: one receiver, reporting its counts on request. */
async function runReceiver(kind: Receiver, framing: Framing): Promise<void> {
  const receiver = kind === 'simulator' ? await simulatorReceiver(framing) : await minimalReceiver(framing);
  process.send?.({ type: 'ready', port: receiver.port } satisfies FromChild);
  process.on('message', async (message: ToChild) => {
    if (message.type === 'counts') {
      const cpu = process.cpuUsage();
      process.send?.({
        type: 'counts',
        ...receiver.counts(),
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
      } satisfies FromChild);
    } else {
      await receiver.close();
      process.exit(0);
    }
  });
}

interface BenchReceiver {
  port: number;
  counts(): { messages: number; connections: number; errors: number };
  close(): Promise<void>;
}

/** The syslog simulator, emptied every 250 ms. */
async function simulatorReceiver(framing: Framing): Promise<BenchReceiver> {
  const sim = await startSyslogSimulator({ framing });
  let messages = 0;
  const drain = () => {
    messages += sim.store.messages.length;
    sim.store.messages.length = 0;
  };
  const timer = setInterval(drain, 250);
  return {
    port: sim.port,
    counts() {
      drain();
      return {
        messages,
        connections: sim.store.connections,
        errors: sim.store.framingErrors.length + sim.store.partials.length,
      };
    },
    async close() {
      clearInterval(timer);
      await sim.close();
    },
  };
}

/** Counts frames without copying them: LFs, or octet counts skipped over. */
async function minimalReceiver(framing: Framing): Promise<BenchReceiver> {
  let messages = 0;
  let connections = 0;
  let errors = 0;
  const server = net.createServer((socket) => {
    connections++;
    let skip = 0;
    let length = 0;
    socket.on('data', (chunk: Buffer) => {
      if (framing === 'lf') {
        let at = chunk.indexOf(10);
        while (at >= 0) {
          messages++;
          at = chunk.indexOf(10, at + 1);
        }
        return;
      }
      let i = 0;
      while (i < chunk.length) {
        if (skip > 0) {
          const step = Math.min(skip, chunk.length - i);
          skip -= step;
          i += step;
          if (skip === 0) messages++;
          continue;
        }
        const c = chunk[i++] as number;
        if (c === 32) {
          skip = length;
          length = 0;
        } else if (c >= 48 && c <= 57) length = length * 10 + (c - 48);
        else errors++;
      }
    });
    socket.on('error', () => {
      errors++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    counts: () => ({ messages, connections, errors }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
