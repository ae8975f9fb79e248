import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../test/helpers/test-app.ts';
import { openTestDatabase, TEST_DB_KIND } from '../../test/helpers/test-db.ts';
import { manualClock, systemClock } from '../clock.ts';
import { type AppContext, createContext } from '../context.ts';
import { type DbHandle, openPostgres } from '../db/create-db.ts';
import { migrateToLatest } from '../db/migrate.ts';
import type { Database } from '../db/schema.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { type App, buildApp } from '../http/build-app.ts';
import { createLogger } from '../logger.ts';
import { stopServing } from '../main.ts';
import { RunEngine } from '../runs/run-engine.ts';
import type { NoiseDispatcher } from './dispatch-types.ts';
import { createJob } from './job-service.ts';
import { findJob } from './job-store.ts';
import { createNoiseServices } from './noise-services.ts';
import { finishRun } from './run-store.ts';

const PG_URL = process.env.TEST_DATABASE_URL;
const silent = createLogger('silent');

/** A job row straight into the table (the simulated-clock test needs no destination or archive). */
async function insertIntervalJob(db: Kysely<Database>, firstRun: number): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('noise_jobs')
    .values({
      id,
      name: `every-second-${id}`,
      targets: JSON.stringify(['siem-x']),
      schedule: JSON.stringify({ kind: 'interval', interval_seconds: 1 }),
      archives: JSON.stringify([{ position: 0, storage_path: 'a.zip', index_mode: 'default', index: null }]),
      next_run_at: new Date(firstRun),
    })
    .execute();
  return id;
}

describe('three scheduler instances on one database, simulated clock (reliability target 23)', () => {
  it('runs every due time of a 1-second job exactly once over 1,000 ticks', async () => {
    // PostgreSQL: three connection pools on one schema, ticking concurrently. PGlite serves one
    // connection, so there the three instances share it (the claim logic is the same).
    const first = await openTestDatabase();
    const handles: DbHandle[] = [first];
    try {
      await migrateToLatest(first.db as Kysely<unknown>);
      if (first.kind === 'postgres') {
        const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(first.db);
        for (let i = 0; i < 2; i++) {
          handles.push(openPostgres(PG_URL as string, { searchPath: rows[0]?.schema as string, max: 3 }));
        }
      }
      const clock = manualClock(Date.parse('2026-03-01T12:00:00Z'));
      const jobId = await insertIntervalJob(first.db, clock.now() + 1000);
      const dispatched: string[] = [];
      const instances = [0, 1, 2].map((i) => {
        const db = (handles[i] ?? first).db;
        const dispatcher: NoiseDispatcher = async (request) => {
          dispatched.push(`${i}`);
          for (const id of Object.values(request.run_ids)) {
            await finishRun(
              db,
              id,
              { status: 'succeeded', events_shipped: 1, events_failed: 0 },
              clock.now(),
            );
          }
          return { ok: true, failed: [] };
        };
        const engine = new RunEngine({ clock, log: silent, instanceId: `sim-${i}` }, { leaseMs: 60_000 });
        const noise = createNoiseServices({
          db,
          clock,
          log: silent,
          audit: async () => {},
          engine,
          dispatcher,
        });
        return { ...noise, engine };
      });

      const claimsPerTick: number[] = [];
      for (let tick = 1; tick <= 1000; tick++) {
        clock.advance(1000);
        const claims = await Promise.all(instances.map((s) => s.scheduler.tick()));
        claimsPerTick.push(claims.reduce((n, c) => n + c.length, 0));
        await Promise.all(instances.map((s) => s.runner.settle()));
      }
      for (const s of instances) {
        await s.scheduler.stop();
        await s.engine.close();
      }

      expect(claimsPerTick.filter((n) => n !== 1)).toEqual([]);
      expect(dispatched).toHaveLength(1000);
      const rows = await first.db
        .selectFrom('noise_runs')
        .select(['status', 'trigger', 'created_at'])
        .where('job_id', '=', jobId)
        .execute();
      expect(rows).toHaveLength(1000);
      expect(new Set(rows.map((r) => r.created_at.getTime())).size).toBe(1000);
      expect(rows.every((r) => r.status === 'succeeded' && r.trigger === 'schedule')).toBe(true);
      if (first.kind === 'postgres') {
        // Every instance won some claims: the test exercised real contention.
        expect(new Set(dispatched).size).toBe(3);
      }
    } finally {
      for (const h of handles.slice(1)) await h.close();
      await first.close();
    }
  }, 180_000);
});

