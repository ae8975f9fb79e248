import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedTlsFixtures } from '../../../test/helpers/tls-fixtures.ts';
import {
  type HecSimulator,
  type HecSimulatorOptions,
  startHecSimulator,
} from '../../../test/simulators/hec-simulator.ts';
import { systemClock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import type { Wait } from '../shared/backoff.ts';
import type { IndexingSiemClient, ShipCounters, ShipResult } from '../siem-client.ts';
import { createHecDriver, type HecDriverOptions } from './hec-driver.ts';
import type { HecDestination } from './hec-settings.ts';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
let sims: HecSimulator[] = [];
let drivers: IndexingSiemClient[] = [];
afterEach(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
  drivers = [];
});

async function start(options: HecSimulatorOptions = {}): Promise<HecSimulator> {
  const sim = await startHecSimulator({ indexes: ['lab'], ...options });
  sims.push(sim);
  return sim;
}

function destinationFor(sim: HecSimulator, overrides: Partial<HecDestination> = {}): HecDestination {
  return {
    id: 'dest-hec',
    name: 'splunk-lab',
    driver: 'vendorA_hec',
    payload_format: 'leef',
    index: 'lab',
    enabled: true,
    url: sim.url,
    token: sim.token,
    management_url: sim.managementUrl,
    management_token: sim.managementToken,
    management_username: null,
    management_password: null,
    sourcetype: 'leef',
    source: 'socdrill',
    channel: null,
    tls_verify: true,
    ca_pem: null,
    ...overrides,
  };
}

/** A logger that records warnings, for assertions; everything else is dropped. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const log = {
    warnings,
    warn: (_obj: unknown, msg?: string) => warnings.push(msg ?? ''),
    error: () => {},
    info: () => {},
    debug: () => {},
  };
  return log as unknown as Logger & { warnings: string[] };
}

/** A backoff that does not really wait; records each delay and can act on it (e.g. bring a receiver back). */
function steppedWait(onWait?: (n: number) => Promise<void> | void): Wait & { delays: number[] } {
  const delays: number[] = [];
  const wait = async (ms: number, signal: AbortSignal) => {
    delays.push(ms);
    await onWait?.(delays.length);
    return !signal.aborted;
  };
  return Object.assign(wait, { delays });
}

function driverFor(
  sim: HecSimulator,
  overrides: Partial<HecDestination> = {},
  options: HecDriverOptions = {},
  log: Logger = recordingLogger(),
): IndexingSiemClient {
  const driver = createHecDriver(
    destinationFor(sim, overrides),
    { log, clock: systemClock },
    {
      batch: { maxEvents: 4, concurrency: 1 },
      retry: { attempts: 4, baseMs: 10, capMs: 40 },
      wait: steppedWait(),
      random: () => 0,
      ...options,
    },
  );
  drivers.push(driver);
  return driver;
}

async function* leef(count: number, per = 5): AsyncGenerator<OutboundEvent[]> {
  for (let start = 0; start < count; start += per) {
    const batch: OutboundEvent[] = [];
    for (let i = start; i < Math.min(count, start + per); i++) {
      batch.push({ line: `LEEF:2.0|Socdrill|Test|1.0|E${i}|^|seq=${i}^src=10.0.0.${i % 250}`, time: T0 + i });
    }
    yield batch;
  }
}

const seqs = (sim: HecSimulator) =>
  sim.store.searchable('lab').map((e) => Number(/seq=(\d+)/.exec(e.raw)?.[1]));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The conservation oracle: each event counted once, and the receiver holds exactly what was shipped. */
function expectConserved(result: ShipResult, events: number, sim: HecSimulator): void {
  expect(result.shipped + result.failed).toBe(events);
  expect(sim.store.searchable('lab').length).toBe(result.shipped);
}

