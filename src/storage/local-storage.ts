import { randomUUID } from 'node:crypto';
import { constants, createWriteStream, type Stats } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, notFound } from '../errors.ts';
import { BUCKETS, type Bucket, isBucket, type ObjectInfo, type ObjectStorage } from './object-storage.ts';
import { checkStoragePath, quotePath } from './storage-path.ts';

/** Folder (inside the storage root, outside every bucket) where objects are written before the rename. */
const PARTIAL_DIR = '.partial';

/**
 * Object storage in the local file system: `<root>/<bucket>/<key>`. Writes go to a temporary file
 * that is synced and then renamed into place, so a crash never leaves half an object under its name.
 */
export async function createLocalStorage(root: string): Promise<ObjectStorage> {
  const base = path.resolve(root);
  for (const dir of [...BUCKETS, PARTIAL_DIR]) await mkdir(path.join(base, dir), { recursive: true });

  const fileOf = (bucket: Bucket, key: string): string => {
    if (!isBucket(bucket)) throw new AppError('invalid_input', `Unknown bucket ${JSON.stringify(bucket)}`);
    checkStoragePath(key);
    const bucketDir = path.join(base, bucket);
    const file = path.join(bucketDir, ...key.split('/'));
    // Defence in depth: validation already refuses every way out of the bucket.
    if (!file.startsWith(`${bucketDir}${path.sep}`)) {
      throw new AppError('invalid_input', `Invalid storage path ${quotePath(key)}`);
    }
    return file;
  };

  return {
    backend: 'local',

    async put(bucket, key, body, _size) {
      // The stream may already be flowing and fail (too large, not a zip) before it is piped.
      let bodyError: unknown;
      if (!Buffer.isBuffer(body)) {
        body.on('error', (err) => {
          bodyError ??= err;
        });
      }
      const file = fileOf(bucket, key);
      const tmp = path.join(base, PARTIAL_DIR, randomUUID());
      let written: Stats;
      try {
        // Made before the body is read, so a path that collides with an object fails at once.
        await mkdir(path.dirname(file), { recursive: true });
        if (bodyError !== undefined) throw bodyError;
        await writeSynced(tmp, body);
        // Read from the temporary file: once renamed, a concurrent delete may already remove it.
        written = await stat(tmp);
        await renameInto(tmp, file);
      } catch (err) {
        await rm(tmp, { force: true });
        throw mapFsError(bodyError ?? err, key, 'write');
      }
      return { key, size: written.size, modified: written.mtimeMs };
    },

    async get(bucket, key, signal) {
      try {
        return await readFile(fileOf(bucket, key), { signal });
      } catch (err) {
        signal?.throwIfAborted();
        throw mapFsError(err, key, 'read');
      }
    },

    async stat(bucket, key) {
      try {
        const s = await stat(fileOf(bucket, key));
        return s.isFile() ? { key, size: s.size, modified: s.mtimeMs } : undefined;
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw mapFsError(err, key, 'read');
      }
    },

    async list(bucket, prefix = '') {
      if (!isBucket(bucket)) throw new AppError('invalid_input', `Unknown bucket ${JSON.stringify(bucket)}`);
      const bucketDir = path.join(base, bucket);
      const entries = await readdir(bucketDir, { recursive: true, withFileTypes: true });
      const out: ObjectInfo[] = [];
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const full = path.join(entry.parentPath, entry.name);
        const key = path.relative(bucketDir, full).split(path.sep).join('/');
        if (!key.startsWith(prefix)) continue;
        try {
          const s = await stat(full);
          out.push({ key, size: s.size, modified: s.mtimeMs });
        } catch (err) {
          // Deleted between readdir and stat: simply not listed.
          if (!isMissing(err)) throw err;
        }
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    async delete(bucket, key) {
      const file = fileOf(bucket, key);
      try {
        const s = await stat(file);
        if (!s.isFile()) throw notFound('storage_path', key);
        await unlink(file);
      } catch (err) {
        throw mapFsError(err, key, 'read');
      }
      // Tidy up folders the object leaves empty, never the bucket folder itself.
      const bucketDir = path.join(base, bucket);
      for (let dir = path.dirname(file); dir !== bucketDir; dir = path.dirname(dir)) {
        try {
          await rmdir(dir);
        } catch {
          break;
        }
      }
    },

    async check() {
      try {
        for (const dir of [...BUCKETS, PARTIAL_DIR]) {
          await access(path.join(base, dir), constants.R_OK | constants.W_OK);
        }
        return { ok: true, backend: 'local', message: `local storage at ${base} is writable` };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'error';
        return { ok: false, backend: 'local', message: `local storage at ${base} is not usable (${code})` };
      }
    },

    async close() {},
  };
}

/** Rename attempts before put gives up on a folder that concurrent deletes keep removing. */
const RENAME_ATTEMPTS = 5;

/**
 * Moves a written temporary file to its name. A delete of the last other object in the target
 * folder removes that folder (its tidy-up) between put's mkdir and this rename, which then fails
 * with ENOENT: the folder is made again and the rename repeated.
 */
async function renameInto(tmp: string, file: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (attempt > 1) await mkdir(path.dirname(file), { recursive: true });
      await rename(tmp, file);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= RENAME_ATTEMPTS) throw err;
    }
  }
}

async function writeSynced(file: string, body: Buffer | Readable): Promise<void> {
  if (Buffer.isBuffer(body)) {
    const handle = await open(file, 'wx');
    try {
      await handle.writeFile(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return;
  }
  const out = createWriteStream(file, { flags: 'wx' });
  await pipeline(body, out);
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** File-system errors as the interface promises them: a missing object, or a name collision on write. */
function mapFsError(err: unknown, key: string, op: 'read' | 'write'): unknown {
  if (err instanceof AppError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (op === 'read' && (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR')) {
    return notFound('storage_path', key);
  }
  if (op === 'write' && (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR')) {
    return new AppError(
      'conflict',
      `Storage path ${quotePath(key)} collides with an existing object or folder of the same name`,
      { details: { storage_path: key } },
    );
  }
  return err;
}
