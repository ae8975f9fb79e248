import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { type BulkSimulator, startBulkSimulator } from '../../test/simulators/bulk-simulator.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { AppError } from '../errors.ts';
import type { AfterCompleteResult, AttemptHooks } from './attempt-hooks.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

// Recorded times (2024-06-01, UTC); the newest event of all sections is s3's, at T0 + 60 min.
const T0 = Date.UTC(2024, 5, 1, 10, 0, 0);
const LATEST = T0 + 60 * MIN;
const leef = (ms: number, fields: string) => `LEEF:1.0|Acme|Firewall|9.1|evt|${fields}\tdevTime=${ms}`;
const S1 = [leef(T0, 'src=203.0.113.7\tusrName=svc'), leef(T0 + MIN, 'src=10.0.0.2\tusrName=svc')];
const S2 = [
  leef(T0 + 30 * MIN, 'src=10.0.0.3\tusrName=mallory'),
  leef(T0 + 40 * MIN, 'src=10.0.0.4\tusrName=mallory'),
];
const S3 = [leef(LATEST, 'src=10.0.0.5\tusrName=dc01')];
const zipOf = (lines: string[]) => buildZip([{ name: 'logs/events.log', data: lines.join('\n') }]);
/** A LEEF line as shipped: its devTime moved by the attempt's one shift. */
const shifted = (line: string, shift: number) =>
  line.replace(/devTime=(\d+)$/, (_m, ms: string) => `devTime=${Number(ms) + shift}`);

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface Built {
  id: string;
  s1: string;
  s2: string;
  s3: string;
  a1: string;
  a2: string;
  a3: string;
}

