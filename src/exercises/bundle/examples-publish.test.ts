import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/test-app.ts';
import { createDestination } from '../../destinations/destination-service.ts';
import { archiveLimitsOf } from '../../pipeline/archive/archive-limits.ts';
import { publishExercise } from '../publish-exercise.ts';
import { readBundleDirectory } from './bundle-read.ts';
import { bundleLimitsOf, importExercise } from './bundle-service.ts';

const EXAMPLES = path.resolve('examples/exercises');

// The shipped examples are what a new user tries first: each imports and publishes cleanly for a
// LEEF and an ECS destination (publish converts the missing format).
describe('the example exercises', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
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
      index: 'lab',
      username: 'lab',
      password: 'lab-password',
    });
  });
  afterAll(async () => {
    await t.close();
  });

  for (const name of ['phishing-to-lateral-movement', 'ssh-brute-force']) {
    it(`${name} imports and publishes for HEC (LEEF) and bulk (ECS)`, async () => {
      const read = await readBundleDirectory(path.join(EXAMPLES, name), bundleLimitsOf(t.ctx.config));
      const { exercise } = await importExercise(
        {
          db: t.ctx.db,
          storage: t.ctx.storage,
          clock: t.ctx.clock,
          limits: archiveLimitsOf(t.ctx.config),
          createdBy: null,
        },
        read,
        { destinations: ['splunk-lab', 'elastic-lab'] },
      );
      expect(exercise.state).toBe('draft');
      const outcome = await publishExercise(
        {
          db: t.ctx.db,
          storage: t.ctx.storage,
          clock: t.ctx.clock,
          siems: t.ctx.siems,
          secretBox: t.ctx.secretBox,
          limits: archiveLimitsOf(t.ctx.config),
          publishChecks: t.ctx.exercises.publishChecks,
        },
        exercise.id,
        null,
      );
      expect(outcome).toMatchObject({ ok: true, state: 'active' });
    });
  }
});