describe('vendorA_hec driver: shipping', () => {
  it('sends gzip bodies of concatenated envelopes with token, channel, time, index, source and sourcetype', async () => {
    const sim = await start();
    const channel = randomUUID();
    const progress: ShipCounters[] = [];
    const driver = driverFor(sim, { channel });
    const result = await driver.send(leef(10), { onProgress: (c) => progress.push({ ...c }) });

    expect(result).toMatchObject({ shipped: 10, failed: 0, retried: 0, errors: [] });
    expect(progress.map((p) => p.shipped)).toEqual([4, 8, 10]);
    expect(sim.store.requests).toHaveLength(3);
    const first = sim.store.requests[0]!;
    expect(first.url).toBe('/services/collector/event');
    expect(first.headers).toMatchObject({
      authorization: `Splunk ${sim.token}`,
      'content-encoding': 'gzip',
      'content-type': 'application/json',
      'x-splunk-request-channel': channel,
    });
    const stored = sim.store.searchable('lab');
    expect(stored.map((e) => e.raw)).toEqual(
      range(10).map((i) => `LEEF:2.0|Socdrill|Test|1.0|E${i}|^|seq=${i}^src=10.0.0.${i}`),
    );
    expect(stored[3]).toMatchObject({
      index: 'lab',
      time: 1772366400.003,
      source: 'socdrill',
      sourcetype: 'leef',
      channel,
      envelopeText:
        '{"time":1772366400.003,"source":"socdrill","sourcetype":"leef","index":"lab","event":"LEEF:2.0|Socdrill|Test|1.0|E3|^|seq=3^src=10.0.0.3"}',
    });
    // Each envelope and the newline that ends it in the body, before compression.
    expect(result.bytes).toBe(stored.reduce((n, e) => n + Buffer.byteLength(e.envelopeText) + 1, 0));
  });

  it('sends ECS documents as JSON events with the document host, to the index of the shipment', async () => {
    const sim = await start({ indexes: ['lab', 'noise-web'] });
    const driver = driverFor(sim, { payload_format: 'ecs', sourcetype: null, source: null });
    const doc = { '@timestamp': '2026-03-01T12:00:00.250Z', host: { name: 'web-1' }, message: 'GET /' };
    const result = await driver.send(
      (async function* () {
        yield [{ doc, time: T0 + 250 }];
      })(),
      { index: 'noise-web' },
    );
    expect(result.shipped).toBe(1);
    expect(sim.store.searchable('noise-web')[0]).toMatchObject({
      event: doc,
      host: 'web-1',
      sourcetype: '_json',
      time: 1772366400.25,
    });
  });

  it('keeps every uncompressed body within the byte limit when lines are not ASCII', async () => {
    const sim = await start();
    const maxBytes = 4 * 1024;
    const driver = driverFor(sim, {}, { batch: { maxEvents: 100, maxBytes, concurrency: 1 } });
    const wide = async function* (): AsyncGenerator<OutboundEvent[]> {
      const batch: OutboundEvent[] = [];
      for (let i = 0; i < 30; i++)
        batch.push({ line: `LEEF:2.0|V|P|1|E|^|seq=${i}^msg=${'日志'.repeat(200)}`, time: T0 + i });
      yield batch;
    };
    const result = await driver.send(wide());
    expect(result).toMatchObject({ shipped: 30, failed: 0, retried: 0 });
    expect(seqs(sim).sort((a, b) => a - b)).toEqual(range(30));
    const bodies = sim.store.requests.map((r) => gunzipSync(r.body).length);
    expect(bodies.length).toBeGreaterThan(1);
    for (const bytes of bodies) expect(bytes).toBeLessThanOrEqual(maxBytes);
  });

  it('uses the shipping time for events without a readable time', async () => {
    const sim = await start();
    const driver = driverFor(sim);
    await driver.send(
      (async function* () {
        yield [{ line: 'LEEF:1.0|a|b|c|d|msg=no time', time: null }];
      })(),
      { now: T0 + 42 },
    );
    expect(sim.store.searchable('lab')[0]?.time).toBe(1772366400.042);
  });
});

