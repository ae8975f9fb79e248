import { afterEach, describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import { syslogDestination } from '../../../test/fixtures/syslog-destination.ts';
import { startFaultProxy } from '../../../test/helpers/fault-proxy.ts';
import { sharedTlsFixtures } from '../../../test/helpers/tls-fixtures.ts';
import { type SyslogSimulator, startSyslogSimulator } from '../../../test/simulators/syslog-simulator.ts';
import { manualClock } from '../../clock.ts';
import { createLogger } from '../../logger.ts';
import { eventFrames, shipmentFrames } from '../../pipeline/frames/shipment-frames.ts';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import { prepareShipment } from '../../pipeline/shipment/prepare-shipment.ts';
import type { Wait } from '../shared/backoff.ts';
import type { FrameSiemClient, SendOptions, ShipCounters, ShipResult } from '../siem-client.ts';
import { createSyslogDriver, type SyslogDriverOptions } from './syslog-driver.ts';
import { type SyslogFrameOptions, syslogFrameFormat } from './syslog-frame-format.ts';
import type { SyslogDestination } from './syslog-tcp-settings.ts';

const T = Date.UTC(2026, 2, 7, 9, 5, 3, 42); // 2026-03-07T09:05:03.042Z
const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const HEADER = '<134>Mar  7 09:05:03 lab-fw01 ';
const PAD = 'x'.repeat(120);

const leef = (i: number) => `LEEF:2.0|Lab|FW|1|allow|^|seq=${i}^src=10.0.0.1^msg=${PAD}`;
/** What the receiver must hold for event `i` with the default test destination. */
const expected = (i: number) => `${HEADER}${leef(i)}`;

/** The test destination (port 1: tests give the simulator's). */
const destination = (over: Partial<SyslogDestination> = {}) => syslogDestination({ port: 1, ...over });

/** A wait that returns at once and records the delays asked for; `onWait` runs before it returns. */
function recordingWait(onWait?: (n: number) => void | Promise<void>): Wait & { delays: number[] } {
  const delays: number[] = [];
  const wait = async (ms: number, signal: AbortSignal) => {
    delays.push(ms);
    await onWait?.(delays.length);
    return !signal.aborted;
  };
  return Object.assign(wait, { delays });
}

/**
 * The syslog_tcp client of `dest`, fed as the shipping path feeds it: events become frames in the
 * pipeline (eventFrames, with the kind's frame format and the shipment's source identity).
 */
function driverFor(dest: SyslogDestination, options: SyslogDriverOptions & SyslogFrameOptions = {}) {
  return withEvents(
    createSyslogDriver(
      dest,
      { log: createLogger('silent'), clock: manualClock(NOW) },
      { retry: { attempts: 3, baseMs: 100, capMs: 400 }, wait: recordingWait(), ...options },
    ),
    options,
  );
}

/** A frame client that is also sent events, framed per its destination as the shipping path does. */
function withEvents(client: FrameSiemClient, options: SyslogFrameOptions = {}) {
  const dest = client.destination as SyslogDestination;
  return {
    ...client,
    send(
      batches: AsyncIterable<readonly OutboundEvent[]>,
      sendOptions: SendOptions & { identity?: string } = {},
    ) {
      const { identity, ...rest } = sendOptions;
      const format = syslogFrameFormat(dest, identity, options);
      return client.send(eventFrames(batches, format, rest.now ?? NOW), rest);
    },
    sendFrames: client.send,
  };
}

/** `total` events in batches of `size`, time T each; `onPull` sees the count pulled so far. */
async function* events(
  total: number,
  size = 500,
  onPull?: (pulled: number) => void,
): AsyncGenerator<OutboundEvent[]> {
  for (let n = 0; n < total; n += size) {
    onPull?.(n);
    const batch: OutboundEvent[] = [];
    for (let i = n; i < Math.min(total, n + size); i++) batch.push({ line: leef(i), time: T });
    yield batch;
  }
}

/**
 * The conservation checks after a fault: every event is counted once, the receiver holds every
 * shipped event (and, re-sends aside, nothing else), and duplicates never exceed what was counted
 * as retried.
 */
function expectConserved(result: ShipResult, total: number, sim: SyslogSimulator): void {
  expect(result.shipped + result.failed).toBe(total);
  const texts = sim.store.texts();
  const distinct = new Set(texts);
  const sent = new Set(Array.from({ length: total }, (_, i) => expected(i)));
  for (const text of distinct) expect(sent.has(text)).toBe(true);
  if (result.failed === 0) expect(distinct.size).toBe(result.shipped);
  else expect(distinct.size).toBeGreaterThanOrEqual(result.shipped);
  expect(texts.length - distinct.size).toBeLessThanOrEqual(result.retried);
  expect(sim.store.framingErrors).toEqual([]);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let sims: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

async function simulator(options: Parameters<typeof startSyslogSimulator>[0]): Promise<SyslogSimulator> {
  const sim = await startSyslogSimulator(options);
  sims.push(sim);
  return sim;
}

describe('syslog_tcp driver: what arrives', () => {
  it('sends one LF-terminated frame per event with a synthesized RFC 3164 header', async () => {
    const sim = await simulator({ framing: 'lf' });
    const driver = driverFor(destination({ port: sim.port }));
    const result = await driver.send(events(3));
    expect(sim.store.texts()).toEqual([expected(0), expected(1), expected(2)]);
    const bytes = [0, 1, 2].reduce((sum, i) => sum + Buffer.byteLength(`${expected(i)}\n`), 0);
    expect(result).toEqual({ shipped: 3, failed: 0, retried: 0, bytes, errors: [], failures: [] });
    expect(sim.store.connections).toBe(1);
    expect(sim.store.partials).toEqual([]);
  });

  it('sends long messages but warns once per shipment how many passed the warning limit', async () => {
    const sim = await simulator({ framing: 'lf' });
    const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    const log = createLogger('silent');
    log.warn = ((obj: Record<string, unknown>, msg: string) => {
      warnings.push({ obj, msg });
    }) as unknown as typeof log.warn;
    const driver = withEvents(
      createSyslogDriver(
        destination({ port: sim.port }),
        { log, clock: manualClock(NOW) },
        { warnMessageBytes: 200, wait: recordingWait() },
      ),
      { warnMessageBytes: 200 },
    );
    const long = (i: number) => `LEEF:2.0|V|P|1|E|^|n=${i}^msg=${'x'.repeat(300)}`;
    // Events given as strings...
    const result = await driver.send(
      (async function* () {
        yield [
          { line: long(0), time: T },
          { line: 'LEEF:2.0|V|P|1|E|^|n=1', time: T },
          { line: long(2), time: T },
        ];
      })(),
    );
    expect(result).toMatchObject({ shipped: 3, failed: 0 });
    // ...and a shipment's lines written from their bytes.
    const zip = buildZip([
      { name: 'a.log', data: `${long(3)}\n${long(4)}\n${long(5)}\nLEEF:2.0|V|P|1|E|^|n=6\n` },
    ]);
    const shipment = await prepareShipment([{ data: zip, kind: 'zip', label: 'a.zip' }], {
      format: 'leef',
      now: NOW,
    });
    const format = syslogFrameFormat(destination({ port: sim.port }), undefined, { warnMessageBytes: 200 });
    expect(await driver.sendFrames(shipmentFrames(shipment, 0, format))).toMatchObject({ shipped: 4 });
    expect(warnings).toEqual([
      {
        obj: { siem: 'siem-q', endpoint: `tcp://127.0.0.1:${sim.port}`, long_messages: 2, limit_bytes: 200 },
        msg: '2 syslog messages were longer than 200 bytes; a receiver that truncates long messages cuts off their end, where labIndex= stands',
      },
      {
        obj: { siem: 'siem-q', endpoint: `tcp://127.0.0.1:${sim.port}`, long_messages: 3, limit_bytes: 200 },
        msg: '3 syslog messages were longer than 200 bytes; a receiver that truncates long messages cuts off their end, where labIndex= stands',
      },
    ]);
  });

  it('sends octet-counted RFC 5424 frames, keeping a line break and non-ASCII inside one event', async () => {
    const sim = await simulator({ framing: 'octet_counting' });
    const driver = driverFor(
      destination({ port: sim.port, framing: 'octet_counting', syslog_format: 'rfc5424' }),
    );
    const line = 'LEEF:2.0|Lab|FW|1|allow|^|msg=zeile eins\nzeile zwei ü';
    const result = await driver.send(
      (async function* () {
        yield [
          { line, time: T },
          { line: leef(1), time: null },
        ];
      })(),
    );
    expect(sim.store.texts()).toEqual([
      `<134>1 2026-03-07T09:05:03.042Z lab-fw01 - - - ${line}`,
      `<134>1 2026-11-22T18:00:00.000Z lab-fw01 - - - ${leef(1)}`,
    ]);
    expect(sim.store.messages.map((m) => m.framing)).toEqual(['octet_counting', 'octet_counting']);
    expect(result.shipped).toBe(2);
  });

  it("forces headers with a request's source identity and keeps lines as they are in preserve_raw", async () => {
    const sim = await simulator({ framing: 'lf' });
    const driver = driverFor(destination({ port: sim.port }));
    const withHeader = `<13>Jan 18 11:07:53 orig ${leef(0)}`;
    const one = async function* () {
      yield [{ line: withHeader, time: T }];
    };
    await driver.send(one(), { identity: 'exercise-7' });
    await driverFor(destination({ port: sim.port, header_mode: 'preserve_raw' })).send(one());
    await driver.send(one());
    expect(sim.store.texts()).toEqual([`<134>Mar  7 09:05:03 exercise-7 ${leef(0)}`, withHeader, withHeader]);
  });

  it('counts events it cannot send as failed, with the reason, and sends the others', async () => {
    const sim = await simulator({ framing: 'lf' });
    const driver = driverFor(destination({ port: sim.port }), { maxMessageBytes: 1_000 });
    const result = await driver.send(
      (async function* () {
        yield [
          { line: leef(0), time: T },
          { doc: { message: 'ecs' }, time: T },
          { line: '', time: T },
          { line: `${leef(3)}${'y'.repeat(1_000)}`, time: T },
          { line: leef(4), time: T },
        ];
      })(),
    );
    expect(sim.store.texts()).toEqual([expected(0), expected(4)]);
    const at = `SIEM "siem-q" tcp://127.0.0.1:${sim.port}`;
    expect(result).toMatchObject({ shipped: 2, failed: 3, retried: 0 });
    expect(result.errors).toEqual([
      `${at}: the event has no LEEF line (syslog frames carry LEEF only)`,
      `${at}: the event is an empty line`,
      `${at}: the message is longer than 1000 bytes and is not sent (the receiver would cut it in pieces)`,
    ]);
  });

  it('refuses to invent a HOSTNAME: without a source identity, lines needing a header fail and no connection opens', async () => {
    const sim = await simulator({ framing: 'lf' });
    const driver = driverFor(
      destination({ port: sim.port, source_identity: null, header_mode: 'force_synthesize' }),
    );
    const result = await driver.send(events(1_200));
    expect(result).toEqual({
      shipped: 0,
      failed: 1_200,
      retried: 0,
      bytes: 0,
      errors: [
        `SIEM "siem-q" tcp://127.0.0.1:${sim.port}: cannot synthesize a syslog header (force_synthesize): ` +
          'a source identity is needed to synthesize syslog headers',
      ],
      failures: [
        {
          reason: 'rejected',
          message:
            `SIEM "siem-q" tcp://127.0.0.1:${sim.port}: cannot synthesize a syslog header (force_synthesize): ` +
            'a source identity is needed to synthesize syslog headers',
          events: 1_200,
        },
      ],
    });
    expect(sim.store.connections).toBe(0);
  });

  it('confirms by closing and reopening the connection every few KiB and reports progress after each', async () => {
    const sim = await simulator({ framing: 'lf' });
    const driver = driverFor(destination({ port: sim.port }), {
      confirm: { bytes: 64 * 1024 },
      chunkBytes: 16 * 1024,
    });
    const progress: ShipCounters[] = [];
    const total = 2_000; // about 340 KiB of frames
    const result = await driver.send(events(total, 100), { onProgress: (c) => progress.push({ ...c }) });
    expect(result).toMatchObject({ shipped: total, failed: 0, retried: 0 });
    expect(sim.store.texts()).toEqual(Array.from({ length: total }, (_, i) => expected(i)));
    expect(sim.store.connections).toBe(progress.length);
    expect(progress.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]?.shipped).toBeGreaterThan(progress[i - 1]?.shipped as number);
    }
    expect(progress.at(-1)).toEqual({ shipped: total, failed: 0, retried: 0, bytes: result.bytes });
  });
});

