import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import {
  type SiemQSimulator,
  siemQErrorBody,
  startSiemQSimulator,
} from '../../test/simulators/siem-q-simulator.ts';
import { type SyslogSimulator, startSyslogSimulator } from '../../test/simulators/syslog-simulator.ts';
import { sectionIdentity } from '../attempts/section-identity.ts';
import { createDestination, updateDestination } from '../destinations/destination-service.ts';

const MIN = 60_000;
const T0 = Date.UTC(2024, 5, 1, 10, 0, 0);
const LOG_SOURCES = '/api/config/event_sources/log_source_management/log_sources';
const leef = (ms: number, n: number) => `LEEF:1.0|Acme|Firewall|9.1|evt|src=10.0.0.${n}\tdevTime=${ms}`;
const zipOf = (lines: string[]) => buildZip([{ name: 'events.log', data: lines.join('\n') }]);

describe('SIEM Q log sources of exercises', () => {
  let t: TestApp;
  let q: SiemQSimulator;
  let syslog: SyslogSimulator;
  let author: string;
  let analyst: string;
  let admin: string;

  beforeAll(async () => {
    q = await startSiemQSimulator();
    syslog = await startSyslogSimulator({ framing: 'lf' });
    t = await buildTestApp({ env: { ARCHIVE_ALLOW_HTTP: 'true', ARCHIVE_ALLOWED_HOSTS: '127.0.0.1' } });
    author = (await signedInAs(t, ['author'])).cookie;
    analyst = (await signedInAs(t, ['analyst'])).cookie;
    admin = (await signedInAs(t, ['admin'])).cookie;
    await createDestination(t.ctx, {
      name: 'siemq',
      driver: 'syslog_tcp',
      host: syslog.host,
      port: syslog.port,
      index: 'lab',
      provision_log_source: true,
      offense_cleanup: true,
      siem_q: { console_url: q.url, token: q.token },
    });
  });
  afterAll(async () => {
    await t?.close();
    await q?.close();
    await syslog?.close();
  });
  afterEach(async () => {
    q.faults.clear();
    await q.faults.accept();
    q.store.failClose.clear();
    syslog.store.clear();
    await t.ctx.exercises.attempts.settled();
  });

  const call = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    cookie: string,
    payload?: object | Buffer,
  ) =>
    t.app.inject({
      method,
      url,
      headers: {
        cookie,
        ...(Buffer.isBuffer(payload) ? { 'content-type': 'application/octet-stream' } : {}),
      },
      ...(payload !== undefined ? { payload } : {}),
    });
  const ok = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    cookie: string,
    payload?: object | Buffer,
  ) => {
    const res = await call(method, url, cookie, payload);
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };

  /** A draft on `siemq` with `sections` sections (positions 1…n), each with two LEEF events. */
  async function draft(title: string, sections: string[]) {
    const { id } = await ok('POST', '/api/exercises', author, { title, destinations: ['siemq'] });
    const ids: string[] = [];
    for (const [i, name] of sections.entries()) {
      const { created_id } = await ok('POST', `/api/exercises/${id}/sections`, author, {
        name,
        position: i + 1,
      });
      ids.push(created_id);
      await ok(
        'PUT',
        `/api/exercises/${id}/sections/${created_id}/archives?filename=s${i}.zip`,
        author,
        zipOf([leef(T0 + i * MIN, i * 2 + 1), leef(T0 + i * MIN + 1000, i * 2 + 2)]),
      );
    }
    return { id: id as string, sections: ids };
  }
  const publish = (id: string) => call('POST', `/api/exercises/${id}/publish`, author);
  const logSources = async (id: string) =>
    (await ok('GET', `/api/exercises/${id}/log-sources`, author)).log_sources;
  /** Log sources the console created (a refused create, such as a 409, creates none). */
  const creates = () =>
    q.requests.filter((r) => r.method === 'POST' && r.path === LOG_SOURCES && r.status === 201).length;

  it('provisions one log source per section at publish, named and identified as decided, and again idempotently', async () => {
    const ex = await draft('Phishing triage', ['Mail gateway', 'Proxy']);
    const before = creates();
    const first = await publish(ex.id);
    expect(first.statusCode, first.body).toBe(200);
    expect(creates() - before).toBe(2);
    const rows = await logSources(ex.id);
    expect(rows).toEqual([
      expect.objectContaining({
        section_id: expect.any(String),
        siem: 'siemq',
        status: 'provisioned',
        requires_deploy: false,
        error: null,
        log_source_id: expect.any(Number),
      }),
      expect.objectContaining({ status: 'provisioned' }),
    ]);
    const bySection = new Map(rows.map((r: { section_id: string }) => [r.section_id, r]));
    for (const [i, sectionId] of ex.sections.entries()) {
      const row = bySection.get(sectionId) as { identifier: string; log_source_id: number };
      expect(row.identifier).toBe(sectionIdentity(ex.id, i + 1, 'siemq'));
      const source = q.store.logSources.get(row.log_source_id);
      expect(source?.name).toBe(`Socdrill Phishing triage / ${['Mail gateway', 'Proxy'][i]}`);
      expect(q.store.identifierOf(source as never)).toBe(row.identifier);
      expect(source).toMatchObject({ type_id: 277, protocol_type_id: 0, target_event_collector_id: 7 });
    }
    // Publishing again (after unpublish) finds them: nothing new in the console.
    await ok('POST', `/api/exercises/${ex.id}/unpublish`, author);
    const again = await publish(ex.id);
    expect(again.statusCode, again.body).toBe(200);
    expect(creates() - before).toBe(2);
    expect((await logSources(ex.id)).map((r: { log_source_id: number }) => r.log_source_id)).toEqual(
      rows.map((r: { log_source_id: number }) => r.log_source_id),
    );
  });

  it('two publishes at once provision each section once', async () => {
    const ex = await draft('Raced', ['One', 'Two']);
    const before = creates();
    const [a, b] = await Promise.all([publish(ex.id), publish(ex.id)]);
    // One goes active; the other finds it active already, or the version moved under it (412).
    expect([a.statusCode, b.statusCode].sort()).toEqual(expect.arrayContaining([200]));
    for (const res of [a, b]) expect([200, 412]).toContain(res.statusCode);
    expect(creates() - before).toBe(2);
    const rows = await logSources(ex.id);
    expect(new Set(rows.map((r: { log_source_id: number }) => r.log_source_id)).size).toBe(2);
  });

  it('resolves a duplicate-identifier 409 by finding the existing log source, and never shares one between exercises', async () => {
    const ex = await draft('Ransomware', ['Endpoint']);
    const identifier = sectionIdentity(ex.id, 1, 'siemq');
    // Someone renamed our log source in the console: the name finds nothing, the create answers 409/1002.
    const seeded = q.store.addLogSource({
      name: 'renamed by an admin',
      identifier,
      type_id: 277,
      protocol_type_id: 0,
    });
    const res = await publish(ex.id);
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await logSources(ex.id);
    expect(row).toMatchObject({ status: 'provisioned', log_source_id: seeded.id });
    expect(q.requests.some((r) => r.method === 'POST' && r.path === LOG_SOURCES && r.status === 409)).toBe(
      true,
    );

    // Another exercise with the same title and section name: its own log source, under a name
    // made unique by its identifier.
    const twin = await draft('Ransomware', ['Endpoint']);
    const other = q.store.addLogSource({
      name: 'Socdrill Ransomware / Endpoint',
      identifier: 'someone-else',
      type_id: 277,
      protocol_type_id: 0,
    });
    expect((await publish(twin.id)).statusCode).toBe(200);
    const [twinRow] = await logSources(twin.id);
    expect(twinRow.log_source_id).not.toBe(seeded.id);
    expect(twinRow.log_source_id).not.toBe(other.id);
    expect(q.store.logSources.get(twinRow.log_source_id)?.name).toBe(
      `Socdrill Ransomware / Endpoint (${sectionIdentity(twin.id, 1, 'siemq')})`,
    );
  });

  it('keeps the exercise draft while SIEM Q needs a deploy, naming each section, and publishes after the deploy', async () => {
    q.store.requiresDeployOnCreate = true;
    try {
      const ex = await draft('Deploy first', ['One', 'Two']);
      const res = await publish(ex.id);
      expect(res.statusCode, res.body).toBe(422);
      const body = res.json();
      expect(body.state).toBe('draft');
      expect(body.problems).toEqual([
        expect.objectContaining({ code: 'siem_q_deploy_required', siem: 'siemq', section: ex.sections[0] }),
        expect.objectContaining({ code: 'siem_q_deploy_required', siem: 'siemq', section: ex.sections[1] }),
      ]);
      expect(body.warnings.filter((w: { code: string }) => w.code === 'siem_q_deploy_required')).toHaveLength(
        2,
      );
      expect((await logSources(ex.id)).every((r: { requires_deploy: boolean }) => r.requires_deploy)).toBe(
        true,
      );
      const made = creates();

      q.store.deploy();
      const after = await publish(ex.id);
      expect(after.statusCode, after.body).toBe(200);
      expect(after.json().state).toBe('active');
      expect(creates()).toBe(made);
      expect((await logSources(ex.id)).some((r: { requires_deploy: boolean }) => r.requires_deploy)).toBe(
        false,
      );
    } finally {
      q.store.requiresDeployOnCreate = false;
    }
  });

  it('reports a console that is down or refuses the token inline at publish, and stays draft', async () => {
    const ex = await draft('Console trouble', ['Only']);
    await q.faults.refuse();
    const down = await publish(ex.id);
    expect(down.statusCode).toBe(422);
    expect(down.json().problems).toEqual([
      expect.objectContaining({
        code: 'siem_q_unreachable',
        siem: 'siemq',
        message: expect.stringContaining(`SIEM Q console ${q.url.replace(/\/$/, '')}`),
      }),
    ]);
    await q.faults.accept();
    q.faults.next(1, { status: 401 });
    const refused = await publish(ex.id);
    expect(refused.json().problems).toEqual([
      expect.objectContaining({ code: 'siem_q_error', message: expect.stringContaining('siem_q.token') }),
    ]);
    expect(refused.body).not.toContain(q.token);
    expect((await ok('GET', `/api/exercises/${ex.id}`, author)).state).toBe('draft');
  });

  it('reports a console error on one section inline with its message, the others provisioned', async () => {
    const ex = await draft('Half', ['A', 'B']);
    q.faults.next(1, {
      status: 422,
      body: siemQErrorBody(422, 1025, 'The target event collector does not exist.'),
      match: { method: 'POST', path: LOG_SOURCES },
    });
    const res = await publish(ex.id);
    expect(res.statusCode).toBe(422);
    expect(res.json().problems).toEqual([
      expect.objectContaining({
        code: 'siem_q_error',
        siem: 'siemq',
        section: ex.sections[0],
        message: expect.stringContaining('code 1025'),
      }),
    ]);
    const rows = await logSources(ex.id);
    expect(rows.map((r: { status: string }) => r.status).sort()).toEqual(['failed', 'provisioned']);
  });

  it('refuses an identifier another destination already uses (names differing only in case)', async () => {
    await createDestination(t.ctx, {
      name: 'SIEMQ',
      driver: 'syslog_tcp',
      host: syslog.host,
      port: syslog.port,
      index: 'lab',
      provision_log_source: true,
      siem_q: { console_url: q.url, token: q.token },
    });
    const { id } = await ok('POST', '/api/exercises', author, {
      title: 'Twice',
      destinations: ['siemq', 'SIEMQ'],
    });
    const { created_id } = await ok('POST', `/api/exercises/${id}/sections`, author, {
      name: 'Only',
      position: 1,
    });
    await ok(
      'PUT',
      `/api/exercises/${id}/sections/${created_id}/archives?filename=a.zip`,
      author,
      zipOf([leef(T0, 1)]),
    );
    const res = await publish(id);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().problems).toEqual([
      expect.objectContaining({
        code: 'siem_q_error',
        siem: 'SIEMQ',
        section: created_id,
        message: expect.stringContaining('already provisioned for this exercise on SIEM "siemq"'),
      }),
    ]);
  });

  describe('with a published exercise', () => {
    let ex: { id: string; sections: string[] };
    let rows: Array<{ section_id: string; log_source_id: number; identifier: string }>;
    beforeAll(async () => {
      ex = await draft('Live one', ['First', 'Second', 'Third']);
      expect((await publish(ex.id)).statusCode).toBe(200);
      rows = await logSources(ex.id);
    });
    const idOf = (i: number) => rows.find((r) => r.section_id === ex.sections[i])?.log_source_id as number;

    it('ships each section with its identifier as syslog HOSTNAME', async () => {
      const res = await call('POST', `/api/exercises/${ex.id}/attempts`, analyst, { siem: 'siemq' });
      expect(res.statusCode, res.body).toBe(201);
      await syslog.waitForMessages(6);
      const hosts = syslog.store
        .texts()
        .map((text) => /^<134>\w{3} [ \d]\d \d\d:\d\d:\d\d (\S+) LEEF:/.exec(text)?.[1]);
      expect(hosts.sort()).toEqual([1, 1, 2, 2, 3, 3].map((p) => sectionIdentity(ex.id, p, 'siemq')));
      await ok('POST', `/api/attempts/${res.json().id}/complete`, analyst);
    });

    it('refuses start, Ship logs and redo with 409 siem_q_not_ready listing every blocking section', async () => {
      const started = await call('POST', `/api/exercises/${ex.id}/attempts`, analyst, { siem: 'siemq' });
      expect(started.statusCode, started.body).toBe(201);
      const attemptId = started.json().id as string;
      syslog.store.clear();
      // In the console: one log source deleted, one waiting for a deploy; in ours: one failed.
      const deleted = idOf(0);
      const saved = q.store.logSources.get(deleted);
      q.store.deleteLogSource(deleted);
      const waiting = q.store.logSources.get(idOf(1));
      if (waiting) waiting.requires_deploy = true;
      try {
        for (const [method, url] of [
          ['POST', `/api/attempts/${attemptId}/ship`],
          ['POST', `/api/attempts/${attemptId}/redo`],
        ] as const) {
          const res = await call(method, url, analyst);
          expect(res.statusCode, res.body).toBe(409);
          expect(res.json().error).toMatchObject({
            code: 'siem_q_not_ready',
            details: {
              siem: 'siemq',
              sections: [
                { section: ex.sections[0], reason: 'missing', name: 'First' },
                { section: ex.sections[1], reason: 'deploy_required', name: 'Second' },
              ],
            },
          });
        }
        await ok('POST', `/api/attempts/${attemptId}/complete`, analyst);
        const res = await call('POST', `/api/exercises/${ex.id}/attempts`, analyst, { siem: 'siemq' });
        expect(res.statusCode).toBe(409);
        expect(res.json().error.details.sections.map((s: { reason: string }) => s.reason)).toEqual([
          'missing',
          'deploy_required',
        ]);
        expect(syslog.store.messages).toHaveLength(0);
        // What the gate learnt is stored.
        const now = await logSources(ex.id);
        expect(now.find((r: { section_id: string }) => r.section_id === ex.sections[0])).toMatchObject({
          status: 'missing',
          error: expect.stringContaining('no longer exists'),
        });
        expect(now.find((r: { section_id: string }) => r.section_id === ex.sections[1])).toMatchObject({
          status: 'provisioned',
          requires_deploy: true,
        });
      } finally {
        if (saved) q.store.logSources.set(deleted, saved);
        if (waiting) waiting.requires_deploy = false;
        await t.ctx.db
          .updateTable('exercise_log_sources')
          .set({ status: 'provisioned', error: null })
          .where('exercise_id', '=', ex.id)
          .execute();
      }
    });

    it('blocks a section whose provisioning failed, whose log source is disabled, or that moved since publish', async () => {
      const started = await call('POST', `/api/exercises/${ex.id}/attempts`, analyst, { siem: 'siemq' });
      expect(started.statusCode, started.body).toBe(201);
      const attemptId = started.json().id as string;
      syslog.store.clear();
      await t.ctx.db
        .updateTable('exercise_log_sources')
        .set({ status: 'failed', error: 'refused earlier' })
        .where('section_id', '=', ex.sections[0] as string)
        .execute();
      const disabled = q.store.logSources.get(idOf(1));
      if (disabled) disabled.enabled = false;
      // Unpublished and edited while the attempt runs: the third section moves to position 9.
      await ok('POST', `/api/exercises/${ex.id}/unpublish`, author);
      await ok('PATCH', `/api/exercises/${ex.id}/sections/${ex.sections[2]}`, author, { position: 9 });
      try {
        const res = await call('POST', `/api/attempts/${attemptId}/ship`, analyst);
        expect(res.statusCode, res.body).toBe(409);
        expect(res.json().error.details.sections).toEqual([
          expect.objectContaining({ section: ex.sections[0], reason: 'failed' }),
          expect.objectContaining({ section: ex.sections[1], reason: 'failed' }),
          expect.objectContaining({
            section: ex.sections[2],
            reason: 'missing',
            identifier: sectionIdentity(ex.id, 9, 'siemq'),
          }),
        ]);
        expect(syslog.store.messages).toHaveLength(0);
        const stored = await logSources(ex.id);
        expect(stored.find((r: { section_id: string }) => r.section_id === ex.sections[1])?.error).toContain(
          'disabled',
        );
        expect(stored.find((r: { section_id: string }) => r.section_id === ex.sections[2])?.error).toContain(
          'publish the exercise again',
        );
      } finally {
        if (disabled) disabled.enabled = true;
        await ok('PATCH', `/api/exercises/${ex.id}/sections/${ex.sections[2]}`, author, { position: 3 });
        // Publishing again provisions what is not ready (the moved section's log source keeps its id).
        const again = await publish(ex.id);
        expect(again.statusCode, again.body).toBe(200);
        await ok('POST', `/api/attempts/${attemptId}/complete`, analyst);
      }
      rows = await logSources(ex.id);
      expect(rows.every((r) => (r as unknown as { status: string }).status === 'provisioned')).toBe(true);
    });

    it('fails an attempt start at once naming the console when it is down, shipping nothing', async () => {
      await q.faults.refuse();
      const res = await call('POST', `/api/exercises/${ex.id}/attempts`, analyst, { siem: 'siemq' });
      expect(res.statusCode, res.body).toBe(500);
      expect(res.json().error).toMatchObject({
        code: 'siem_q_unreachable',
        message: expect.stringContaining('SIEM Q console'),
        details: { siem: 'siemq', console: expect.stringContaining(new URL(q.url).host) },
      });
      expect(syslog.store.messages).toHaveLength(0);
    });

    it('closes exactly the offenses of its log sources opened in the attempt window, each once', async () => {
      const started = await call('POST', `/api/exercises/${ex.id}/attempts`, analyst, { siem: 'siemq' });
      expect(started.statusCode, started.body).toBe(201);
      const attempt = started.json();
      const startMs = Date.parse(attempt.started_at);
      // The exercise-level log source (legacy identifier), when the console has one, counts too.
      const legacy = q.store.addLogSource({
        name: 'legacy of Live one',
        identifier: sectionIdentity(ex.id, null, 'siemq'),
        type_id: 277,
        protocol_type_id: 0,
      });
      const viaLegacy = q.store.addOffense({ log_source_ids: [legacy.id], start_time: startMs + MIN });
      const stranger = q.store.addLogSource({
        name: 'not ours',
        identifier: 'other-host',
        type_id: 277,
        protocol_type_id: 0,
      });
      const inWindow = q.store.addOffense({ log_source_ids: [idOf(0)], start_time: startMs + MIN });
      const shared = q.store.addOffense({
        log_source_ids: [idOf(1), idOf(2)],
        start_time: startMs + 2 * MIN,
      });
      const hidden = q.store.addOffense({
        log_source_ids: [idOf(2)],
        start_time: startMs + 3 * MIN,
        status: 'HIDDEN',
      });
      const before = q.store.addOffense({ log_source_ids: [idOf(0)], start_time: startMs - MIN });
      const notOurs = q.store.addOffense({ log_source_ids: [stranger.id], start_time: startMs + MIN });
      const closedAlready = q.store.addOffense({
        log_source_ids: [idOf(0)],
        start_time: startMs + MIN,
        status: 'CLOSED',
      });
      t.clock.advance(10 * MIN);
      const after = q.store.addOffense({ log_source_ids: [idOf(0)], start_time: t.clock.now() + MIN });
      const calls = q.store.closeCalls.length;

      const done = await ok('POST', `/api/attempts/${attempt.id}/complete`, analyst);
      expect(done.offense_cleanup).toMatchObject({
        attempt_id: attempt.id,
        status: 'ok',
        found: 4,
        closed: 4,
        failed: 0,
        error: null,
      });
      expect(q.store.closeCalls.slice(calls).sort()).toEqual(
        [inWindow.id, shared.id, hidden.id, viaLegacy.id].sort(),
      );
      for (const o of [inWindow, shared, hidden, viaLegacy]) {
        expect(q.store.offenses.get(o.id)).toMatchObject({ status: 'CLOSED', closing_reason_id: 54 });
      }
      for (const o of [before, notOurs, after]) expect(q.store.offenses.get(o.id)?.status).toBe('OPEN');
      expect(q.store.closeCalls).not.toContain(closedAlready.id);
      const view = await ok('GET', `/api/attempts/${attempt.id}`, analyst);
      expect(view.offense_cleanup).toMatchObject({ status: 'ok', closed: 4 });
      for (const o of [before, after])
        q.store.updateOffense(o.id, { status: 'CLOSED', closing_reason_id: '54' });
    });

    it('reports partial when one close fails, and completion still succeeds', async () => {
      const started = await call('POST', `/api/exercises/${ex.id}/attempts`, analyst, { siem: 'siemq' });
      const attempt = started.json();
      const startMs = Date.parse(attempt.started_at);
      const good = q.store.addOffense({ log_source_ids: [idOf(0)], start_time: startMs + 1 });
      const bad = q.store.addOffense({ log_source_ids: [idOf(1)], start_time: startMs + 2 });
      q.store.failClose.set(bad.id, {
        status: 409,
        code: 1008,
        message: 'The offense is in a state that prevents the change.',
      });
      t.clock.advance(MIN);
      const done = await ok('POST', `/api/attempts/${attempt.id}/complete`, analyst);
      expect(done.score).toBe(0);
      expect(done.offense_cleanup).toMatchObject({
        status: 'partial',
        closed: 1,
        failed: 1,
        error: expect.stringContaining('code 1008'),
      });
      expect(q.store.offenses.get(good.id)?.status).toBe('CLOSED');
      expect(q.store.offenses.get(bad.id)?.status).toBe('OPEN');
      q.store.failClose.clear();
      q.store.updateOffense(bad.id, { status: 'CLOSED', closing_reason_id: '54' });
    });

    it('closes the ended run’s offenses at redo', async () => {
      const started = await call('POST', `/api/exercises/${ex.id}/attempts`, analyst, { siem: 'siemq' });
      const attempt = started.json();
      const offense = q.store.addOffense({
        log_source_ids: [idOf(2)],
        start_time: Date.parse(attempt.started_at) + 5,
      });
      t.clock.advance(MIN);
      const redone = await ok('POST', `/api/attempts/${attempt.id}/redo`, analyst);
      expect(redone.offense_cleanup).toMatchObject({ status: 'ok', closed: 1 });
      expect(q.store.offenses.get(offense.id)?.status).toBe('CLOSED');
      await ok('POST', `/api/attempts/${attempt.id}/complete`, analyst);
    });

    it('a session wipe closes the open offenses of every provisioned log source, any time, each once', async () => {
      const old = q.store.addOffense({ log_source_ids: [idOf(0), idOf(1)], start_time: T0 });
      const calls = q.store.closeCalls.length;
      const res = await call('DELETE', '/api/sessions?siem=siemq', author);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        skipped: ['siemq'],
        offense_cleanup: [{ siem: 'siemq', status: 'ok', closed: 1, failed: 0 }],
      });
      expect(q.store.closeCalls.slice(calls)).toEqual([old.id]);
      // The wipe page offers it: its events stay, its offenses are closed.
      const listed = await ok('GET', '/api/siems', author);
      expect(listed.find((d: { name: string }) => d.name === 'siemq')).toMatchObject({
        can_wipe: false,
        closes_offenses: true,
      });
      const audit = await t.ctx.db
        .selectFrom('audit_log')
        .select(['outcome'])
        .where('action', '=', 'session.wipe_offenses')
        .execute();
      expect(audit.map((a) => a.outcome)).toContain('success');
    });
  });

  it('a session start fails at once naming the console when it is down, and ships when it answers', async () => {
    const zip = zipOf([leef(T0, 1)]);
    const files = await startArchiveServer(zip);
    try {
      await q.faults.refuse();
      const down = await call('POST', '/api/sessions/start', author, {
        archiveDownloadUrl: files.url,
        siem: 'siemq',
        syslogSourceIdentity: 'lab-session-1',
      });
      expect(down.statusCode, down.body).toBe(500);
      expect(down.json().error).toMatchObject({
        code: 'siem_q_unreachable',
        message: expect.stringContaining('SIEM Q console'),
      });
      expect(files.downloads()).toBe(0);
      await q.faults.accept();
      const up = await call('POST', '/api/sessions/start', author, {
        archiveDownloadUrl: files.url,
        siem: 'siemq',
        syslogSourceIdentity: 'lab-session-1',
      });
      expect(up.statusCode, up.body).toBe(200);
      expect(up.json()).toMatchObject({ ok: true, events: 1 });
      await syslog.waitForMessages(1);
      expect(syslog.store.texts()[0]).toMatch(/^<134>\w{3} [ \d]\d \d\d:\d\d:\d\d lab-session-1 LEEF:/);
    } finally {
      await files.close();
    }
  });

  it('the destination check proves the token, the API version, the collector and the log source type', async () => {
    const res = await call('POST', '/api/destinations/siemq/test', admin);
    expect(res.statusCode, res.body).toBe(200);
    const steps = res.json().checks as Array<{ name: string; ok: boolean; message: string }>;
    expect(steps.filter((s) => s.name.startsWith('siem_q'))).toEqual([
      expect.objectContaining({
        name: 'siem_q_console',
        ok: true,
        message: 'token accepted; API version 26.0',
      }),
      expect.objectContaining({
        name: 'siem_q_event_collector',
        ok: true,
        message: expect.stringContaining('id 7'),
      }),
      expect.objectContaining({
        name: 'siem_q_log_source_type',
        ok: true,
        message: expect.stringContaining('"Universal LEEF" (id 277)'),
      }),
      expect.objectContaining({ name: 'siem_q_closing_reason', ok: true }),
    ]);

    await updateDestination(
      t.ctx,
      'siemq',
      { siem_q: { console_url: q.url, token: 'wrong-token-1234', log_source_type: 'No Such Type' } },
      new Date(),
    );
    try {
      const bad = await call('POST', '/api/destinations/siemq/test', admin);
      const badSteps = bad.json().checks as Array<{ name: string; ok: boolean; message: string }>;
      expect(badSteps.find((s) => s.name === 'siem_q_console')).toMatchObject({
        ok: false,
        message: expect.stringContaining('siem_q.token'),
      });
      expect(bad.body).not.toContain('wrong-token-1234');
      await updateDestination(
        t.ctx,
        'siemq',
        { siem_q: { console_url: q.url, token: q.token, log_source_type: 'No Such Type' } },
        new Date(),
      );
      const noType = await call('POST', '/api/destinations/siemq/test', admin);
      expect(
        (noType.json().checks as Array<{ name: string; ok: boolean; message: string }>).find(
          (s) => s.name === 'siem_q_setup',
        ),
      ).toMatchObject({
        ok: false,
        message: expect.stringContaining('no log source type is named "No Such Type"'),
      });
    } finally {
      await updateDestination(t.ctx, 'siemq', { siem_q: { console_url: q.url, token: q.token } }, new Date());
    }
  });
});

/** A tiny HTTP server handing out one archive at /a.zip, counting downloads. */
async function startArchiveServer(
  zip: Buffer,
): Promise<{ url: string; downloads(): number; close(): Promise<void> }> {
  const http = await import('node:http');
  let count = 0;
  const server = http.createServer((_req, res) => {
    count++;
    res.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length });
    res.end(zip);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/a.zip`,
    downloads: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
