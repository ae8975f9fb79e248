import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { testTempDir } from './test-app.ts';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

// s3rver ships no type declarations; it is loaded as the CommonJS module it is.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

/** A local S3-compatible server (s3rver) for tests. */
export interface TestS3Server {
  /** The environment that points Socdrill at it (S3_ENDPOINT and friends). */
  readonly env: Record<string, string>;
  readonly endpoint: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  close(): Promise<void>;
}

/** Starts s3rver on a random loopback port with its data in a private temporary folder. */
export async function startTestS3Server(): Promise<TestS3Server> {
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: testTempDir('s3rver-'),
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    credentials,
    env: {
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    close: () => server.close(),
  };
}
