import http from 'node:http';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestS3Server, type TestS3Server } from '../../test/helpers/s3-server.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';

/** A tiny but real zip: one stored entry "a.log" containing "hi\n". */
const ZIP = Buffer.from(
  '504b03040a0000000000000021000000000003000000030000000500000061' +
    '2e6c6f6768690a504b01021e030a00000000000000210000000000030000000300' +
    '0000050000000000000000000000a481000000006' +
    '12e6c6f67504b0506000000000100010033000000260000000000',
  'hex',
);

/** A PUT whose path goes on the wire exactly as given. */
function rawPut(url: string, cookie: string, body: Buffer): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  const path = url.slice(url.indexOf('/', 'http://'.length));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: hostname, port, path, method: 'PUT', headers: { cookie, 'content-type': 'application/zip' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startTestS3Server();
});
afterAll(async () => {
  await s3.close();
});

describe.each(['local', 's3'] as const)('noise archive routes on %s storage', (backend) => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ARCHIVE_MAX_BYTES: '1000', ...(backend === 's3' ? s3.env : {}) } });
    cookie = (await signedInAs(t, ['noise_operator'])).cookie;
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (path: string, payload: Buffer | string, type = 'application/zip') =>
    t.app.inject({
      method: 'PUT',
      url: `/api/noise/archives/${path}`,
      headers: { cookie, 'content-type': type },
      payload,
    });

  it('stores an uploaded zip at its path and answers 201 with the storage_path', async () => {
    const res = await put('web/proxy-2026.zip', ZIP);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ storage_path: 'web/proxy-2026.zip' });
    expect(t.ctx.storage.backend).toBe(backend);
    expect((await t.ctx.storage.get('noise-archives', 'web/proxy-2026.zip')).equals(ZIP)).toBe(true);
  });

  it('accepts application/octet-stream too', async () => {
    expect((await put('octet.zip', ZIP, 'application/octet-stream')).statusCode).toBe(201);
  });

  it('lists archives with size, time and the jobs that use them', async () => {
    const res = await t.app.inject({ url: '/api/noise/archives?prefix=web/', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const [one, ...rest] = res.json();
    expect(rest).toEqual([]);
    expect(one).toMatchObject({ storage_path: 'web/proxy-2026.zip', size: ZIP.length, used_by: [] });
    expect(Number.isNaN(Date.parse(one.modified_at))).toBe(false);
  });

  it('refuses a body that is not a zip with 400 archive_invalid and stores nothing', async () => {
    const res = await put('not-a-zip.zip', 'hello, plain text pretending to be a zip');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('archive_invalid');
    expect(await t.ctx.storage.stat('noise-archives', 'not-a-zip.zip')).toBeUndefined();
  });

  it('refuses an archive above ARCHIVE_MAX_BYTES with 413', async () => {
    const big = Buffer.concat([ZIP, Buffer.alloc(1000 - ZIP.length + 1)]);
    const res = await put('big.zip', big);
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
    expect(await t.ctx.storage.stat('noise-archives', 'big.zip')).toBeUndefined();
  });

  it('refuses JSON and text bodies with 415', async () => {
    const json = await t.app.inject({
      method: 'PUT',
      url: '/api/noise/archives/x.zip',
      headers: { cookie },
      payload: { not: 'an archive' },
    });
    expect(json.statusCode).toBe(415);
    expect((await put('x.zip', 'PK\x03\x04', 'text/plain')).statusCode).toBe(415);
  });

  it.each([
    ['%2e%2e%2fescape.zip', 'must not contain a .. segment'],
    ['a/..%2fb.zip', 'must not contain a .. segment'],
    ['a//b.zip', 'must not contain empty segments (// or a trailing /)'],
    ['a%5cb.zip', 'must not contain a backslash'],
    ['a%00b.zip', 'must not contain control characters (NUL, newline, …)'],
    ['%2fabs.zip', 'must be relative (no leading /)'],
  ])('refuses the path %s with 400 naming it', async (path, problem) => {
    const res = await put(path, ZIP);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('Invalid storage path');
    expect(res.json().error.details.fields).toEqual({ storage_path: problem });
  });

  it('refuses .. segments a client sends without normalizing them (raw HTTP)', async () => {
    // URL parsers (including the one behind inject) resolve `a/../b` before sending; a hostile
    // client does not, so this goes over a real socket.
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    try {
      for (const raw of ['a/../../escape.zip', 'a/%2e%2e/%2e%2e/escape.zip', '..%2fescape.zip']) {
        const res = await rawPut(`${address}/api/noise/archives/${raw}`, cookie, ZIP);
        expect(res.status, raw).toBe(400);
        expect(JSON.parse(res.body).error.details.fields, raw).toEqual({
          storage_path: 'must not contain a .. segment',
        });
      }
    } finally {
      await t.app.server.close();
    }
    expect((await t.ctx.storage.list('noise-archives')).map((o) => o.key)).not.toContain('escape.zip');
  });

  it('deletes an archive, then answers 404 for it', async () => {
    await put('gone.zip', ZIP);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/noise/archives/gone.zip',
      headers: { cookie },
    });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ ok: true });
    const again = await t.app.inject({
      method: 'DELETE',
      url: '/api/noise/archives/gone.zip',
      headers: { cookie },
    });
    expect(again.statusCode).toBe(404);
  });

  it('writes uploads and deletions to the audit log', async () => {
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'outcome'])
      .where('action', 'like', 'noise.archive.%')
      .orderBy('id')
      .execute();
    expect(rows).toContainEqual({
      action: 'noise.archive.upload',
      target: 'web/proxy-2026.zip',
      outcome: 'success',
    });
    expect(rows).toContainEqual({ action: 'noise.archive.delete', target: 'gone.zip', outcome: 'success' });
  });
});

describe('noise archives on S3, end to end', () => {
  it('puts the uploaded bytes into the noise-archives bucket of the S3 store', async () => {
    const t = await buildTestApp({ env: s3.env });
    try {
      const { cookie } = await signedInAs(t, ['noise_operator']);
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/noise/archives/e2e/check.zip',
        headers: { cookie, 'content-type': 'application/zip' },
        payload: ZIP,
      });
      expect(res.statusCode).toBe(201);
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: s3.credentials,
      });
      const obj = await client.send(new GetObjectCommand({ Bucket: 'noise-archives', Key: 'e2e/check.zip' }));
      expect(Buffer.from(await obj.Body!.transformToByteArray()).equals(ZIP)).toBe(true);
      client.destroy();
    } finally {
      await t.close();
    }
  });
});
