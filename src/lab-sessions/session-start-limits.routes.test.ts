import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { crc32, createDeflateRaw } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { countingBufferCalls } from '../../test/helpers/buffer-calls.ts';
import { buildTestApp, signedInAs, TEST_NOW, type TestApp } from '../../test/helpers/test-app.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';

const MiB = 1024 * 1024;
// Fewer than the HEC driver's 5,000 events a batch, and more: the deadline test needs two batches.
const leefLines = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `LEEF:1.0|Acme|Fw|1|deny|src=10.0.${i % 250}.1\tdevTime=${TEST_NOW - i}`,
  ).join('\n');

/**
 * A zip of one entry holding `mib` MiB of empty lines, deflated at level 1 (about 230:1, inside the
 * default 1000:1 ratio and every other limit), built without holding the inflated bytes.
 */
async function blankLinesZip(mib: number): Promise<Buffer> {
  const block = Buffer.alloc(MiB, 0x0a);
  const deflater = createDeflateRaw({ level: 1 });
  const parts: Buffer[] = [];
  deflater.on('data', (c: Buffer) => parts.push(c));
  const ended = new Promise((resolve) => deflater.on('end', resolve));
  let crc = 0;
  for (let i = 0; i < mib; i++) {
    crc = crc32(block, crc);
    if (!deflater.write(block)) await new Promise((r) => deflater.once('drain', r));
  }
  deflater.end();
  await ended;
  return buildZip([{ name: 'blank.log', payload: Buffer.concat(parts), crc, uncompressedSize: mib * MiB }]);
}