describe('vendorA_hec driver: faults (after each one the counts add up)', () => {
  it('receiver down at start: retries with backoff until it listens again', async () => {
    const sim = await start();
    await sim.faults.refuse();
    const wait = steppedWait(async (n) => {
      if (n === 2) await sim.faults.accept();
    });
    const result = await driverFor(sim, {}, { wait }).send(leef(10));
    expect(result).toMatchObject({ shipped: 10, failed: 0, retried: 8 });
    expect(wait.delays).toEqual([10, 20]);
    expect(seqs(sim)).toEqual(range(10));
    expectConserved(result, 10, sim);
  });

  it('receiver down for the whole run: gives up after the attempts, fails everything, names SIEM, endpoint and cause', async () => {
    const sim = await start();
    await sim.faults.refuse();
    const wait = steppedWait();
    const result = await driverFor(sim, {}, { wait }).send(leef(10));
    expect(result).toEqual({
      shipped: 0,
      failed: 10,
      retried: 12,
      bytes: 0,
      errors: [
        `SIEM "splunk-lab" ${sim.url}/services/collector/event: connection refused (ECONNREFUSED); gave up after 4 attempts`,
      ],
      failures: [
        {
          reason: 'unreachable',
          message: `SIEM "splunk-lab" ${sim.url}/services/collector/event: connection refused (ECONNREFUSED); gave up after 4 attempts`,
          events: 10,
        },
      ],
    });
    // One retry schedule for the first batch, then the shipment stops: later batches are not tried.
    expect(wait.delays).toEqual([10, 20, 40]);
    expectConserved(result, 10, sim);
  });

  it('connection closed mid-batch (FIN or RST): nothing was stored, the batch is sent again', async () => {
    const sim = await start();
    sim.faults.closeAfter(20);
    sim.faults.next(1, { close: 'mid-body', afterBytes: 10, reset: true });
    const result = await driverFor(sim).send(leef(10));
    expect(result).toMatchObject({ shipped: 10, failed: 0, retried: 8 });
    expect(sim.store.requests.map((r) => r.fault)).toEqual([
      'close mid-body',
      'close mid-body reset',
      undefined,
      undefined,
      undefined,
    ]);
    expect(seqs(sim)).toEqual(range(10));
    expectConserved(result, 10, sim);
  });

  it('connection dropped after the collector stored the batch: re-sent, so HEC (no indexer ack) holds that batch twice', async () => {
    const sim = await start();
    sim.faults.acceptThenClose(1);
    const result = await driverFor(sim).send(leef(10));
    expect(result).toMatchObject({ shipped: 10, failed: 0, retried: 4 });
    // At-least-once: the only delivery risk a HEC client without acknowledgement cannot rule out.
    expect(seqs(sim)).toEqual([0, 1, 2, 3, ...range(10)]);
  });

  it('503 "Server is busy" and 429 bursts: retried with growing backoff, nothing lost or doubled', async () => {
    const sim = await start();
    sim.faults.next(2, { status: 503 });
    sim.faults.next(1, { status: 429 });
    const wait = steppedWait();
    const result = await driverFor(sim, {}, { wait }).send(leef(10));
    expect(result).toMatchObject({ shipped: 10, failed: 0, retried: 12 });
    expect(wait.delays).toEqual([10, 20, 40]);
    expect(sim.store.requests.map((r) => r.status)).toEqual([503, 503, 429, 200, 200, 200]);
    expect(seqs(sim)).toEqual(range(10));
    expectConserved(result, 10, sim);
  });

  it('collector busy (queues full) until it recovers', async () => {
    const sim = await start();
    sim.busy = true;
    const wait = steppedWait((n) => {
      if (n === 3) sim.busy = false;
    });
    const result = await driverFor(sim, {}, { wait }).send(leef(6));
    expect(result).toMatchObject({ shipped: 6, failed: 0, retried: 12 });
    expectConserved(result, 6, sim);
  });

  it('slow receiver: slow answers and slow reads still deliver everything', async () => {
    const sim = await start();
    sim.faults.delayMs = 25;
    sim.faults.readBytesPerSecond = 20_000;
    const result = await driverFor(sim, {}, { batch: { maxEvents: 4, concurrency: 3 } }).send(leef(20));
    expect(result).toMatchObject({ shipped: 20, failed: 0, retried: 0 });
    expect(seqs(sim).sort((a, b) => a - b)).toEqual(range(20));
    expectConserved(result, 20, sim);
  });

  it('receiver slower than the read timeout: the request is abandoned and sent again', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 503, delayMs: 2_000 });
    const result = await driverFor(sim, {}, { timeouts: { readMs: 150 } }).send(leef(4));
    expect(result).toMatchObject({ shipped: 4, failed: 0, retried: 4 });
    expectConserved(result, 4, sim);
  });

  it('one event the collector refuses (code 6 at its position): the ones before count as taken, the rest are re-sent', async () => {
    const sim = await start({ maxEventBytes: 200 });
    const long = `LEEF:2.0|Socdrill|Test|1.0|E2|^|seq=2^pad=${'x'.repeat(200)}`;
    const result = await driverFor(sim, {}, { batch: { maxEvents: 5 } }).send(
      (async function* () {
        const events = [...(await leef(5).next()).value!];
        events[2] = { line: long, time: T0 };
        yield events;
      })(),
    );
    expect(result).toEqual({
      shipped: 4,
      failed: 1,
      retried: 0,
      bytes: expect.any(Number),
      errors: [
        `SIEM "splunk-lab" ${sim.url}/services/collector/event: event refused: HTTP 400 Invalid data format (code 6)`,
      ],
      failures: [
        {
          reason: 'rejected',
          message: `SIEM "splunk-lab" ${sim.url}/services/collector/event: event refused: HTTP 400 Invalid data format (code 6)`,
          events: 1,
        },
      ],
    });
    expect(sim.store.requests.map((r) => r.status)).toEqual([400, 200]);
    expect(seqs(sim)).toEqual([0, 1, 3, 4]);
    expectConserved(result, 5, sim);
  });

  it('an index the collector refuses (code 7): one request, the shipment stops, the error names the index', async () => {
    const sim = await start();
    const result = await driverFor(sim).send(leef(12), { index: 'not-there' });
    expect(sim.store.requests).toHaveLength(1);
    expect(result).toEqual({
      shipped: 0,
      failed: 12,
      retried: 0,
      bytes: 0,
      errors: [
        `SIEM "splunk-lab" ${sim.url}/services/collector/event: HTTP 400 Incorrect index (code 7): the collector refuses index "not-there" (not in the token's allowed indexes, or it does not exist)`,
      ],
      failures: [
        {
          reason: 'index_refused',
          index: 'not-there',
          message: `SIEM "splunk-lab" ${sim.url}/services/collector/event: HTTP 400 Incorrect index (code 7): the collector refuses index "not-there" (not in the token's allowed indexes, or it does not exist)`,
          events: 12,
        },
      ],
    });
  });

  it('a refused token: exactly one request, everything failed, the token appears nowhere', async () => {
    const sim = await start();
    const token = 'secret-token-that-must-not-leak-0001';
    const result = await driverFor(sim, { token }).send(leef(12));
    expect(sim.store.requests).toHaveLength(1);
    expect(result).toMatchObject({ shipped: 0, failed: 12, retried: 0 });
    expect(result.errors).toEqual([
      `SIEM "splunk-lab" ${sim.url}/services/collector/event: HTTP 403 Invalid token (code 4): the HEC token was refused`,
    ]);
    expect(JSON.stringify(result)).not.toContain(token);
  });

  it('scrubs a secret an answer echoes back out of every message', async () => {
    const sim = await start();
    sim.faults.next(4, { status: 500, body: { text: `token ${sim.token} is broken`, code: 8 } });
    const result = await driverFor(sim).send(leef(4));
    expect(result.errors).toEqual([
      `SIEM "splunk-lab" ${sim.url}/services/collector/event: HTTP 500 token [redacted] is broken (code 8); gave up after 4 attempts`,
    ]);
  });

  it('a body over the collector limit (413): halves are sent until they fit', async () => {
    const sim = await start({ maxContentLength: 160 });
    const result = await driverFor(sim, {}, { batch: { maxEvents: 8 } }).send(leef(8, 8));
    expect(result).toMatchObject({ shipped: 8, failed: 0 });
    expect(sim.store.requests.filter((r) => r.status === 413).length).toBeGreaterThan(0);
    expect(seqs(sim)).toEqual(range(8));
    expectConserved(result, 8, sim);
  });

  it('cancellation: stops reading, counts what it took as failed, ships nothing more', async () => {
    const sim = await start();
    const controller = new AbortController();
    const result = await driverFor(sim).send(leef(40), {
      signal: controller.signal,
      onProgress: (c) => {
        if (c.shipped >= 8) controller.abort();
      },
    });
    expect(result.shipped).toBe(8);
    expect(result.failed).toBeGreaterThan(0);
    expect(result.errors).toEqual([`SIEM "splunk-lab" ${sim.url}/services/collector/event: cancelled`]);
    expect(result.shipped + result.failed).toBeLessThan(40);
    expect(sim.store.searchable('lab')).toHaveLength(8);
  });
});

