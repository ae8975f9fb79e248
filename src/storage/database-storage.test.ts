import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, TEST_DB_KIND } from '../../test/helpers/test-db.ts';
import type { DbHandle } from '../db/create-db.ts';
import { AppError } from '../errors.ts';
import { createDatabaseStorage, type DatabaseStorage, STORAGE_CHUNK_BYTES } from './database-storage.ts';

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return err instanceof AppError ? err.code : `other: ${String(err)}`;
  }
}

/** Bytes that differ from chunk to chunk, so a chunk out of order would show. */
function pattern(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4) out.writeUInt32LE((i * 2654435761 + seed) >>> 0, Math.min(i, size - 4));
  return out;
}

describe(`database storage on ${TEST_DB_KIND === 'postgres' ? 'PostgreSQL' : 'PGlite'}`, () => {
  let handle: DbHandle;
  let storage: DatabaseStorage;
  beforeAll(async () => {
    handle = await openTestDatabase();
    storage = createDatabaseStorage(handle.db, { maxObjectBytes: 3 * STORAGE_CHUNK_BYTES });
  });
  afterAll(async () => {
    await handle.close();
  });

  const rowsOf = async (key: string) =>
    handle.db
      .selectFrom('storage_chunks')
      .innerJoin('storage_objects', 'storage_objects.id', 'storage_chunks.object_id')
      .select(['seq', sql<number>`length(bytes)`.as('length')])
      .where('key', '=', key)
      .orderBy('seq')
      .execute();

  it('stores an archive larger than a chunk in 1 MiB rows and streams it back one row at a time', async () => {
    const data = pattern(2 * STORAGE_CHUNK_BYTES + 12_345);
    // Pieces that do not line up with chunk boundaries.
    const pieces = [data.subarray(0, 700_000), data.subarray(700_000, 2_500_000), data.subarray(2_500_000)];
    const info = await storage.put('noise-archives', 'big/a.zip', Readable.from(pieces));
    expect(info.size).toBe(data.length);
    expect((await rowsOf('big/a.zip')).map((r) => Number(r.length))).toEqual([
      STORAGE_CHUNK_BYTES,
      STORAGE_CHUNK_BYTES,
      12_345,
    ]);
    expect((await storage.get('noise-archives', 'big/a.zip')).equals(data)).toBe(true);
    const sizes: number[] = [];
    const parts: Buffer[] = [];
    for await (const chunk of await storage.read('noise-archives', 'big/a.zip')) {
      sizes.push(chunk.length);
      parts.push(chunk);
    }
    expect(sizes).toEqual([STORAGE_CHUNK_BYTES, STORAGE_CHUNK_BYTES, 12_345]);
    expect(Buffer.concat(parts).equals(data)).toBe(true);
    const [object] = await handle.db
      .selectFrom('storage_objects')
      .select(['sha256'])
      .where('key', '=', 'big/a.zip')
      .execute();
    expect(object?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stores an empty object', async () => {
    expect((await storage.put('noise-archives', 'empty.zip', Buffer.alloc(0))).size).toBe(0);
    expect((await storage.get('noise-archives', 'empty.zip')).length).toBe(0);
  });

  it('shows nothing of an upload until it is complete, then the whole of it', async () => {
    await storage.put('noise-archives', 'swap.zip', Buffer.from('old'));
    const body = new PassThrough();
    const upload = storage.put('noise-archives', 'swap.zip', body);
    body.write(pattern(STORAGE_CHUNK_BYTES + 10));
    // Wait until the first chunk row is written.
    while ((await rowsOf('swap.zip')).length < 2) await sleep(5);
    expect((await storage.get('noise-archives', 'swap.zip')).toString()).toBe('old');
    expect((await storage.list('noise-archives', 'swap')).map((o) => [o.key, o.size])).toEqual([
      ['swap.zip', 3],
    ]);
    body.end(Buffer.from('tail'));
    expect((await upload).size).toBe(STORAGE_CHUNK_BYTES + 14);
    expect((await storage.get('noise-archives', 'swap.zip')).length).toBe(STORAGE_CHUNK_BYTES + 14);
    // The old object's rows are gone with it.
    expect(await rowsOf('swap.zip')).toHaveLength(2);
  });

  it('leaves no row behind when an upload fails, or exceeds the size limit', async () => {
    const before = await handle.db.selectFrom('storage_objects').select('id').execute();
    const failing = new Readable({
      read() {
        this.push(pattern(STORAGE_CHUNK_BYTES + 1));
        this.destroy(new AppError('payload_too_large', 'too large'));
      },
    });
    expect(await code(storage.put('noise-archives', 'failed.zip', failing))).toBe('payload_too_large');
    const tooBig = Readable.from([pattern(2 * STORAGE_CHUNK_BYTES), pattern(2 * STORAGE_CHUNK_BYTES)]);
    expect(await code(storage.put('noise-archives', 'too-big.zip', tooBig))).toBe('payload_too_large');
    expect(await handle.db.selectFrom('storage_objects').select('id').execute()).toEqual(before);
    expect(await storage.stat('noise-archives', 'failed.zip')).toBeUndefined();
  });

  it('hands a reader the old or the new object while writes replace it', async () => {
    const a = pattern(2 * STORAGE_CHUNK_BYTES, 1);
    const b = pattern(2 * STORAGE_CHUNK_BYTES, 2);
    await storage.put('noise-archives', 'busy.zip', a);
    const writes = (async () => {
      for (let i = 0; i < 4; i++) await storage.put('noise-archives', 'busy.zip', i % 2 === 0 ? b : a);
    })();
    for (let i = 0; i < 4; i++) {
      const got = await storage.get('noise-archives', 'busy.zip');
      expect(got.equals(a) || got.equals(b)).toBe(true);
    }
    await writes;
  });

  it('commits concurrent writes of one path one after the other, leaving one object', async () => {
    await Promise.all(
      [1, 2, 3, 4].map((n) => storage.put('exercise-archives', 'race.zip', Buffer.from(`version ${n}`))),
    );
    expect((await storage.get('exercise-archives', 'race.zip')).toString()).toMatch(/^version [1-4]$/);
    const rows = await handle.db
      .selectFrom('storage_objects')
      .select('id')
      .where('bucket', '=', 'exercise-archives')
      .where('key', '=', 'race.zip')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('removes uploads a dead process left unfinished a day ago, and only those', async () => {
    const id = '00000000-0000-4000-8000-000000000001';
    await handle.db
      .insertInto('storage_objects')
      .values({
        id,
        bucket: 'noise-archives',
        key: 'dead.zip',
        committed: false,
        created_at: new Date(Date.now() - 25 * 3600_000),
      })
      .execute();
    await handle.db
      .insertInto('storage_chunks')
      .values({ object_id: id, seq: 0, bytes: Buffer.from('x') })
      .execute();
    const listed = (await storage.list('noise-archives')).map((o) => o.key);
    expect(listed).not.toContain('dead.zip');
    expect(await storage.sweep()).toBe(1);
    expect(
      await handle.db.selectFrom('storage_chunks').select('seq').where('object_id', '=', id).execute(),
    ).toEqual([]);
    expect((await storage.list('noise-archives')).map((o) => o.key)).toEqual(listed);
  });

  it('reports itself usable, and not usable without its tables', async () => {
    expect(await storage.check(AbortSignal.timeout(5000))).toMatchObject({ ok: true, backend: 'database' });
    const other = await openTestDatabase();
    try {
      await sql`drop table storage_chunks`.execute(other.db);
      const check = await createDatabaseStorage(other.db).check(AbortSignal.timeout(5000));
      expect(check.ok).toBe(false);
      expect(check.message).toMatch(/^database storage is not usable: .*storage_chunks/);
    } finally {
      await other.close();
    }
  });
});
