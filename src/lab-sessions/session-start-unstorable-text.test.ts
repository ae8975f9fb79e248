// A SIEM's answer may hold text PostgreSQL refuses (NUL, or a lone surrogate once an emoji is cut
// in half). It reaches the failed start's answer and its audit record; the record must still be
// written, or the start would look interrupted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';

const T0 = Date.UTC(2024, 5, 1, 10, 0, 0);
const ARCHIVE = buildZip([
  {
    name: 'e/0.log',
    data: Array.from(
      { length: 10 },
      (_, i) => `LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.${i}\tdevTime=${T0 + i * 1000}`,
    ).join('\n'),
  },
]);

describe('a session start whose SIEM answers text the database refuses', () => {
  let t: TestApp;
  let files: Server;
  let siem: Server;
  let url = '';
  let admin = '';
  let answer = '';

  beforeAll(async () => {
    files = createServer((_q, r) => r.writeHead(200, { 'content-type': 'application/zip' }).end(ARCHIVE));
    await new Promise<void>((res) => files.listen(0, '127.0.0.1', res));
    const port = (files.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}/x.zip`;
    // A collector refusing every batch as bad data (code 6), with the body under test.
    siem = createServer((req, r) => {
      req.resume();
      req.on('end', () => r.writeHead(400, { 'content-type': 'application/json' }).end(answer));
    });
    await new Promise<void>((res) => siem.listen(0, '127.0.0.1', res));
    const siemUrl = `http://127.0.0.1:${(siem.address() as AddressInfo).port}`;
    t = await buildTestApp({
      env: { ARCHIVE_ALLOW_HTTP: 'true', ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${port}` },
    });
    admin = (await signedInAs(t, ['admin'])).cookie;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/destinations',
      headers: { cookie: admin },
      payload: { name: 'odd', driver: 'vendorA_hec', url: siemUrl, token: 'tok-123456', index: 'lab' },
    });
    expect(res.statusCode, res.body).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    files.close();
    siem.close();
  });

  it.each([
    ['a NUL in a JSON answer', JSON.stringify({ text: 'Invalid data format \u0000 here', code: 6 })],
    ['an emoji cut at the message length', JSON.stringify({ text: `${'x'.repeat(119)}😀😀`, code: 6 })],
    ['an emoji cut in a plain-text answer', `${'x'.repeat(119)}😀 more`],
  ])('still audits the end of the start: %s', async (_name, body) => {
    answer = body;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/sessions/start',
      headers: { cookie: admin },
      payload: { archiveDownloadUrl: url, siem: 'odd' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.body.isWellFormed()).toBe(true);
    expect(JSON.stringify(res.json())).not.toMatch(/\\ud83d(?!\\ude00)/i);
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .select(['id', 'outcome', 'details'])
      .where('action', '=', 'session.start')
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    const [end, started] = rows;
    expect(started?.outcome).toBe('started');
    expect(end?.outcome).toBe('failure');
    expect((end?.details as { started_id?: string } | undefined)?.started_id).toBe(String(started?.id));
  });
});