describe('syslog_tcp driver: faults', () => {
  it('waits for a receiver that is down at the start and delivers everything once it listens', async () => {
    const sim = await simulator({ framing: 'lf' });
    await sim.faults.refuse();
    const wait = recordingWait(() => sim.faults.accept());
    const driver = driverFor(destination({ port: sim.port }), { wait });
    const result = await driver.send(events(1_000));
    expect(result).toMatchObject({ shipped: 1_000, failed: 0, retried: 0, errors: [] });
    // One retry, jittered between the base delay and twice it.
    expect(wait.delays).toHaveLength(1);
    expect(wait.delays[0]).toBeGreaterThanOrEqual(100);
    expect(wait.delays[0]).toBeLessThanOrEqual(200);
    expectConserved(result, 1_000, sim);
    expect(sim.store.texts().length).toBe(1_000);
  });

  it('counts everything failed within the retry budget when the receiver stays down, naming the endpoint and cause', async () => {
    const sim = await simulator({ framing: 'lf' });
    await sim.faults.refuse();
    const wait = recordingWait();
    const driver = driverFor(destination({ port: sim.port }), {
      wait,
      retry: { attempts: 4, baseMs: 100, capMs: 250 },
    });
    let pulled = 0;
    const result = await driver.send(events(5_000, 500, (n) => (pulled = n)));
    expect(pulled).toBe(4_500); // the input is read to the end and counted
    expect(result).toEqual({
      shipped: 0,
      failed: 5_000,
      retried: 0,
      bytes: 0,
      errors: [
        `SIEM "siem-q" tcp://127.0.0.1:${sim.port}: connection refused (ECONNREFUSED); gave up after 4 attempts`,
      ],
      failures: [
        {
          reason: 'unreachable',
          message: `SIEM "siem-q" tcp://127.0.0.1:${sim.port}: connection refused (ECONNREFUSED); gave up after 4 attempts`,
          events: 5_000,
        },
      ],
    });
    expect(wait.delays).toHaveLength(3);
    // Retry r waits between 100 · 2^(r-1) and 100 · 2^r, capped at 250: growing, never shrinking.
    for (const [i, ms] of wait.delays.entries()) {
      expect(ms).toBeGreaterThanOrEqual(Math.min(250, 100 * 2 ** i));
      expect(ms).toBeLessThanOrEqual(Math.min(250, 100 * 2 ** (i + 1)));
      if (i > 0) expect(ms).toBeGreaterThanOrEqual(wait.delays[i - 1] as number);
    }
  });

  it('re-sends the unconfirmed events after the receiver closes the connection mid-batch', async () => {
    const sim = await simulator({ framing: 'lf' });
    sim.faults.dropAfterMessages(1_500);
    const total = 20_000;
    const driver = driverFor(destination({ port: sim.port }), { confirm: { bytes: 1 << 20 } });
    const result = await driver.send(events(total));
    expect(result).toMatchObject({ shipped: total, failed: 0, errors: [] });
    expect(result.retried).toBeGreaterThan(0);
    expectConserved(result, total, sim);
    // The receiver kept the first 1,500 of the dropped connection: those are the duplicates.
    expect(sim.store.texts().length).toBe(total + 1_500);
  });

  it('re-sends after a reset in the middle of a frame, and no partial frame counts as a message', async () => {
    const sim = await simulator({ framing: 'lf' });
    sim.faults.dropAfterBytes(300_001, { reset: true });
    const total = 20_000;
    const driver = driverFor(destination({ port: sim.port }), { confirm: { bytes: 1 << 20 } });
    const result = await driver.send(events(total));
    expect(result).toMatchObject({ shipped: total, failed: 0 });
    expect(result.retried).toBeGreaterThan(0);
    expectConserved(result, total, sim);
    expect(sim.store.partials).toHaveLength(1);
  });

  it('re-sends after a network reset between driver and receiver (fault proxy)', async () => {
    const sim = await simulator({ framing: 'octet_counting' });
    const proxy = await startFaultProxy({ target: { port: sim.port } });
    sims.push(proxy);
    const toxic = proxy.addToxic({ type: 'reset_peer', stream: 'upstream', afterBytes: 500_000 });
    const wait = recordingWait(() => proxy.removeToxic(toxic));
    const driver = driverFor(destination({ port: proxy.port, framing: 'octet_counting' }), {
      wait,
      confirm: { bytes: 2 << 20 },
    });
    const total = 20_000;
    const result = await driver.send(events(total));
    expect(proxy.stats.resets).toBe(1);
    expect(wait.delays).toHaveLength(1);
    expect(result).toMatchObject({ shipped: total, failed: 0 });
    await sim.until((s) => s.open === 0);
    expectConserved(result, total, sim);
  });

  it('gives up when every connection is dropped before it can be confirmed, and counts what may have arrived', async () => {
    const sim = await simulator({ framing: 'lf' });
    sim.faults.dropAfterMessages(800, { connections: 3 });
    const total = 3_000;
    const driver = driverFor(destination({ port: sim.port }));
    const result = await driver.send(events(total));
    expect(result.shipped).toBe(0);
    expect(result.failed).toBe(total);
    const at = `SIEM "siem-q" tcp://127.0.0.1:${sim.port}`;
    // The receiver's close shows as a FIN, or as a reset when our data was still unread: both are drops.
    expect(result.errors).toHaveLength(2);
    expect(result.errors[0]).toMatch(
      new RegExp(
        `^${escapeRegExp(at)}: (the receiver closed the connection|connection reset \\(ECONNRESET\\)); gave up after 3 attempts$`,
      ),
    );
    expect(result.errors[1]).toBe(
      `${at}: ${total} of the failed events had been written and may have reached the receiver`,
    );
    expect(result.retried).toBe(2 * total);
    expectConserved(result, total, sim);
    expect(sim.store.texts()).toHaveLength(3 * 800);
  });

  it('respects back-pressure from a receiver that stops reading: bounded data in flight, nothing lost', async () => {
    const sim = await simulator({ framing: 'lf' });
    sim.faults.stallReads = true;
    const limit = 256 * 1024;
    const total = 20_000; // about 3.4 MiB of frames
    const frameBytes = Buffer.byteLength(`${expected(10_000)}\n`);
    let maxInFlight = 0;
    let pulledWhileStalled = -1;
    const timer = setTimeout(() => {
      pulledWhileStalled = pulled;
      sim.faults.stallReads = false;
    }, 300);
    let pulled = 0;
    const driver = driverFor(destination({ port: sim.port }), {
      confirm: { bytes: limit },
      chunkBytes: 32 * 1024,
    });
    const result = await driver.send(
      events(total, 100, (n) => {
        pulled = n;
        maxInFlight = Math.max(maxInFlight, n * frameBytes - sim.store.bytesReceived);
      }),
    );
    clearTimeout(timer);
    expect(pulledWhileStalled).toBeGreaterThanOrEqual(0);
    expect(pulledWhileStalled * frameBytes).toBeLessThan(limit + 32 * 1024);
    // Never more than one confirmation window between what was taken and what the receiver read.
    expect(maxInFlight).toBeLessThan(limit);
    expect(result).toMatchObject({ shipped: total, failed: 0, retried: 0 });
    expect(sim.store.texts()).toEqual(Array.from({ length: total }, (_, i) => expected(i)));
  });

  it('gives a slow but steady reader time to drain a window before the close counts as stalled', async () => {
    const sim = await simulator({ framing: 'lf' });
    const proxy = await startFaultProxy({ target: { port: sim.port } });
    sims.push(proxy);
    // About 0.3 s to read one 128 KiB window through the link, longer than the idle timeout.
    proxy.addToxic({ type: 'bandwidth', bytesPerSecond: 400 * 1024, stream: 'upstream' });
    const total = 2_000; // about 340 KiB
    const driver = driverFor(destination({ port: proxy.port }), {
      confirm: { bytes: 128 * 1024 },
      chunkBytes: 16 * 1024,
      timeouts: { idleMs: 100 },
    });
    const result = await driver.send(events(total, 100));
    expect(result).toMatchObject({ shipped: total, failed: 0, retried: 0, errors: [] });
    expect(sim.store.texts()).toEqual(Array.from({ length: total }, (_, i) => expected(i)));
  });

  it('treats a receiver stalled beyond the idle timeout as gone: writes wait for drain, then retries, then fails', async () => {
    const sim = await simulator({ framing: 'lf' });
    sim.faults.stallReads = true;
    const total = 60_000; // about 10 MiB, more than the socket buffers hold
    const driver = driverFor(destination({ port: sim.port }), {
      confirm: { bytes: 64 << 20 },
      timeouts: { idleMs: 300 },
      retry: { attempts: 2, baseMs: 10, capMs: 10 },
    });
    const result = await driver.send(events(total));
    expect(result.shipped).toBe(0);
    expect(result.failed).toBe(total);
    expect(result.errors[0]).toBe(
      `SIEM "siem-q" tcp://127.0.0.1:${sim.port}: the receiver stopped reading for 300 ms; gave up after 2 attempts`,
    );
    expect(result.retried).toBeGreaterThan(0);
    sim.faults.stallReads = false;
    await sim.until((s) => s.open === 0);
    expectConserved(result, total, sim);
  });

  it('stops at once, counting events failed, when the shipment is cancelled', async () => {
    const sim = await simulator({ framing: 'lf' });
    const controller = new AbortController();
    const driver = driverFor(destination({ port: sim.port }), { confirm: { bytes: 64 * 1024 } });
    let pulled = 0;
    const result = await driver.send(
      events(50_000, 500, (n) => (pulled = n + 500)),
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    expect(pulled).toBeLessThan(50_000);
    expect(result.shipped).toBeGreaterThan(0);
    expect(result.shipped + result.failed).toBe(pulled);
    expect(result.errors).toContain(`SIEM "siem-q" tcp://127.0.0.1:${sim.port}: cancelled`);
  });
});

describe('syslog_tcp driver: TLS', () => {
  const fixtures = sharedTlsFixtures();

  it('delivers over TLS when the private CA is trusted', async () => {
    const sim = await simulator({
      framing: 'octet_counting',
      tls: { cert: fixtures.serverCert, key: fixtures.serverKey },
    });
    const driver = driverFor(
      destination({
        port: sim.port,
        tls: true,
        ca_pem: fixtures.caCert,
        framing: 'octet_counting',
        host: 'localhost',
      }),
    );
    const result = await driver.send(events(2_000));
    expect(result).toMatchObject({ shipped: 2_000, failed: 0, retried: 0 });
    expect(sim.store.texts()).toEqual(Array.from({ length: 2_000 }, (_, i) => expected(i)));
  });

  it('fails everything at once, without retrying, when the certificate is not trusted', async () => {
    const sim = await simulator({
      framing: 'lf',
      tls: { cert: fixtures.serverCert, key: fixtures.serverKey },
    });
    const wait = recordingWait();
    const driver = driverFor(destination({ port: sim.port, tls: true, ca_pem: fixtures.otherCaCert }), {
      wait,
    });
    const result = await driver.send(events(1_000));
    expect(result).toMatchObject({ shipped: 0, failed: 1_000, retried: 0 });
    expect(result.errors).toEqual([
      `SIEM "siem-q" tls://127.0.0.1:${sim.port}: TLS failure (UNABLE_TO_VERIFY_LEAF_SIGNATURE): ` +
        "unable to verify the first certificate; trust the SIEM's CA with ca_pem",
    ]);
    expect(wait.delays).toEqual([]);
    expect(sim.store.messages).toEqual([]);
  });

  it('connects to an untrusted certificate only when verification is turned off', async () => {
    const sim = await simulator({
      framing: 'lf',
      tls: { cert: fixtures.serverCert, key: fixtures.serverKey },
    });
    const driver = driverFor(destination({ port: sim.port, tls: true, tls_verify: false }));
    const result = await driver.send(events(10));
    expect(result).toMatchObject({ shipped: 10, failed: 0 });
  });
});

describe('syslog_tcp driver: check, indexes and wipe', () => {
  it('checks by opening and closing a connection without sending an event', async () => {
    const fixtures = sharedTlsFixtures();
    const sim = await simulator({
      framing: 'lf',
      tls: { cert: fixtures.serverCert, key: fixtures.serverKey },
    });
    const driver = driverFor(destination({ port: sim.port, tls: true, ca_pem: fixtures.caCert }));
    const steps = await driver.check();
    expect(steps).toHaveLength(2);
    expect(steps[0]).toMatchObject({ name: 'connection', ok: true, endpoint: `tls://127.0.0.1:${sim.port}` });
    expect(steps[0]?.message).toMatch(
      /^TLS handshake completed, certificate verified, in \d+ ms; closed again, no event was sent$/,
    );
    expect(steps[1]).toEqual({
      name: 'headers',
      ok: true,
      message: 'rfc3164 headers with HOSTNAME lab-fw01 and PRI 134 for events without one',
      endpoint: `tls://127.0.0.1:${sim.port}`,
    });
    await sim.until((s) => s.open === 0);
    expect(sim.store.connections).toBe(1);
    expect(sim.store.bytesReceived).toBe(0);
  });

  it('reports an unreachable receiver and a header setup that cannot work', async () => {
    const sim = await simulator({ framing: 'lf' });
    await sim.faults.refuse();
    const driver = driverFor(
      destination({ port: sim.port, source_identity: null, header_mode: 'force_synthesize' }),
    );
    expect(await driver.check()).toEqual([
      {
        name: 'connection',
        ok: false,
        message: 'connection refused (ECONNREFUSED)',
        endpoint: `tcp://127.0.0.1:${sim.port}`,
      },
      {
        name: 'headers',
        ok: false,
        message:
          'force_synthesize: a source identity is needed to synthesize syslog headers; every event would fail',
        endpoint: `tcp://127.0.0.1:${sim.port}`,
      },
    ]);
  });
});
