import path from 'node:path';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createLocalStorage } from './local-storage.ts';
import type { ObjectStorage } from './object-storage.ts';
import { createS3Storage } from './s3-storage.ts';

/**
 * The configured object storage: S3 when S3_ENDPOINT is set, else `DATA_DIR/storage`. An S3 store
 * that is unreachable at start-up does not stop the service: it is logged, and the buckets are
 * created on first use once the store answers.
 */
export async function openStorage(
  config: Pick<Config, 's3' | 'dataDir'>,
  log: Logger,
): Promise<ObjectStorage> {
  if (config.s3 === undefined) return createLocalStorage(path.join(config.dataDir, 'storage'));
  const storage = createS3Storage(config.s3);
  try {
    await storage.ensureBuckets();
  } catch (err) {
    log.error({ err }, 'Object storage is not reachable; archives are unavailable until it answers.');
  }
  return storage;
}
