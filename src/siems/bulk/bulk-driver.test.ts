import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedTlsFixtures } from '../../../test/helpers/tls-fixtures.ts';
import {
  type BulkSimulator,
  type BulkSimulatorOptions,
  startBulkSimulator,
} from '../../../test/simulators/bulk-simulator.ts';
import { systemClock } from '../../clock.ts';
import { createLogger } from '../../logger.ts';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import type { HttpDriverOptions } from '../shared/driver-options.ts';
import type { IndexingSiemClient, ShipResult } from '../siem-client.ts';
import { createBulkDriver } from './bulk-driver.ts';
import type { BulkDestination } from './bulk-settings.ts';

const INDEX = 'lab-events';
let sims: BulkSimulator[] = [];
let drivers: IndexingSiemClient[] = [];
afterEach(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
  drivers = [];
});

async function start(options: Partial<BulkSimulatorOptions> = {}): Promise<BulkSimulator> {
  const sim = await startBulkSimulator({ flavor: 'elasticsearch', ...options });
  sims.push(sim);
  return sim;
}

/** ApiKey for Elasticsearch, Basic for OpenSearch (which has no API keys). */
function destinationFor(sim: BulkSimulator, overrides: Partial<BulkDestination> = {}): BulkDestination {
  return {
    id: 'dest-bulk',
    name: 'elastic-lab',
    driver: 'vendorB_bulk',
    payload_format: 'ecs',
    index: INDEX,
    enabled: true,
    url: sim.url,
    api_key: sim.apiKey ?? null,
    username: sim.apiKey ? null : sim.username,
    password: sim.apiKey ? null : sim.password,
    tls_verify: true,
    ca_pem: null,
    ...overrides,
  };
}

function driverFor(
  sim: BulkSimulator,
  overrides: Partial<BulkDestination> = {},
  options: HttpDriverOptions = {},
) {
  const delays: number[] = [];
  const driver = createBulkDriver(
    destinationFor(sim, overrides),
    { log: createLogger('silent'), clock: systemClock },
    {
      batch: { maxEvents: 4, concurrency: 1 },
      retry: { attempts: 4, baseMs: 10, capMs: 40 },
      random: () => 0,
      wait: async (ms, signal) => {
        delays.push(ms);
        return !signal.aborted;
      },
      ...options,
    },
  );
  drivers.push(driver);
  return Object.assign(driver, { delays });
}

function doc(i: number): Record<string, unknown> {
  return {
    '@timestamp': new Date(Date.parse('2026-03-01T12:00:00.000Z') + i).toISOString(),
    event: { kind: 'event', sequence: i },
    host: { name: `web-${i % 3}` },
    message: `request ${i}`,
  };
}

async function* docs(count: number, per = 5, make = doc): AsyncGenerator<OutboundEvent[]> {
  for (let start = 0; start < count; start += per) {
    const batch: OutboundEvent[] = [];
    for (let i = start; i < Math.min(count, start + per); i++) batch.push({ doc: make(i), time: null });
    yield batch;
  }
}

const sequences = (sim: BulkSimulator, index = INDEX) =>
  (sim.store.sources(index) as Array<{ event: { sequence: number } }>)
    .map((s) => s.event.sequence)
    .sort((a, b) => a - b);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const FLOOD_ADVICE =
  'index blocked: the disk passed the flood-stage watermark; free disk space on the cluster and clear the read-only-allow-delete block, then ship again';
const flood = (index: string) =>
  `cluster_block_exception: index [${index}] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block]; (${FLOOD_ADVICE})`;
const NOT_FOUND_PAGE = '<html><body><h1>404 Not Found</h1></body></html>';
const NOT_THE_CLUSTER =
  'HTTP 404 without index_not_found_exception, so not the cluster saying the index is missing (a proxy or a wrong URL path?)';
const AUTO_CREATE =
  'the first shipment creates it if the cluster allows automatic index creation (action.auto_create_index), otherwise create it beforehand';

function expectConserved(result: ShipResult, events: number, sim: BulkSimulator): void {
  expect(result.shipped + result.failed).toBe(events);
  expect(sim.store.docs(INDEX).length).toBe(result.shipped);
}

