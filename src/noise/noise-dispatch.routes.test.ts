import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { SwitchableDispatcher } from '../../test/helpers/switchable-dispatcher.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { type BulkSimulator, startBulkSimulator } from '../../test/simulators/bulk-simulator.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { type SyslogSimulator, startSyslogSimulator } from '../../test/simulators/syslog-simulator.ts';
import { bulkKind } from '../siems/bulk/bulk-kind.ts';
import { hecKind } from '../siems/hec/hec-kind.ts';
import { syslogTcpKind } from '../siems/syslog-tcp/syslog-tcp-kind.ts';
import { findJob } from './job-store.ts';
import { JOB_RUNNING_REASON } from './noise-runner.ts';
import { getRuns, type RunView } from './run-store.ts';

const DISPATCH_TOKEN = 'noise-dispatch-token-0123456789abcdef';
const HOUR = 3_600_000;
const MINUTE = 60_000;
// Archive times; the newest event of the whole run is B's first line (t0 + 3 h).
const t0 = Date.UTC(2024, 0, 10, 8, 0, 0);
const WEB_LINES = [
  `LEEF:1.0|Acme|Proxy|2.1|allow|src=10.0.0.1\tdst=93.184.216.34\tusrName=alice\tdevTime=${t0}`,
  `LEEF:1.0|Acme|Proxy|2.1|deny|src=10.0.0.2\tdst=93.184.216.35\tdevTime=${t0 + MINUTE}`,
];
const DNS_LINES = [
  `LEEF:2.0|Acme|DNS|1.0|query|^|src=10.0.0.3^query=example.org^devTime=${t0 + 3 * HOUR}`,
  `LEEF:2.0|Acme|DNS|1.0|query|^|src=10.0.0.4^devTime=${t0 + 2 * HOUR}`,
];
const SCHEDULE = { kind: 'interval', interval_seconds: 600, jitter_seconds: 30 } as const;

