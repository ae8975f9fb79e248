import type { Readable } from 'node:stream';

/** The two buckets of the service (decisions.md §1); nothing else is ever addressed. */
export const BUCKETS = ['noise-archives', 'exercise-archives'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** One stored object. */
export interface ObjectInfo {
  /** Path inside the bucket (`/`-separated, validated by checkStoragePath). */
  readonly key: string;
  readonly size: number;
  /** Last modification, epoch ms. */
  readonly modified: number;
}

/** Result of a storage probe; never thrown, so a status page can show it as is. */
export interface StorageCheck {
  readonly ok: boolean;
  readonly backend: ObjectStorage['backend'];
  readonly message: string;
}

/**
 * Object storage behind one small interface: the local file system under `DATA_DIR/storage`, the
 * PostgreSQL database itself (chunked rows) or an S3-compatible store. Keys are validated by every implementation (400 naming the path); a missing
 * object is `not_found`; an unreachable store is `bad_gateway`.
 */
export interface ObjectStorage {
  readonly backend: 'local' | 'database' | 's3';
  /** Stores an object atomically: readers see the old object or the whole new one, never a part. */
  put(bucket: Bucket, key: string, body: Buffer | Readable, size?: number): Promise<ObjectInfo>;
  /** The whole object in memory; `signal` abandons the read (rejecting with its reason). */
  get(bucket: Bucket, key: string, signal?: AbortSignal): Promise<Buffer>;
  /** Size and time of an object, or undefined when there is none. */
  stat(bucket: Bucket, key: string): Promise<ObjectInfo | undefined>;
  /** Objects whose key starts with `prefix`, sorted by key. */
  list(bucket: Bucket, prefix?: string): Promise<ObjectInfo[]>;
  /** Removes an object; `not_found` when there is none. */
  delete(bucket: Bucket, key: string): Promise<void>;
  /** Checks that every bucket is reachable and writable. */
  check(signal?: AbortSignal): Promise<StorageCheck>;
  close(): Promise<void>;
}

/** True when `name` is one of the service's buckets. */
export function isBucket(name: string): name is Bucket {
  return (BUCKETS as readonly string[]).includes(name);
}
