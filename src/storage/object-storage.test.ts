import { readdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestS3Server, type TestS3Server } from '../../test/helpers/s3-server.ts';
import { testTempDir } from '../../test/helpers/test-app.ts';
import { openTestDatabase, TEST_DB_KIND } from '../../test/helpers/test-db.ts';
import { AppError } from '../errors.ts';
import { createDatabaseStorage } from './database-storage.ts';
import { createLocalStorage } from './local-storage.ts';
import type { ObjectStorage } from './object-storage.ts';
import { createS3Storage } from './s3-storage.ts';

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startTestS3Server();
});
afterAll(async () => {
  await s3.close();
});

const backends: Array<[string, () => Promise<ObjectStorage>]> = [
  ['local file system', () => createLocalStorage(testTempDir('storage-'))],
  [
    'S3 (s3rver)',
    async () => {
      const storage = createS3Storage({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        accessKeyId: s3.credentials.accessKeyId,
        secretAccessKey: s3.credentials.secretAccessKey,
        forcePathStyle: true,
      });
      await storage.ensureBuckets();
      return storage;
    },
  ],
  [
    `database (${TEST_DB_KIND === 'postgres' ? 'PostgreSQL' : 'PGlite'})`,
    async () => {
      const handle = await openTestDatabase();
      const storage = createDatabaseStorage(handle.db);
      return { ...storage, close: () => handle.close() };
    },
  ],
];

/** `promise`, or a rejection once `ms` passed: a hang fails the test quickly instead of stalling it. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    sleep(ms, undefined, { ref: false }).then(() => {
      throw new Error(`still pending after ${ms} ms`);
    }),
  ]);
}

/** The error a promise rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** Starts a loopback server; `close` also ends the connections it left hanging. */
async function listen(server: net.Server): Promise<{ endpoint: string; close(): void }> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const s3At = (endpoint: string, timeouts?: Parameters<typeof createS3Storage>[1]) =>
  createS3Storage(
    { endpoint, region: 'us-east-1', accessKeyId: 'x', secretAccessKey: 'y', forcePathStyle: true },
    timeouts,
  );

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return err instanceof AppError ? err.code : `other: ${String(err)}`;
  }
}

