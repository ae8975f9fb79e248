import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, TEST_NOW, type TestApp } from '../../test/helpers/test-app.ts';
import { TEST_DB_KIND } from '../../test/helpers/test-db.ts';

describe('platform-status probes of the noise feature', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('reports the running scheduler up while it ticks and down once its heartbeat is stale', async () => {
    t = await buildTestApp({ env: { SCHEDULER: 'on' } });
    const scheduler = t.ctx.noise.scheduler;
    expect(scheduler.running).toBe(true);
    for (let i = 0; i < 100_000 && scheduler.lastTickAt === undefined; i++) {
      await new Promise((r) => setImmediate(r));
    }
    expect(scheduler.lastTickAt).toBe(TEST_NOW);
    const probe = t.ctx.platformStatus.probes.list().find((p) => p.id === 'scheduler');
    expect(probe?.kind).toBe('scheduler');
    expect(await probe?.check(AbortSignal.timeout(5000))).toEqual({ state: 'up' });
    t.clock.advance(30_001);
    expect(await probe?.check(AbortSignal.timeout(5000))).toEqual({
      state: 'down',
      reason: `no heartbeat since ${new Date(TEST_NOW).toISOString()}`,
    });
  });

  it('has no scheduler probe with SCHEDULER=off, and reports its storage up', async () => {
    t = await buildTestApp();
    expect(t.ctx.noise.scheduler.running).toBe(false);
    const probes = t.ctx.platformStatus.probes.list();
    expect(probes.map((p) => p.id)).not.toContain('scheduler');
    const storage = probes.find((p) => p.id === 'storage');
    // Storage follows the database: local files beside PGlite, the database itself on PostgreSQL.
    expect(storage?.labels).toEqual({ backend: TEST_DB_KIND === 'postgres' ? 'database' : 'local' });
    expect(await storage?.check(AbortSignal.timeout(5000))).toEqual({ state: 'up' });
  });
});
