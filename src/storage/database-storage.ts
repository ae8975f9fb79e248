import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';
import { type Bucket, isBucket, type ObjectInfo, type ObjectStorage } from './object-storage.ts';
import { checkStoragePath } from './storage-path.ts';

/** Content is stored in rows of at most this many bytes: no value ever holds a whole archive. */
export const STORAGE_CHUNK_BYTES = 1024 * 1024;

/** Uploads not committed after this long were left by a process that died; they are removed. */
const STALE_UPLOAD_MS = 24 * 3600 * 1000;

/** Reads restarted when a concurrent write replaces the object between two chunks. */
const READ_ATTEMPTS = 5;

export interface DatabaseStorageOptions {
  /** Largest object accepted (ARCHIVE_MAX_BYTES): a longer body fails with `payload_too_large`. */
  readonly maxObjectBytes?: number;
}

/** The database storage's extras: a chunk-by-chunk read stream, and the removal of dead uploads. */
export interface DatabaseStorage extends ObjectStorage {
  /**
   * The object's content as a stream, one chunk (one row) at a time as the consumer reads:
   * `not_found` when there is none; fails with `conflict` when a write replaces or removes the
   * object while it is read.
   */
  read(bucket: Bucket, key: string, signal?: AbortSignal): Promise<Readable>;
  /** Removes uploads a dead process left half-written; returns how many. */
  sweep(): Promise<number>;
}

/** Thrown inside a read when the object it started on is gone (replaced or deleted). */
class ObjectReplaced extends Error {}

/**
 * Object storage in the database itself (tables `storage_objects` and `storage_chunks`,
 * migration 0004), chosen with DATABASE_URL so several instances on one PostgreSQL share the
 * archives with nothing else to run.
 *
 * - **put** streams the body into 1 MiB chunk rows of a new, uncommitted object row (each insert
 *   awaited, so a body is never held whole), then in one short transaction, under an advisory
 *   lock of the path, deletes the old object and commits the new one: readers see the old object
 *   or the whole new one. A failed body or write deletes the new row and its chunks.
 * - **get/read** look up the committed object, then fetch its chunks one row per query. A write
 *   that swaps the object out meanwhile deletes those chunks: `get` starts over on the new one.
 */