/** The archive lines as shipped at `now`: one shift for the run puts t0 + 3 h at now + 2 h. */
function rebased(now: number) {
  const shift = now + 2 * HOUR - (t0 + 3 * HOUR);
  const at = (ms: number) => ms + shift;
  return {
    web: [
      { time: at(t0), line: WEB_LINES[0]!.replace(`devTime=${t0}`, `devTime=${at(t0)}`) },
      {
        time: at(t0 + MINUTE),
        line: WEB_LINES[1]!.replace(`devTime=${t0 + MINUTE}`, `devTime=${at(t0 + MINUTE)}`),
      },
    ],
    dns: [
      {
        time: at(t0 + 3 * HOUR),
        line: DNS_LINES[0]!.replace(`devTime=${t0 + 3 * HOUR}`, `devTime=${at(t0 + 3 * HOUR)}`),
      },
      {
        time: at(t0 + 2 * HOUR),
        line: DNS_LINES[1]!.replace(`devTime=${t0 + 2 * HOUR}`, `devTime=${at(t0 + 2 * HOUR)}`),
      },
    ],
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** `<134>Mmm dd hh:mm:ss noise-gen ` (RFC 3164, UTC, day space-padded). */
function header(ms: number): string {
  const d = new Date(ms);
  const day = String(d.getUTCDate()).padStart(2, ' ');
  return `<134>${MONTHS[d.getUTCMonth()]} ${day} ${d.toISOString().slice(11, 19)} noise-gen `;
}

describe('POST /api/noise/run', () => {
  let t: TestApp;
  let hec: HecSimulator;
  let bulk: BulkSimulator;
  let syslog: SyslogSimulator;
  let cookie: string;
  let jobId: string;
  const dispatcher = new SwitchableDispatcher();

  beforeAll(async () => {
    [hec, bulk, syslog] = await Promise.all([
      startHecSimulator({ indexes: ['web-default'] }),
      startBulkSimulator({ flavor: 'elasticsearch' }),
      startSyslogSimulator({ framing: 'lf' }),
    ]);
    t = await buildTestApp({
      env: { DISPATCH_TOKEN },
      overrides: {
        noiseDispatcher: dispatcher.override,
        // A short retry budget keeps a refused syslog target's attempts quick.
        siemKinds: (config) => [
          hecKind({ retryNotFound: config.hecRetryNotFound }),
          syslogTcpKind({ retry: { attempts: 2, baseMs: 5, capMs: 10 } }),
          bulkKind(),
        ],
      },
    });
    cookie = (await signedInAs(t, ['noise_operator', 'admin'])).cookie;
    for (const destination of [
      {
        name: 'splunk-lab',
        driver: 'vendorA_hec',
        url: hec.url,
        token: hec.token,
        management_url: hec.managementUrl,
        management_token: hec.managementToken,
        index: 'web-default',
      },
      {
        name: 'elastic-lab',
        driver: 'vendorB_bulk',
        url: bulk.url,
        api_key: bulk.apiKey,
        index: 'lab-events',
      },
      {
        name: 'qradar-lab',
        driver: 'syslog_tcp',
        host: '127.0.0.1',
        port: syslog.port,
        source_identity: 'noise-gen',
        index: 'syslog-default',
      },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/destinations',
        headers: { cookie },
        payload: destination,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    await upload('noise/web.zip', buildZip([{ name: 'proxy/web.log', data: `${WEB_LINES.join('\n')}\n` }]));
    await upload('noise/dns.zip', buildZip([{ name: 'dns.log', data: `${DNS_LINES.join('\r\n')}\r\n` }]));
    const job = await t.app.inject({
      method: 'POST',
      url: '/api/noise/jobs',
      headers: { cookie },
      payload: {
        name: 'web and dns noise',
        targets: ['splunk-lab', 'elastic-lab', 'qradar-lab'],
        schedule: SCHEDULE,
        archives: [
          { position: 1, storage_path: 'noise/dns.zip', index_mode: 'new', index: 'dns-noise' },
          { position: 0, storage_path: 'noise/web.zip', index_mode: 'default' },
        ],
      },
    });
    expect(job.statusCode, job.body).toBe(201);
    // The new index was created on HEC and bulk when the job was saved; syslog gets a warning.
    expect(job.json().warnings).toEqual([
      'Index "dns-noise" must be created on the collector of syslog_tcp target "qradar-lab"; Socdrill does not create it there (its events carry labIndex=dns-noise)',
    ]);
    jobId = job.json().id;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([hec?.close(), bulk?.close(), syslog?.close()]);
  });
  beforeEach(async () => {
    await t.ctx.noise.runner.settle();
    dispatcher.reset();
    hec.store.clear();
    for (const index of ['lab-events', 'dns-noise']) bulk.store.indexes.get(index)?.docs.clear();
    syslog.store.clear();
  });

  async function upload(path: string, body: Buffer): Promise<void> {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/noise/archives/${path}`,
      headers: { cookie, 'content-type': 'application/zip' },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
  }

  /** Pending run rows for the job, as an external scheduler would create them. */
  async function pendingRuns(id = jobId): Promise<Record<string, string>> {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/noise/jobs/${id}/runs`,
      headers: { cookie },
      payload: { dispatch: false },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().run_ids;
  }

  function bodyFor(run_ids: Record<string, string>, over: Record<string, unknown> = {}) {
    return {
      job_id: jobId,
      trigger: 'schedule',
      run_ids,
      archives: [
        { position: 1, storage_path: 'noise/dns.zip' },
        { position: 0, storage_path: 'noise/web.zip' },
      ],
      targets: Object.keys(run_ids),
      schedule: SCHEDULE,
      ...over,
    };
  }

  const dispatch = (
    payload: object,
    headers: Record<string, string> = { authorization: `Bearer ${DISPATCH_TOKEN}` },
  ) => t.app.inject({ method: 'POST', url: '/api/noise/run', headers, payload });

  /** What each simulator holds, in a comparable form. */
  function received() {
    const hecIn = (index: string) =>
      hec.store.searchable(index).map((e) => ({ event: e.event, time: e.time }));
    const bulkIn = (index: string) => bulk.store.sources(index) as Array<Record<string, unknown>>;
    return {
      hec: {
        'web-default': hecIn('web-default'),
        'dns-noise': hecIn('dns-noise'),
        total: hec.store.events.length,
      },
      bulk: { 'lab-events': bulkIn('lab-events'), 'dns-noise': bulkIn('dns-noise') },
      syslog: syslog.store.texts(),
    };
  }

  it('ships two archives to all three simulators with one shift and per-archive index routing (Bearer)', async () => {
    const run_ids = await pendingRuns();
    const res = await dispatch(bodyFor(run_ids));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true });

    const now = t.clock.now();
    const { web, dns } = rebased(now);
    const got = received();
    // HEC: archive 0 (default) in the destination's index, archive 1 in its new index; `time` in
    // seconds from the rebased devTime; lines unchanged otherwise (no labIndex on HEC).
    expect(got.hec['web-default']).toEqual(web.map((e) => ({ event: e.line, time: e.time / 1000 })));
    expect(got.hec['dns-noise']).toEqual(dns.map((e) => ({ event: e.line, time: e.time / 1000 })));
    expect(got.hec.total).toBe(4);
    // The newest event of the whole run, in the second archive, is at now + 2 h.
    expect(Math.max(...[...web, ...dns].map((e) => e.time))).toBe(now + 2 * HOUR);
    expect(dns[0]?.time).toBe(now + 2 * HOUR);
    expect(web[0]?.time).toBe(now - HOUR);

    // Bulk: LEEF converted to ECS, labels.labIndex = the archive's index or the destination's.
    expect(got.bulk['lab-events'].map((d) => [d['@timestamp'], d.labels, d.event])).toEqual(
      web.map((e) => [
        new Date(e.time).toISOString(),
        { labIndex: 'lab-events' },
        expect.objectContaining({ original: e.line }),
      ]),
    );
    expect(got.bulk['lab-events'][0]).toMatchObject({
      source: { ip: '10.0.0.1' },
      destination: { ip: '93.184.216.34' },
      user: { name: 'alice' },
      observer: { vendor: 'Acme', product: 'Proxy' },
    });
    expect(got.bulk['dns-noise'].map((d) => [d['@timestamp'], d.labels])).toEqual(
      dns.map((e) => [new Date(e.time).toISOString(), { labIndex: 'dns-noise' }]),
    );

    // Syslog: a synthesized header with the rebased time, labIndex with each line's delimiter.
    expect(got.syslog).toEqual([
      `${header(web[0]!.time)}${web[0]!.line}\tlabIndex=syslog-default`,
      `${header(web[1]!.time)}${web[1]!.line}\tlabIndex=syslog-default`,
      `${header(dns[0]!.time)}${dns[0]!.line}^labIndex=dns-noise`,
      `${header(dns[1]!.time)}${dns[1]!.line}^labIndex=dns-noise`,
    ]);
    expect(got.syslog[0]).toBe(
      `<134>Mar  1 11:00:00 noise-gen LEEF:1.0|Acme|Proxy|2.1|allow|src=10.0.0.1\tdst=93.184.216.34\tusrName=alice\tdevTime=${Date.UTC(2026, 2, 1, 11)}\tlabIndex=syslog-default`,
    );

    const rows = await rowsOf(run_ids);
    expect(
      Object.fromEntries(
        rows.map((r) => [
          r.siem,
          [r.status, r.trigger, r.events_shipped, r.events_failed, r.error, r.finished_at],
        ]),
      ),
    ).toEqual({
      'splunk-lab': ['succeeded', 'schedule', 4, 0, null, new Date(now).toISOString()],
      'elastic-lab': ['succeeded', 'schedule', 4, 0, null, new Date(now).toISOString()],
      'qradar-lab': ['succeeded', 'schedule', 4, 0, null, new Date(now).toISOString()],
    });
    const job = await findJob(t.ctx.db, jobId);
    expect(job.lease_owner).toBeNull();
    expect(job.last_run_at).toBe(now);
    expect(job.next_run_at).toBeGreaterThanOrEqual(now + 600_000);
    expect(job.next_run_at).toBeLessThanOrEqual(now + 630_000);

    const audit = await lastDispatchAudit();
    expect(audit).toMatchObject({
      actor_type: 'token',
      actor_label: 'dispatch token',
      outcome: 'success',
      target: 'web and dns noise',
      details: {
        job_id: jobId,
        trigger: 'schedule',
        targets: ['splunk-lab', 'elastic-lab', 'qradar-lab'],
        run_ids,
        failed: [],
      },
    });
  });

  it('accepts a signed-in user with manage_noise_logs and keeps the rebase tied to the dispatch time', async () => {
    t.clock.advance(HOUR);
    const run_ids = await pendingRuns();
    const { cookie: operator } = await signedInAs(t, ['noise_operator']);
    const res = await dispatch(bodyFor(run_ids, { trigger: 'manual' }), { cookie: operator });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    const { web, dns } = rebased(t.clock.now());
    expect(received().syslog).toEqual([
      `${header(web[0]!.time)}${web[0]!.line}\tlabIndex=syslog-default`,
      `${header(web[1]!.time)}${web[1]!.line}\tlabIndex=syslog-default`,
      `${header(dns[0]!.time)}${dns[0]!.line}^labIndex=dns-noise`,
      `${header(dns[1]!.time)}${dns[1]!.line}^labIndex=dns-noise`,
    ]);
    expect(received().hec['dns-noise'].map((e) => e.time)).toEqual(dns.map((e) => e.time / 1000));
    const rows = await rowsOf(run_ids);
    expect(rows.map((r) => [r.status, r.events_shipped])).toEqual([
      ['succeeded', 4],
      ['succeeded', 4],
      ['succeeded', 4],
    ]);
    expect(await lastDispatchAudit()).toMatchObject({
      actor_type: 'user',
      outcome: 'success',
      details: { trigger: 'manual', failed: [] },
    });
  });

  it('isolates a target that refuses connections: its row fails naming SIEM and endpoint, the others succeed', async () => {
    await syslog.faults.refuse();
    try {
      const run_ids = await pendingRuns();
      const res = await dispatch(bodyFor(run_ids));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ ok: false, failed: ['qradar-lab'] });
      const rows = Object.fromEntries((await rowsOf(run_ids)).map((r) => [r.siem, r]));
      expect(rows['qradar-lab']).toMatchObject({ status: 'failed', events_shipped: 0, events_failed: 4 });
      // Both archives met the same refusal; the row keeps it once.
      expect(rows['qradar-lab']?.error).toBe(
        `SIEM "qradar-lab" tcp://127.0.0.1:${syslog.port}: connection refused (ECONNREFUSED); gave up after 2 attempts`,
      );
      expect(rows['splunk-lab']).toMatchObject({ status: 'succeeded', events_shipped: 4, events_failed: 0 });
      expect(rows['elastic-lab']).toMatchObject({ status: 'succeeded', events_shipped: 4, events_failed: 0 });
      const got = received();
      expect(got.hec.total).toBe(4);
      expect(got.bulk['lab-events'].length + got.bulk['dns-noise'].length).toBe(4);
      expect(got.syslog).toEqual([]);
      expect(await lastDispatchAudit()).toMatchObject({
        outcome: 'failure',
        details: { failed: ['qradar-lab'] },
      });
    } finally {
      await syslog.faults.accept();
    }
  });

  it('fails every row naming the path when an archive is missing from storage', async () => {
    await upload('noise/gone.zip', buildZip([{ name: 'x.log', data: `${WEB_LINES[0]}\n` }]));
    const id = await newJob(
      'missing archive',
      ['qradar-lab', 'splunk-lab'],
      [{ position: 0, storage_path: 'noise/gone.zip' }],
    );
    await t.ctx.storage.delete('noise-archives', 'noise/gone.zip');
    const run_ids = await pendingRuns(id);
    const res = await dispatch({
      ...bodyFor(run_ids, { job_id: id }),
      archives: [{ position: 0, storage_path: 'noise/gone.zip' }],
    });
    expect(res.json()).toEqual({ ok: false, failed: ['qradar-lab', 'splunk-lab'] });
    const rows = await rowsOf(run_ids);
    expect(rows.map((r) => [r.status, r.events_shipped, r.events_failed, r.error])).toEqual([
      ['failed', 0, 0, 'the dispatch failed: archive "noise/gone.zip" is not in the noise-archives bucket'],
      ['failed', 0, 0, 'the dispatch failed: archive "noise/gone.zip" is not in the noise-archives bucket'],
    ]);
    expect(received().syslog).toEqual([]);
  });

  it('fails every row with "no events" for an archive without LEEF lines', async () => {
    await upload(
      'noise/blank.zip',
      buildZip([
        { name: 'empty.log', data: '\n\n' },
        { name: 'README.md', data: 'hi' },
      ]),
    );
    const id = await newJob(
      'blank archive',
      ['qradar-lab'],
      [{ position: 0, storage_path: 'noise/blank.zip' }],
    );
    const run_ids = await pendingRuns(id);
    const res = await dispatch({
      ...bodyFor(run_ids, { job_id: id }),
      archives: [{ position: 0, storage_path: 'noise/blank.zip' }],
    });
    expect(res.json()).toEqual({ ok: false, failed: ['qradar-lab'] });
    const [row] = await rowsOf(run_ids);
    expect([row?.status, row?.error]).toEqual([
      'failed',
      'no events to ship: noise/blank.zip: The archive has no LEEF lines (.log/.txt entries) to ship',
    ]);
  });

  it('answers 400 naming an archive the job does not have, dispatching nothing', async () => {
    const run_ids = await pendingRuns();
    const res = await dispatch(
      bodyFor(run_ids, { archives: [{ position: 0, storage_path: 'noise/dns.zip' }] }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.fields).toEqual({
      'archives.0': '"noise/dns.zip" at position 0 is not an archive of job "web and dns noise"',
    });
    const rows = await rowsOf(run_ids);
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
    expect(received().hec.total).toBe(0);
  });

  it("writes next_run_at from the request's schedule (spec 4.1 step 5)", async () => {
    const run_ids = await pendingRuns();
    const now = t.clock.now();
    const res = await dispatch(bodyFor(run_ids, { schedule: { kind: 'interval', interval_seconds: 7200 } }));
    expect(res.json()).toEqual({ ok: true });
    expect((await findJob(t.ctx.db, jobId)).next_run_at).toBe(now + 7_200_000);
  });

  it('answers 409 job_running while a dispatch of the job is in progress and skips the new rows', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    dispatcher.use(async (request, signal) => {
      started = true;
      await gate;
      return dispatcher.real(request, signal);
    });
    const first = dispatch(bodyFor(await pendingRuns()));
    // The dispatch takes its lease and starts its rows first (database round trips): wait in time.
    for (let i = 0; i < 500 && !started; i++) await new Promise((r) => setTimeout(r, 10));
    expect(started).toBe(true);
    const second_ids = await pendingRuns();
    const second = await dispatch(bodyFor(second_ids));
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toMatchObject({ code: 'job_running', details: { run_ids: second_ids } });
    const skipped = await rowsOf(second_ids);
    expect(skipped.map((r) => [r.status, r.error])).toEqual([
      ['skipped', JOB_RUNNING_REASON],
      ['skipped', JOB_RUNNING_REASON],
      ['skipped', JOB_RUNNING_REASON],
    ]);
    expect(await lastDispatchAudit()).toMatchObject({
      actor_type: 'token',
      outcome: 'failure',
      details: {
        reason: 'job_running',
        targets: ['splunk-lab', 'elastic-lab', 'qradar-lab'],
        run_ids: second_ids,
      },
    });
    release();
    const done = await first;
    expect(done.json()).toEqual({ ok: true });
    expect(received().syslog).toHaveLength(4);
  });

  it('answers 404 for an unknown job and 400 for a bad body', async () => {
    const ids = { 'qradar-lab': crypto.randomUUID() };
    const unknown = await dispatch(bodyFor(ids, { job_id: crypto.randomUUID() }));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');

    const run_ids = await pendingRuns();
    const missing = await dispatch(
      bodyFor({ 'splunk-lab': run_ids['splunk-lab'] as string }, { targets: ['splunk-lab', 'qradar-lab'] }),
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details.fields).toEqual({
      'targets.1': '"qradar-lab" has no entry in run_ids',
    });

    const extra = await dispatch({ ...bodyFor(run_ids), force: true });
    expect(extra.statusCode).toBe(400);
    const twice = await dispatch(
      bodyFor(run_ids, {
        archives: [
          { position: 0, storage_path: 'noise/web.zip' },
          { position: 0, storage_path: 'noise/dns.zip' },
        ],
      }),
    );
    expect(twice.statusCode).toBe(400);
    expect(twice.json().error.details.fields).toEqual({
      'archives.1.position': 'repeats the position of archives.0',
    });
    const noInterval = await dispatch(bodyFor(run_ids, { schedule: { kind: 'interval' } }));
    expect(noInterval.statusCode).toBe(400);
    expect(noInterval.json().error.details.fields).toEqual({
      'schedule.interval_seconds': 'is required when kind is interval',
    });
    const badTrigger = await dispatch(bodyFor(run_ids, { trigger: 'cron' }));
    expect(badTrigger.statusCode).toBe(400);
    // None of these touched the rows.
    const rows = await rowsOf(run_ids);
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
  });

  it('answers 401 without credentials or with a wrong token, and 403 to a user without manage_noise_logs', async () => {
    const body = bodyFor(await pendingRuns());
    const none = await dispatch(body, {});
    expect([none.statusCode, none.json().error.code]).toEqual([401, 'unauthenticated']);
    const wrong = await dispatch(body, { authorization: `Bearer ${DISPATCH_TOKEN}x` });
    expect([wrong.statusCode, wrong.json().error.code]).toEqual([401, 'unauthenticated']);
    const { cookie: author } = await signedInAs(t, ['author']);
    const denied = await dispatch(body, { cookie: author });
    expect([denied.statusCode, denied.json().error.code]).toEqual([403, 'forbidden']);
    expect(received().syslog).toEqual([]);
  });

  it('lets the scheduler deliver a due job to the simulators', async () => {
    t.clock.advance(HOUR);
    // Only this job is due; the others of this file stay out of the scheduler's way.
    await t.ctx.db
      .updateTable('noise_jobs')
      .set({ enabled: false, next_run_at: null })
      .where('id', '!=', jobId)
      .execute();
    await t.ctx.db
      .updateTable('noise_jobs')
      .set({ next_run_at: new Date(t.clock.now()) })
      .where('id', '=', jobId)
      .execute();
    const [claim, ...more] = await t.ctx.noise.scheduler.tick();
    expect(more).toEqual([]);
    expect(claim?.job.id).toBe(jobId);
    await t.ctx.noise.runner.settle();
    const { web, dns } = rebased(t.clock.now());
    expect(received().syslog).toEqual([
      `${header(web[0]!.time)}${web[0]!.line}\tlabIndex=syslog-default`,
      `${header(web[1]!.time)}${web[1]!.line}\tlabIndex=syslog-default`,
      `${header(dns[0]!.time)}${dns[0]!.line}^labIndex=dns-noise`,
      `${header(dns[1]!.time)}${dns[1]!.line}^labIndex=dns-noise`,
    ]);
    expect(received().hec.total).toBe(4);
    const rows = await rowsOf(claim?.run_ids ?? {});
    expect(rows.map((r) => [r.trigger, r.status, r.events_shipped])).toEqual([
      ['schedule', 'succeeded', 4],
      ['schedule', 'succeeded', 4],
      ['schedule', 'succeeded', 4],
    ]);
    expect(await lastDispatchAudit()).toMatchObject({ actor_type: 'system', outcome: 'success' });
  });

  it('is described in the OpenAPI document with its body and both ways to authenticate', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json', headers: { cookie } })).json();
    const op = doc.paths['/api/noise/run'].post;
    expect(op.requestBody.content['application/json'].schema.required.sort()).toEqual([
      'archives',
      'job_id',
      'run_ids',
      'schedule',
      'targets',
      'trigger',
    ]);
    expect(op.security).toEqual([{ dispatchToken: [] }, { session: [] }]);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '503']);
  });

  async function newJob(
    name: string,
    targets: string[],
    archives: Array<{ position: number; storage_path: string }>,
  ): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/noise/jobs',
      headers: { cookie },
      payload: { name, targets, schedule: SCHEDULE, archives },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  /** Run rows in the order of the job's targets (getRuns returns them in any order). */
  async function rowsOf(run_ids: Record<string, string>): Promise<RunView[]> {
    const rows = await getRuns(t.ctx.db, Object.values(run_ids));
    return Object.keys(run_ids).map((siem) => rows.find((r) => r.siem === siem)!);
  }

  async function lastDispatchAudit() {
    return t.ctx.db
      .selectFrom('audit_log')
      .select(['actor_type', 'actor_label', 'outcome', 'target', 'details'])
      .where('action', '=', 'noise.dispatch')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  }
});