describe('vendorA_hec driver: TLS', () => {
  const tls = sharedTlsFixtures();

  it('trusts a collector whose certificate a configured CA signed', async () => {
    const sim = await start({ tls: { cert: tls.serverCert, key: tls.serverKey } });
    const result = await driverFor(sim, { ca_pem: tls.caCert }).send(leef(6));
    expect(result).toMatchObject({ shipped: 6, failed: 0 });
    expect(sim.url.startsWith('https://')).toBe(true);
  });

  it('refuses an untrusted certificate at once (no retries) and says how to fix it', async () => {
    const sim = await start({ tls: { cert: tls.serverCert, key: tls.serverKey } });
    const wait = steppedWait();
    const result = await driverFor(sim, { ca_pem: tls.otherCaCert }, { wait }).send(leef(6));
    expect(result).toMatchObject({ shipped: 0, failed: 6, retried: 0 });
    expect(wait.delays).toEqual([]);
    expect(result.errors).toEqual([
      `SIEM "splunk-lab" ${sim.url}/services/collector/event: TLS failure (UNABLE_TO_VERIFY_LEAF_SIGNATURE): unable to verify the first certificate; trust the SIEM's CA with ca_pem`,
    ]);
    expect(sim.store.events).toHaveLength(0);
  });

  it('ships without verification only when told to, and warns once per driver', async () => {
    const sim = await start({ tls: { cert: tls.serverCert, key: tls.serverKey } });
    const log = recordingLogger();
    const driver = driverFor(sim, { tls_verify: false }, {}, log);
    expect((await driver.send(leef(3))).shipped).toBe(3);
    expect((await driver.send(leef(3))).shipped).toBe(3);
    expect(log.warnings).toEqual(['TLS certificate verification is off for this SIEM (tls_verify=false).']);
  });
});
