import http from 'node:http';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildZip,
  endOfCentralDirectory,
  localHeader,
  zipMember,
} from '../../test/fixtures/archives/zip-builder.ts';
import { startTestS3Server, type TestS3Server } from '../../test/helpers/s3-server.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { TEST_DB_KIND } from '../../test/helpers/test-db.ts';

/** A tiny but real zip: one stored entry "a.log" containing "hi\n". */
const ZIP = Buffer.from(
  '504b03040a0000000000000021000000000003000000030000000500000061' +
    '2e6c6f6768690a504b01021e030a00000000000000210000000000030000000300' +
    '0000050000000000000000000000a481000000006' +
    '12e6c6f67504b0506000000000100010033000000260000000000',
  'hex',
);

/** Starts with a local header (PK\x03\x04) but its central directory lists no entry. */
function zipWithoutEntries(): Buffer {
  const local = Buffer.concat([
    localHeader(zipMember({ name: 'a.log', method: 0, data: 'hi\n' })),
    Buffer.from('hi\n'),
  ]);
  return Buffer.concat([local, endOfCentralDirectory(0, 0, local.length)]);
}

/** A zip whose central directory is whole but whose entry data is cut short. */
function truncatedData(): Buffer {
  const zip = buildZip([{ name: 'a.log', method: 0, data: 'x'.repeat(200) }]);
  const dataStart = 30 + 'a.log'.length;
  // Drop the last 150 bytes of the entry's data, keep the central directory and its end record.
  const cd = zip.subarray(dataStart + 200);
  const cut = Buffer.concat([zip.subarray(0, dataStart + 50), cd]);
  // The end record's central directory offset (bytes 16-19) moves back with the data.
  cut.writeUInt32LE(dataStart + 50, cut.length - 22 + 16);
  return cut;
}

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

// Without S3_ENDPOINT storage follows the database: local files on PGlite, the database on PostgreSQL.
const DEFAULT_BACKEND = TEST_DB_KIND === 'postgres' ? 'database' : 'local';

describe.each([DEFAULT_BACKEND, 's3'] as const)('noise archive routes on %s storage', (backend) => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        ARCHIVE_MAX_BYTES: '1000',
        ARCHIVE_MAX_ENTRIES: '3',
        ARCHIVE_MAX_ENTRY_BYTES: '2000',
        ...(backend === 's3' ? s3.env : {}),
      },
    });
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

  it.each([
    [
      'the zip signature followed by junk',
      Buffer.from('PK\x03\x04 and then anything at all'),
      /not a readable zip file/,
    ],
    [
      'a truncated zip (end of central directory cut off)',
      ZIP.subarray(0, ZIP.length - 10),
      /not a readable zip file/,
    ],
    ['a truncated zip (entry data cut off)', truncatedData(), /runs past the end of the archive/],
    ['a zip whose central directory lists no entries', zipWithoutEntries(), /the archive is empty/],
    [
      'a zip without a .log or .txt entry',
      buildZip([{ name: 'docs/' }, { name: 'README.md', data: 'hi' }]),
      /no usable entry.*README\.md.*not selected/,
    ],
    [
      'a zip with an encrypted entry',
      buildZip([{ name: 'a.log', data: 'x\n', flags: 0x0801 }]),
      /"a\.log" is encrypted/,
    ],
    [
      'a zip with a symbolic link',
      buildZip([{ name: 'a.log', data: '/etc/passwd', externalAttributes: (0o120777 << 16) >>> 0 }]),
      /"a\.log" is a symbolic link/,
    ],
  ])('refuses %s with 400 archive_invalid naming why, storing nothing', async (_what, body, why) => {
    const res = await put('broken.zip', body);
    expect(res.statusCode, res.body).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('archive_invalid');
    expect(error.message).toMatch(/^The upload is not a usable noise archive: /);
    expect(error.message).toMatch(why);
    expect(error.details.reason).toMatch(why);
    expect(await t.ctx.storage.stat('noise-archives', 'broken.zip')).toBeUndefined();
  });

  it('keeps the stored archive when a broken one is uploaded to its path', async () => {
    expect((await put('kept.zip', ZIP)).statusCode).toBe(201);
    const res = await put('kept.zip', ZIP.subarray(0, ZIP.length - 1));
    expect(res.statusCode).toBe(400);
    expect((await t.ctx.storage.get('noise-archives', 'kept.zip')).equals(ZIP)).toBe(true);
  });

  it('refuses at upload, with 413 and the reason of a noise run, an archive over the entry caps', async () => {
    const many = buildZip(['a.log', 'b.log', 'c.log', 'd.log'].map((name) => ({ name, data: 'x\n' })));
    const count = await put('many.zip', many);
    expect(count.statusCode).toBe(413);
    expect(count.json().error).toMatchObject({
      code: 'payload_too_large',
      message: 'the archive exceeds the limit of 3 entries (3)',
    });
    const big = buildZip([{ name: 'a.log', data: Buffer.alloc(2001, 0x41) }]);
    const size = await put('big-entry.zip', big);
    expect(size.statusCode).toBe(413);
    expect(size.json().error.message).toBe(
      'archive entry "a.log" exceeds the limit of 2000 uncompressed bytes per entry (2000)',
    );
    expect(await t.ctx.storage.stat('noise-archives', 'many.zip')).toBeUndefined();
    expect(await t.ctx.storage.stat('noise-archives', 'big-entry.zip')).toBeUndefined();
  });

  it('accepts a deflated zip of LEEF logs beside skipped entries', async () => {
    const zip = buildZip([
      { name: 'logs/', data: '' },
      { name: 'logs/fw.log', data: 'LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.5\n' },
      { name: 'README.md', data: 'notes' },
    ]);
    expect((await put('deflated.zip', zip)).statusCode).toBe(201);
    expect((await t.ctx.storage.get('noise-archives', 'deflated.zip')).equals(zip)).toBe(true);
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
    ['%2fabs.zip', 'must be relative (no leading /)'],
  ])('refuses the path %s with 400 naming it', async (path, problem) => {
    const res = await put(path, ZIP);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('Invalid storage path');
    expect(res.json().error.details.fields).toEqual({ storage_path: problem });
  });

  it('refuses a control character in the path with 400 naming storage_path', async () => {
    const res = await put('a%00b.zip', ZIP);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual({
      in: 'params',
      fields: { storage_path: 'must not contain control characters (U+0000 at position 1)' },
    });
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

describe('noise uploads and the download slots', () => {
  it('take one of the ARCHIVE_MAX_CONCURRENT slots: 503 with Retry-After while all are held', async () => {
    const t = await buildTestApp({ env: { ARCHIVE_MAX_CONCURRENT: '1' } });
    try {
      const { cookie } = await signedInAs(t, ['noise_operator']);
      const upload = () =>
        t.app.inject({
          method: 'PUT',
          url: '/api/noise/archives/slots/a.zip',
          headers: { cookie, 'content-type': 'application/zip' },
          payload: ZIP,
        });
      const held = t.ctx.downloads.enter();
      const refused = await upload();
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('10');
      expect(refused.json().error.code).toBe('unavailable');
      await held.release();
      expect((await upload()).statusCode).toBe(201);
      // The upload gave its slot back.
      const again = t.ctx.downloads.enter();
      await again.release();
    } finally {
      await t.close();
    }
  });
});
