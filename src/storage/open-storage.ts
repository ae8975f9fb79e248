import path from 'node:path';
import type { Config } from '../config.ts';
import type { DbHandle } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import { createDatabaseStorage } from './database-storage.ts';
import { createLocalStorage } from './local-storage.ts';
import type { ObjectStorage } from './object-storage.ts';

/**
 * The configured object storage; it follows the database unless S3_ENDPOINT is set (decisions.md
 * §1): S3 with S3_ENDPOINT; else the PostgreSQL database itself when the service runs on one
 * (DATABASE_URL), so that several instances share the archives; else `DATA_DIR/storage` beside
 * the embedded database. An S3 store that is unreachable at start-up does not stop the service:
 * it is logged, and the buckets are created on first use once the store answers.
 */
export async function openStorage(
  config: Pick<Config, 's3' | 'dataDir' | 'archiveMaxBytes'>,
  log: Logger,
  database: Pick<DbHandle, 'db' | 'kind'>,
): Promise<ObjectStorage> {
  if (config.s3 === undefined) {
    if (database.kind === 'pglite') return createLocalStorage(path.join(config.dataDir, 'storage'));
    const storage = createDatabaseStorage(database.db, { maxObjectBytes: config.archiveMaxBytes });
    const swept = await storage.sweep();
    if (swept > 0)
      log.info({ uploads: swept }, 'Removed archive uploads an earlier process left unfinished.');
    return storage;
  }
  // Imported only here: the S3 client library costs about 35 MiB of RSS, which the embedded
  // default (idle goal 250 MiB, docs/performance.md "Memory") and PostgreSQL users never need.
  const { createS3Storage } = await import('./s3-storage.ts');
  const storage = createS3Storage(config.s3);
  try {
    await storage.ensureBuckets();
  } catch (err) {
    log.error({ err }, 'Object storage is not reachable; archives are unavailable until it answers.');
  }
  return storage;
}