describe.each(backends)('ObjectStorage on the %s', (_name, open) => {
  let storage: ObjectStorage;
  beforeAll(async () => {
    storage = await open();
  });
  afterAll(async () => {
    await storage.close();
  });

  it('stores a buffer and returns exactly the same bytes', async () => {
    const bytes = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0x10, 0x0a]);
    const info = await storage.put('noise-archives', 'buf/one.zip', bytes);
    expect(info.key).toBe('buf/one.zip');
    expect(info.size).toBe(8);
    expect((await storage.get('noise-archives', 'buf/one.zip')).equals(bytes)).toBe(true);
  });

  it('stores a stream of several chunks, with and without a declared size', async () => {
    const chunks = [Buffer.alloc(70_000, 1), Buffer.alloc(3, 2), Buffer.alloc(50_000, 3)];
    const all = Buffer.concat(chunks);
    await storage.put('noise-archives', 'stream/sized.zip', Readable.from(chunks), all.length);
    await storage.put('noise-archives', 'stream/unsized.zip', Readable.from(chunks));
    expect((await storage.get('noise-archives', 'stream/sized.zip')).equals(all)).toBe(true);
    expect((await storage.get('noise-archives', 'stream/unsized.zip')).equals(all)).toBe(true);
  });

  it('replaces an object written again at the same path', async () => {
    await storage.put('noise-archives', 'replace.zip', Buffer.from('first version'));
    await storage.put('noise-archives', 'replace.zip', Buffer.from('second'));
    expect((await storage.get('noise-archives', 'replace.zip')).toString()).toBe('second');
  });

  it('keeps the two buckets apart', async () => {
    await storage.put('exercise-archives', 'same-name.zip', Buffer.from('exercise'));
    await storage.put('noise-archives', 'same-name.zip', Buffer.from('noise'));
    expect((await storage.get('exercise-archives', 'same-name.zip')).toString()).toBe('exercise');
    expect((await storage.get('noise-archives', 'same-name.zip')).toString()).toBe('noise');
  });

  it('lists objects sorted by key, filtered by prefix, with their sizes', async () => {
    await storage.put('exercise-archives', 'list/b.zip', Buffer.from('bb'));
    await storage.put('exercise-archives', 'list/a/deep.zip', Buffer.from('a'));
    await storage.put('exercise-archives', 'listless.zip', Buffer.from('ccc'));
    const listed = await storage.list('exercise-archives', 'list/');
    expect(listed.map((o) => [o.key, o.size])).toEqual([
      ['list/a/deep.zip', 1],
      ['list/b.zip', 2],
    ]);
    const all = (await storage.list('exercise-archives')).map((o) => o.key);
    expect(all).toEqual(['list/a/deep.zip', 'list/b.zip', 'listless.zip', 'same-name.zip']);
  });

  it('stats an object and answers undefined for a missing one', async () => {
    await storage.put('noise-archives', 'stat/x.zip', Buffer.from('12345'));
    expect((await storage.stat('noise-archives', 'stat/x.zip'))?.size).toBe(5);
    expect(await storage.stat('noise-archives', 'stat/missing.zip')).toBeUndefined();
  });

  it('deletes an object, then answers not_found for it', async () => {
    await storage.put('noise-archives', 'del/x.zip', Buffer.from('x'));
    await storage.delete('noise-archives', 'del/x.zip');
    expect(await storage.stat('noise-archives', 'del/x.zip')).toBeUndefined();
    expect(await code(storage.get('noise-archives', 'del/x.zip'))).toBe('not_found');
    expect(await code(storage.delete('noise-archives', 'del/x.zip'))).toBe('not_found');
    expect((await storage.list('noise-archives', 'del/')).length).toBe(0);
  });

  it('refuses invalid paths before touching the store', async () => {
    for (const bad of ['../escape.zip', '/abs.zip', 'a\\b.zip', 'a//b.zip', 'nul\u0000.zip']) {
      expect(await code(storage.put('noise-archives', bad, Buffer.from('x'))), bad).toBe('invalid_input');
      expect(await code(storage.get('noise-archives', bad)), bad).toBe('invalid_input');
      expect(await code(storage.delete('noise-archives', bad)), bad).toBe('invalid_input');
    }
  });

  it('leaves the previous object intact when a streamed write fails midway', async () => {
    await storage.put('noise-archives', 'atomic.zip', Buffer.from('old content'));
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1000, 7));
        this.destroy(new AppError('payload_too_large', 'too large'));
      },
    });
    expect(await code(storage.put('noise-archives', 'atomic.zip', failing, 5000))).toBe('payload_too_large');
    expect((await storage.get('noise-archives', 'atomic.zip')).toString()).toBe('old content');
  });

  it('rejects a read with the signal’s reason once the signal has aborted', async () => {
    await storage.put('noise-archives', 'abort/x.zip', Buffer.from('x'));
    const reason = new Error('the dispatch was cancelled');
    expect(await failure(storage.get('noise-archives', 'abort/x.zip', AbortSignal.abort(reason)))).toBe(
      reason,
    );
  });

  it('reports itself usable', async () => {
    const check = await storage.check(AbortSignal.timeout(5000));
    expect(check.ok).toBe(true);
    expect(check.backend).toBe(storage.backend);
  });
});

describe('S3 storage', () => {
  it('creates the missing buckets noise-archives and exercise-archives', async () => {
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: s3.credentials,
    });
    const names = (await client.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name).sort();
    client.destroy();
    expect(names).toEqual(['exercise-archives', 'noise-archives']);
  });

  it('reports an unreachable store as not usable and its operations as bad_gateway', async () => {
    const storage = createS3Storage({
      endpoint: 'http://127.0.0.1:1',
      region: 'us-east-1',
      accessKeyId: 'x',
      secretAccessKey: 'y',
      forcePathStyle: true,
    });
    const check = await storage.check(AbortSignal.timeout(5000));
    expect(check.ok).toBe(false);
    expect(check.message).toMatch(/^S3 store 127\.0\.0\.1:1 is not usable: /);
    expect(await code(storage.get('noise-archives', 'x.zip'))).toBe('bad_gateway');
    await storage.close();
  });
});

