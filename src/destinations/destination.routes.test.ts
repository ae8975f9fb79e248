import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { startBulkSimulator } from '../../test/simulators/bulk-simulator.ts';
import { startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { loadDestination } from './destination-service.ts';

const HEC_TOKEN = 'hec-token-9f1c2b7e-secret';
const MGMT_TOKEN = 'mgmt-token-4a7d-secret';
const API_KEY = 'bulk-api-key-secret-55';
const QTOKEN = 'siemq-token-secret-77';

describe('SIEM destinations API', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await buildTestApp();
    cookie = (await signedInAs(t, ['admin'])).cookie;
  });
  afterAll(async () => {
    await t.close();
  });
  const req = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

  it('creates an HEC destination with defaults and shows which secrets are set, never their values', async () => {
    const res = await req('POST', '/api/destinations', {
      name: 'splunk-lab',
      driver: 'vendorA_hec',
      url: 'https://siem-a:8088',
      token: HEC_TOKEN,
      management_url: 'https://siem-a:8089',
      management_token: MGMT_TOKEN,
      index: 'lab',
    });
    expect(res.statusCode).toBe(201);
    const view = res.json();
    expect(view).toMatchObject({
      name: 'splunk-lab',
      driver: 'vendorA_hec',
      payload_format: 'leef',
      index: 'lab',
      enabled: true,
      url: 'https://siem-a:8088',
      management_url: 'https://siem-a:8089',
      tls_verify: true,
      ca_pem: null,
      secrets_set: ['management_token', 'token'],
    });
    expect(res.body).not.toContain(HEC_TOKEN);
    expect(res.body).not.toContain(MGMT_TOKEN);
    const list = await req('GET', '/api/destinations');
    expect(list.body).not.toContain(HEC_TOKEN);
    const one = await req('GET', '/api/destinations/splunk-lab');
    expect(one.json()).toEqual(view);
  });

  it('creates bulk and syslog destinations with driver defaults', async () => {
    const bulk = await req('POST', '/api/destinations', {
      name: 'elastic-lab',
      driver: 'vendorB_bulk',
      url: 'https://siem-b:9200',
      api_key: API_KEY,
      index: 'lab-events',
    });
    expect(bulk.statusCode).toBe(201);
    expect(bulk.json()).toMatchObject({ payload_format: 'ecs', secrets_set: ['api_key'] });

    const syslog = await req('POST', '/api/destinations', {
      name: 'qradar-lab',
      driver: 'syslog_tcp',
      host: '10.0.0.5',
      port: 514,
      provision_log_source: true,
      siem_q: { console_url: 'https://qradar.lab', token: QTOKEN, event_collector_id: 7 },
    });
    expect(syslog.statusCode).toBe(201);
    expect(syslog.json()).toMatchObject({
      payload_format: 'leef',
      tls: false,
      header_mode: 'synthesize_if_missing',
      syslog_format: 'rfc3164',
      framing: 'lf',
      facility: 16,
      severity: 6,
      provision_log_source: true,
      offense_cleanup: false,
      siem_q: {
        console_url: 'https://qradar.lab',
        event_collector_id: 7,
        log_source_type: 'Universal LEEF',
        log_source_protocol: 'Syslog',
        tls_verify: true,
        ca_pem: null,
      },
      secrets_set: ['siem_q.token'],
    });
    expect(syslog.body).not.toContain(QTOKEN);
  });

  it('validates per driver and names each bad field', async () => {
    const cases: Array<[object, string[]]> = [
      [{ name: 'a', driver: 'syslog_tcp' }, ['host', 'port']],
      [{ name: 'b', driver: 'vendorA_hec', index: 'lab' }, ['token', 'url']],
      [{ name: 'c', driver: 'vendorB_bulk', url: 'https://x:9200' }, ['index']],
      // The wipe needs a default index on every kind that can delete (decisions.md §5).
      [{ name: 'c2', driver: 'vendorA_hec', url: 'https://x:8088', token: 't' }, ['index']],
      [{ name: 'd', driver: 'syslog_tcp', host: 'h', port: 70000 }, ['port']],
      [{ name: 'e', driver: 'vendorA_hec', index: 'lab', url: 'ftp://x', token: 't' }, ['url']],
      [{ name: 'f', driver: 'vendorA_hec', index: 'lab', url: 'https://u:p@x', token: 't' }, ['url']],
      [{ name: 'g', driver: 'syslog_tcp', host: 'h', port: 514, url: 'https://x' }, ['url']],
      [
        { name: 'h', driver: 'syslog_tcp', host: 'h', port: 514, source_identity: 'has space' },
        ['source_identity'],
      ],
      [{ name: 'i', driver: 'vendorB_bulk', url: 'https://x', index: 'Bad*Index' }, ['index']],
      [{ name: 'j', driver: 'vendorB_bulk', url: 'https://x', index: 'ok', username: 'u' }, ['password']],
      [{ name: 'k', driver: 'syslog_tcp', host: 'h', port: 514, offense_cleanup: true }, ['siem_q']],
      [{ name: 'l', driver: 'syslog_tcp', host: 'h', port: 514, payload_format: 'ecs' }, ['payload_format']],
      [{ name: 'm', driver: 'syslog_tcp', host: 'h', port: 514, ca_pem: 'not a pem' }, ['ca_pem']],
      [{ name: 'bad name!', driver: 'syslog_tcp', host: 'h', port: 514 }, ['name']],
      [
        { name: 'n', driver: 'syslog_tcp', host: 'h', port: 514, siem_q: { token: 'x' } },
        ['siem_q.console_url'],
      ],
    ];
    for (const [body, fields] of cases) {
      const res = await req('POST', '/api/destinations', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json().error.details.fields).sort(), JSON.stringify(body)).toEqual(fields);
    }
    const driver = await req('POST', '/api/destinations', { name: 'z', driver: 'carrier_pigeon' });
    expect(driver.statusCode).toBe(400);
    expect(driver.json().error.details.fields).toHaveProperty('driver');
  });

  it('refuses a duplicate name with 409', async () => {
    const body = { name: 'dupe', driver: 'syslog_tcp', host: 'h', port: 514 };
    expect((await req('POST', '/api/destinations', body)).statusCode).toBe(201);
    expect((await req('POST', '/api/destinations', body)).statusCode).toBe(409);
  });

  it('answers 409, not 500, to the loser of two concurrent creates of one name', async () => {
    // On PostgreSQL both creates can pass the name check before either inserts.
    const statuses: number[][] = [];
    const refusals: unknown[] = [];
    for (let i = 0; i < 10; i += 1) {
      const body = { name: `twin-${i}`, driver: 'syslog_tcp', host: 'h', port: 514 };
      const answers = await Promise.all([0, 1].map(() => req('POST', '/api/destinations', body)));
      statuses.push(answers.map((a) => a.statusCode).sort());
      for (const a of answers) if (a.statusCode === 409) refusals.push(a.json().error);
    }
    expect(statuses).toEqual(Array(10).fill([201, 409]));
    expect(refusals[3]).toEqual({
      code: 'conflict',
      message: 'A destination named "twin-3" already exists',
      details: { name: 'twin-3' },
    });
  });

  it('keeps both of two concurrent PATCHes of one destination', async () => {
    // On PostgreSQL the second PATCH used to merge into a stale copy and undo the first.
    for (let i = 0; i < 10; i += 1) {
      const name = `rotate-${i}`;
      const created = await req('POST', '/api/destinations', {
        name,
        driver: 'vendorA_hec',
        index: 'lab',
        url: 'https://siem-a:8088',
        token: 'old-hec-token',
      });
      expect(created.statusCode).toBe(201);
      const answers = await Promise.all([
        req('PATCH', `/api/destinations/${name}`, {
          management_url: 'https://siem-a:8089',
          management_token: 'new-mgmt-token',
        }),
        req('PATCH', `/api/destinations/${name}`, { token: 'rotated-hec-token' }),
      ]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
      const stored = await loadDestination(t.ctx, name);
      expect(stored, `try ${i}`).toMatchObject({
        token: 'rotated-hec-token',
        management_url: 'https://siem-a:8089',
        management_token: 'new-mgmt-token',
      });
    }
  });

  it('updates partially: "" keeps a secret, a new value replaces it, null clears it or resets a setting', async () => {
    await req('POST', '/api/destinations', {
      name: 'patchme',
      driver: 'vendorA_hec',
      index: 'lab',
      url: 'https://a:8088',
      token: 'first-token',
      sourcetype: 'leef',
      tls_verify: false,
    });
    const keep = await req('PATCH', '/api/destinations/patchme', { token: '', source: 'lab' });
    expect(keep.statusCode).toBe(200);
    expect(keep.json()).toMatchObject({
      source: 'lab',
      sourcetype: 'leef',
      tls_verify: false,
      secrets_set: ['token'],
    });
    expect((await loadDestination(t.ctx, 'patchme')).driver === 'vendorA_hec').toBe(true);
    const d1 = await loadDestination(t.ctx, 'patchme');
    expect(d1).toMatchObject({ token: 'first-token', source: 'lab' });

    await req('PATCH', '/api/destinations/patchme', {
      token: 'second-token',
      tls_verify: null,
      sourcetype: null,
    });
    const d2 = await loadDestination(t.ctx, 'patchme');
    expect(d2).toMatchObject({ token: 'second-token', tls_verify: true, sourcetype: null });

    const clearRequired = await req('PATCH', '/api/destinations/patchme', { token: null });
    expect(clearRequired.statusCode).toBe(400);
    expect(clearRequired.json().error.details.fields).toEqual({ token: 'is required' });

    const rename = await req('PATCH', '/api/destinations/patchme', { name: 'other', driver: 'syslog_tcp' });
    expect(rename.statusCode).toBe(400);
    expect(Object.keys(rename.json().error.details.fields).sort()).toEqual(['driver', 'name']);
    expect((await req('PATCH', '/api/destinations/ghost', { enabled: false })).statusCode).toBe(404);
  });

  it('stores secrets encrypted: no plaintext anywhere in the database', async () => {
    const tables = ['destinations', 'audit_log'] as const;
    for (const table of tables) {
      const rows = await t.ctx.db.selectFrom(table).selectAll().execute();
      const dump = JSON.stringify(rows);
      for (const secret of [HEC_TOKEN, MGMT_TOKEN, API_KEY, QTOKEN, 'first-token', 'second-token']) {
        expect(dump, `${table} leaks ${secret}`).not.toContain(secret);
      }
    }
    const loaded = await loadDestination(t.ctx, 'qradar-lab');
    expect((loaded.siem_q as { token: string } | null)?.token).toBe(QTOKEN);
  });

  it('detects a tampered secret instead of returning garbage', async () => {
    const row = await t.ctx.db
      .selectFrom('destinations')
      .select(['id', 'secrets'])
      .where('name', '=', 'elastic-lab')
      .executeTakeFirstOrThrow();
    const parts = (row.secrets ?? '').split(':');
    const ct = Buffer.from(parts[4] ?? '', 'base64');
    ct[0] = (ct[0] ?? 0) ^ 1;
    parts[4] = ct.toString('base64');
    await t.ctx.db
      .updateTable('destinations')
      .set({ secrets: parts.join(':') })
      .where('id', '=', row.id)
      .execute();
    await expect(loadDestination(t.ctx, 'elastic-lab')).rejects.toThrow(/integrity/);
  });

  it('answers 404 for the connectivity check of an unknown destination', async () => {
    expect((await req('POST', '/api/destinations/ghost/test')).statusCode).toBe(404);
  });

  it('answers 404, not 400, for a name longer than any destination can have', async () => {
    for (const name of ['x'.repeat(65), 'x'.repeat(100)]) {
      for (const [method, url] of [
        ['GET', `/api/destinations/${name}`],
        ['PATCH', `/api/destinations/${name}`],
        ['DELETE', `/api/destinations/${name}`],
        ['POST', `/api/destinations/${name}/test`],
      ] as const) {
        const res = await req(method, url, method === 'PATCH' ? { enabled: false } : undefined);
        expect(res.statusCode, `${method} ${name.length}`).toBe(404);
        expect(res.json().error.code).toBe('not_found');
      }
    }
  });

  it('checks an HEC destination live: collector, token, management API and index, without leaking secrets', async () => {
    const hec = await startHecSimulator({ indexes: ['lab'] });
    try {
      const created = await req('POST', '/api/destinations', {
        name: 'sim-hec',
        driver: 'vendorA_hec',
        url: hec.url,
        token: hec.token,
        management_url: hec.managementUrl,
        management_token: hec.managementToken,
        index: 'lab',
      });
      expect(created.statusCode).toBe(201);
      const res = await req('POST', '/api/destinations/sim-hec/test');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ ok: true, siem: 'sim-hec', driver: 'vendorA_hec' });
      expect(body.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
        ['collector', true],
        ['token', true],
        ['management', true],
        ['index', true],
      ]);
      expect(body.checks[0].endpoint).toBe(`${hec.url}/services/collector/health`);
      expect(typeof body.duration_ms).toBe('number');
      expect(res.body).not.toContain(hec.token);
      expect(res.body).not.toContain(hec.managementToken);

      // A SIEM that is down is an answer (ok: false with the causes), not a server error.
      await hec.faults.refuse();
      await hec.managementFaults.refuse();
      const down = await req('POST', '/api/destinations/sim-hec/test');
      expect(down.statusCode).toBe(200);
      expect(down.json().ok).toBe(false);
      expect(down.json().checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
        ['collector', false],
        ['token', false],
        ['management', false],
      ]);
      expect(down.json().checks[0].message).toBe('connection refused (ECONNREFUSED)');
      const audit = await t.ctx.db
        .selectFrom('audit_log')
        .select(['outcome'])
        .where('action', '=', 'destination.test')
        .where('target', '=', 'sim-hec')
        .orderBy('id')
        .execute();
      expect(audit.map((a) => a.outcome)).toEqual(['success', 'failure']);
    } finally {
      await hec.close();
    }
  });

  it('checks a bulk destination live and names the product and version', async () => {
    const bulk = await startBulkSimulator({ flavor: 'opensearch' });
    try {
      await req('POST', '/api/destinations', {
        name: 'sim-opensearch',
        driver: 'vendorB_bulk',
        url: bulk.url,
        username: bulk.username,
        password: bulk.password,
        index: 'lab-events',
      });
      const res = await req('POST', '/api/destinations/sim-opensearch/test');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        ok: true,
        checks: [
          { name: 'cluster', ok: true, message: 'OpenSearch 2.17.1, cluster "socdrill-simulator"' },
          {
            name: 'index',
            ok: true,
            message:
              'index "lab-events" does not exist yet; the first shipment creates it if the cluster allows automatic index creation (action.auto_create_index), otherwise create it beforehand',
          },
        ],
      });
      await req('PATCH', '/api/destinations/sim-opensearch', { password: 'wrong-password' });
      const refused = await req('POST', '/api/destinations/sim-opensearch/test');
      expect(refused.json()).toMatchObject({
        ok: false,
        checks: [{ name: 'cluster', ok: false, message: 'HTTP 401 Unauthorized (credentials refused)' }],
      });
      expect(refused.body).not.toContain('wrong-password');
    } finally {
      await bulk.close();
    }
  });

  it('deletes a destination and audits every change without secret values', async () => {
    expect((await req('DELETE', '/api/destinations/dupe')).statusCode).toBe(200);
    expect((await req('GET', '/api/destinations/dupe')).statusCode).toBe(404);
    const audit = await t.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', 'like', 'destination.%')
      .execute();
    const actions = audit.map((a) => `${a.action}:${a.target}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        'destination.create:splunk-lab',
        'destination.update:patchme',
        'destination.delete:dupe',
      ]),
    );
    expect(JSON.stringify(audit)).not.toContain('second-token');
  });
});