describe('vendorB_bulk driver: shipping', () => {
  for (const flavor of ['elasticsearch', 'opensearch'] as const) {
    it(`ships ECS documents with create actions as NDJSON to ${flavor}`, async () => {
      const sim = await start({ flavor });
      const driver = driverFor(sim);
      const result = await driver.send(docs(10));
      expect(result).toMatchObject({ shipped: 10, failed: 0, retried: 0, errors: [] });
      expect(sim.store.sources(INDEX)).toEqual(range(10).map(doc));
      const request = sim.store.requests.find((r) => r.path === '/_bulk');
      expect(request?.url).toBe('/_bulk?filter_path=errors,items.*.status,items.*.error');
      expect(request?.headers['content-type']).toBe('application/x-ndjson');
      expect(request?.headers.authorization).toBe(
        flavor === 'elasticsearch'
          ? `ApiKey ${sim.apiKey}`
          : `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`,
      );
      const lines = request?.body.toString().split('\n') ?? [];
      expect(lines.at(-1)).toBe('');
      expect(JSON.parse(lines[0] ?? '')).toEqual({
        create: { _index: INDEX, _id: expect.stringMatching(/^[\w-]{12}-0$/) },
      });
      expect(JSON.parse(lines[1] ?? '')).toEqual(doc(0));
      expect(result.bytes).toBe(
        sim.store.requests.filter((r) => r.path === '/_bulk').reduce((n, r) => n + r.body.length, 0),
      );
    });
  }

  it('keeps every request within the byte limit when documents are not ASCII (3 bytes per character)', async () => {
    const sim = await start();
    const maxBytes = 8 * 1024;
    const driver = driverFor(sim, {}, { batch: { maxEvents: 100, maxBytes, concurrency: 1 } });
    // About 1,000 characters of CJK text each: under the limit by characters, three times over in bytes.
    const wide = (i: number) => ({ ...doc(i), message: `日志${'事件'.repeat(500)} ${i}` });
    const result = await driver.send(docs(40, 10, wide));
    expect(result).toMatchObject({ shipped: 40, failed: 0, retried: 0 });
    expect(sequences(sim)).toEqual(range(40));
    const bodies = sim.store.requests.filter((r) => r.path === '/_bulk').map((r) => r.body.length);
    expect(bodies.length).toBeGreaterThan(1);
    for (const bytes of bodies) expect(bytes).toBeLessThanOrEqual(maxBytes);
  });

  it('writes to a data stream (create is the only action they take) and to the index of the shipment', async () => {
    const sim = await start();
    const result = await driverFor(sim).send(docs(3), { index: 'logs-lab-default' });
    expect(result).toMatchObject({ shipped: 3, failed: 0 });
    expect(sim.store.indexes.get('logs-lab-default')?.kind).toBe('data_stream');
  });

  it('fails every document of a shipment with no usable index, without a request', async () => {
    const sim = await start();
    const result = await driverFor(sim, { index: null }).send(docs(3));
    expect(result).toEqual({
      shipped: 0,
      failed: 3,
      retried: 0,
      bytes: 0,
      errors: [`SIEM "elastic-lab" ${sim.url}/_bulk: no index: the destination has no default index`],
      failures: [
        {
          reason: 'config',
          message: `SIEM "elastic-lab" ${sim.url}/_bulk: no index: the destination has no default index`,
          events: 3,
        },
      ],
    });
    expect(sim.store.requests).toHaveLength(0);
  });
});