describe('S3 storage that stops answering', () => {
  it('fails an operation on a store that accepts connections and never answers, naming the store', async () => {
    const silent = await listen(net.createServer(() => {}));
    const storage = s3At(silent.endpoint, { connectionMs: 200, answerMs: 200, idleMs: 200 });
    try {
      const err = await within(10_000, failure(storage.get('noise-archives', 'x.zip')));
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('bad_gateway');
      expect((err as AppError).message).toMatch(
        /^S3 store 127\.0\.0\.1:\d+ failed while creating the buckets: timed out: .*200 ms/,
      );
    } finally {
      await storage.close();
      silent.close();
    }
  });

  // Answers the bucket checks, then sends an object's headers and a few bytes, and no more.
  const stalling = () =>
    listen(
      http.createServer((req, res) => {
        if (req.method === 'HEAD') {
          res.writeHead(200).end();
          return;
        }
        res.writeHead(200, { 'content-length': '1000' });
        res.write('PK\x03\x04');
      }),
    );

  it('fails a download that stops half-way', async () => {
    const server = await stalling();
    const storage = s3At(server.endpoint, { connectionMs: 200, answerMs: 200, idleMs: 200 });
    try {
      const err = await within(10_000, failure(storage.get('noise-archives', 'x.zip')));
      expect((err as AppError).code).toBe('bad_gateway');
      expect((err as AppError).message).toMatch(
        /^S3 store 127\.0\.0\.1:\d+ failed while reading noise-archives\/x\.zip: timed out: .*inactivity/,
      );
    } finally {
      await storage.close();
      server.close();
    }
  });

  it('abandons a download that hangs as soon as its signal aborts', async () => {
    const server = await stalling();
    // Production limits: only the signal can end this read within the test.
    const storage = s3At(server.endpoint);
    try {
      const reason = new Error('the service stopped during the dispatch');
      const controller = new AbortController();
      const read = storage.get('noise-archives', 'x.zip', controller.signal);
      setTimeout(() => controller.abort(reason), 300);
      expect(await within(5_000, failure(read))).toBe(reason);
    } finally {
      await storage.close();
      server.close();
    }
  });
});

describe('local storage', () => {
  it('keeps an upload whose folder a concurrent delete of its last other object removes', async () => {
    const root = testTempDir('storage-race-');
    const storage = await createLocalStorage(root);
    await storage.put('noise-archives', 'f/old.zip', Buffer.from('old'));
    const body = new PassThrough();
    const upload = storage.put('noise-archives', 'f/new.zip', body);
    body.write('PK\x03\x04 first part');
    // The upload is writing its temporary file, its folder made: now empty that folder.
    while (readdirSync(`${root}/.partial`).length === 0) await sleep(5);
    await storage.delete('noise-archives', 'f/old.zip');
    expect(readdirSync(`${root}/noise-archives`)).toEqual([]);
    body.end(', rest');
    expect(await upload).toMatchObject({ key: 'f/new.zip', size: 21 });
    expect((await storage.get('noise-archives', 'f/new.zip')).toString()).toBe('PK\x03\x04 first part, rest');
    expect(readdirSync(`${root}/.partial`)).toEqual([]);
  });

  it('writes under DATA_DIR/storage/<bucket>/<path> and leaves no temporary file behind', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const root = testTempDir('storage-layout-');
    const storage = await createLocalStorage(root);
    await storage.put('noise-archives', 'a/b/c.zip', Readable.from([Buffer.from('abc')]));
    expect(readFileSync(`${root}/noise-archives/a/b/c.zip`, 'utf8')).toBe('abc');
    expect(readdirSync(`${root}/.partial`)).toEqual([]);
    await storage.delete('noise-archives', 'a/b/c.zip');
    // Folders the object leaves empty go too; the bucket folder stays.
    expect(readdirSync(`${root}/noise-archives`)).toEqual([]);
  });

  it('answers conflict when a path needs a folder where an object is', async () => {
    const storage = await createLocalStorage(testTempDir('storage-conflict-'));
    await storage.put('noise-archives', 'x.zip', Buffer.from('x'));
    expect(await code(storage.put('noise-archives', 'x.zip/inner.zip', Buffer.from('y')))).toBe('conflict');
    expect(await code(storage.get('noise-archives', 'x.zip/inner.zip'))).toBe('not_found');
  });
});
