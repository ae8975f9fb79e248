import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/helpers/test-app.ts';
import { AppError } from '../errors.ts';
import type { ArchiveInput } from '../pipeline/archive/archive-input.ts';
import { type DownloadOptions, downloadArchive } from './download-archive.ts';
import { DownloadGate } from './download-gate.ts';

const ZIP = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100, 1)]);
const BIG = Buffer.from(Array.from({ length: 900 }, (_, i) => (i * 7) & 0xff));

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** The body of a download that stayed in memory. */
function inMemory(body: ArchiveInput): Buffer {
  if (!Buffer.isBuffer(body)) throw new Error(`expected the body in memory, got a file: ${body.path}`);
  return body;
}

async function expectError(p: Promise<unknown>, code: string, message?: RegExp): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
  if (message) expect((err as AppError).message).toMatch(message);
  return err as AppError;
}

describe(downloadArchive.name, () => {
  let origin: Server;
  let canary: Server;
  let originPort = 0;
  let canaryPort = 0;
  let canaryHits = 0;

  beforeAll(async () => {
    origin = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/ok.zip') {
        res.setHeader('content-length', ZIP.length);
        res.end(ZIP);
      } else if (u.pathname === '/big.zip') {
        // Chunked, no Content-Length: only a streaming count catches it.
        res.write(Buffer.alloc(600));
        res.end(Buffer.alloc(600));
      } else if (u.pathname === '/liar.zip') {
        res.setHeader('content-length', '10');
        res.end(Buffer.alloc(10));
      } else if (u.pathname === '/huge-declared.zip') {
        res.setHeader('content-length', String(10 ** 9));
        res.end();
      } else if (u.pathname === '/to-canary.zip') {
        res.statusCode = 302;
        res.setHeader('location', `http://127.0.0.1:${canaryPort}/x.zip`);
        res.end();
      } else if (u.pathname === '/to-metadata.zip') {
        res.statusCode = 302;
        res.setHeader('location', 'http://169.254.169.254/latest/meta-data');
        res.end();
      } else if (u.pathname.startsWith('/loop')) {
        const n = Number(u.searchParams.get('n') ?? '0');
        res.statusCode = 302;
        res.setHeader('location', n >= 2 ? '/ok.zip' : `/loop?n=${n + 1}`);
        res.end();
      } else if (u.pathname.startsWith('/forever')) {
        res.statusCode = 302;
        res.setHeader('location', '/forever');
        res.end();
      } else if (u.pathname === '/chunked.zip') {
        // 900 bytes in three writes, no Content-Length.
        for (let i = 0; i < 2; i++) res.write(BIG.subarray(i * 300, (i + 1) * 300));
        res.end(BIG.subarray(600));
      } else if (u.pathname === '/slow.zip') {
        res.write(Buffer.from('PK\x03\x04'));
        // Never finishes: the idle timeout must end it.
      } else {
        res.statusCode = 404;
        res.end('missing');
      }
    });
    canary = createServer((_req, res) => {
      canaryHits++;
      res.end(ZIP);
    });
    canary.on('connection', () => {
      canaryHits++;
    });
    originPort = await listen(origin);
    canaryPort = await listen(canary);
  });
  afterAll(async () => {
    origin.closeAllConnections();
    await new Promise((r) => origin.close(r));
    await new Promise((r) => canary.close(r));
  });

  const opts = (over: Partial<DownloadOptions> = {}): DownloadOptions => ({
    allowHttp: true,
    allowedHosts: [`127.0.0.1:${originPort}`],
    maxBytes: 1000,
    timeoutMs: 5000,
    idleTimeoutMs: 1000,
    ...over,
  });

  it('downloads an archive from an allow-listed lab host', async () => {
    const body = await downloadArchive(`http://127.0.0.1:${originPort}/ok.zip?X-Amz-Signature=abc`, opts());
    expect(inMemory(body).equals(ZIP)).toBe(true);
  });

  it('follows up to three redirects, checking each hop', async () => {
    const body = await downloadArchive(`http://127.0.0.1:${originPort}/loop.zip`, opts());
    expect(inMemory(body).equals(ZIP)).toBe(true);
    await expectError(
      downloadArchive(`http://127.0.0.1:${originPort}/forever.zip`, opts()),
      'archive_download_failed',
      /more than 3/,
    );
  });

  it('checks the URL before any connection', async () => {
    const cases: Array<[string, RegExp]> = [
      ['not a url', /absolute URL/],
      [`http://127.0.0.1:${canaryPort}/a.zip`, /https URL/],
      [`https://user:pw@127.0.0.1:${canaryPort}/a.zip`, /user-info/],
      [`https://127.0.0.1:${canaryPort}/a.tar.gz`, /\.tar\.gz is not accepted/],
      [`https://127.0.0.1:${canaryPort}/a.zip.txt`, /\.zip archive/],
      [`ftp://127.0.0.1:${canaryPort}/a.zip`, /https URL/],
    ];
    for (const [url, msg] of cases) {
      await expectError(downloadArchive(url, opts({ allowHttp: false })), 'invalid_input', msg);
    }
    expect(canaryHits).toBe(0);
  });

  it('refuses every encoding of a private or loopback address without opening a socket', async () => {
    const p = canaryPort;
    const urls = [
      `http://127.0.0.1:${p}/a.zip`,
      `http://2130706433:${p}/a.zip`,
      `http://0x7f.0.0.1:${p}/a.zip`,
      `http://0177.0.0.1:${p}/a.zip`,
      `http://0x7f000001:${p}/a.zip`,
      `http://127.1:${p}/a.zip`,
      `http://012.0.0.1:${p}/a.zip`,
      `http://[::1]:${p}/a.zip`,
      `http://[::ffff:127.0.0.1]:${p}/a.zip`,
      `http://[::ffff:7f00:1]:${p}/a.zip`,
      `http://[0:0:0:0:0:ffff:7f00:1]:${p}/a.zip`,
      `http://localhost:${p}/a.zip`,
      `http://169.254.169.254/latest/a.zip`,
      `http://[::ffff:a9fe:a9fe]/a.zip`,
      `http://0.0.0.0:${p}/a.zip`,
      `http://100.64.0.1/a.zip`,
      `http://[fd00::1]/a.zip`,
      `http://[64:ff9b::7f00:1]/a.zip`,
    ];
    for (const url of urls) {
      await expectError(downloadArchive(url, opts({ allowedHosts: [] })), 'archive_url_blocked');
    }
    expect(canaryHits).toBe(0);
  });

  it('refuses a DNS name that resolves to a private address, or to any mix including one', async () => {
    const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
    await expectError(
      downloadArchive(
        `http://files.example.test:${canaryPort}/a.zip`,
        opts({ allowedHosts: [], resolve: toLoopback }),
      ),
      'archive_url_blocked',
      /files\.example\.test.*127\.0\.0\.1/,
    );
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expectError(
      downloadArchive(
        `http://files.example.test:${canaryPort}/a.zip`,
        opts({ allowedHosts: [], resolve: mixed }),
      ),
      'archive_url_blocked',
    );
    expect(canaryHits).toBe(0);
  });

  it('connects to the vetted address only (no second lookup a rebinding server could answer)', async () => {
    let lookups = 0;
    const resolve = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const body = await downloadArchive(
      `http://storage.lab.test:${originPort}/ok.zip`,
      opts({ allowedHosts: [`storage.lab.test:${originPort}`], resolve }),
    );
    expect(inMemory(body).equals(ZIP)).toBe(true);
    expect(lookups).toBe(1);
  });

  it('refuses a redirect to a private address or the metadata service', async () => {
    await expectError(
      downloadArchive(`http://127.0.0.1:${originPort}/to-canary.zip`, opts()),
      'archive_url_blocked',
    );
    await expectError(
      downloadArchive(`http://127.0.0.1:${originPort}/to-metadata.zip`, opts()),
      'archive_url_blocked',
      /169\.254\.169\.254/,
    );
    expect(canaryHits).toBe(0);
  });

  it('caps the download while streaming and refuses an oversized Content-Length at once', async () => {
    await expectError(downloadArchive(`http://127.0.0.1:${originPort}/big.zip`, opts()), 'payload_too_large');
    await expectError(
      downloadArchive(`http://127.0.0.1:${originPort}/huge-declared.zip`, opts()),
      'payload_too_large',
    );
  });

  it('reports an HTTP error or a stalled body as a failed download without the query string', async () => {
    const err = await expectError(
      downloadArchive(`http://127.0.0.1:${originPort}/missing.zip?X-Amz-Signature=topsecret`, opts()),
      'archive_download_failed',
      /HTTP 404/,
    );
    expect(err.message).not.toContain('topsecret');
    await expectError(
      downloadArchive(`http://127.0.0.1:${originPort}/slow.zip`, opts()),
      'archive_download_failed',
    );
  });

  describe('with a download gate slot', () => {
    let gate: DownloadGate;
    let tempDir: string;
    beforeEach(() => {
      tempDir = testTempDir('spill-');
      gate = new DownloadGate({ maxConcurrent: 2, memoryBytes: 500, tempDir });
    });
    afterEach(async () => {
      await gate.close();
    });

    it('writes a body larger than the memory threshold to a file of its own (0600), removed on release', async () => {
      const slot = gate.enter();
      const body = await downloadArchive(
        `http://127.0.0.1:${originPort}/chunked.zip`,
        opts({ spill: slot, maxBytes: 1000 }),
      );
      if (Buffer.isBuffer(body)) throw new Error('expected the body in a file');
      expect(path.dirname(body.path)).toBe(tempDir);
      expect(body.size).toBe(BIG.length);
      expect(readFileSync(body.path).equals(BIG)).toBe(true);
      expect(statSync(body.path).mode & 0o777).toBe(0o600);
      await slot.release();
      expect(existsSync(body.path)).toBe(false);
      expect(readdirSync(tempDir)).toEqual([]);
    });

    it('keeps a body within the threshold in memory', async () => {
      const slot = gate.enter();
      const body = await downloadArchive(`http://127.0.0.1:${originPort}/ok.zip`, opts({ spill: slot }));
      expect(inMemory(body).equals(ZIP)).toBe(true);
      await slot.release();
      expect(existsSync(tempDir) ? readdirSync(tempDir) : []).toEqual([]);
    });

    it('still caps a spilled body at maxBytes; the slot removes what was written', async () => {
      const slot = gate.enter();
      await expectError(
        downloadArchive(`http://127.0.0.1:${originPort}/chunked.zip`, opts({ spill: slot, maxBytes: 800 })),
        'payload_too_large',
      );
      await slot.release();
      expect(readdirSync(tempDir)).toEqual([]);
    });
  });
});
