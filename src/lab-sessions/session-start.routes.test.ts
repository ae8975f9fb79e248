import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { buildTestApp, signedInAs, TEST_NOW, type TestApp } from '../../test/helpers/test-app.ts';
import { type BulkSimulator, startBulkSimulator } from '../../test/simulators/bulk-simulator.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { type SyslogSimulator, startSyslogSimulator } from '../../test/simulators/syslog-simulator.ts';

const HOUR = 3_600_000;
const NEWEST = TEST_NOW + 2 * HOUR;
const zip = (entries: Array<[string, string]>) => buildZip(entries.map(([name, data]) => ({ name, data })));

// Recorded events (2024-06-01, UTC); the newest is devTime 12:00:00.000 in `b.txt`.
const T = Date.UTC(2024, 5, 1, 10, 0, 0);
const LATEST = Date.UTC(2024, 5, 1, 12, 0, 0);
const SHIFT = NEWEST - LATEST;
const LEEF_A = [
  `LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.5\tdst=192.0.2.10\tdstPort=443\tdevTime=${T}`,
  `<134>Jun  1 10:30:00 fw-edge LEEF:2.0|Acme|Firewall|9.1|allow|^|src=10.1.1.6^devTime=${(T + 0.5 * HOUR) / 1000}`,
  '<14>1 2024-06-01T11:00:00.250Z fw-core LEEF:2.0|Acme|Firewall|9.1|drop|^|src=10.1.1.7^proto=TCP',
  'LEEF:1.0|Acme|Firewall|9.1|note|msg=no time at all',
].join('\r\n');
const LEEF_B =
  'LEEF:2.0|Acme|Proxy|2.0|get|x09|devTime=Jun 01 2024 12:00:00.000 UTC\tdevTimeFormat=MMM dd yyyy HH:mm:ss.SSS z\turl=https://example.test/\n';
const LEEF_ARCHIVE = zip([
  ['exercise/a.log', LEEF_A],
  ['exercise/b.txt', LEEF_B],
  ['exercise/notes.md', 'not shipped'],
  ['__MACOSX/exercise/._a.log', 'junk'],
]);
const ECS_ARCHIVE = zip([
  [
    'docs/a.json',
    '[{"@timestamp":"2024-06-01T11:00:00.000Z","event":{"action":"logon"},"user":{"name":"ana"}},{"@timestamp":"2024-06-01T12:00:00+02:00","host":{"name":"ws1"}}]',
  ],
  [
    'docs/b.ndjson',
    '{"@timestamp":"2024-06-01T12:00:00.000Z","source":{"ip":"10.0.0.1"},"event":{"created":"2024-06-01T12:00:05.000Z"}}\n',
  ],
]);

