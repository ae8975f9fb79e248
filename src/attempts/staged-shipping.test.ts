import { type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import {
  buildTestApp,
  createTestUser,
  login,
  shutdownOf,
  TEST_NOW,
  type TestApp,
  testConfig,
} from '../../test/helpers/test-app.ts';
import { openTestDatabase } from '../../test/helpers/test-db.ts';
import { type HecSimulator, startHecSimulator } from '../../test/simulators/hec-simulator.ts';
import { manualClock } from '../clock.ts';
import { type AppContext, createContext } from '../context.ts';
import { type DbHandle, openPostgres } from '../db/create-db.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { type App, buildApp } from '../http/build-app.ts';
import { createLogger } from '../logger.ts';

const PG_URL = process.env.TEST_DATABASE_URL;
const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2024, 5, 1, 10, 0, 0);
const leef = (ms: number, fields: string) => `LEEF:1.0|Acme|Firewall|9.1|evt|${fields}\tdevTime=${ms}`;
const START_LINES = [leef(T0, 'src=203.0.113.7'), leef(T0 + MIN, 'src=10.0.0.2')];
const LATER_LINES = [leef(T0 + 20 * MIN, 'src=10.0.0.3'), leef(T0 + 30 * MIN, 'src=10.0.0.4')];
const zipOf = (lines: string[]) => buildZip([{ name: 'events.log', data: lines.join('\n') }]);

/**
 * Through one app's routes: an active exercise on `siem` with a section at start and one
 * `delay_only` 10 minutes; answers the exercise and section ids.
 */
