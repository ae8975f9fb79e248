import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinKindsWith } from '../../test/helpers/siem-kinds.ts';
import { buildTestApp, signedInAs, TEST_NOW, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import type { IndexOutcome } from '../siems/siem-client.ts';

const ZIP = Buffer.from('PK\x03\x04 noise archive stand-in');

describe('noise jobs API', () => {
  let t: TestApp;
  let cookie: string;
  let admin: string;
  /** Index creations asked of the SIEMs, as `siem:index`. */
  const calls: string[] = [];
  beforeAll(async () => {
    t = await buildTestApp({
      overrides: {
        // Clients whose index creation is recorded (and refused for one case) instead of sent.
        siemKinds: builtinKindsWith((destination, real) => ({
          ...real(),
          async ensureIndex(index: string): Promise<IndexOutcome> {
            calls.push(`${destination.name}:${index}`);
            if (destination.name === 'elastic-lab' && index === 'refused') {
              return { ok: false, index, error: 'HTTP 403 security_exception' };
            }
            return { ok: true, index, created: true };
          },
        })),
      },
    });
    cookie = (await signedInAs(t, ['noise_operator'])).cookie;
    admin = (await signedInAs(t, ['admin'])).cookie;
    await createDestination(t.ctx, {
      name: 'splunk-lab',
      driver: 'vendorA_hec',
      url: 'https://siem-a:8088',
      token: 'hec-token',
      index: 'lab',
    });
    await createDestination(t.ctx, {
      name: 'elastic-lab',
      driver: 'vendorB_bulk',
      url: 'https://siem-b:9200',
      api_key: 'key',
      index: 'lab-events',
    });
    await createDestination(t.ctx, {
      name: 'qradar-lab',
      driver: 'syslog_tcp',
      host: '10.0.0.5',
      port: 514,
      index: 'syslog-lab',
    });
    await createDestination(t.ctx, {
      name: 'qradar-no-index',
      driver: 'syslog_tcp',
      host: '10.0.0.6',
      port: 514,
    });
    for (const p of ['noise/web.zip', 'noise/dns.zip', 'noise/auth.zip']) {
      await t.ctx.storage.put('noise-archives', p, ZIP);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const req = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, as = cookie) =>
    t.app.inject({ method, url, headers: { cookie: as }, ...(payload ? { payload } : {}) });

  let seq = 0;
  const body = (over: Record<string, unknown> = {}) => ({
    name: `job-${++seq}`,
    targets: ['splunk-lab'],
    schedule: { kind: 'interval', interval_seconds: 300 },
    archives: [{ position: 0, storage_path: 'noise/web.zip' }],
    ...over,
  });

  it('creates an interval job whose first run is one interval from now', async () => {
    const res = await req(
      'POST',
      '/api/noise/jobs',
      body({
        name: 'web noise',
        targets: ['splunk-lab', 'qradar-lab'],
        propagate_on_wipe: true,
        archives: [
          { position: 1, storage_path: 'noise/dns.zip', index_mode: 'existing', index: 'dns' },
          { position: 0, storage_path: 'noise/web.zip' },
        ],
      }),
    );
    expect(res.statusCode).toBe(201);
    const job = res.json();
    expect(job).toEqual({
      id: expect.any(String),
      name: 'web noise',
      enabled: true,
      targets: ['splunk-lab', 'qradar-lab'],
      schedule: { kind: 'interval', interval_seconds: 300 },
      propagate_on_wipe: true,
      archives: [
        { position: 0, storage_path: 'noise/web.zip', index_mode: 'default', index: null },
        { position: 1, storage_path: 'noise/dns.zip', index_mode: 'existing', index: 'dns' },
      ],
      next_run_at: new Date(TEST_NOW + 300_000).toISOString(),
      last_run_at: null,
      running: false,
      created_at: new Date(TEST_NOW).toISOString(),
      updated_at: new Date(TEST_NOW).toISOString(),
      warnings: [],
    });
    const read = await req('GET', `/api/noise/jobs/${job.id}`);
    const { warnings: _w, ...view } = job;
    expect(read.json()).toEqual(view);
    expect((await req('GET', '/api/noise/jobs')).json()).toContainEqual(view);
  });

  it('refuses a job that routes an archive to the default index of a syslog target without one', async () => {
    // Every line to such a target must carry labIndex= (decisions.md §5); with neither the
    // archive's index nor the destination's there is none to carry.
    const res = await req(
      'POST',
      '/api/noise/jobs',
      body({
        targets: ['splunk-lab', 'qradar-no-index'],
        archives: [
          { position: 0, storage_path: 'noise/web.zip' },
          { position: 1, storage_path: 'noise/dns.zip', index_mode: 'existing', index: 'dns' },
        ],
      }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.fields).toEqual({
      'targets.1':
        'syslog_tcp target "qradar-no-index" has no index, so the lines of "noise/web.zip" (index_mode default) would carry no labIndex=; set the destination\'s index, or route those archives to a named index',
    });
    // Routed to named indexes only, the same target is fine.
    const named = await req(
      'POST',
      '/api/noise/jobs',
      body({
        targets: ['qradar-no-index'],
        archives: [{ position: 0, storage_path: 'noise/web.zip', index_mode: 'existing', index: 'web' }],
      }),
    );
    expect(named.statusCode, named.body).toBe(201);
  });

  it('creates a cron job scheduled at the next match, with jitter within its bounds', async () => {
    const res = await req(
      'POST',
      '/api/noise/jobs',
      body({ schedule: { kind: 'cron', cron: '30 * * * *' } }),
    );
    expect(res.statusCode).toBe(201);
    expect(res.json().next_run_at).toBe('2026-03-01T12:30:00.000Z');
    const jittered = await req(
      'POST',
      '/api/noise/jobs',
      body({ schedule: { kind: 'cron', cron: '30 * * * *', jitter_seconds: 60 } }),
    );
    const next = Date.parse(jittered.json().next_run_at);
    expect(next).toBeGreaterThanOrEqual(Date.parse('2026-03-01T12:30:00Z'));
    expect(next).toBeLessThanOrEqual(Date.parse('2026-03-01T12:31:00Z'));
  });

  it('leaves next_run_at empty for a job created disabled', async () => {
    const res = await req('POST', '/api/noise/jobs', body({ enabled: false }));
    expect(res.json()).toMatchObject({ enabled: false, next_run_at: null });
  });

  it.each([
    [
      'an unknown target',
      { targets: ['splunk-lab', 'nope'] },
      { 'targets.1': 'destination "nope" does not exist' },
    ],
    [
      'a target named twice',
      { targets: ['splunk-lab', 'splunk-lab'] },
      { 'targets.1': '"splunk-lab" is named twice' },
    ],
    ['no target', { targets: [] }, { targets: 'must name at least one SIEM destination' }],
    [
      'an interval schedule without interval_seconds',
      { schedule: { kind: 'interval' } },
      { 'schedule.interval_seconds': 'is required when kind is interval' },
    ],
    [
      'an invalid cron expression',
      { schedule: { kind: 'cron', cron: '* * *' } },
      {
        'schedule.cron':
          "is not a valid cron expression (invalid configuration format ('* * *'), exactly five, six, or seven space separated parts are required.)",
      },
    ],
    [
      'a cron schedule without cron',
      { schedule: { kind: 'cron', jitter_seconds: 5 } },
      { 'schedule.cron': 'is required when kind is cron' },
    ],
    [
      'an archive missing from storage',
      { archives: [{ position: 0, storage_path: 'noise/missing.zip' }] },
      {
        'archives.0.storage_path':
          '"noise/missing.zip" is not in the noise-archives bucket (upload it first)',
      },
    ],
    [
      'an archive path with ..',
      { archives: [{ position: 0, storage_path: 'noise/../x.zip' }] },
      { 'archives.0.storage_path': 'must not contain a .. segment' },
    ],
    [
      'two archives at one position',
      {
        archives: [
          { position: 0, storage_path: 'noise/web.zip' },
          { position: 0, storage_path: 'noise/dns.zip' },
        ],
      },
      { 'archives.1.position': '0 is used by another archive' },
    ],
    ['no archive', { archives: [] }, { archives: 'must list at least one archive' }],
    [
      'a new index without a name',
      { archives: [{ position: 0, storage_path: 'noise/web.zip', index_mode: 'new' }] },
      { 'archives.0.index': 'is required when index_mode is new' },
    ],
    [
      'an index with index_mode default',
      { archives: [{ position: 0, storage_path: 'noise/web.zip', index: 'x' }] },
      { 'archives.0.index': 'is only for index_mode existing or new (default uses the destination index)' },
    ],
    [
      'an index name the HEC driver refuses',
      { archives: [{ position: 0, storage_path: 'noise/web.zip', index_mode: 'new', index: 'Web.Noise' }] },
      {
        'archives.0.index':
          'must be lower-case letters, digits, _ and -, starting with a letter or digit (for vendorA_hec target "splunk-lab")',
      },
    ],
    [
      'an index name only the bulk driver accepts, on a HEC target',
      {
        targets: ['elastic-lab', 'splunk-lab'],
        archives: [
          { position: 0, storage_path: 'noise/web.zip', index_mode: 'existing', index: 'web.noise' },
        ],
      },
      {
        'archives.0.index':
          'must be lower-case letters, digits, _ and -, starting with a letter or digit (for vendorA_hec target "splunk-lab")',
      },
    ],
  ])('refuses %s with 400 naming the field', async (_what, over, fields) => {
    const res = await req('POST', '/api/noise/jobs', body(over));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_input');
    expect(res.json().error.details.fields).toEqual(fields);
  });

  it('accepts an index of exactly 120 characters and refuses 121', async () => {
    const archive = (index: string) => ({
      archives: [{ position: 0, storage_path: 'noise/web.zip', index_mode: 'existing', index }],
    });
    expect((await req('POST', '/api/noise/jobs', body(archive('a'.repeat(120))))).statusCode).toBe(201);
    const res = await req('POST', '/api/noise/jobs', body(archive('a'.repeat(121))));
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().error.details)).toContain('archives.0.index');
  });

  it('refuses unknown fields and a second job with the same name', async () => {
    const extra = await req('POST', '/api/noise/jobs', { ...body(), colour: 'red' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.details.fields).toEqual({ colour: 'is not a known field' });
    expect((await req('POST', '/api/noise/jobs', body({ name: 'twin' }))).statusCode).toBe(201);
    const twin = await req('POST', '/api/noise/jobs', body({ name: 'twin' }));
    expect(twin.statusCode).toBe(409);
    expect(twin.json().error.code).toBe('conflict');
  });

  describe('with SIEM drivers', () => {
    it('creates new indexes on HEC and bulk targets, never on syslog ones, and warns for syslog', async () => {
      calls.length = 0;
      const res = await req(
        'POST',
        '/api/noise/jobs',
        body({
          targets: ['splunk-lab', 'elastic-lab', 'qradar-lab'],
          archives: [
            { position: 0, storage_path: 'noise/web.zip', index_mode: 'new', index: 'web-noise' },
            { position: 1, storage_path: 'noise/dns.zip', index_mode: 'existing', index: 'dns' },
            { position: 2, storage_path: 'noise/auth.zip', index_mode: 'new', index: 'web-noise' },
          ],
        }),
      );
      expect(res.statusCode).toBe(201);
      expect(calls.sort()).toEqual(['elastic-lab:web-noise', 'splunk-lab:web-noise']);
      expect(res.json().warnings).toEqual([
        'Index "web-noise" must be created on the collector of syslog_tcp target "qradar-lab"; Socdrill does not create it there (its events carry labIndex=web-noise)',
      ]);
    });

    it('saves the job and names the SIEM error when an index creation is refused', async () => {
      const res = await req(
        'POST',
        '/api/noise/jobs',
        body({
          targets: ['elastic-lab'],
          archives: [{ position: 0, storage_path: 'noise/web.zip', index_mode: 'new', index: 'refused' }],
        }),
      );
      expect(res.statusCode).toBe(201);
      expect(res.json().warnings).toEqual([
        'Index "refused" could not be created on "elastic-lab": HTTP 403 security_exception',
      ]);
    });

    it('ensures indexes again when a PATCH changes archives or targets, not otherwise', async () => {
      const created = await req(
        'POST',
        '/api/noise/jobs',
        body({
          archives: [{ position: 0, storage_path: 'noise/web.zip', index_mode: 'new', index: 'patched' }],
        }),
      );
      calls.length = 0;
      await req('PATCH', `/api/noise/jobs/${created.json().id}`, { propagate_on_wipe: true });
      expect(calls).toEqual([]);
      await req('PATCH', `/api/noise/jobs/${created.json().id}`, { targets: ['splunk-lab', 'elastic-lab'] });
      expect(calls.sort()).toEqual(['elastic-lab:patched', 'splunk-lab:patched']);
    });
  });

  it('changes only the fields a PATCH names and reschedules on a new schedule', async () => {
    const created = (await req('POST', '/api/noise/jobs', body())).json();
    t.clock.advance(10_000);
    const renamed = await req('PATCH', `/api/noise/jobs/${created.id}`, { name: 'renamed job' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({
      name: 'renamed job',
      targets: created.targets,
      schedule: created.schedule,
      archives: created.archives,
      next_run_at: created.next_run_at,
      updated_at: new Date(TEST_NOW + 10_000).toISOString(),
      warnings: [],
    });
    const rescheduled = await req('PATCH', `/api/noise/jobs/${created.id}`, {
      schedule: { kind: 'interval', interval_seconds: 30 },
    });
    expect(rescheduled.json().next_run_at).toBe(new Date(TEST_NOW + 10_000 + 30_000).toISOString());
    const disabled = await req('PATCH', `/api/noise/jobs/${created.id}`, { enabled: false });
    expect(disabled.json()).toMatchObject({ enabled: false, next_run_at: null });
    t.clock.advance(5000);
    const enabled = await req('PATCH', `/api/noise/jobs/${created.id}`, { enabled: true });
    expect(enabled.json()).toMatchObject({
      enabled: true,
      next_run_at: new Date(TEST_NOW + 15_000 + 30_000).toISOString(),
    });
    const bad = await req('PATCH', `/api/noise/jobs/${created.id}`, { schedule: { kind: 'cron' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details.fields).toEqual({ 'schedule.cron': 'is required when kind is cron' });
  });

  it('keeps next_run_at when a PATCH leaves the schedule as it was, and reschedules on a real change', async () => {
    // Stored schedules come back from jsonb with their keys in another order: that is no new schedule.
    const interval = (
      await req(
        'POST',
        '/api/noise/jobs',
        body({ schedule: { kind: 'interval', interval_seconds: 3600, jitter_seconds: 0 } }),
      )
    ).json();
    const cron = (
      await req('POST', '/api/noise/jobs', body({ schedule: { kind: 'cron', cron: '0 * * * *' } }))
    ).json();
    // Past the cron job's due time with no scheduler running: it is overdue and must stay due.
    t.clock.advance(Date.parse(cron.next_run_at) - t.clock.now() + 60_000);
    for (const job of [interval, cron]) {
      const renamed = await req('PATCH', `/api/noise/jobs/${job.id}`, {
        name: `${job.name} renamed`,
        propagate_on_wipe: true,
      });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json().next_run_at, job.name).toBe(job.next_run_at);
      const resent = await req('PATCH', `/api/noise/jobs/${job.id}`, {
        schedule: Object.fromEntries(Object.entries(job.schedule).reverse()),
      });
      expect(resent.statusCode).toBe(200);
      expect(resent.json().next_run_at, job.name).toBe(job.next_run_at);
    }
    const jittered = await req('PATCH', `/api/noise/jobs/${interval.id}`, {
      schedule: { kind: 'interval', interval_seconds: 3600, jitter_seconds: 1 },
    });
    const next = Date.parse(jittered.json().next_run_at);
    expect(next).toBeGreaterThanOrEqual(t.clock.now() + 3600_000);
    expect(next).toBeLessThanOrEqual(t.clock.now() + 3601_000);
  });

  it('deletes a job, then answers 404 for it', async () => {
    const created = (await req('POST', '/api/noise/jobs', body())).json();
    expect((await req('DELETE', `/api/noise/jobs/${created.id}`)).json()).toEqual({ ok: true });
    expect((await req('GET', `/api/noise/jobs/${created.id}`)).statusCode).toBe(404);
    expect((await req('PATCH', `/api/noise/jobs/${created.id}`, { enabled: false })).statusCode).toBe(404);
    // Text that is no id names no job either (on PostgreSQL it must not reach a uuid column).
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await req(method, '/api/noise/jobs/not-a-job-id');
      expect(res.statusCode, method).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('refuses to delete a job while it runs', async () => {
    const created = (await req('POST', '/api/noise/jobs', body())).json();
    await t.ctx.db
      .updateTable('noise_jobs')
      .set({ lease_owner: 'elsewhere/1', lease_until: new Date(t.clock.now() + 60_000) })
      .where('id', '=', created.id)
      .execute();
    expect((await req('GET', `/api/noise/jobs/${created.id}`)).json().running).toBe(true);
    const res = await req('DELETE', `/api/noise/jobs/${created.id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('job_running');
  });

  it('refuses to delete a destination that jobs target, naming them, and allows it once they are gone', async () => {
    await createDestination(t.ctx, {
      name: 'doomed',
      driver: 'vendorA_hec',
      index: 'lab',
      url: 'https://siem-c:8088',
      token: 'x',
    });
    const a = (
      await req('POST', '/api/noise/jobs', body({ name: 'uses doomed A', targets: ['doomed'] }))
    ).json();
    const b = (
      await req('POST', '/api/noise/jobs', body({ name: 'uses doomed B', targets: ['doomed'] }))
    ).json();
    const refused = await req('DELETE', '/api/destinations/doomed', undefined, admin);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toEqual({
      code: 'conflict',
      message: 'Destination "doomed" is a target of noise jobs: "uses doomed A", "uses doomed B"',
      details: {
        destination: 'doomed',
        jobs: [
          { id: a.id, name: 'uses doomed A' },
          { id: b.id, name: 'uses doomed B' },
        ],
      },
    });
    await req('DELETE', `/api/noise/jobs/${a.id}`);
    await req('DELETE', `/api/noise/jobs/${b.id}`);
    expect((await req('DELETE', '/api/destinations/doomed', undefined, admin)).statusCode).toBe(200);
  });

  it('refuses to delete an archive a job uses, naming the job', async () => {
    await t.ctx.storage.put('noise-archives', 'noise/kept.zip', ZIP);
    const job = (
      await req(
        'POST',
        '/api/noise/jobs',
        body({ name: 'keeps it', archives: [{ position: 0, storage_path: 'noise/kept.zip' }] }),
      )
    ).json();
    const res = await req('DELETE', '/api/noise/archives/noise/kept.zip');
    expect(res.statusCode).toBe(409);
    expect(res.json().error.message).toBe('Archive "noise/kept.zip" is used by noise jobs: "keeps it"');
    expect(res.json().error.details.jobs).toEqual([{ id: job.id, name: 'keeps it' }]);
    const listed = (await req('GET', '/api/noise/archives?prefix=noise/kept')).json();
    expect(listed[0].used_by).toEqual(['keeps it']);
  });

  it('writes job changes to the audit log with the acting user', async () => {
    const created = (await req('POST', '/api/noise/jobs', body({ name: 'audited' }))).json();
    await req('PATCH', `/api/noise/jobs/${created.id}`, { enabled: false });
    await req('DELETE', `/api/noise/jobs/${created.id}`);
    const rows = await t.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'outcome', 'actor_type', 'details'])
      .where('target', '=', 'audited')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.outcome, r.actor_type])).toEqual([
      ['noise.job.create', 'success', 'user'],
      ['noise.job.update', 'success', 'user'],
      ['noise.job.delete', 'success', 'user'],
    ]);
    expect(rows[1]?.details).toMatchObject({ id: created.id, fields: ['enabled'] });
  });
});
