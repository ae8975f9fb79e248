import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { createTestUser, login, testConfig } from '../../test/helpers/test-app.ts';
import { TEST_DB_KIND } from '../../test/helpers/test-db.ts';
import { systemClock } from '../clock.ts';
import { type AppContext, createContext } from '../context.ts';
import { openPostgres } from '../db/create-db.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { type App, buildApp } from '../http/build-app.ts';
import { createLogger } from '../logger.ts';
import { stopServing } from '../main.ts';

const PG_URL = process.env.TEST_DATABASE_URL;
const silent = createLogger('silent');
const EVENTS_PER_RUN = 3;
const t0 = Date.UTC(2024, 0, 10, 8, 0, 0);
const ARCHIVE = buildZip([
  {
    name: 'fw.log',
    data: Array.from(
      { length: EVENTS_PER_RUN },
      (_, i) => `LEEF:1.0|V|P|1|deny${i}|devTime=${t0 + i * 1000}`,
    ).join('\n'),
  },
]);

/** A syslog collector on loopback that counts the LEEF lines it receives. */
async function startCollector(): Promise<{ port: number; lines(): number; close(): void }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let rest = '';
    socket.on('data', (data: Buffer) => {
      const text = rest + data.toString('utf8');
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      count += parts.filter((line) => line.includes('LEEF:')).length;
    });
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    lines: () => count,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe.skipIf(TEST_DB_KIND !== 'postgres')(
  'two instances on one PostgreSQL and no S3 (needs TEST_DATABASE_URL): archives live in the database',
  () => {
    const apps: Array<{ app: App; ctx: AppContext }> = [];
    let schema = '';
    let collector: Awaited<ReturnType<typeof startCollector>> | undefined;
    afterAll(async () => {
      for (const { app, ctx } of apps) await stopServing(app, ctx);
      collector?.close();
      if (schema) {
        const admin = openPostgres(PG_URL as string, { max: 1 });
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
        await admin.close();
      }
    });

    it('dispatches on one instance an archive uploaded through the other, and runs a scheduled job once per interval across both', async () => {
      schema = `t_${randomBytes(6).toString('hex')}`;
      const admin = openPostgres(PG_URL as string, { max: 1 });
      await sql`create schema ${sql.id(schema)}`.execute(admin.db);
      await admin.close();
      collector = await startCollector();

      // Each instance has its own DATA_DIR (testConfig), as two hosts would: nothing is shared
      // but the database. No S3_ENDPOINT, and the real dispatcher.
      for (const name of ['instance-a', 'instance-b']) {
        const ctx = await createContext(testConfig({ SCHEDULER: 'on' }), {
          clock: systemClock,
          log: silent,
          database: openPostgres(PG_URL as string, { searchPath: schema, max: 5 }),
          instanceId: name,
          platformStatus: { siemChecks: false },
        });
        const app = await buildApp(ctx);
        await app.ready();
        apps.push({ app, ctx });
      }
      const [a, b] = apps as [{ app: App; ctx: AppContext }, { app: App; ctx: AppContext }];
      expect(a.ctx.storage.backend).toBe('database');
      expect(b.ctx.storage.backend).toBe('database');
      await createDestination(a.ctx, {
        name: 'collector',
        driver: 'syslog_tcp',
        host: '127.0.0.1',
        port: collector.port,
        source_identity: 'lab-fw01',
        index: 'lab',
      });
      const user = await createTestUser(a.ctx, ['noise_operator']);
      const cookieA = await login(a.app, user.email, user.password);
      const cookieB = await login(b.app, user.email, user.password);

      // Uploaded through A's API …
      const upload = await a.app.inject({
        method: 'PUT',
        url: '/api/noise/archives/shared/fw.zip',
        headers: { cookie: cookieA, 'content-type': 'application/zip' },
        payload: ARCHIVE,
      });
      expect(upload.statusCode).toBe(201);
      // … listed by B …
      const listed = await b.app.inject({ url: '/api/noise/archives', headers: { cookie: cookieB } });
      expect(
        listed.json().map((o: { storage_path: string; size: number }) => [o.storage_path, o.size]),
      ).toEqual([['shared/fw.zip', ARCHIVE.length]]);
      // … a job on it saved through B (which checks the archive exists) …
      const created = await b.app.inject({
        method: 'POST',
        url: '/api/noise/jobs',
        headers: { cookie: cookieB },
        payload: {
          name: 'shared archive',
          enabled: false,
          targets: ['collector'],
          schedule: { kind: 'interval', interval_seconds: 1 },
          archives: [{ position: 0, storage_path: 'shared/fw.zip' }],
        },
      });
      expect(created.statusCode).toBe(201);
      const jobId = created.json().id as string;

      // … and dispatched by B, which reads it from the database.
      const manual = await b.app.inject({
        method: 'POST',
        url: `/api/noise/jobs/${jobId}/runs`,
        headers: { cookie: cookieB },
        payload: { dispatch: true },
      });
      expect(manual.statusCode).toBeLessThan(300);
      await b.ctx.noise.runner.settle();
      const runsOf = () =>
        a.ctx.db
          .selectFrom('noise_runs')
          .select([
            'trigger',
            'status',
            'owner',
            'events_shipped',
            'events_failed',
            'error',
            'started_at',
            'finished_at',
          ])
          .where('job_id', '=', jobId)
          .orderBy('started_at')
          .execute();
      const [manualRun, ...none] = await runsOf();
      expect(none).toEqual([]);
      expect(manualRun).toMatchObject({
        trigger: 'manual',
        status: 'succeeded',
        owner: expect.stringMatching(/^instance-b\//),
        events_shipped: EVENTS_PER_RUN,
        events_failed: 0,
        error: null,
      });

      // Scheduled: both instances' schedulers run; the job is due every second from its last run's end.
      for (const { ctx } of apps) ctx.start();
      expect(apps.every(({ ctx }) => ctx.noise.scheduler.running)).toBe(true);
      const enable = await a.app.inject({
        method: 'PATCH',
        url: `/api/noise/jobs/${jobId}`,
        headers: { cookie: cookieA },
        payload: { enabled: true },
      });
      expect(enable.statusCode).toBe(200);
      await sleep(12_000);
      for (const { ctx } of apps) await ctx.stop();

      const scheduled = (await runsOf()).filter((r) => r.trigger === 'schedule');
      // A lease owner is the instance id and the dispatch's own id.
      const owners = scheduled.map((r) => r.owner?.split('/')[0]);
      console.log(
        `two instances, database storage, 12 s: ${scheduled.length} scheduled runs ` +
          `(instance-a: ${owners.filter((o) => o === 'instance-a').length}, ` +
          `instance-b: ${owners.filter((o) => o === 'instance-b').length})`,
      );
      expect(scheduled.length).toBeGreaterThanOrEqual(4);
      for (const run of scheduled) {
        expect(run).toMatchObject({
          status: 'succeeded',
          events_shipped: EVENTS_PER_RUN,
          events_failed: 0,
          error: null,
        });
      }
      // Once per interval: each run starts a full interval after the one before ended, never beside it.
      for (let i = 1; i < scheduled.length; i++) {
        const start = Number(scheduled[i]?.started_at);
        const previousEnd = Number(scheduled[i - 1]?.finished_at);
        expect(start - previousEnd, `run ${i} starts too early`).toBeGreaterThanOrEqual(1000 - 50);
      }
      expect(new Set(owners)).toEqual(new Set(['instance-a', 'instance-b']));
      // Every run shipped its events to the collector, none twice.
      await sleep(200);
      expect(collector.lines()).toBe(EVENTS_PER_RUN * (scheduled.length + 1));
    }, 90_000);
  },
);