describe('vendorB_bulk driver: faults (after each one the counts add up)', () => {
  it('retries only the items rejected with 429, and counts refused documents as failed with their reason', async () => {
    const sim = await start({
      rejectDocument: (source) =>
        (source as { event: { sequence: number } }).event.sequence === 5
          ? 'failed to parse field [event.sequence]'
          : undefined,
    });
    sim.rejectItems(3, { where: (item) => item.position % 2 === 0 });
    const driver = driverFor(sim);
    const result = await driver.send(docs(10));
    expect(result).toEqual({
      shipped: 9,
      failed: 1,
      retried: 3,
      bytes: expect.any(Number),
      errors: [
        `SIEM "elastic-lab" ${sim.url}/_bulk: document refused: HTTP 400 document_parsing_exception: failed to parse field [event.sequence]`,
      ],
      failures: [
        {
          reason: 'rejected',
          message: `SIEM "elastic-lab" ${sim.url}/_bulk: document refused: HTTP 400 document_parsing_exception: failed to parse field [event.sequence]`,
          events: 1,
        },
      ],
    });
    expect(sequences(sim)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9]);
    expectConserved(result, 10, sim);
  });

  it('gives up on items still rejected after the last attempt, and carries on with the next batches', async () => {
    const sim = await start();
    sim.rejectItems(4, { where: (item) => item.position === 0 });
    const result = await driverFor(sim).send(docs(8));
    expect(result).toMatchObject({ shipped: 7, failed: 1, retried: 3 });
    expect(result.errors[0]).toMatch(
      /document rejected: HTTP 429 es_rejected_execution_exception: .*; gave up after 4 attempts$/,
    );
    expectConserved(result, 8, sim);
  });

  it('receiver down at start: retries until it listens again', async () => {
    const sim = await start();
    await sim.faults.refuse();
    const driver = driverFor(
      sim,
      {},
      {
        wait: async () => {
          await sim.faults.accept();
          return true;
        },
      },
    );
    const result = await driver.send(docs(8));
    expect(result).toMatchObject({ shipped: 8, failed: 0, retried: 4 });
    expectConserved(result, 8, sim);
  });

  it('receiver down for the whole run: fails everything with one message after one retry schedule', async () => {
    const sim = await start();
    await sim.faults.refuse();
    const driver = driverFor(sim);
    const result = await driver.send(docs(12));
    expect(result).toEqual({
      shipped: 0,
      failed: 12,
      retried: 12,
      bytes: 0,
      errors: [
        `SIEM "elastic-lab" ${sim.url}/_bulk: connection refused (ECONNREFUSED); gave up after 4 attempts`,
      ],
      failures: [
        {
          reason: 'unreachable',
          message: `SIEM "elastic-lab" ${sim.url}/_bulk: connection refused (ECONNREFUSED); gave up after 4 attempts`,
          events: 12,
        },
      ],
    });
    expect(driver.delays).toEqual([10, 20, 40]);
  });

  it('connection closed mid-batch: the batch is sent again', async () => {
    const sim = await start();
    sim.faults.closeAfter(100);
    sim.faults.next(1, { close: 'mid-body', afterBytes: 50, reset: true });
    const result = await driverFor(sim).send(docs(8));
    expect(result).toMatchObject({ shipped: 8, failed: 0, retried: 8 });
    expect(sequences(sim)).toEqual(range(8));
    expectConserved(result, 8, sim);
  });

  it('connection dropped after the cluster indexed the batch: the re-send meets 409 and nothing is doubled', async () => {
    const sim = await start();
    sim.faults.acceptThenClose(1);
    const result = await driverFor(sim).send(docs(8));
    expect(result).toMatchObject({ shipped: 8, failed: 0, retried: 4 });
    expect(sequences(sim)).toEqual(range(8));
    expectConserved(result, 8, sim);
  });

  it('429 and 503 bursts on the whole request: retried with backoff', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 429 });
    sim.faults.next(1, { status: 429, errorType: 'circuit_breaking_exception' });
    sim.faults.next(1, { status: 503 });
    sim.faults.next(1, { status: 502 });
    const driver = driverFor(sim, {}, { retry: { attempts: 6, baseMs: 10, capMs: 40 } });
    const result = await driver.send(docs(8));
    expect(result).toMatchObject({ shipped: 8, failed: 0, retried: 16 });
    expect(driver.delays).toEqual([10, 20, 40, 40]);
    expectConserved(result, 8, sim);
  });

  it('disk flood stage (request-level 429 cluster_block_exception): stops at once with the cause, no retry', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 429, errorType: 'cluster_block_exception' });
    const driver = driverFor(sim);
    const result = await driver.send(docs(8));
    expect(sim.store.requests).toHaveLength(1);
    expect(result).toEqual({
      shipped: 0,
      failed: 8,
      retried: 0,
      bytes: 0,
      errors: [`SIEM "elastic-lab" ${sim.url}/_bulk: HTTP 429 ${flood('lab')}`],
      failures: [
        {
          reason: 'unavailable',
          message: `SIEM "elastic-lab" ${sim.url}/_bulk: HTTP 429 ${flood('lab')}`,
          events: 8,
        },
      ],
    });
    expect(driver.delays).toEqual([]);
  });

  it('items refused by the disk flood-stage block fail with their reason, and the shipment stops after that batch', async () => {
    const sim = await start();
    sim.rejectItems(2, { errorType: 'cluster_block_exception', where: (item) => item.position === 1 });
    const driver = driverFor(sim);
    const result = await driver.send(docs(8));
    // The batch's other items were indexed; the next batch would meet the same block: not sent.
    expect(result).toEqual({
      shipped: 3,
      failed: 5,
      retried: 0,
      bytes: expect.any(Number),
      errors: [`SIEM "elastic-lab" ${sim.url}/_bulk: document refused: HTTP 429 ${flood(INDEX)}`],
      failures: [
        {
          reason: 'unavailable',
          message: `SIEM "elastic-lab" ${sim.url}/_bulk: document refused: HTTP 429 ${flood(INDEX)}`,
          events: 5,
        },
      ],
    });
    expect(sequences(sim)).toEqual([0, 2, 3]);
    expect(sim.store.requests.filter((r) => r.path === '/_bulk')).toHaveLength(1);
    expect(driver.delays).toEqual([]);
    expectConserved(result, 8, sim);
  });

  it('slow receiver: slow answers and slow reads still deliver everything', async () => {
    const sim = await start();
    sim.faults.delayMs = 25;
    sim.faults.readBytesPerSecond = 50_000;
    const result = await driverFor(sim, {}, { batch: { maxEvents: 4, concurrency: 3 } }).send(docs(20));
    expect(result).toMatchObject({ shipped: 20, failed: 0, retried: 0 });
    expect(sequences(sim)).toEqual(range(20));
    expectConserved(result, 20, sim);
  });

  it('receiver slower than the read timeout: abandoned and sent again, without doubles', async () => {
    const sim = await start();
    sim.faults.next(1, { close: 'after-processing', delayMs: 2_000 });
    const result = await driverFor(sim, {}, { timeouts: { readMs: 150 } }).send(docs(4));
    expect(result).toMatchObject({ shipped: 4, failed: 0, retried: 4 });
    expectConserved(result, 4, sim);
  });

  it('refused credentials: exactly one request, everything failed, the secret appears nowhere', async () => {
    const sim = await start({ flavor: 'opensearch' });
    const result = await driverFor(sim, { password: 'wrong-password-42' }).send(docs(12));
    expect(sim.store.requests).toHaveLength(1);
    expect(result).toEqual({
      shipped: 0,
      failed: 12,
      retried: 0,
      bytes: 0,
      errors: [
        `SIEM "elastic-lab" ${sim.url}/_bulk: HTTP 401 Unauthorized (credentials refused or lacking privileges)`,
      ],
      failures: [
        {
          reason: 'auth',
          message: `SIEM "elastic-lab" ${sim.url}/_bulk: HTTP 401 Unauthorized (credentials refused or lacking privileges)`,
          events: 12,
        },
      ],
    });
    expect(JSON.stringify(result)).not.toContain('wrong-password-42');
  });

  it('a body over http.max_content_length (413): halves are sent until they fit', async () => {
    const sim = await start({ maxContentLength: 600 });
    const result = await driverFor(sim, {}, { batch: { maxEvents: 8 } }).send(docs(8, 8));
    expect(result).toMatchObject({ shipped: 8, failed: 0 });
    expect(sim.store.requests.some((r) => r.status === 413)).toBe(true);
    expectConserved(result, 8, sim);
  });

  it('a body written into a buffer an earlier request used carries only its own documents', async () => {
    const sim = await start();
    // Long documents first, then short ones: a reused buffer still holds the longer bodies' bytes.
    const make = (i: number) => ({ ...doc(i), message: i < 12 ? 'x'.repeat(4_000 - i * 300) : `short ${i}` });
    sim.faults.next(1, { status: 503 });
    const result = await driverFor(sim, {}, { batch: { maxEvents: 3, concurrency: 2 } }).send(
      docs(30, 5, make),
    );
    expect(result).toMatchObject({ shipped: 30, failed: 0 });
    expect(sim.store.sources(INDEX)).toEqual(expect.arrayContaining(range(30).map(make)));
    expect(sim.store.sources(INDEX)).toHaveLength(30);
    for (const request of sim.store.requests.filter((r) => r.path === '/_bulk' && r.body.length > 0))
      expect(request.body.toString().endsWith('}\n')).toBe(true);
  });

  it('a body answered before it was read is never overwritten by the next request', async () => {
    // A server (a proxy, say) that answers the first request at once with a 200 that lists no items,
    // then reads that request's body later: the driver must not write the next body into it.
    const bodies: Buffer[] = [];
    let first = true;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        if (!res.headersSent)
          res.end(JSON.stringify({ errors: false, items: Array(count(chunks)).fill(OK) }));
      });
      if (first) {
        first = false;
        req.pause();
        res.end('{"errors":false,"items":[]}');
        setTimeout(() => req.resume(), 300);
      }
    });
    const OK = { create: { status: 201 } };
    const count = (chunks: Buffer[]) => Buffer.concat(chunks).toString().split('\n').length >> 1;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      // The first batch's documents are the longest, so the next bodies fit in its buffer.
      const big = (i: number) => ({ ...doc(i), message: `${i} `.padEnd(i < 2_000 ? 16_100 : 16_000, 'x') });
      const driver = createBulkDriver(
        { ...destinationFor({ url: `http://127.0.0.1:${port}`, apiKey: 'k' } as BulkSimulator) },
        { log: createLogger('silent'), clock: systemClock },
        { batch: { maxEvents: 2_000, maxBytes: 64 << 20, concurrency: 2 }, retry: { attempts: 1 } },
      );
      drivers.push(driver);
      const result = await driver.send(docs(6_000, 500, big));
      expect(result).toMatchObject({ shipped: 4_000, failed: 2_000 });
      // The first body (32 MB: more than the kernel's socket buffers take), read after the second
      // and third were written, is still its own documents.
      expect(bodies).toHaveLength(3);
      for (const body of bodies) {
        const lines = body.toString().split('\n');
        expect(lines.at(-1)).toBe('');
        const sources = lines
          .filter((_, k) => k % 2 === 1)
          .map((l) => JSON.parse(l).event.sequence as number);
        expect(sources).toEqual(range(2_000).map((k) => k + sources[0]!));
      }
      expect(
        bodies.map((b) => JSON.parse(b.toString().split('\n')[1]!).event.sequence).sort((a, b) => a - b),
      ).toEqual([0, 2_000, 4_000]);
    } finally {
      server.close();
    }
  });

  it('several requests in flight keep every count right under mixed faults', async () => {
    const sim = await start();
    sim.faults.next(2, { status: 503 });
    sim.faults.closeAfter(80);
    sim.faults.acceptThenClose(1);
    sim.rejectItems(10);
    const result = await driverFor(
      sim,
      {},
      { batch: { maxEvents: 7, concurrency: 4 }, retry: { attempts: 8 } },
    ).send(docs(200, 13));
    expect(result).toMatchObject({ shipped: 200, failed: 0 });
    expect(sequences(sim)).toEqual(range(200));
    expectConserved(result, 200, sim);
  });
});