async function delayedExercise(app: App, author: string, siem: string) {
  const inject = async (method: 'POST' | 'PUT', url: string, payload?: object | Buffer) => {
    const res = await app.inject({
      method,
      url,
      headers: {
        cookie: author,
        ...(Buffer.isBuffer(payload) ? { 'content-type': 'application/octet-stream' } : {}),
      },
      ...(payload ? { payload } : {}),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };
  const { id } = await inject('POST', '/api/exercises', { title: 'delayed', destinations: [siem] });
  const first = (await inject('POST', `/api/exercises/${id}/sections`, { name: 'start' })).created_id;
  const later = (
    await inject('POST', `/api/exercises/${id}/sections`, {
      name: 'later',
      release: { condition: 'delay_only', delay_minutes: 10 },
    })
  ).created_id;
  await inject('PUT', `/api/exercises/${id}/sections/${first}/archives?filename=a.zip`, zipOf(START_LINES));
  await inject('PUT', `/api/exercises/${id}/sections/${later}/archives?filename=b.zip`, zipOf(LATER_LINES));
  const published = await inject('POST', `/api/exercises/${id}/publish`);
  expect(published.state).toBe('active');
  return { id: id as string, first: first as string, later: later as string };
}

async function signIn(app: App, ctx: AppContext, roles: string[]) {
  const user = await createTestUser(ctx, roles);
  return { cookie: await login(app, user.email, user.password), user };
}

describe('staged shipping on one instance', () => {
  let t: TestApp;
  let hec: HecSimulator;
  let author: string;
  beforeAll(async () => {
    hec = await startHecSimulator({ indexes: ['lab'] });
    t = await buildTestApp();
    author = (await signIn(t.app, t.ctx, ['author'])).cookie;
    await createDestination(t.ctx, {
      name: 'hec',
      driver: 'vendorA_hec',
      url: hec.url,
      token: hec.token,
      index: 'lab',
    });
  });
  afterAll(async () => {
    await t?.close();
    await hec?.close();
  });
  afterEach(() => {
    hec.store.clear();
    hec.faults.clear();
  });

  const post = (url: string, cookie: string, payload?: object) =>
    t.app.inject({ method: 'POST', url, headers: { cookie }, ...(payload ? { payload } : {}) });

  it('ships a section whose claim expired (its instance died) from the release tick, once', async () => {
    const ex = await delayedExercise(t.app, author, 'hec');
    const { cookie } = await signIn(t.app, t.ctx, ['analyst']);
    const res = await post(`/api/exercises/${ex.id}/attempts`, cookie, { siem: 'hec' });
    expect(res.statusCode, res.body).toBe(201);
    const attemptId = res.json().id as string;
    hec.store.clear();
    // Its delay passed, and an instance that claimed it died: it stays `shipping` until the lease ends.
    t.clock.advance(10 * MIN);
    await t.ctx.db
      .updateTable('attempt_sections')
      .set({
        status: 'shipping',
        lease_owner: 'dead-instance',
        lease_until: new Date(t.clock.now() + 5 * MIN),
        released_at: new Date(t.clock.now()),
      })
      .where('attempt_id', '=', attemptId)
      .where('section_key', '=', ex.later)
      .execute();
    expect(await t.ctx.exercises.attempts.releaseDue()).toBe(0);
    const held = await post(`/api/attempts/${attemptId}/ship`, cookie);
    expect(held.json().sections[1]).toMatchObject({ section_id: ex.later, reason: 'shipping' });
    // Redo waits for a live claim.
    const redo = await post(`/api/attempts/${attemptId}/redo`, cookie);
    expect(redo.statusCode, redo.body).toBe(409);
    expect(redo.json().error.details).toEqual({ reason: 'shipping' });

    t.clock.advance(5 * MIN + 1);
    expect(
      await Promise.all([t.ctx.exercises.attempts.releaseDue(), t.ctx.exercises.attempts.releaseDue()]),
    ).toEqual(expect.arrayContaining([1, 0]));
    await t.ctx.exercises.attempts.settled();
    expect(hec.store.searchable('lab')).toHaveLength(2);
    const view = (
      await t.app.inject({ method: 'GET', url: `/api/attempts/${attemptId}`, headers: { cookie } })
    ).json();
    expect(view.sections[1]).toMatchObject({ status: 'shipped', events_shipped: 2 });
  });

  it('ships the legacy archive of a sectionless exercise at start', async () => {
    const created = await post('/api/exercises', author, { title: 'sectionless', destinations: ['hec'] });
    const id = created.json().id as string;
    const up = await t.app.inject({
      method: 'PUT',
      url: `/api/exercises/${id}/archives?filename=legacy.zip`,
      headers: { cookie: author, 'content-type': 'application/octet-stream' },
      payload: zipOf(START_LINES),
    });
    expect(up.statusCode, up.body).toBe(201);
    expect((await post(`/api/exercises/${id}/publish`, author)).statusCode).toBe(200);
    const { cookie } = await signIn(t.app, t.ctx, ['analyst']);
    const res = await post(`/api/exercises/${id}/attempts`, cookie, { siem: 'hec' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().sections).toEqual([
      expect.objectContaining({ section_id: 'legacy', status: 'shipped', events_shipped: 2 }),
    ]);
    const shift = t.clock.now() + 2 * HOUR - (T0 + MIN);
    expect(hec.store.searchable('lab').map((e) => e.time)).toEqual([
      (T0 + shift) / 1000,
      (T0 + MIN + shift) / 1000,
    ]);
  });
});

describe('the release tick (RELEASE_TICK on)', () => {
  let t: TestApp | undefined;
  let hec: HecSimulator | undefined;
  afterAll(async () => {
    await t?.close();
    await hec?.close();
  });

  it('ships a delay section with nobody pressing anything', async () => {
    hec = await startHecSimulator({ indexes: ['lab'] });
    t = await buildTestApp({ env: { RELEASE_TICK: 'on' }, overrides: { exercises: { releaseTickMs: 20 } } });
    await createDestination(t.ctx, {
      name: 'hec',
      driver: 'vendorA_hec',
      url: hec.url,
      token: hec.token,
      index: 'lab',
    });
    const author = (await signIn(t.app, t.ctx, ['author'])).cookie;
    const ex = await delayedExercise(t.app, author, 'hec');
    const { cookie } = await signIn(t.app, t.ctx, ['analyst']);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/exercises/${ex.id}/attempts`,
      headers: { cookie },
      payload: { siem: 'hec' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(t.ctx.exercises.releaseTicker.running).toBe(true);
    const sim = hec;
    await new Promise((r) => setTimeout(r, 200));
    expect(sim.store.searchable('lab')).toHaveLength(2);
    t.clock.advance(10 * MIN);
    await expect.poll(() => sim.store.searchable('lab').length, { timeout: 5000 }).toBe(4);
    await new Promise((r) => setTimeout(r, 200));
    expect(sim.store.searchable('lab')).toHaveLength(4);
  });
});

describe.skipIf(!PG_URL)('two service instances on one PostgreSQL (needs TEST_DATABASE_URL)', () => {
  const silent = createLogger('silent');
  const instances: Array<{ app: App; ctx: AppContext }> = [];
  let first: DbHandle | undefined;
  let hec: HecSimulator | undefined;
  afterAll(async () => {
    for (const { app, ctx } of instances.reverse()) await shutdownOf(app, ctx).close();
    await first?.close();
    await hec?.close();
  });

  it('release a delay section exactly once when both tick at the same time', async () => {
    hec = await startHecSimulator({ indexes: ['lab'] });
    first = await openTestDatabase();
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(
      first.db as Kysely<unknown>,
    );
    const schema = rows[0]?.schema as string;
    const clock = manualClock(TEST_NOW);
    for (const [i, handle] of [
      first,
      openPostgres(PG_URL as string, { searchPath: schema, max: 5 }),
    ].entries()) {
      // Closed by its context: keep the first open for the schema drop at the end.
      const database: DbHandle = i === 0 ? { ...handle, close: async () => {} } : handle;
      const ctx = await createContext(testConfig(), {
        clock,
        log: silent,
        database,
        instanceId: `instance-${i}`,
        platformStatus: { siemChecks: false },
      });
      const app = await buildApp(ctx);
      await app.ready();
      ctx.start();
      instances.push({ app, ctx });
    }
    const [a, b] = instances as [{ app: App; ctx: AppContext }, { app: App; ctx: AppContext }];
    await createDestination(a.ctx, {
      name: 'hec',
      driver: 'vendorA_hec',
      url: hec.url,
      token: hec.token,
      index: 'lab',
    });
    const author = (await signIn(a.app, a.ctx, ['author'])).cookie;
    const ex = await delayedExercise(a.app, author, 'hec');
    const { cookie } = await signIn(b.app, b.ctx, ['analyst']);
    const started = await b.app.inject({
      method: 'POST',
      url: `/api/exercises/${ex.id}/attempts`,
      headers: { cookie },
      payload: { siem: 'hec' },
    });
    expect(started.statusCode, started.body).toBe(201);
    expect(hec.store.searchable('lab')).toHaveLength(2);
    hec.store.clear();

    clock.advance(10 * MIN);
    // A slow SIEM keeps the winner's claim held while the other instance tries.
    hec.faults.delayMs = 200;
    const shipped = await Promise.all([
      a.ctx.exercises.attempts.releaseDue(),
      b.ctx.exercises.attempts.releaseDue(),
      a.ctx.exercises.attempts.releaseDue(),
      b.ctx.exercises.attempts.releaseDue(),
    ]);
    await Promise.all([a.ctx.exercises.attempts.settled(), b.ctx.exercises.attempts.settled()]);
    hec.faults.delayMs = 0;
    // Both instances may start releasing the attempt; only one claims the section.
    expect(shipped.reduce((n, x) => n + x, 0)).toBeGreaterThanOrEqual(1);
    expect(hec.store.searchable('lab')).toHaveLength(2);
    expect(await a.ctx.exercises.attempts.releaseDue()).toBe(0);
    const view = await a.app.inject({
      method: 'GET',
      url: `/api/attempts/${started.json().id}`,
      headers: { cookie },
    });
    expect(view.json().sections.map((s: { status: string }) => s.status)).toEqual(['shipped', 'shipped']);
    expect(hec.store.searchable('lab')).toHaveLength(2);
  }, 60_000);
});