describe('POST /api/sessions/start: concurrency, spilling to disk, empty lines, the shipment deadline', () => {
  let t: TestApp;
  let author: string;
  let hec: HecSimulator;
  let files: Server;
  let filesPort = 0;
  const served = new Map<string, Buffer>();
  /** Endless downloads in progress. */
  const endless = new Set<ServerResponse>();
  /** The spilled download waits for this before its second half. */
  let releaseBig: () => void = () => {};
  let bigWaiting = Promise.resolve();
  /** A HEC collector that answers the first batch and never the later ones. */
  let stuck: Server;
  const held = new Set<ServerResponse>();
  let stuckBatches = 0;

  const start = (file: string, siem = 'splunk') =>
    t.app.inject({
      method: 'POST',
      url: '/api/sessions/start',
      headers: { cookie: author },
      payload: { archiveDownloadUrl: `http://127.0.0.1:${filesPort}${file}`, siem },
    });
  const tmpDir = () => path.join(t.ctx.config.dataDir, 'tmp');
  const spillFiles = () => (existsSync(tmpDir()) ? readdirSync(tmpDir()) : []);

  beforeAll(async () => {
    files = createServer((req: IncomingMessage, res: ServerResponse) => {
      const file = (req.url ?? '/').split('?')[0] ?? '/';
      if (file.startsWith('/endless')) {
        // An archive server that never stops sending (slowly: the test must not fill the disk).
        endless.add(res);
        res.writeHead(200, { 'content-type': 'application/zip' });
        const timer = setInterval(() => res.write(Buffer.alloc(1024, 0x41)), 20);
        res.on('close', () => {
          clearInterval(timer);
          endless.delete(res);
        });
        return;
      }
      const body = served.get(file);
      if (!body) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/zip' });
      if (file !== '/big.zip') {
        res.end(body);
        return;
      }
      const half = body.length >> 1;
      res.write(body.subarray(0, half));
      void bigWaiting.then(() => res.end(body.subarray(half)));
    });
    stuck = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        stuckBatches++;
        if (stuckBatches === 1) {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"Success","code":0}');
        } else held.add(res);
      });
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => stuck.listen(0, '127.0.0.1', r));
    filesPort = (files.address() as AddressInfo).port;
    hec = await startHecSimulator({ indexes: ['lab'] });
    t = await buildTestApp({
      env: {
        ARCHIVE_ALLOW_HTTP: 'true',
        ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${filesPort}`,
        ARCHIVE_MAX_CONCURRENT: '2',
        // Every archive here but the smallest outgrows this: they go to DATA_DIR/tmp.
        ARCHIVE_MEMORY_BYTES: '4096',
        SHIPMENT_DEADLINE_SECONDS: '2',
      },
    });
    const admin = (await signedInAs(t, ['admin'])).cookie;
    author = (await signedInAs(t, ['author'])).cookie;
    for (const [name, url] of [
      ['splunk', hec.url],
      ['stuck', `http://127.0.0.1:${(stuck.address() as AddressInfo).port}`],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/destinations',
        headers: { cookie: admin },
        payload: { name, driver: 'vendorA_hec', url, token: hec.token, index: 'lab', sourcetype: 'leef' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    served.set('/small.zip', buildZip([{ name: 'a.log', data: leefLines(3) }]));
    served.set('/big.zip', buildZip([{ name: 'a.log', data: leefLines(3000), method: 0 }]));
    served.set('/many.zip', buildZip([{ name: 'a.log', data: leefLines(12_000) }]));
    served.set('/blank.zip', await blankLinesZip(256));
  }, 120_000);

  afterAll(async () => {
    for (const res of [...endless, ...held]) res.destroy();
    await t?.close();
    await hec?.close();
    files.closeAllConnections();
    stuck.closeAllConnections();
    await new Promise((r) => files.close(r));
    await new Promise((r) => stuck.close(r));
  });

  it('refuses starts beyond ARCHIVE_MAX_CONCURRENT with 503 and Retry-After while two endless downloads run', async () => {
    const first = start('/endless-1.zip');
    const second = start('/endless-2.zip');
    while (endless.size < 2) await new Promise((r) => setTimeout(r, 10));

    const refused = await start('/small.zip');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.json()).toMatchObject({
      ok: false,
      error: { code: 'unavailable', details: { retry_after_seconds: 10, max_concurrent: 2 } },
    });
    // The endless bodies go to files, not memory, while they last.
    while (spillFiles().length < 2) await new Promise((r) => setTimeout(r, 10));

    for (const res of endless) res.destroy();
    for (const answer of await Promise.all([first, second])) {
      expect(answer.statusCode).toBe(500);
      expect(answer.json().error.code).toBe('archive_download_failed');
    }
    expect(spillFiles()).toEqual([]);
    // Both slots are free again.
    const next = await start('/small.zip');
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json()).toMatchObject({ ok: true, events: 3 });
  });

  it('writes a download larger than ARCHIVE_MEMORY_BYTES to a 0600 file, ships from it, then removes it', async () => {
    hec.store.clear();
    bigWaiting = new Promise((r) => {
      releaseBig = () => r(undefined);
    });
    const answer = start('/big.zip');
    while (spillFiles().length === 0) await new Promise((r) => setTimeout(r, 10));
    const [spilled] = spillFiles();
    expect(statSync(path.join(tmpDir(), spilled as string)).mode & 0o777).toBe(0o600);
    releaseBig();

    const res = await answer;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, events: 3000, files: 1 });
    expect(hec.store.searchable('lab')).toHaveLength(3000);
    expect(spillFiles()).toEqual([]);
  });

  it('reads 256 MiB of empty lines to 400 no_events with a search per run of them, not per line', async () => {
    let res: Awaited<ReturnType<typeof start>> | undefined;
    const calls = await countingBufferCalls(async () => {
      res = await start('/blank.zip');
    });
    expect(res?.statusCode, res?.body).toBe(400);
    expect(res?.json().error.code).toBe('no_events');
    // Line by line: 268 million indexOf calls. In runs: a few per inflated chunk (512 KiB).
    expect(calls).toBeLessThan(50_000);
  }, 60_000);

  it('stops a shipment to a receiver that stopped answering at SHIPMENT_DEADLINE_SECONDS, with the counts', async () => {
    const res = await start('/many.zip', 'stuck');
    expect(res.statusCode, res.body).toBe(500);
    const { error } = res.json();
    expect(error.code).toBe('shipment_deadline');
    expect(error.message).toMatch(/stopped at its 2 s deadline \(SHIPMENT_DEADLINE_SECONDS\): 5000 of 12000/);
    expect(error.details).toMatchObject({
      siem: 'stuck',
      reason: 'deadline',
      deadline_seconds: 2,
      events_shipped: 5000,
      events_failed: 7000,
      failures: [{ reason: 'deadline', events: 7000 }],
    });
    // The held batches were abandoned; the slot and file are gone.
    expect(stuckBatches).toBeGreaterThan(1);
    expect(spillFiles()).toEqual([]);
    expect(t.ctx.downloads.active).toBe(0);
  });
});