describe('vendorB_bulk driver: TLS', () => {
  const tls = sharedTlsFixtures();

  it('trusts a cluster whose certificate a configured CA signed', async () => {
    const sim = await start({ tls: { cert: tls.serverCert, key: tls.serverKey } });
    expect(await driverFor(sim, { ca_pem: tls.caCert }).send(docs(4))).toMatchObject({
      shipped: 4,
      failed: 0,
    });
  });

  it('refuses an untrusted certificate without retrying', async () => {
    const sim = await start({ tls: { cert: tls.serverCert, key: tls.serverKey } });
    const driver = driverFor(sim);
    const result = await driver.send(docs(4));
    expect(result).toMatchObject({ shipped: 0, failed: 4, retried: 0 });
    expect(result.errors[0]).toMatch(
      /TLS failure \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\).*trust the SIEM's CA with ca_pem$/,
    );
    expect(driver.delays).toEqual([]);
  });
});

describe('vendorB_bulk driver: indexes, wipe and check', () => {
  it('creates a missing index, accepts an existing one, and refuses wildcards without a request', async () => {
    const sim = await start();
    const driver = driverFor(sim);
    expect(await driver.ensureIndex('noise-web')).toEqual({ ok: true, index: 'noise-web', created: true });
    expect(await driver.ensureIndex('noise-web')).toEqual({ ok: true, index: 'noise-web', created: false });
    expect(await driver.ensureIndex('logs-noise-default')).toEqual({
      ok: true,
      index: 'logs-noise-default',
      created: true,
    });
    expect(sim.store.indexes.get('logs-noise-default')?.kind).toBe('data_stream');
    const before = sim.store.requests.length;
    expect((await driver.ensureIndex('noise-*')).ok).toBe(false);
    expect(await driver.wipe(['_all', 'a,b'])).toMatchObject([{ ok: false }, { ok: false }]);
    expect(sim.store.requests.length).toBe(before);
  });

  it('a data-stream create race (resource_already_exists_exception) counts as success', async () => {
    const sim = await start();
    const driver = driverFor(sim);
    const name = 'logs-race-default';
    const outcomes = await Promise.all([driver.ensureIndex(name), driver.ensureIndex(name)]);
    // Both calls saw the stream missing and both asked to create it: the race really happened.
    expect(sim.store.requests.filter((r) => r.path === `/_data_stream/${name}`).map((r) => r.status)).toEqual(
      [200, 400],
    );
    expect(outcomes).toEqual(
      expect.arrayContaining([
        { ok: true, index: name, created: true },
        { ok: true, index: name, created: false },
      ]),
    );
    expect(sim.store.indexes.get(name)?.kind).toBe('data_stream');
  });

  it('wipes with _delete_by_query after a refresh, so documents shipped a moment ago go too', async () => {
    const sim = await start({ flavor: 'opensearch', visibility: 'on_refresh' });
    const driver = driverFor(sim);
    await driver.send(docs(9));
    expect(await driver.wipe([INDEX, 'never-written'])).toEqual([
      { ok: true, index: INDEX, deleted: 9 },
      { ok: true, index: 'never-written', deleted: 0 },
    ]);
    expect(sim.store.docs(INDEX)).toHaveLength(0);
    const dbq = sim.store.requests.find((r) => r.path.endsWith('/_delete_by_query'));
    expect(dbq?.url).toBe(`/${INDEX}/_delete_by_query?conflicts=proceed&refresh=true`);
    expect(JSON.parse(dbq?.body.toString() ?? '')).toEqual({ query: { match_all: {} } });
  });

  it('a 404 that is not index_not_found_exception (a proxy page) fails the wipe with its cause', async () => {
    const sim = await start();
    const driver = driverFor(sim);
    await driver.send(docs(3));
    const page = { status: 404, body: NOT_FOUND_PAGE, headers: { 'content-type': 'text/html' } };
    sim.faults.next(1, { ...page, match: { path: `/${INDEX}/_refresh` } });
    expect(await driver.wipe([INDEX])).toEqual([
      {
        ok: false,
        index: INDEX,
        error: `SIEM "elastic-lab" ${sim.url}/${INDEX}/_refresh: ${NOT_THE_CLUSTER}: ${NOT_FOUND_PAGE}`,
      },
    ]);
    sim.faults.next(1, { ...page, match: { path: `/${INDEX}/_delete_by_query` } });
    expect(await driver.wipe([INDEX])).toEqual([
      {
        ok: false,
        index: INDEX,
        error: `SIEM "elastic-lab" ${sim.url}/${INDEX}/_delete_by_query: ${NOT_THE_CLUSTER}: ${NOT_FOUND_PAGE}`,
      },
    ]);
    expect(sim.store.docs(INDEX)).toHaveLength(3);
  });

  it('a delete-by-query that timed out fails the wipe and says how many documents went', async () => {
    const sim = await start();
    const driver = driverFor(sim);
    await driver.send(docs(3));
    sim.faults.next(1, {
      status: 200,
      body: {
        took: 30_000,
        timed_out: true,
        total: 10,
        deleted: 4,
        batches: 1,
        version_conflicts: 0,
        noops: 0,
        retries: { bulk: 0, search: 0 },
        throttled_millis: 0,
        requests_per_second: -1,
        throttled_until_millis: 0,
        failures: [],
      },
      match: { path: `/${INDEX}/_delete_by_query` },
    });
    expect(await driver.wipe([INDEX])).toEqual([
      {
        ok: false,
        index: INDEX,
        error: `SIEM "elastic-lab" ${sim.url}/${INDEX}/_delete_by_query: the delete-by-query timed out (timed_out: true) after deleting 4 documents; the rest are still there; wipe again`,
      },
    ]);
  });

  it('takes a second pass over documents that changed during the wipe', async () => {
    const sim = await start();
    const driver = driverFor(sim);
    await driver.send(docs(6));
    sim.deleteByQueryConflicts = 2;
    expect(await driver.wipe([INDEX])).toEqual([{ ok: true, index: INDEX, deleted: 6 }]);
  });

  it('checks the cluster (product and version) and the default index', async () => {
    const sim = await start();
    expect(await driverFor(sim).check()).toEqual([
      {
        name: 'cluster',
        ok: true,
        message: 'Elasticsearch 8.15.0, cluster "socdrill-simulator"',
        endpoint: `${sim.url}/`,
      },
      {
        name: 'index',
        ok: true,
        message: `index "${INDEX}" does not exist yet; ${AUTO_CREATE}`,
        endpoint: `${sim.url}/${INDEX}`,
      },
    ]);
    const old = await start({ version: '7.17.9' });
    expect((await driverFor(old).check())[0]?.message).toBe(
      'Elasticsearch 7.17.9, cluster "socdrill-simulator" (older than the supported Elasticsearch 8)',
    );
  });

  it('a key without the monitor privilege (403 on GET /): the cluster step says so and the index step still runs', async () => {
    const sim = await start();
    sim.faults.next(1, { status: 403, match: { method: 'GET', path: '/' } });
    const keyId = Buffer.from(sim.apiKey ?? '', 'base64')
      .toString('utf8')
      .split(':')[0];
    expect(await driverFor(sim).check()).toEqual([
      {
        name: 'cluster',
        ok: false,
        message:
          `HTTP 403 security_exception: action [cluster:monitor/main] is unauthorized for API key id [${keyId}] of user [elastic], this action is granted by the cluster privileges [monitor,manage,all]` +
          ' (credentials accepted, but without the privilege to read cluster info, the `monitor` cluster privilege on Elasticsearch; the index step below shows whether shipping can work)',
        endpoint: `${sim.url}/`,
      },
      {
        name: 'index',
        ok: true,
        message: `index "${INDEX}" does not exist yet; ${AUTO_CREATE}`,
        endpoint: `${sim.url}/${INDEX}`,
      },
    ]);
  });

  it('reports a refused API key and an unreachable cluster as failed steps', async () => {
    const sim = await start();
    const wrongKey = Buffer.from('some-id:wrong-key-material').toString('base64');
    const refused = await driverFor(sim, { api_key: wrongKey }).check();
    expect(JSON.stringify(refused)).not.toContain(wrongKey);
    expect(refused).toEqual([
      {
        name: 'cluster',
        ok: false,
        message:
          'HTTP 401 security_exception: unable to authenticate with provided credentials and anonymous access is not allowed for this request (credentials refused)',
        endpoint: `${sim.url}/`,
      },
    ]);
    await sim.faults.refuse();
    expect(await driverFor(sim).check()).toEqual([
      { name: 'cluster', ok: false, message: 'connection refused (ECONNREFUSED)', endpoint: `${sim.url}/` },
    ]);
  });
});