describe('attempts and staged shipping', () => {
  let t: TestApp;
  let hec: HecSimulator;
  let bulk: BulkSimulator;
  let author: string;
  let gateBlocks = false;
  let cleanup: 'ok' | 'throw' | 'none' = 'none';
  // Bulk documents whose source.ip is listed here are refused (a 400 mapping error per item).
  const refusedIps = new Set<string>();
  const hooks: AttemptHooks = {
    gates: [
      {
        name: 'fake_gate',
        async check() {
          if (gateBlocks) {
            throw new AppError('conflict', 'SIEM Q is not ready for this exercise', {
              details: { reason: 'siem_q_not_ready', sections: [] },
            });
          }
        },
      },
    ],
    afterComplete: [
      {
        name: 'fake_cleanup',
        async run(): Promise<AfterCompleteResult | null> {
          if (cleanup === 'throw') throw new Error('console unreachable');
          if (cleanup === 'ok') return { status: 'ok', closed: 3, failed: 0 };
          return null;
        },
      },
    ],
    afterRedo: [
      {
        name: 'fake_redo_cleanup',
        async run(_exercise, _destination, run): Promise<AfterCompleteResult | null> {
          redoRuns.push({ startedAt: run.startedAt, completedAt: run.completedAt });
          return { status: 'ok', closed: 1, failed: 0 };
        },
      },
    ],
  };
  // The runs the redo hook was told of (the run a redo ended).
  const redoRuns: Array<{ startedAt: Date; completedAt: Date | null }> = [];

  beforeAll(async () => {
    hec = await startHecSimulator({ indexes: ['lab'] });
    bulk = await startBulkSimulator({
      flavor: 'elasticsearch',
      rejectDocument: (source) => {
        const ip = (source as { source?: { ip?: string } }).source?.ip;
        return ip !== undefined && refusedIps.has(ip) ? 'refused by the test' : undefined;
      },
    });
    t = await buildTestApp({ overrides: { exercises: { hooks } } });
    author = (await signedInAs(t, ['author'])).cookie;
    await createDestination(t.ctx, {
      name: 'hec',
      driver: 'vendorA_hec',
      url: hec.url,
      token: hec.token,
      index: 'lab',
      sourcetype: 'leef',
    });
    await createDestination(t.ctx, {
      name: 'hec-bad',
      driver: 'vendorA_hec',
      url: hec.url,
      token: 'not-the-token',
      index: 'lab',
    });
    await createDestination(t.ctx, {
      name: 'elastic',
      driver: 'vendorB_bulk',
      url: bulk.url,
      api_key: bulk.apiKey,
      index: 'lab-events',
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([hec?.close(), bulk?.close()]);
  });
  beforeEach(() => {
    hec.store.clear();
    bulk.store.clear();
    hec.faults.clear();
    refusedIps.clear();
    gateBlocks = false;
    cleanup = 'none';
  });

  const req = (method: Method, url: string, cookie: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });
  const upload = (url: string, payload: Buffer) =>
    t.app.inject({
      method: 'PUT',
      url,
      headers: { cookie: author, 'content-type': 'application/octet-stream' },
      payload,
    });
  const created = async (method: Method, url: string, payload: object) => {
    const res = await req(method, url, author, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().created_id as string;
  };

  let seq = 0;
  /** Three sections: s1 at start, s2 gated on a1 (found in s1), s3 ten minutes after start. */
  const buildExercise = async (
    destinations: string[],
    options: { s3Archive?: boolean; selfGate?: boolean } = {},
  ): Promise<Built> => {
    const res = await req('POST', '/api/exercises', author, { title: `staged ${++seq}`, destinations });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    const base = `/api/exercises/${id}`;
    const s1 = await created('POST', `${base}/sections`, { name: 'Initial access' });
    const a1 = await created('POST', `${base}/artifacts`, {
      name: 'attacker ip',
      kind: 'ip',
      values: ['203.0.113.7'],
      match: 'normalized',
      points: 10,
      section_id: s1,
    });
    const s2 = await created('POST', `${base}/sections`, { name: 'Lateral movement' });
    const a2 = await created('POST', `${base}/artifacts`, {
      name: 'compromised user',
      kind: 'user',
      values: ['mallory'],
      match: 'case_insensitive',
      points: 20,
      section_id: s2,
      hint: 'look at usrName',
      hint_penalty: 5,
    });
    const gate = await req('PATCH', `${base}/sections/${s2}`, author, {
      release: { condition: 'artifacts_only', artifact_ids: [options.selfGate ? a2 : a1] },
    });
    expect(gate.statusCode, gate.body).toBe(200);
    const s3 = await created('POST', `${base}/sections`, {
      name: 'Exfiltration',
      release: { condition: 'delay_only', delay_minutes: 10 },
    });
    const a3 = await created('POST', `${base}/artifacts`, {
      name: 'domain controller',
      kind: 'host',
      values: ['dc01'],
      points: 5,
      section_id: s3,
    });
    for (const [section, lines] of [
      [s1, S1],
      [s2, S2],
      ...(options.s3Archive === false ? [] : [[s3, S3] as const]),
    ] as const) {
      const up = await upload(`${base}/sections/${section}/archives?filename=logs.zip`, zipOf([...lines]));
      expect(up.statusCode, up.body).toBe(201);
    }
    return { id, s1, s2, s3, a1, a2, a3 };
  };
  const publish = (id: string) => req('POST', `/api/exercises/${id}/publish`, author);
  const published = async (destinations: string[]) => {
    const ex = await buildExercise(destinations);
    const res = await publish(ex.id);
    expect(res.statusCode, res.body).toBe(200);
    return ex;
  };
  const start = (exerciseId: string, siem: string, cookie: string) =>
    req('POST', `/api/exercises/${exerciseId}/attempts`, cookie, { siem });
  const started = async (exerciseId: string, siem: string, cookie: string) => {
    const res = await start(exerciseId, siem, cookie);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const ship = (attemptId: string, cookie: string) => req('POST', `/api/attempts/${attemptId}/ship`, cookie);
  const reasons = (body: { sections: Array<{ section_id: string; reason: string }> }) =>
    Object.fromEntries(body.sections.map((s) => [s.section_id, s.reason]));
  const statuses = (view: { sections: Array<{ section_id: string; status: string }> }) =>
    Object.fromEntries(view.sections.map((s) => [s.section_id, s.status]));
  const raws = () => hec.store.searchable('lab').map((e) => e.raw);
  const analyst = async () => (await signedInAs(t, ['analyst'])).cookie;

  describe('the staged scenario on a HEC SIEM', () => {
    let ex: Built;
    let cookie: string;
    let analystId: string;
    let attemptId: string;
    let shift: number;

    it('refuses to publish with every problem listed, then publishes once fixed', async () => {
      ex = await buildExercise([], { s3Archive: false, selfGate: true });
      const refused = await publish(ex.id);
      expect(refused.statusCode, refused.body).toBe(422);
      const body = refused.json();
      expect(body).toMatchObject({ ok: false, state: 'draft' });
      const codes = body.problems.map((p: { code: string }) => p.code);
      expect(codes).toContain('no_destinations');
      expect(codes).toContain('deadlock_self_gate');
      expect(body.problems).toContainEqual(
        expect.objectContaining({ code: 'deadlock_self_gate', section: ex.s2, artifact: ex.a2 }),
      );

      // Destinations named: the missing s3 archive now shows as missing_format for the SIEM.
      const patched = await req('PATCH', `/api/exercises/${ex.id}`, author, { destinations: ['hec'] });
      expect(patched.statusCode, patched.body).toBe(200);
      const again = await publish(ex.id);
      expect(again.statusCode, again.body).toBe(422);
      expect(again.json().problems).toContainEqual(
        expect.objectContaining({ code: 'missing_format', siem: 'hec', format: 'leef', section: ex.s3 }),
      );
      expect(again.json().problems.map((p: { code: string }) => p.code)).not.toContain('no_destinations');

      // A draft cannot be attempted.
      const draftStart = await start(ex.id, 'hec', await analyst());
      expect(draftStart.statusCode, draftStart.body).toBe(409);

      const fix = await req('PATCH', `/api/exercises/${ex.id}/sections/${ex.s2}`, author, {
        release: { condition: 'artifacts_only', artifact_ids: [ex.a1] },
      });
      expect(fix.statusCode, fix.body).toBe(200);
      const up = await upload(
        `/api/exercises/${ex.id}/sections/${ex.s3}/archives?filename=s3.zip`,
        zipOf(S3),
      );
      expect(up.statusCode, up.body).toBe(201);
      const ok = await publish(ex.id);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toMatchObject({ ok: true, state: 'active' });
    });

    it('starts: s1 shipped before the answer on the attempt timeline, s2 and s3 waiting', async () => {
      const signed = await signedInAs(t, ['analyst']);
      cookie = signed.cookie;
      analystId = signed.user.id;
      const now = t.clock.now();
      const res = await start(ex.id, 'hec', cookie);
      expect(res.statusCode, res.body).toBe(201);
      const view = res.json();
      attemptId = view.id;
      expect(view).toMatchObject({
        exercise_id: ex.id,
        siem: 'hec',
        state: 'running',
        started_at: new Date(now).toISOString(),
        score: null,
      });
      expect(view.sections).toEqual([
        expect.objectContaining({
          section_id: ex.s1,
          status: 'shipped',
          events_shipped: 2,
          events_failed: 0,
        }),
        expect.objectContaining({
          section_id: ex.s2,
          status: 'waiting_on_artifact',
          events_shipped: 0,
          waiting_for: [ex.a1],
        }),
        expect.objectContaining({
          section_id: ex.s3,
          status: 'not_due',
          releases_at: new Date(now + 10 * MIN).toISOString(),
        }),
      ]);
      // The newest event of ALL sections (s3's) lands at start + 2 h.
      shift = now + 2 * HOUR - LATEST;
      const events = hec.store.searchable('lab');
      expect(events.map((e) => e.raw)).toEqual(S1.map((l) => shifted(l, shift)));
      expect(events.map((e) => e.time)).toEqual([(T0 + shift) / 1000, (T0 + MIN + shift) / 1000]);
    });

    it('answers Ship logs on a fresh attempt: already_shipped, waiting_on_artifacts, not_due', async () => {
      const res = await ship(attemptId, cookie);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().sections).toEqual([
        { section_id: ex.s1, reason: 'already_shipped', events_shipped: 2, events_failed: 0 },
        { section_id: ex.s2, reason: 'waiting_on_artifacts', events_shipped: 0, events_failed: 0 },
        { section_id: ex.s3, reason: 'not_due', events_shipped: 0, events_failed: 0 },
      ]);
      expect(hec.store.searchable('lab')).toHaveLength(0);
    });

    it('checks answers: a wrong one does not match; the right one releases and ships s2', async () => {
      const wrong = await req('POST', `/api/attempts/${attemptId}/artifacts`, cookie, { value: '10.9.9.9' });
      expect(wrong.statusCode, wrong.body).toBe(200);
      expect(wrong.json()).toEqual({ matched: false, released: [] });
      expect(hec.store.searchable('lab')).toHaveLength(0);

      const right = await req('POST', `/api/attempts/${attemptId}/artifacts`, cookie, {
        value: ' 203.0.113.7 ',
      });
      expect(right.statusCode, right.body).toBe(200);
      expect(right.json()).toEqual({ matched: true, artifact_id: ex.a1, points: 10, released: [ex.s2] });
      expect(raws()).toEqual(S2.map((l) => shifted(l, shift)));

      const repeat = await req('POST', `/api/attempts/${attemptId}/artifacts`, cookie, {
        value: '203.0.113.7',
      });
      expect(repeat.json()).toEqual({
        matched: true,
        artifact_id: ex.a1,
        points: 0,
        already_found: true,
        released: [],
      });
      const view = (await req('GET', `/api/attempts/${attemptId}`, cookie)).json();
      expect(statuses(view)).toEqual({ [ex.s1]: 'shipped', [ex.s2]: 'shipped', [ex.s3]: 'not_due' });
      // Accepted answers are never shown to the analyst.
      expect(JSON.stringify(view)).not.toContain('203.0.113.7');
      expect(JSON.stringify(view)).not.toContain('mallory');
      expect(view.artifacts.find((a: { id: string }) => a.id === ex.a1).found_at).toBe(
        new Date(t.clock.now()).toISOString(),
      );
    });

    it('releases the delay section from the tick once 10 minutes passed, with nobody pressing', async () => {
      t.clock.advance(9 * MIN);
      expect(await t.ctx.exercises.attempts.releaseDue()).toBe(0);
      expect(hec.store.searchable('lab')).toHaveLength(0);
      t.clock.advance(MIN);
      expect(await t.ctx.exercises.attempts.releaseDue()).toBe(1);
      await t.ctx.exercises.attempts.settled();
      expect(raws()).toEqual(S3.map((l) => shifted(l, shift)));
      // Same timeline: s3's newest event is at start + 2 h.
      const view = (await req('GET', `/api/attempts/${attemptId}`, cookie)).json();
      expect(view.sections[2]).toMatchObject({ section_id: ex.s3, status: 'shipped', events_shipped: 1 });
      expect(Date.parse(view.started_at) + 2 * HOUR).toBe(LATEST + shift);
      expect(await t.ctx.exercises.attempts.releaseDue()).toBe(0);
      const res = await ship(attemptId, cookie);
      expect(Object.values(reasons(res.json()))).toEqual([
        'already_shipped',
        'already_shipped',
        'already_shipped',
      ]);
      expect(hec.store.searchable('lab')).toHaveLength(1);
    });

    it('reveals a hint with its penalty counted once however often asked', async () => {
      for (let i = 0; i < 2; i++) {
        const res = await req('POST', `/api/attempts/${attemptId}/hints/${ex.a2}`, cookie);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({ artifact_id: ex.a2, hint: 'look at usrName', penalty: 5 });
      }
      const noHint = await req('POST', `/api/attempts/${attemptId}/hints/${ex.a1}`, cookie);
      expect(noHint.statusCode).toBe(400);
      const view = (await req('GET', `/api/attempts/${attemptId}`, cookie)).json();
      expect(view.artifacts.find((a: { id: string }) => a.id === ex.a2)).toMatchObject({
        hint: 'look at usrName',
        hint_penalty: 5,
      });
      const found = await req('POST', `/api/attempts/${attemptId}/artifacts`, cookie, {
        value: 'MALLORY',
        artifact_id: ex.a2,
      });
      expect(found.json()).toMatchObject({ matched: true, artifact_id: ex.a2, points: 20, released: [] });
    });

    it('keeps other analysts out of the attempt (404) while its author reads it', async () => {
      const other = await analyst();
      const paths: Array<[Method, string]> = [
        ['GET', `/api/attempts/${attemptId}`],
        ['POST', `/api/attempts/${attemptId}/artifacts`],
        ['POST', `/api/attempts/${attemptId}/ship`],
        ['POST', `/api/attempts/${attemptId}/hints/${ex.a2}`],
        ['POST', `/api/attempts/${attemptId}/complete`],
        ['POST', `/api/attempts/${attemptId}/redo`],
      ];
      for (const [method, url] of paths) {
        const res = await req(
          method,
          url,
          other,
          url.endsWith('/artifacts') ? { value: 'mallory' } : undefined,
        );
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toMatchObject({ ok: false, error: { code: 'not_found' } });
      }
      const list = await req('GET', `/api/attempts?exercise_id=${ex.id}`, other);
      expect(list.json()).toEqual([]);
      expect((await req('GET', `/api/attempts/${attemptId}`, author)).statusCode).toBe(200);
      const mine = await req('GET', `/api/attempts?exercise_id=${ex.id}&mine=true`, cookie);
      expect(mine.json().map((a: { id: string }) => a.id)).toEqual([attemptId]);
      expect(hec.store.searchable('lab')).toHaveLength(0);
    });

    it('refuses a second running attempt of the same exercise with 409', async () => {
      const res = await start(ex.id, 'hec', cookie);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ ok: false, error: { code: 'conflict' } });
      expect(hec.store.searchable('lab')).toHaveLength(0);
    });

    it('completes with score = points − penalties and the after-complete result; then 409s', async () => {
      cleanup = 'ok';
      const res = await req('POST', `/api/attempts/${attemptId}/complete`, cookie);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        score: 25,
        max_score: 35,
        offense_cleanup: { status: 'ok', closed: 3, failed: 0 },
      });
      const view = (await req('GET', `/api/attempts/${attemptId}`, cookie)).json();
      expect(view).toMatchObject({
        state: 'completed',
        score: 25,
        max_score: 35,
        offense_cleanup: { status: 'ok', closed: 3 },
      });
      const again = await req('POST', `/api/attempts/${attemptId}/complete`, cookie);
      expect(again.statusCode).toBe(409);
      const late = await req('POST', `/api/attempts/${attemptId}/artifacts`, cookie, { value: 'dc01' });
      expect(late.statusCode).toBe(409);
      expect((await ship(attemptId, cookie)).statusCode).toBe(409);
      expect((await req('POST', `/api/attempts/${attemptId}/hints/${ex.a2}`, cookie)).statusCode).toBe(409);
    });

    it('shows authors the progress: analyst, section statuses, found artifacts with times, score', async () => {
      const res = await req('GET', `/api/exercises/${ex.id}/progress`, author);
      expect(res.statusCode, res.body).toBe(200);
      const [row] = res.json().attempts;
      expect(res.json().attempts).toHaveLength(1);
      expect(row).toMatchObject({
        attempt_id: attemptId,
        analyst: { id: analystId },
        siem: 'hec',
        state: 'completed',
        score: 25,
        max_score: 35,
        sections: [
          { section_id: ex.s1, status: 'shipped' },
          { section_id: ex.s2, status: 'shipped' },
          { section_id: ex.s3, status: 'shipped' },
        ],
        hints: [{ artifact_id: ex.a2, penalty: 5 }],
      });
      expect(row.found.map((f: { artifact_id: string }) => f.artifact_id)).toEqual([ex.a1, ex.a2]);
      for (const f of row.found) expect(Number.isNaN(Date.parse(f.found_at))).toBe(false);
      expect(row.analyst.email).toEqual(expect.stringContaining('@example.test'));
      // Analysts have no progress view.
      expect((await req('GET', `/api/exercises/${ex.id}/progress`, cookie)).statusCode).toBe(403);
    });

    it('redoes: findings and hints cleared, a new start, s1 shipped again on a new timeline', async () => {
      t.clock.advance(HOUR);
      const now = t.clock.now();
      const before = (await req('GET', `/api/attempts/${attemptId}`, cookie)).json();
      redoRuns.length = 0;
      const res = await req('POST', `/api/attempts/${attemptId}/redo`, cookie);
      expect(res.statusCode, res.body).toBe(200);
      const view = res.json();
      expect(view).toMatchObject({
        id: attemptId,
        state: 'running',
        score: null,
        max_score: null,
        // The redo hook closed the ended run's offenses (spec 3.4); its result is shown.
        offense_cleanup: { status: 'ok', closed: 1, failed: 0 },
        completed_at: null,
        started_at: new Date(now).toISOString(),
      });
      expect(redoRuns).toHaveLength(1);
      expect(redoRuns[0]?.startedAt.toISOString()).toBe(before.started_at);
      expect(statuses(view)).toEqual({
        [ex.s1]: 'shipped',
        [ex.s2]: 'waiting_on_artifact',
        [ex.s3]: 'not_due',
      });
      expect(
        view.artifacts.every(
          (a: { found_at: unknown; hint: unknown }) => a.found_at === null && a.hint === null,
        ),
      ).toBe(true);
      const newShift = now + 2 * HOUR - LATEST;
      expect(raws()).toEqual(S1.map((l) => shifted(l, newShift)));
      const progress = (await req('GET', `/api/exercises/${ex.id}/progress`, author)).json();
      expect(progress.attempts[0]).toMatchObject({ state: 'running', found: [], hints: [], score: null });
    });

    it('records attempt.start, submit, ship and complete in the audit log', async () => {
      const rows = await t.ctx.db
        .selectFrom('audit_log')
        .select(['action', 'outcome', 'target', 'actor_id', 'details'])
        .where('action', 'like', 'attempt.%')
        .where('actor_id', '=', analystId)
        .orderBy('id')
        .execute();
      const actions = rows.map((r) => `${r.action}:${r.outcome}`);
      for (const expected of [
        'attempt.start:success',
        'attempt.submit:success',
        'attempt.ship:success',
        'attempt.hint:success',
        'attempt.complete:success',
        'attempt.complete:failure',
        'attempt.redo:success',
        'attempt.start:failure',
      ]) {
        expect(actions).toContain(expected);
      }
      const first = rows.find((r) => r.action === 'attempt.start' && r.outcome === 'success');
      expect(first).toMatchObject({ target: ex.id, details: { attempt_id: attemptId, siem: 'hec' } });
      const submit = rows.find(
        (r) => r.action === 'attempt.submit' && (r.details as { released?: string[] })?.released?.length,
      );
      expect(submit).toMatchObject({
        target: attemptId,
        details: { matched: true, found: ex.a1, released: [ex.s2] },
      });
      const complete = rows.find((r) => r.action === 'attempt.complete' && r.outcome === 'success');
      expect(complete?.details).toMatchObject({
        score: 25,
        max_score: 35,
        offense_cleanup: { status: 'ok', closed: 3, failed: 0 },
      });
      // Every submission is recorded, matched or not.
      const submissions = await t.ctx.db
        .selectFrom('attempt_submissions')
        .select(['value', 'matched', 'artifact_id'])
        .where('attempt_id', '=', attemptId)
        .orderBy('submitted_at')
        .execute();
      // Several share one instant: compared as a set.
      expect(submissions.map((r) => [r.value.trim(), r.matched]).sort()).toEqual([
        ['10.9.9.9', false],
        ['203.0.113.7', true],
        ['203.0.113.7', true],
        ['MALLORY', true],
      ]);
    });
  });

  describe('starting', () => {
    it('refuses a SIEM that is not one of the exercise destinations with 400', async () => {
      const ex = await published(['hec']);
      const res = await start(ex.id, 'elastic', await analyst());
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      expect(
        await t.ctx.db.selectFrom('attempts').select('id').where('exercise_id', '=', ex.id).execute(),
      ).toEqual([]);
    });

    it('is blocked by a before-ship gate (siem_q_not_ready), shipping and storing nothing', async () => {
      const ex = await published(['hec']);
      gateBlocks = true;
      const res = await start(ex.id, 'hec', await analyst());
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({
        ok: false,
        error: { code: 'conflict', details: { reason: 'siem_q_not_ready' } },
      });
      expect(hec.store.searchable('lab')).toHaveLength(0);
      expect(
        await t.ctx.db.selectFrom('attempts').select('id').where('exercise_id', '=', ex.id).execute(),
      ).toEqual([]);
      // The same gate guards Ship logs and redo of a running attempt.
      gateBlocks = false;
      const cookie = await analyst();
      const view = await started(ex.id, 'hec', cookie);
      hec.store.clear();
      gateBlocks = true;
      t.clock.advance(10 * MIN);
      for (const action of ['ship', 'redo']) {
        const blocked = await req('POST', `/api/attempts/${view.id}/${action}`, cookie);
        expect(blocked.statusCode, `${action}: ${blocked.body}`).toBe(409);
        expect(blocked.json().error.details.reason).toBe('siem_q_not_ready');
      }
      expect(hec.store.searchable('lab')).toHaveLength(0);
    });

    it('ships ECS documents to a bulk SIEM from a LEEF-only exercise (converted at publish)', async () => {
      const ex = await published(['elastic']);
      const read = (await req('GET', `/api/exercises/${ex.id}`, author)).json();
      for (const section of read.sections) {
        expect(section.archives.map((a: { format: string }) => a.format).sort()).toEqual(['ecs', 'leef']);
        expect(section.archives.find((a: { format: string }) => a.format === 'ecs')).toMatchObject({
          converted_from: 'leef',
        });
      }
      const now = t.clock.now();
      const view = await started(ex.id, 'elastic', await analyst());
      expect(view.sections[0]).toMatchObject({ status: 'shipped', events_shipped: 2 });
      const shift = now + 2 * HOUR - LATEST;
      const docs = bulk.store.sources('lab-events') as Array<Record<string, unknown>>;
      expect(docs).toHaveLength(2);
      expect(docs.map((d) => d['@timestamp'])).toEqual([
        new Date(T0 + shift).toISOString(),
        new Date(T0 + MIN + shift).toISOString(),
      ]);
      expect(docs.map((d) => (d.source as { ip: string }).ip)).toEqual(['203.0.113.7', '10.0.0.2']);
      expect(docs.map((d) => (d.user as { name: string }).name)).toEqual(['svc', 'svc']);
    });
  });

  describe('format and redo conflicts', () => {
    it('refuses a start at once, naming the SIEM and the sections, when a section lacks its format', async () => {
      const ex = await published(['hec']);
      await t.ctx.db.deleteFrom('exercise_archives').where('section_id', '=', ex.s2).execute();
      const res = await start(ex.id, 'hec', await analyst());
      expect(res.statusCode, res.body).toBe(409);
      const { error } = res.json();
      expect(error).toMatchObject({
        code: 'conflict',
        details: { siem: 'hec', format: 'leef', sections: [ex.s2], reason: 'missing_format' },
      });
      expect(error.message).toContain('"hec"');
      expect(error.message).toContain('"Lateral movement"');
      expect(hec.store.searchable('lab')).toHaveLength(0);
    });

    it('refuses to redo a completed attempt while another one of the exercise runs (409)', async () => {
      const ex = await published(['hec']);
      const cookie = await analyst();
      const first = await started(ex.id, 'hec', cookie);
      expect((await req('POST', `/api/attempts/${first.id}/complete`, cookie)).statusCode).toBe(200);
      const second = await started(ex.id, 'hec', cookie);
      hec.store.clear();
      const redo = await req('POST', `/api/attempts/${first.id}/redo`, cookie);
      expect(redo.statusCode, redo.body).toBe(409);
      expect(hec.store.searchable('lab')).toHaveLength(0);
      const view = (await req('GET', `/api/attempts/${first.id}`, cookie)).json();
      expect(view).toMatchObject({ state: 'completed', score: 0 });
      expect((await req('GET', `/api/attempts/${second.id}`, cookie)).json().state).toBe('running');
    });
  });

  describe('Ship logs reasons', () => {
    it('shipping: another caller holds the claim', async () => {
      const ex = await published(['hec']);
      const cookie = await analyst();
      const view = await started(ex.id, 'hec', cookie);
      await t.ctx.db
        .updateTable('attempt_sections')
        .set({ status: 'shipping', lease_owner: 'elsewhere', lease_until: new Date(t.clock.now() + HOUR) })
        .where('attempt_id', '=', view.id)
        .where('section_key', '=', ex.s3)
        .execute();
      hec.store.clear();
      const res = await ship(view.id, cookie);
      expect(reasons(res.json())).toEqual({
        [ex.s1]: 'already_shipped',
        [ex.s2]: 'waiting_on_artifacts',
        [ex.s3]: 'shipping',
      });
      expect(hec.store.searchable('lab')).toHaveLength(0);
    });

    it('shipped: a delay section pressed once its delay passed, before any tick', async () => {
      const ex = await published(['hec']);
      const cookie = await analyst();
      const view = await started(ex.id, 'hec', cookie);
      hec.store.clear();
      t.clock.advance(10 * MIN);
      const res = await ship(view.id, cookie);
      expect(res.json().sections).toEqual([
        { section_id: ex.s1, reason: 'already_shipped', events_shipped: 2, events_failed: 0 },
        { section_id: ex.s2, reason: 'waiting_on_artifacts', events_shipped: 0, events_failed: 0 },
        { section_id: ex.s3, reason: 'shipped', events_shipped: 1, events_failed: 0 },
      ]);
      expect(hec.store.searchable('lab')).toHaveLength(1);
    });

    it('failed, then cooldown_skipped within 30 s of the failure, then failed again after it', async () => {
      const ex = await published(['hec-bad']);
      const cookie = await analyst();
      const view = await started(ex.id, 'hec-bad', cookie);
      expect(view.sections[0]).toMatchObject({ status: 'failed', events_shipped: 0, events_failed: 2 });
      expect(view.sections[0].error).toEqual(expect.stringContaining('hec-bad'));
      expect(view.sections[0].error).not.toContain('not-the-token');
      const soon = await ship(view.id, cookie);
      expect(soon.json().sections[0]).toEqual({
        section_id: ex.s1,
        reason: 'cooldown_skipped',
        events_shipped: 0,
        events_failed: 2,
      });
      t.clock.advance(30_001);
      const retried = await ship(view.id, cookie);
      expect(retried.json().sections[0]).toEqual({
        section_id: ex.s1,
        reason: 'failed',
        events_shipped: 0,
        events_failed: 2,
      });
      const again = await ship(view.id, cookie);
      expect(again.json().sections[0].reason).toBe('cooldown_skipped');
      expect(hec.store.searchable('lab')).toHaveLength(0);
    });

    it('partial when the SIEM takes some events and refuses others; shipped once it takes them all', async () => {
      const ex = await published(['elastic']);
      const cookie = await analyst();
      refusedIps.add('203.0.113.7').add('10.0.0.2');
      const view = await started(ex.id, 'elastic', cookie);
      expect(view.sections[0]).toMatchObject({ status: 'failed', events_shipped: 0, events_failed: 2 });
      t.clock.advance(30_001);
      refusedIps.delete('203.0.113.7');
      const partial = await ship(view.id, cookie);
      expect(partial.json().sections[0]).toEqual({
        section_id: ex.s1,
        reason: 'partial',
        events_shipped: 1,
        events_failed: 1,
      });
      expect(bulk.store.sources('lab-events')).toHaveLength(1);
      const after = (await req('GET', `/api/attempts/${view.id}`, cookie)).json();
      expect(after.sections[0]).toMatchObject({ status: 'failed', events_shipped: 1, events_failed: 1 });

      t.clock.advance(30_001);
      refusedIps.clear();
      bulk.store.clear();
      const shipped = await ship(view.id, cookie);
      expect(shipped.json().sections[0]).toEqual({
        section_id: ex.s1,
        reason: 'shipped',
        events_shipped: 2,
        events_failed: 0,
      });
      expect(bulk.store.sources('lab-events')).toHaveLength(2);
    });

    it('concurrent presses never ship a section twice', async () => {
      const ex = await published(['hec']);
      const cookie = await analyst();
      hec.faults.next(1, { status: 403, match: { method: 'POST', path: /collector/ } });
      const view = await started(ex.id, 'hec', cookie);
      expect(view.sections[0]).toMatchObject({ status: 'failed' });
      expect(hec.store.searchable('lab')).toHaveLength(0);
      t.clock.advance(30_001);
      hec.faults.delayMs = 500;
      const presses = await Promise.all(Array.from({ length: 5 }, () => ship(view.id, cookie)));
      hec.faults.delayMs = 0;
      for (const p of presses) expect(p.statusCode, p.body).toBe(200);
      const s1 = presses.map((p) => reasons(p.json())[ex.s1]);
      expect(s1.filter((r) => r === 'shipped')).toHaveLength(1);
      expect(s1).toContain('shipping');
      expect(s1.every((r) => ['shipped', 'shipping', 'already_shipped'].includes(r as string))).toBe(true);
      expect(hec.store.searchable('lab')).toHaveLength(2);
      // And a found artifact pressed five times at once releases s2 once.
      hec.store.clear();
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          req('POST', `/api/attempts/${view.id}/artifacts`, cookie, { value: '203.0.113.7' }),
        ),
      );
      expect(answers.filter((a) => a.json().released.length > 0)).toHaveLength(1);
      const more = await Promise.all(Array.from({ length: 5 }, () => ship(view.id, cookie)));
      expect(more.every((p) => p.statusCode === 200)).toBe(true);
      expect(raws()).toHaveLength(2);
    });
  });

  describe('completion', () => {
    it('a throwing after-complete hook gives {status: failed} without blocking completion', async () => {
      const ex = await published(['hec']);
      const cookie = await analyst();
      const view = await started(ex.id, 'hec', cookie);
      cleanup = 'throw';
      const res = await req('POST', `/api/attempts/${view.id}/complete`, cookie);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        score: 0,
        max_score: 35,
        offense_cleanup: { status: 'failed', error: 'console unreachable' },
      });
      const after = (await req('GET', `/api/attempts/${view.id}`, cookie)).json();
      expect(after).toMatchObject({ state: 'completed', offense_cleanup: { status: 'failed' } });
    });

    it('unpublishing leaves a running attempt going; a new start is refused with 409', async () => {
      const ex = await published(['hec']);
      const cookie = await analyst();
      const view = await started(ex.id, 'hec', cookie);
      expect((await req('POST', `/api/exercises/${ex.id}/unpublish`, author)).statusCode).toBe(200);
      const res = await req('POST', `/api/attempts/${view.id}/artifacts`, cookie, { value: '203.0.113.7' });
      expect(res.json()).toMatchObject({ matched: true, released: [ex.s2] });
      expect((await start(ex.id, 'hec', await analyst())).statusCode).toBe(409);
    });
  });
});
