import type { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { AppError, notFound } from '../errors.ts';
import { BUCKETS, type Bucket, isBucket, type ObjectInfo, type ObjectStorage } from './object-storage.ts';
import { checkStoragePath } from './storage-path.ts';

/** Connection settings of an S3-compatible store (Config.s3). */
export interface S3Settings {
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  readonly forcePathStyle: boolean;
}

/** Time limits of each request to the store (each attempt of it); tests shorten them. */
export interface S3Timeouts {
  /** Longest wait for a connection to the store (default 10 s). */
  readonly connectionMs?: number;
  /** Longest wait for an answer's headers, uploads excepted (default 30 s). */
  readonly answerMs?: number;
  /** Longest silence on an open connection, while sending or receiving (default 30 s). */
  readonly idleMs?: number;
  /**
   * Longest silence while uploading (default 5 min): the socket counts bytes still queued in the
   * kernel as silence, and a store may take long to confirm a large object after its last byte.
   */
  readonly uploadIdleMs?: number;
}

/**
 * Object storage in an S3-compatible store. Missing buckets are created on first use (retried
 * after a failure, so a store that is down at start-up is picked up once it answers). A PutObject
 * is atomic on S3, so readers never see half an object. Every request has time limits: a store
 * that accepts connections and never answers fails the operation (`bad_gateway`) instead of
 * holding it, and with it a dispatch or the start-up, forever.
 */
export function createS3Storage(
  settings: S3Settings,
  timeouts: S3Timeouts = {},
): ObjectStorage & { ensureBuckets(): Promise<void> } {
  const clientWith = (socketTimeout: number, requestTimeout: number) =>
    new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      // Many S3-compatible stores (and older MinIO/Ceph) reject the SDK's default streaming
      // checksums; send them only where the API requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // The SDK's handler has no time limit at all by default. The answer limit only throws with
      // throwOnRequestTimeout (otherwise it merely logs); the idle limit also covers a body that
      // stops flowing half-way, which the answer limit (it ends at the headers) does not.
      requestHandler: {
        connectionTimeout: timeouts.connectionMs ?? 10_000,
        requestTimeout,
        throwOnRequestTimeout: true,
        socketTimeout,
      },
    });
  const client = clientWith(timeouts.idleMs ?? 30_000, timeouts.answerMs ?? 30_000);
  // Uploads on their own client: the socket's idle limit cannot be set per request, and an
  // upload's answer only comes once the whole body is sent (its duration grows with its size).
  const uploads = clientWith(timeouts.uploadIdleMs ?? 300_000, 0);
  const where = `S3 store ${new URL(settings.endpoint).host}`;

  let buckets: Promise<void> | undefined;
  const ensureBuckets = (): Promise<void> => {
    buckets ??= (async () => {
      for (const bucket of BUCKETS) {
        try {
          await client.send(new HeadBucketCommand({ Bucket: bucket }));
        } catch (err) {
          if (!isNotFound(err)) throw err;
          try {
            await client.send(new CreateBucketCommand({ Bucket: bucket }));
          } catch (createErr) {
            const name = (createErr as Error).name;
            // Another instance created it first.
            if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw createErr;
          }
        }
      }
    })().catch((err: unknown) => {
      buckets = undefined;
      throw storeError(where, 'creating the buckets', err);
    });
    return buckets;
  };

  const ready = async (bucket: Bucket, key?: string, signal?: AbortSignal): Promise<void> => {
    if (!isBucket(bucket)) throw new AppError('invalid_input', `Unknown bucket ${JSON.stringify(bucket)}`);
    if (key !== undefined) checkStoragePath(key);
    await untilAborted(ensureBuckets(), signal);
  };

  const head = async (bucket: Bucket, key: string): Promise<ObjectInfo | undefined> => {
    try {
      const res = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { key, size: res.ContentLength ?? 0, modified: res.LastModified?.getTime() ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw storeError(where, `reading ${bucket}/${key}`, err);
    }
  };

  return {
    backend: 's3',
    ensureBuckets,

    async put(bucket, key, body, size) {
      // A stream that fails (too large, not a zip) must surface as its own error, not the SDK's,
      // and the SDK does not end its request when the body fails: the store would wait for the
      // declared length forever. So listen from the first moment (the stream may already be
      // flowing) and abort the request.
      let bodyError: unknown;
      const abort = new AbortController();
      if (!Buffer.isBuffer(body)) {
        body.on('error', (err) => {
          bodyError ??= err;
          abort.abort(err);
        });
      }
      await ready(bucket, key);
      if (bodyError !== undefined) throw bodyError;
      // PutObject needs a length up front; without one the object is read into memory first.
      const payload = Buffer.isBuffer(body) || size !== undefined ? body : await collect(body);
      try {
        await uploads.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: payload,
            ContentLength: Buffer.isBuffer(payload) ? payload.length : size,
          }),
          { abortSignal: abort.signal },
        );
      } catch (err) {
        if (bodyError !== undefined) throw bodyError;
        throw storeError(where, `writing ${bucket}/${key}`, err);
      }
      if (bodyError !== undefined) throw bodyError;
      const info = await head(bucket, key);
      if (!info) throw new AppError('bad_gateway', `${where} lost ${bucket}/${key} right after writing it`);
      return info;
    },

    async get(bucket, key, signal) {
      await ready(bucket, key, signal);
      try {
        // The signal also ends the body's download: aborting destroys the request and its answer.
        const res = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key }),
          signal ? { abortSignal: signal } : {},
        );
        if (!res.Body) return Buffer.alloc(0);
        return Buffer.from(await res.Body.transformToByteArray());
      } catch (err) {
        signal?.throwIfAborted();
        if (isNotFound(err)) throw notFound('storage_path', key);
        throw storeError(where, `reading ${bucket}/${key}`, err);
      }
    },

    async stat(bucket, key) {
      await ready(bucket, key);
      return head(bucket, key);
    },

    async list(bucket, prefix = '') {
      await ready(bucket);
      const out: ObjectInfo[] = [];
      let token: string | undefined;
      try {
        do {
          const res = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              ...(prefix ? { Prefix: prefix } : {}),
              ...(token ? { ContinuationToken: token } : {}),
            }),
          );
          for (const o of res.Contents ?? []) {
            if (o.Key === undefined) continue;
            out.push({ key: o.Key, size: o.Size ?? 0, modified: o.LastModified?.getTime() ?? 0 });
          }
          token = res.IsTruncated ? res.NextContinuationToken : undefined;
        } while (token);
      } catch (err) {
        throw storeError(where, `listing ${bucket}`, err);
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    async delete(bucket, key) {
      await ready(bucket, key);
      // S3 deletes are silent about missing keys; the API promises a 404.
      if (!(await head(bucket, key))) throw notFound('storage_path', key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (err) {
        throw storeError(where, `deleting ${bucket}/${key}`, err);
      }
    },

    async check(signal) {
      try {
        await untilAborted(ensureBuckets(), signal);
        for (const bucket of BUCKETS) {
          await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: signal });
        }
        return { ok: true, backend: 's3', message: `${where}: buckets ${BUCKETS.join(', ')} reachable` };
      } catch (err) {
        return { ok: false, backend: 's3', message: `${where} is not usable: ${describe(err)}` };
      }
    },

    async close() {
      client.destroy();
      uploads.destroy();
    },
  };
}

function isNotFound(err: unknown): boolean {
  if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404) return true;
  const name = (err as Error | undefined)?.name;
  return name === 'NotFound' || name === 'NoSuchKey' || name === 'NoSuchBucket';
}

function describe(err: unknown): string {
  if (err instanceof AppError) return err.message;
  if (err instanceof S3ServiceException) {
    return `${err.name} (HTTP ${err.$metadata.httpStatusCode ?? '?'})`;
  }
  const e = err as NodeJS.ErrnoException;
  // The handler's own timeouts say which limit was hit; drop the package prefix of their message.
  if (e?.name === 'TimeoutError' && typeof e.message === 'string') {
    return `timed out: ${e.message.replace(/^@smithy\/node-http-handler - (\[\w+\] )?/, '')}`;
  }
  return e?.code ?? e?.name ?? String(err);
}

/**
 * `promise`, or the signal's reason as soon as it aborts. The shared bucket set-up is not
 * cancelled for one caller's signal, only no longer waited for.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function storeError(where: string, action: string, err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('bad_gateway', `${where} failed while ${action}: ${describe(err)}`, { cause: err });
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