export function createDatabaseStorage(
  db: Kysely<Database>,
  options: DatabaseStorageOptions = {},
): DatabaseStorage {
  const maxBytes = options.maxObjectBytes ?? Number.MAX_SAFE_INTEGER;

  const valid = (bucket: Bucket, key?: string): void => {
    if (!isBucket(bucket)) throw new AppError('invalid_input', `Unknown bucket ${JSON.stringify(bucket)}`);
    if (key !== undefined) checkStoragePath(key);
  };

  const find = (bucket: Bucket, key: string) =>
    db
      .selectFrom('storage_objects')
      .select(['id', 'size', 'chunk_count', 'updated_at'])
      .where('bucket', '=', bucket)
      .where('key', '=', key)
      .where('committed', '=', true)
      .executeTakeFirst();

  const infoOf = (row: { key: string; size: string | number; updated_at: Date }): ObjectInfo => ({
    key: row.key,
    size: Number(row.size),
    modified: row.updated_at.getTime(),
  });

  /** The chunks of object `id` in order, one query each; ObjectReplaced when one is gone. */
  async function* chunksOf(id: string, count: number, signal?: AbortSignal): AsyncGenerator<Buffer> {
    for (let seq = 0; seq < count; seq++) {
      signal?.throwIfAborted();
      const row = await untilAborted(
        db
          .selectFrom('storage_chunks')
          .select('bytes')
          .where('object_id', '=', id)
          .where('seq', '=', seq)
          .executeTakeFirst(),
        signal,
      );
      if (!row) throw new ObjectReplaced();
      yield asBuffer(row.bytes);
    }
  }

  const open = async (bucket: Bucket, key: string, signal?: AbortSignal) => {
    valid(bucket, key);
    signal?.throwIfAborted();
    const row = await untilAborted(find(bucket, key), signal);
    if (!row) throw notFound('storage_path', key);
    return row;
  };

  const storage: DatabaseStorage = {
    backend: 'database',

    async put(bucket, key, body, _size) {
      // The stream may already be flowing and fail (too large, not a zip) before it is read.
      let bodyError: unknown;
      let ownError: unknown;
      if (!Buffer.isBuffer(body)) {
        body.on('error', (err) => {
          bodyError ??= err;
        });
      }
      valid(bucket, key);
      const id = randomUUID();
      const hash = createHash('sha256');
      let size = 0;
      let seq = 0;
      const writeChunk = async (bytes: Buffer) => {
        hash.update(bytes);
        size += bytes.length;
        await db.insertInto('storage_chunks').values({ object_id: id, seq, bytes }).execute();
        seq += 1;
      };
      try {
        if (bodyError !== undefined) throw bodyError;
        await db.insertInto('storage_objects').values({ id, bucket, key, committed: false }).execute();
        const pending: Buffer[] = [];
        let pendingBytes = 0;
        for await (const piece of Buffer.isBuffer(body) ? [body] : body) {
          // Leaving the loop on an error of ours destroys the body, which then reports an
          // AbortError of its own: ours is the one to report.
          try {
            const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece as Uint8Array);
            if (size + pendingBytes + bytes.length > maxBytes) {
              throw new AppError('payload_too_large', `The object is larger than ${maxBytes} bytes`);
            }
            pending.push(bytes);
            pendingBytes += bytes.length;
            if (pendingBytes < STORAGE_CHUNK_BYTES) continue;
            const all = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
            let at = 0;
            for (; all.length - at >= STORAGE_CHUNK_BYTES; at += STORAGE_CHUNK_BYTES) {
              await writeChunk(all.subarray(at, at + STORAGE_CHUNK_BYTES));
            }
            pending.length = 0;
            pendingBytes = all.length - at;
            if (pendingBytes > 0) pending.push(all.subarray(at));
          } catch (err) {
            ownError = err;
            throw err;
          }
        }
        if (bodyError !== undefined) throw bodyError;
        if (pendingBytes > 0) await writeChunk(Buffer.concat(pending, pendingBytes));
        const sha256 = hash.digest('hex');
        const committed = await db.transaction().execute(async (tx) => {
          // Two writes of one path commit one after the other; the later one wins.
          await sql`select pg_advisory_xact_lock(hashtextextended(${`${bucket}/${key}`}, 0))`.execute(tx);
          await tx
            .deleteFrom('storage_objects')
            .where('bucket', '=', bucket)
            .where('key', '=', key)
            .where('committed', '=', true)
            .execute();
          return tx
            .updateTable('storage_objects')
            .set({ committed: true, size, chunk_count: seq, sha256, updated_at: sql<Date>`now()` })
            .where('id', '=', id)
            .returning(['key', 'size', 'updated_at'])
            .executeTakeFirstOrThrow();
        });
        return infoOf(committed);
      } catch (err) {
        try {
          await db
            .deleteFrom('storage_objects')
            .where('id', '=', id)
            .where('committed', '=', false)
            .execute();
        } catch {
          // Left for sweep(); the body's or the write's error is the one to report.
        }
        throw ownError ?? bodyError ?? err;
      }
    },

    async get(bucket, key, signal) {
      for (let attempt = 1; ; attempt++) {
        const row = await open(bucket, key, signal);
        const parts: Buffer[] = [];
        try {
          for await (const chunk of chunksOf(row.id, row.chunk_count, signal)) parts.push(chunk);
          return Buffer.concat(parts, Number(row.size));
        } catch (err) {
          if (!(err instanceof ObjectReplaced) || attempt >= READ_ATTEMPTS) throw replacedError(err, key);
        }
      }
    },

    async read(bucket, key, signal) {
      const row = await open(bucket, key, signal);
      const chunks = chunksOf(row.id, row.chunk_count, signal);
      return Readable.from(
        (async function* () {
          try {
            yield* chunks;
          } catch (err) {
            throw replacedError(err, key);
          }
        })(),
        { objectMode: false },
      );
    },

    async stat(bucket, key) {
      valid(bucket, key);
      const row = await find(bucket, key);
      return row ? infoOf({ key, size: row.size, updated_at: row.updated_at }) : undefined;
    },

    async list(bucket, prefix = '') {
      valid(bucket);
      let query = db
        .selectFrom('storage_objects')
        .select(['key', 'size', 'updated_at'])
        .where('bucket', '=', bucket)
        .where('committed', '=', true);
      if (prefix !== '') query = query.where(sql<boolean>`starts_with(key, ${prefix})`);
      const rows = await query.execute();
      // Sorted here, as the other backends sort: by UTF-16 code units, whatever the collation.
      return rows.map(infoOf).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    async delete(bucket, key) {
      valid(bucket, key);
      // Its chunks go with it (on delete cascade).
      const gone = await db
        .deleteFrom('storage_objects')
        .where('bucket', '=', bucket)
        .where('key', '=', key)
        .where('committed', '=', true)
        .returning('id')
        .executeTakeFirst();
      if (!gone) throw notFound('storage_path', key);
    },

    async check(signal) {
      try {
        const { rows } = await untilAborted(
          sql<{ objects: boolean; chunks: boolean }>`select
              has_table_privilege('storage_objects', 'select, insert, update, delete') as objects,
              has_table_privilege('storage_chunks', 'select, insert, delete') as chunks`.execute(db),
          signal,
        );
        const row = rows[0];
        if (!row?.objects || !row.chunks) {
          return {
            ok: false,
            backend: 'database',
            message:
              'database storage is not usable: the database user may not write storage_objects or storage_chunks',
          };
        }
        return {
          ok: true,
          backend: 'database',
          message: 'database storage (storage_objects, storage_chunks) is writable',
        };
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        return { ok: false, backend: 'database', message: `database storage is not usable: ${reason}` };
      }
    },

    async sweep() {
      const { numDeletedRows } = await db
        .deleteFrom('storage_objects')
        .where('committed', '=', false)
        .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_UPLOAD_MS / 1000})`)
        .executeTakeFirst();
      return Number(numDeletedRows);
    },

    // The database is closed with the context.
    async close() {},
  };
  return storage;
}

/** A chunk as pg (Buffer) or PGlite (Uint8Array) returns it, as a Buffer without a copy. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function replacedError(err: unknown, key: string): unknown {
  if (!(err instanceof ObjectReplaced)) return err;
  return new AppError(
    'conflict',
    `Storage path ${JSON.stringify(key)} was replaced or deleted while it was read`,
    {
      details: { storage_path: key },
    },
  );
}

/** `promise`, or the signal's reason as soon as it aborts (the query itself runs to its end). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
