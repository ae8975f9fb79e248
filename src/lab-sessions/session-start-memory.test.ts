import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { releaseStartupMemory } from '../startup-memory.ts';

// Issue goals of docs/performance.md "Memory", at test size (the benchmark runs 1,000,000 lines):
// a session start peaks at no more than 300 MiB above the process before it, and ten starts in a
// row leave the process no larger than the first did (± 10 %), both read after a full collection.
const LINES = 100_000;
const STARTS = 10;
const MiB = 1024 * 1024;
const T0 = Date.UTC(2024, 5, 1, 10, 0, 0);

describe('session start memory', () => {
  let t: TestApp;
  let cookie: string;
  let url: string;
  let received = 0;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    const lines = Array.from(
      { length: LINES },
      (_, i) =>
        `LEEF:1.0|Acme|Firewall|9.1|evt|src=10.0.${(i >> 8) & 255}.${i & 255}\tdst=192.0.2.7\tdevTime=${T0 + i * 250}`,
    );
    const zip = buildZip([{ name: 'events.log', data: lines.join('\n') }]);
    const files = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length });
      res.end(zip);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => files.close(() => resolve())));
    url = `http://127.0.0.1:${(files.address() as net.AddressInfo).port}/events.zip`;
    // A receiver that only counts messages, so it holds nothing in this process.
    const receiver = net.createServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) received++;
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    t = await buildTestApp({ env: { ARCHIVE_ALLOW_HTTP: 'true', ARCHIVE_ALLOWED_HOSTS: '127.0.0.1' } });
    cookie = (await signedInAs(t, ['author'])).cookie;
    await createDestination(t.ctx, {
      name: 'count',
      driver: 'syslog_tcp',
      host: '127.0.0.1',
      port: (receiver.address() as net.AddressInfo).port,
      source_identity: 'lab-memory',
    });
  });
  afterAll(async () => {
    await t?.close();
    for (const close of closers) await close();
  });

  /** The process's peak RSS since the last reset, from /proc (bytes). */
  const peakRss = () =>
    Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
  const settledRss = () => {
    releaseStartupMemory();
    return process.memoryUsage().rss;
  };

  it(`peaks under 300 MiB above the process and does not grow over ${STARTS} starts in a row`, async () => {
    const after: number[] = [];
    let before = 0;
    let peak = 0;
    for (let n = 0; n < STARTS; n++) {
      if (n === 0) {
        before = settledRss();
        // Resets the process's peak RSS (VmHWM): the kernel then measures the first start's peak.
        writeFileSync('/proc/self/clear_refs', '5');
      }
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/sessions/start',
        headers: { cookie },
        payload: { archiveDownloadUrl: url, siem: 'count' },
      });
      if (n === 0) peak = peakRss();
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().events).toBe(LINES);
      after.push(settledRss());
    }
    await expect.poll(() => received, { timeout: 10_000 }).toBe(LINES * STARTS);
    const first = after[0] as number;
    const last = after.at(-1) as number;
    const report = `before ${(before / MiB).toFixed(0)}, peak ${(peak / MiB).toFixed(0)}, after each ${after.map((a) => (a / MiB).toFixed(0)).join(' ')} MiB`;
    expect(peak - before, report).toBeLessThanOrEqual(300 * MiB);
    expect(last, report).toBeLessThanOrEqual(first * 1.1);
  });
});