describe.skipIf(TEST_DB_KIND !== 'postgres')(
  'two app instances on one PostgreSQL, real time (needs TEST_DATABASE_URL: PGlite serves one process)',
  () => {
    const apps: Array<{ app: App; ctx: AppContext }> = [];
    let schema = '';
    afterAll(async () => {
      for (const { app, ctx } of apps) await stopServing(app, ctx);
      if (schema) {
        const admin = openPostgres(PG_URL as string, { max: 1 });
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
        await admin.close();
      }
    });

    it('runs a 1-second interval job for 30 s with no overlap and no due time run twice', async () => {
      schema = `t_${randomBytes(6).toString('hex')}`;
      const admin = openPostgres(PG_URL as string, { max: 1 });
      await sql`create schema ${sql.id(schema)}`.execute(admin.db);
      await admin.close();

      const executions: Array<{ instance: number; due: number; start: number; end: number }> = [];
      for (const instance of [0, 1]) {
        let db: Kysely<Database> | undefined;
        const ctx = await createContext(testConfig({ SCHEDULER: 'on' }), {
          clock: systemClock,
          log: silent,
          database: openPostgres(PG_URL as string, { searchPath: schema, max: 5 }),
          noiseDispatcher: () => async (request) => {
            const on = db as Kysely<Database>;
            const start = Date.now();
            const due = (await findJob(on, request.job_id)).next_run_at as number;
            await sleep(100);
            for (const id of Object.values(request.run_ids)) {
              await finishRun(
                on,
                id,
                { status: 'succeeded', events_shipped: 1, events_failed: 0 },
                Date.now(),
              );
            }
            executions.push({ instance, due, start, end: Date.now() });
            return { ok: true, failed: [] };
          },
        });
        db = ctx.db;
        const app = await buildApp(ctx);
        apps.push({ app, ctx });
      }
      const [one] = apps;
      const ctx = (one as { ctx: AppContext }).ctx;
      await createDestination(ctx, {
        name: 'siem-x',
        driver: 'syslog_tcp',
        host: '127.0.0.1',
        port: 9,
        index: 'lab',
      });
      await ctx.storage.put('noise-archives', 'a.zip', Buffer.from('PK\x03\x04'));
      const job = await createJob(ctx, {
        name: 'every second',
        targets: ['siem-x'],
        schedule: { kind: 'interval', interval_seconds: 1 },
        archives: [{ position: 0, storage_path: 'a.zip' }],
      });
      // Both instances start their scheduler as main.ts does (SCHEDULER=on).
      await Promise.all(apps.map(({ app }) => app.ready()));
      for (const { ctx: c } of apps) c.start();
      expect(apps.every(({ ctx: c }) => c.noise.scheduler.running)).toBe(true);
      await sleep(30_000);
      for (const { ctx: c } of apps) await c.stop();

      const sorted = [...executions].sort((a, b) => a.start - b.start);
      expect(sorted.length).toBeGreaterThanOrEqual(10);
      for (let i = 1; i < sorted.length; i++) {
        expect(sorted[i]?.start, `execution ${i} overlaps the one before`).toBeGreaterThanOrEqual(
          sorted[i - 1]?.end as number,
        );
      }
      expect(new Set(sorted.map((e) => e.due)).size).toBe(sorted.length);
      expect(sorted.every((e) => e.start >= e.due)).toBe(true);
      expect(new Set(sorted.map((e) => e.instance))).toEqual(new Set([0, 1]));
      const rows = await ctx.db
        .selectFrom('noise_runs')
        .select(['status', 'trigger'])
        .where('job_id', '=', job.id)
        .execute();
      expect(rows).toHaveLength(sorted.length);
      expect(rows.every((r) => r.status === 'succeeded' && r.trigger === 'schedule')).toBe(true);
      console.log(
        `two instances, 30 s: ${sorted.length} runs (instance 0: ${sorted.filter((e) => e.instance === 0).length}, ` +
          `instance 1: ${sorted.filter((e) => e.instance === 1).length}), no overlap, no due time twice`,
      );
    }, 90_000);
  },
);