describe('POST /api/sessions/start', () => {
  let t: TestApp;
  let author: string;
  let hec: HecSimulator;
  let bulk: BulkSimulator;
  let syslog: SyslogSimulator;
  let octet: SyslogSimulator;
  let files: Server;
  let filesPort = 0;
  const served = new Map<string, Buffer>();
  let canaryHits = 0;
  let canary: Server;
  let canaryPort = 0;
  let closedPort = 0;

  beforeAll(async () => {
    files = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (path === '/redirect-private.zip') {
        res.writeHead(302, { location: `http://127.0.0.1:${canaryPort}/x.zip` }).end();
        return;
      }
      if (path === '/redirect-metadata.zip') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/x.zip' }).end();
        return;
      }
      const body = served.get(path);
      if (!body) res.writeHead(404).end('missing');
      else res.writeHead(200, { 'content-type': 'application/zip' }).end(body);
    });
    canary = createServer((_req, res) => res.end());
    canary.on('connection', () => canaryHits++);
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    filesPort = (files.address() as AddressInfo).port;
    canaryPort = (canary.address() as AddressInfo).port;
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));

    hec = await startHecSimulator({ indexes: ['lab', 'lab-override'] });
    bulk = await startBulkSimulator({ flavor: 'elasticsearch' });
    syslog = await startSyslogSimulator({ framing: 'lf' });
    octet = await startSyslogSimulator({ framing: 'octet_counting' });
    t = await buildTestApp({
      env: {
        ARCHIVE_ALLOW_HTTP: 'true',
        ARCHIVE_ALLOWED_HOSTS: `127.0.0.1:${filesPort}`,
        ARCHIVE_MAX_BYTES: '200000',
        ARCHIVE_MAX_ENTRY_BYTES: '100000',
        ARCHIVE_MAX_ENTRIES: '20',
        ARCHIVE_MAX_RATIO: '200',
      },
    });
    const admin = (await signedInAs(t, ['admin'])).cookie;
    author = (await signedInAs(t, ['author'])).cookie;
    const create = async (body: object) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/destinations',
        headers: { cookie: admin },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(201);
    };
    await create({
      name: 'splunk',
      driver: 'vendorA_hec',
      url: hec.url,
      token: hec.token,
      index: 'lab',
      sourcetype: 'leef',
    });
    await create({
      name: 'elastic',
      driver: 'vendorB_bulk',
      url: bulk.url,
      api_key: bulk.apiKey,
      index: 'lab-events',
    });
    await create({
      name: 'qradar',
      driver: 'syslog_tcp',
      host: syslog.host,
      port: syslog.port,
      source_identity: 'lab-collector',
    });
    await create({
      name: 'qradar-5424-octet',
      driver: 'syslog_tcp',
      host: octet.host,
      port: octet.port,
      source_identity: 'lab-collector',
      syslog_format: 'rfc5424',
      framing: 'octet_counting',
      header_mode: 'force_synthesize',
    });
    await create({
      name: 'qradar-raw',
      driver: 'syslog_tcp',
      host: syslog.host,
      port: syslog.port,
      header_mode: 'preserve_raw',
    });
    await create({ name: 'qradar-anon', driver: 'syslog_tcp', host: syslog.host, port: syslog.port });
    await create({
      name: 'qradar-anon-forced',
      driver: 'syslog_tcp',
      host: syslog.host,
      port: syslog.port,
      header_mode: 'force_synthesize',
    });
    await create({
      name: 'nowhere',
      driver: 'syslog_tcp',
      host: '127.0.0.1',
      port: closedPort,
      source_identity: 'x',
    });
    await create({ name: 'off', driver: 'syslog_tcp', host: '127.0.0.1', port: 9, enabled: false });
    served.set('/leef.zip', LEEF_ARCHIVE);
    served.set('/ecs.zip', ECS_ARCHIVE);
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([hec.close(), bulk.close(), syslog.close(), octet.close()]);
    await new Promise((r) => files.close(r));
    await new Promise((r) => canary.close(r));
  });
  beforeEach(() => {
    hec.store.clear();
    bulk.store.clear();
    syslog.store.clear();
    octet.store.clear();
  });

  const start = (payload: object, cookie = author) =>
    t.app.inject({ method: 'POST', url: '/api/sessions/start', headers: { cookie }, payload });
  const url = (path: string) => `http://127.0.0.1:${filesPort}${path}?X-Amz-Signature=secret-signature`;

  it('ships LEEF to an HEC SIEM: exact answer, one shift, time from each rebased event', async () => {
    const res = await start({ archiveDownloadUrl: url('/leef.zip'), siem: 'splunk' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      ok: true,
      siem: 'splunk',
      driver: 'vendorA_hec',
      events: 5,
      files: 2,
      shiftDays: SHIFT / 86_400_000,
    });
    const events = hec.store.searchable('lab');
    expect(events).toHaveLength(5);
    expect(events.map((e) => e.time)).toEqual([
      (T + SHIFT) / 1000,
      (T + 0.5 * HOUR + SHIFT) / 1000,
      (Date.UTC(2024, 5, 1, 11, 0, 0, 250) + SHIFT) / 1000,
      events[3]?.time, // no readable time: the shipping time
      NEWEST / 1000,
    ]);
    expect(events[3]?.time).toBe(TEST_NOW / 1000);
    expect(events.map((e) => e.raw)).toEqual([
      `LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.5\tdst=192.0.2.10\tdstPort=443\tdevTime=${T + SHIFT}`,
      `<134>Mar  1 12:30:00 fw-edge LEEF:2.0|Acme|Firewall|9.1|allow|^|src=10.1.1.6^devTime=${(T + 0.5 * HOUR + SHIFT) / 1000}`,
      '<14>1 2026-03-01T13:00:00.250Z fw-core LEEF:2.0|Acme|Firewall|9.1|drop|^|src=10.1.1.7^proto=TCP',
      'LEEF:1.0|Acme|Firewall|9.1|note|msg=no time at all',
      'LEEF:2.0|Acme|Proxy|2.0|get|x09|devTime=Mar 01 2026 14:00:00.000 UTC\tdevTimeFormat=MMM dd yyyy HH:mm:ss.SSS z\turl=https://example.test/',
    ]);
    expect(events.every((e) => e.sourcetype === 'leef')).toBe(true);
  });

  it('ships to the index named by indexName on HEC', async () => {
    const res = await start({
      archiveDownloadUrl: url('/leef.zip'),
      siem: 'splunk',
      indexName: 'lab-override',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(hec.store.searchable('lab-override')).toHaveLength(5);
    expect(hec.store.searchable('lab')).toHaveLength(0);
  });

  it('indexes ECS documents from .json arrays and .ndjson into the bulk SIEM, rebased', async () => {
    const res = await start({
      archiveDownloadUrl: url('/ecs.zip'),
      siem: 'elastic',
      // Ignored for this driver (spec 4.2), so not checked either, even when empty.
      syslogSourceIdentity: '',
    });
    expect(res.statusCode, res.body).toBe(200);
    const shift = NEWEST - Date.UTC(2024, 5, 1, 12, 0, 0);
    expect(res.json()).toEqual({
      ok: true,
      siem: 'elastic',
      driver: 'vendorB_bulk',
      events: 3,
      files: 2,
      shiftDays: shift / 86_400_000,
    });
    expect(bulk.store.sources('lab-events')).toEqual([
      { '@timestamp': '2026-03-01T13:00:00.000Z', event: { action: 'logon' }, user: { name: 'ana' } },
      { '@timestamp': '2026-03-01T14:00:00+02:00', host: { name: 'ws1' } },
      {
        '@timestamp': '2026-03-01T14:00:00.000Z',
        source: { ip: '10.0.0.1' },
        event: { created: '2026-03-01T14:00:05.000Z' },
      },
    ]);
  });

  it('synthesizes RFC 3164 headers for bare lines and keeps existing ones (synthesize_if_missing)', async () => {
    const res = await start({
      archiveDownloadUrl: url('/leef.zip'),
      siem: 'qradar',
      indexName: '',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ driver: 'syslog_tcp', events: 5, files: 2 });
    await syslog.waitForMessages(5);
    expect(syslog.store.texts()).toEqual([
      `<134>Mar  1 12:00:00 lab-collector LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.5\tdst=192.0.2.10\tdstPort=443\tdevTime=${T + SHIFT}`,
      `<134>Mar  1 12:30:00 fw-edge LEEF:2.0|Acme|Firewall|9.1|allow|^|src=10.1.1.6^devTime=${(T + 0.5 * HOUR + SHIFT) / 1000}`,
      '<14>1 2026-03-01T13:00:00.250Z fw-core LEEF:2.0|Acme|Firewall|9.1|drop|^|src=10.1.1.7^proto=TCP',
      '<134>Mar  1 12:00:00 lab-collector LEEF:1.0|Acme|Firewall|9.1|note|msg=no time at all',
      '<134>Mar  1 14:00:00 lab-collector LEEF:2.0|Acme|Proxy|2.0|get|x09|devTime=Mar 01 2026 14:00:00.000 UTC\tdevTimeFormat=MMM dd yyyy HH:mm:ss.SSS z\turl=https://example.test/',
    ]);
  });

  it('forces synthesized headers with syslogSourceIdentity as HOSTNAME, overriding the destination', async () => {
    const res = await start({
      archiveDownloadUrl: url('/leef.zip'),
      siem: 'qradar-raw',
      syslogSourceIdentity: 'lab-ex42-qradar',
    });
    expect(res.statusCode, res.body).toBe(200);
    await syslog.waitForMessages(5);
    const texts = syslog.store.texts();
    expect(texts.map((x) => x.slice(0, x.indexOf('LEEF:')))).toEqual([
      '<134>Mar  1 12:00:00 lab-ex42-qradar ',
      '<134>Mar  1 12:30:00 lab-ex42-qradar ',
      '<134>Mar  1 13:00:00 lab-ex42-qradar ',
      '<134>Mar  1 12:00:00 lab-ex42-qradar ',
      '<134>Mar  1 14:00:00 lab-ex42-qradar ',
    ]);
  });

  it('answers 400 source_identity_required before sending anything when headers need a HOSTNAME nobody named', async () => {
    const bare = await start({ archiveDownloadUrl: url('/leef.zip'), siem: 'qradar-anon' });
    expect(bare.statusCode, bare.body).toBe(400);
    expect(bare.json().error).toMatchObject({
      code: 'source_identity_required',
      details: { siem: 'qradar-anon', lines: 3, events: 5 },
    });
    expect(bare.json().error.message).toMatch(/3 of 5 lines carry no syslog header.*source_identity/);
    const forced = await start({ archiveDownloadUrl: url('/leef.zip'), siem: 'qradar-anon-forced' });
    expect(forced.statusCode, forced.body).toBe(400);
    expect(forced.json().error.details).toEqual({ siem: 'qradar-anon-forced', lines: 5, events: 5 });
    expect(forced.json().error.message).toMatch(
      /every line would need a synthesized header \(force_synthesize\)/,
    );
    // A line is judged as the frame writer judges it: a prefix that is no syslog header, or a line
    // that is no LEEF at all, needs a header as much as a bare LEEF line.
    served.set(
      '/odd.zip',
      zip([
        [
          'a.log',
          [
            '<13>Mar  1 12:00:00 fw-edge LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.5',
            'fw-edge: LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.6',
            'plain text, no LEEF here',
          ].join('\n'),
        ],
      ]),
    );
    const odd = await start({ archiveDownloadUrl: url('/odd.zip'), siem: 'qradar-anon' });
    expect(odd.statusCode, odd.body).toBe(400);
    expect(odd.json().error.details).toEqual({ siem: 'qradar-anon', lines: 2, events: 3 });
    // The same archive goes out once the request names the identity.
    const named = await start({
      archiveDownloadUrl: url('/leef.zip'),
      siem: 'qradar-anon',
      syslogSourceIdentity: 'lab-ex7',
    });
    expect(named.statusCode, named.body).toBe(200);
    await syslog.waitForMessages(5);
    expect(syslog.store.texts()).toHaveLength(5);
    expect(syslog.store.texts().every((x) => x.includes(' lab-ex7 LEEF:'))).toBe(true);
  });

  it('keeps lines as they are with preserve_raw', async () => {
    const res = await start({ archiveDownloadUrl: url('/leef.zip'), siem: 'qradar-raw' });
    expect(res.statusCode, res.body).toBe(200);
    await syslog.waitForMessages(5);
    expect(syslog.store.texts()[0]).toBe(
      `LEEF:1.0|Acme|Firewall|9.1|deny|src=10.1.1.5\tdst=192.0.2.10\tdstPort=443\tdevTime=${T + SHIFT}`,
    );
  });

  it('writes RFC 5424 headers with octet-counting framing when the destination says so', async () => {
    const res = await start({ archiveDownloadUrl: url('/leef.zip'), siem: 'qradar-5424-octet' });
    expect(res.statusCode, res.body).toBe(200);
    await octet.waitForMessages(5);
    expect(octet.store.messages.every((m) => m.framing === 'octet_counting')).toBe(true);
    expect(octet.store.texts()[4]).toBe(
      '<134>1 2026-03-01T14:00:00.000Z lab-collector - - - LEEF:2.0|Acme|Proxy|2.0|get|x09|devTime=Mar 01 2026 14:00:00.000 UTC\tdevTimeFormat=MMM dd yyyy HH:mm:ss.SSS z\turl=https://example.test/',
    );
  });

  it('answers 400 naming each bad or missing field, before any download', async () => {
    const cases: Array<[object, string[]]> = [
      [{}, ['archiveDownloadUrl', 'siem']],
      [{ archiveDownloadUrl: url('/leef.zip') }, ['siem']],
      [{ archiveDownloadUrl: url('/leef.zip'), siem: 'splunk', extra: 1 }, ['extra']],
      [{ archiveDownloadUrl: 42, siem: 'splunk' }, ['archiveDownloadUrl']],
      [{ archiveDownloadUrl: url('/leef.zip'), siem: 'no-such-siem' }, ['siem']],
      [{ archiveDownloadUrl: url('/leef.tar.gz'), siem: 'splunk' }, ['archiveDownloadUrl']],
      [{ archiveDownloadUrl: url('/leef.txt'), siem: 'splunk' }, ['archiveDownloadUrl']],
      [{ archiveDownloadUrl: 'leef.zip', siem: 'splunk' }, ['archiveDownloadUrl']],
      [
        { archiveDownloadUrl: `http://u:p@127.0.0.1:${filesPort}/leef.zip`, siem: 'splunk' },
        ['archiveDownloadUrl'],
      ],
      [{ archiveDownloadUrl: url('/leef.zip'), siem: 'splunk', indexName: 'Bad Index' }, ['indexName']],
      [
        { archiveDownloadUrl: url('/leef.zip'), siem: 'qradar', syslogSourceIdentity: 'has space' },
        ['syslogSourceIdentity'],
      ],
      [{ archiveDownloadUrl: url('/leef.zip'), siem: 'splunk', indexName: '' }, ['indexName']],
      [
        { archiveDownloadUrl: url('/leef.zip'), siem: 'qradar', syslogSourceIdentity: '' },
        ['syslogSourceIdentity'],
      ],
      [
        { archiveDownloadUrl: url('/leef.zip'), siem: 'qradar', syslogSourceIdentity: 'x'.repeat(256) },
        ['syslogSourceIdentity'],
      ],
      // Every bad field at once, not the first one found, the schema's and ours together.
      [{ archiveDownloadUrl: url('/leef.tar.gz') }, ['archiveDownloadUrl', 'siem']],
      [{ archiveDownloadUrl: url('/leef.tar.gz'), siem: 'no-such-siem' }, ['archiveDownloadUrl', 'siem']],
      [
        { archiveDownloadUrl: url('/leef.txt'), siem: 'splunk', indexName: 'Bad Index' },
        ['archiveDownloadUrl', 'indexName'],
      ],
    ];
    for (const [body, fields] of cases) {
      const res = await start(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().ok).toBe(false);
      expect(Object.keys(res.json().error.details.fields).sort(), JSON.stringify(body)).toEqual(fields);
    }
    const tarGz = await start({ archiveDownloadUrl: url('/leef.tar.gz'), siem: 'splunk' });
    expect(tarGz.json().error.message).toMatch(/\.tar\.gz is not accepted/);
    expect(hec.store.events).toHaveLength(0);
  });

  it('answers 401 without a session and 403 without manage_exercises, before validating', async () => {
    const anon = await t.app.inject({
      method: 'POST',
      url: '/api/sessions/start',
      payload: { nonsense: true },
    });
    expect(anon.statusCode).toBe(401);
    const analyst = (await signedInAs(t, ['analyst'])).cookie;
    const denied = await start({ nonsense: true }, analyst);
    expect(denied.statusCode).toBe(403);
    const bearer = await t.app.inject({
      method: 'POST',
      url: '/api/sessions/start',
      headers: { cookie: author, authorization: 'Bearer whatever-token-value' },
      payload: { archiveDownloadUrl: url('/leef.zip'), siem: 'splunk' },
    });
    expect(bearer.statusCode).toBe(401);
    expect(hec.store.events).toHaveLength(0);
  });

  it('refuses archive URLs that reach private, loopback or metadata addresses (SSRF), opening no socket', async () => {
    const p = canaryPort;
    const blocked = [
      `http://127.0.0.1:${p}/a.zip`,
      `http://2130706433:${p}/a.zip`,
      `http://0x7f000001:${p}/a.zip`,
      `http://0x7f.0.0.1:${p}/a.zip`,
      `http://0177.0.0.1:${p}/a.zip`,
      `http://017700000001:${p}/a.zip`,
      `http://[::1]:${p}/a.zip`,
      `http://[::ffff:127.0.0.1]:${p}/a.zip`,
      `http://localhost:${p}/a.zip`,
      'http://169.254.169.254/latest/meta-data/a.zip',
      'http://[::ffff:169.254.169.254]/a.zip',
      // IPv4-translated (RFC 2765); the URL parser rewrites it as [::ffff:0:7f00:1].
      `http://[::ffff:0:127.0.0.1]:${p}/a.zip`,
      'http://[64:ff9b::169.254.169.254]/a.zip',
      'http://[2002:a00:1::1]/a.zip',
      'http://10.0.0.1/a.zip',
      'http://192.168.1.1/a.zip',
    ];
    // A DNS name (from /etc/hosts) that resolves to a loopback address.
    const own = hostname();
    if ((await lookup(own).catch(() => ({ address: '' }))).address.startsWith('127.'))
      blocked.push(`http://${own}:${p}/a.zip`);
    for (const target of blocked) {
      const res = await start({ archiveDownloadUrl: target, siem: 'splunk' });
      expect(res.statusCode, target).toBe(400);
      expect(res.json().error.code, target).toBe('archive_url_blocked');
    }
    for (const path of ['/redirect-private.zip', '/redirect-metadata.zip']) {
      const res = await start({ archiveDownloadUrl: url(path), siem: 'splunk' });
      expect(res.statusCode, path).toBe(400);
      expect(res.json().error.code).toBe('archive_url_blocked');
    }
    expect(canaryHits).toBe(0);
    expect(hec.store.events).toHaveLength(0);
  });

  it('refuses an archive with nothing to ship for the destination (400 no_events), never ok with zero events', async () => {
    served.set(
      '/empty.zip',
      zip([
        ['README.md', 'hello'],
        ['.hidden.log', 'LEEF:1.0|a|b|c|d|x=1'],
      ]),
    );
    served.set('/ecs-only.zip', ECS_ARCHIVE);
    served.set('/blank.zip', zip([['a.log', '\r\n\r\n']]));
    for (const [path, siem] of [
      ['/empty.zip', 'splunk'],
      ['/ecs-only.zip', 'qradar'],
      ['/blank.zip', 'splunk'],
      ['/leef.zip', 'elastic'],
    ]) {
      const res = await start({ archiveDownloadUrl: url(path as string), siem: siem as string });
      expect(res.statusCode, path).toBe(400);
      expect(res.json().error.code, path).toBe('no_events');
    }
  });

  it('refuses a corrupt archive, an archive over the size limit and a failed download, without the signature', async () => {
    served.set('/corrupt.zip', Buffer.from('PK\x03\x04 definitely not a zip'));
    served.set(
      '/huge.zip',
      zip([
        ['a.log', 'x'.repeat(10)],
        ['b.log', randomBytes(250_000).toString('base64')],
      ]),
    );
    const corrupt = await start({ archiveDownloadUrl: url('/corrupt.zip'), siem: 'splunk' });
    expect(corrupt.statusCode).toBe(400);
    expect(corrupt.json().error.code).toBe('archive_invalid');
    const huge = await start({ archiveDownloadUrl: url('/huge.zip'), siem: 'splunk' });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('payload_too_large');
    const missing = await start({ archiveDownloadUrl: url('/missing.zip'), siem: 'splunk' });
    expect(missing.statusCode).toBe(500);
    expect(missing.json().error.code).toBe('archive_download_failed');
    for (const res of [corrupt, huge, missing]) expect(res.body).not.toContain('secret-signature');
  });

  it('applies the configured entry size, entry count and ratio limits with 413', async () => {
    const line = 'LEEF:2.0|Lab|FW|1.0|1|devTime=1700000000000\n';
    served.set(
      '/big-entry.zip',
      zip([
        ['a.log', line],
        ['b.log', randomBytes(90_000).toString('base64')],
      ]),
    );
    served.set(
      '/many.zip',
      zip(
        Array.from({ length: 21 }, (_, i): [string, string] => [`e${String(i).padStart(2, '0')}.log`, line]),
      ),
    );
    served.set('/dense.zip', zip([['a.log', line.repeat(2_000)]]));
    const cases: Array<[string, RegExp]> = [
      ['/big-entry.zip', /100000 uncompressed bytes per entry/],
      ['/many.zip', /20 entries/],
      ['/dense.zip', /200:1/],
    ];
    for (const [path, message] of cases) {
      const res = await start({ archiveDownloadUrl: url(path), siem: 'splunk' });
      expect(res.statusCode, path).toBe(413);
      expect(res.json().error.code, path).toBe('payload_too_large');
      expect(res.json().error.message, path).toMatch(message);
    }
    served.set(
      '/twenty.zip',
      zip(Array.from({ length: 20 }, (_, i): [string, string] => [`e${i}.log`, line])),
    );
    const twenty = await start({ archiveDownloadUrl: url('/twenty.zip'), siem: 'splunk' });
    expect(twenty.statusCode, twenty.body).toBe(200);
    expect(twenty.json()).toMatchObject({ events: 20, files: 20 });
  });

  it('answers 500 with the counts when the SIEM is unreachable or refuses the events', async () => {
    const down = await start({ archiveDownloadUrl: url('/leef.zip'), siem: 'nowhere' });
    expect(down.statusCode).toBe(500);
    expect(down.json().error.code).toBe('siem_error');
    expect(down.json().error.message).toContain('"nowhere"');
    expect(down.json().error.details).toMatchObject({ siem: 'nowhere', events_shipped: 0, events_failed: 5 });
    hec.store.clear();
    const badIndex = await start({
      archiveDownloadUrl: url('/leef.zip'),
      siem: 'splunk',
      indexName: 'does-not-exist',
    });
    expect(badIndex.statusCode).toBe(500);
    expect(badIndex.json().error.details).toMatchObject({ events_shipped: 0, events_failed: 5 });
    expect(badIndex.json().error.message).toMatch(/does-not-exist/);
  });

  it('refuses a disabled destination with 409 destination_disabled', async () => {
    const res = await start({ archiveDownloadUrl: url('/leef.zip'), siem: 'off' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'destination_disabled', details: { siem: 'off' } });
  });

  it('audits refused starts too, whichever check refused them', async () => {
    const count = async () =>
      (
        await t.ctx.db
          .selectFrom('audit_log')
          .select('outcome')
          .where('action', '=', 'session.start')
          .where('outcome', '=', 'failure')
          .execute()
      ).length;
    for (const [body, status] of [
      [{ archiveDownloadUrl: url('/leef.zip'), siem: 'ghost' }, 400],
      [{ archiveDownloadUrl: url('/leef.zip'), siem: 'off' }, 409],
      [{ archiveDownloadUrl: url('/leef.zip'), siem: 'splunk', indexName: 'Bad Index' }, 400],
      [{ archiveDownloadUrl: 'not a url', siem: 'splunk' }, 400],
      [{ archiveDownloadUrl: url('/leef.zip') }, 400],
      [{ archiveDownloadUrl: url('/leef.zip'), siem: 'splunk', extra: 1 }, 400],
    ] as const) {
      const before = await count();
      const res = await start(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(await count(), JSON.stringify(body)).toBe(before + 1);
    }
    const ghost = await t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'session.start')
      .where('target', '=', 'ghost')
      .executeTakeFirst();
    expect(ghost?.details).toMatchObject({ code: 'invalid_input' });
  });

  it('audits every start with who, SIEM, URL host and counts, never the signature', async () => {
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'session.start')
      .orderBy('id')
      .execute();
    expect(rows.length).toBeGreaterThan(5);
    const ok = rows.find((r) => r.outcome === 'success' && r.target === 'splunk');
    expect(ok?.details).toMatchObject({
      events: 5,
      events_shipped: 5,
      files: 2,
      url: `http://127.0.0.1:${filesPort}/leef.zip`,
    });
    expect(ok?.actor_label).toMatch(/@example\.test$/);
    expect(rows.some((r) => r.outcome === 'failure' && r.target === 'nowhere')).toBe(true);
    expect(JSON.stringify(rows)).not.toContain('secret-signature');
  });
});
