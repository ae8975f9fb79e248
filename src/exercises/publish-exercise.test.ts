import { mkdtempSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/test-db.ts';
import { type ManualClock, manualClock } from '../clock.ts';
import type { DbHandle } from '../db/create-db.ts';
import { createDestination, deleteDestination } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import { createLogger } from '../logger.ts';
import { createSecretBox } from '../secrets/secret-box.ts';
import { builtinSiemKinds, SiemRegistry } from '../siems/registry.ts';
import { createLocalStorage } from '../storage/local-storage.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { analyzeArchive, EXERCISE_BUCKET, storeArchive } from './exercise-archives.ts';
import { addArtifact, addSection, createExercise, patchExercise, patchSection } from './exercise-service.ts';
import { exerciseRow, loadArchives, loadExercise } from './exercise-store.ts';
import type { Exercise } from './exercise-types.ts';
import {
  type PublishCheck,
  type PublishDeps,
  publishExercise,
  unpublishExercise,
} from './publish-exercise.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const fixtures = path.resolve(import.meta.dirname, '../../test/fixtures/leef');
const WINDOWS = readFileSync(path.join(fixtures, 'windows.log'));
const FORTINET = readFileSync(path.join(fixtures, 'fortinet.log'));
const ECS = Buffer.from(
  `${[
    { '@timestamp': '2024-05-01T10:00:00.000Z', event: { code: '4625' }, source: { ip: '10.1.2.3' } },
    { '@timestamp': '2024-05-01T10:00:05.000Z', host: { name: 'ws-01' } },
  ]
    .map((d) => JSON.stringify(d))
    .join('\n')}\n`,
);
const actor = { id: null };

let handle: DbHandle;
let clock: ManualClock;
let storage: ObjectStorage;
let deps: PublishDeps;

beforeEach(async () => {
  handle = await openTestDatabase();
  clock = manualClock(NOW);
  storage = await createLocalStorage(mkdtempSync(path.join(inject('tmpDir'), 'publish-')));
  const siems = new SiemRegistry(builtinSiemKinds({ hecRetryNotFound: false }), {
    log: createLogger('silent'),
    clock,
  });
  deps = {
    db: handle.db,
    storage,
    clock,
    siems,
    secretBox: createSecretBox(Buffer.alloc(32, 7)),
    limits: {},
    publishChecks: [],
  };
  const bulk = { driver: 'vendorB_bulk', url: 'https://siem-b:9200', api_key: 'key', index: 'lab-events' };
  await createDestination(deps, { name: 'elastic', ...bulk });
  await createDestination(deps, { name: 'elastic-2', ...bulk });
  await createDestination(deps, { name: 'elastic-off', ...bulk, enabled: false });
  await createDestination(deps, {
    name: 'splunk',
    driver: 'vendorA_hec',
    url: 'https://siem-a:8088',
    token: 'hec-token',
    index: 'lab',
  });
  await createDestination(deps, { name: 'qradar', driver: 'syslog_tcp', host: '10.0.0.5', port: 514 });
});

afterEach(async () => {
  await storage.close();
  await handle.close();
});

async function exercise(input: {
  destinations?: string[];
  convert_to_leef?: boolean;
  deadlock_override?: boolean;
}) {
  return createExercise(deps, { title: 'Lateral movement', ...input }, null);
}

async function section(
  exerciseId: string,
  name: string,
  release: Parameters<typeof addSection>[2]['release'] = null,
) {
  return (await addSection(deps, exerciseId, { name, release }, {})).id;
}

async function upload(exerciseId: string, sectionId: string | null, filename: string, data: Buffer) {
  const analysis = await analyzeArchive(data, filename, { limits: {}, now: clock.now() });
  return storeArchive(deps, { exerciseId, sectionId }, filename, data, analysis);
}

function codes(outcome: Awaited<ReturnType<typeof publishExercise>>): string[] {
  return outcome.ok ? [] : outcome.problems.map((p) => p.code);
}

describe(publishExercise.name, () => {
  it('reports no_destinations and no_sections together for an empty draft', async () => {
    const ex = await exercise({});
    const outcome = await publishExercise(deps, ex.id, actor);
    expect(outcome).toMatchObject({ ok: false, state: 'draft', warnings: [] });
    expect(codes(outcome)).toEqual(['no_destinations', 'no_sections']);
    expect((await exerciseRow(deps.db, ex.id)).state).toBe('draft');
  });

  it('converts a LEEF-only section for an ECS destination, stores it beside the original and activates', async () => {
    const ex = await exercise({ destinations: ['elastic'] });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'windows.log', WINDOWS);
    clock.advance(1000);

    const outcome = await publishExercise(deps, ex.id, actor);
    expect(outcome).toEqual({ ok: true, state: 'active', warnings: [] });

    const archives = await loadArchives(deps.db, ex.id);
    const ecs = archives.find((a) => a.format === 'ecs');
    expect(ecs).toMatchObject({
      sectionId: s,
      convertedFrom: 'leef',
      filename: 'windows.converted.ndjson',
      archiveKind: 'text',
      events: 4,
      latestEventMs: Date.parse('2024-03-11T09:15:33.000Z'),
    });
    const stored = (await storage.get(EXERCISE_BUCKET, ecs?.storageKey ?? '')).toString('utf8');
    expect(JSON.parse(stored.split('\n')[0] ?? '')['@timestamp']).toBe('2024-03-11T09:15:02.123Z');

    const row = await exerciseRow(deps.db, ex.id);
    expect(row.state).toBe('active');
    expect(row.published_at?.getTime()).toBe(NOW + 1000);
    const view = await loadExercise(deps.db, ex.id);
    expect(view.sections[0]?.archives.map((a) => [a.format, a.converted_from])).toEqual([
      ['ecs', 'leef'],
      ['leef', undefined],
    ]);
  });

  it('converts ECS to LEEF for LEEF destinations once, however many need it', async () => {
    const ex = await exercise({ destinations: ['splunk', 'qradar'] });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'events.ndjson', ECS);
    const versionBefore = (await exerciseRow(deps.db, ex.id)).version;
    let reads = 0;
    const counting: ObjectStorage = {
      ...storage,
      get: (...args) => {
        reads++;
        return storage.get(...args);
      },
    };

    const outcome = await publishExercise({ ...deps, storage: counting }, ex.id, actor);
    expect(outcome.ok).toBe(true);
    expect(reads).toBe(1);
    const archives = await loadArchives(deps.db, ex.id);
    expect(archives.map((a) => [a.format, a.convertedFrom, a.events])).toEqual([
      ['ecs', null, 2],
      ['leef', 'ecs', 2],
    ]);
    // One change for the conversion, one for the activation.
    expect((await exerciseRow(deps.db, ex.id)).version).toBe(versionBefore + 2);
  });

  it('refuses to activate (412) when another edit lands while a conversion runs, leaving it draft', async () => {
    const ex = await exercise({ destinations: ['splunk'] });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'events.ndjson', ECS);
    // A second author adds a section with no archive while the conversion reads its source.
    const editing: ObjectStorage = {
      ...storage,
      get: async (...args) => {
        await section(ex.id, 'Added meanwhile');
        return storage.get(...args);
      },
    };
    await expect(publishExercise({ ...deps, storage: editing }, ex.id, actor)).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect((await exerciseRow(deps.db, ex.id)).state).toBe('draft');
  });

  it('converts once per section for two ECS destinations', async () => {
    const ex = await exercise({ destinations: ['elastic', 'elastic-2'] });
    const a = await section(ex.id, 'One');
    const b = await section(ex.id, 'Two', {
      condition: 'delay_only',
      delay_minutes: 5,
      artifact_ids: [],
      gate_mode: 'all',
    });
    await upload(ex.id, a, 'windows.log', WINDOWS);
    await upload(ex.id, b, 'fortinet.log', FORTINET);
    const outcome = await publishExercise(deps, ex.id, actor);
    expect(outcome).toEqual({ ok: true, state: 'active', warnings: [] });
    const ecs = (await loadArchives(deps.db, ex.id)).filter((x) => x.format === 'ecs');
    expect(ecs.map((x) => [x.sectionId, x.convertedFrom])).toEqual(
      expect.arrayContaining([
        [a, 'leef'],
        [b, 'leef'],
      ]),
    );
    expect(ecs).toHaveLength(2);
  });

  it('reports missing_format per destination for a section without archives, naming SIEM, format and section', async () => {
    const ex = await exercise({ destinations: ['elastic', 'splunk'] });
    const s = await section(ex.id, 'Exfiltration');
    const outcome = await publishExercise(deps, ex.id, actor);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.problems).toEqual([
      expect.objectContaining({ code: 'missing_format', siem: 'elastic', format: 'ecs', section: s }),
      expect.objectContaining({ code: 'missing_format', siem: 'splunk', format: 'leef', section: s }),
    ]);
    expect(outcome.problems[0]?.message).toContain('"elastic"');
    expect(outcome.problems[0]?.message).toContain('ECS');
    expect(outcome.problems[0]?.message).toContain('section "Exfiltration"');
  });

  it('reports a conversion that fails as missing_format, and keeps what converted elsewhere', async () => {
    const ex = await exercise({ destinations: ['elastic'] });
    const small = await section(ex.id, 'Small');
    const big = await section(ex.id, 'Big');
    const line = WINDOWS.toString('utf8').split('\n')[0] ?? '';
    await upload(ex.id, small, 'one.log', Buffer.from(`${line}\n`));
    await upload(ex.id, big, 'windows.log', WINDOWS);
    // The ECS documents of the big section are larger than one entry may be; the small one's are not.
    const outcome = await publishExercise(
      { ...deps, limits: { maxEntryBytes: WINDOWS.length + 10 } },
      ex.id,
      actor,
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.state).toBe('draft');
    expect(outcome.problems).toEqual([
      expect.objectContaining({ code: 'missing_format', siem: 'elastic', format: 'ecs', section: big }),
    ]);
    expect(outcome.problems[0]?.message).toContain('exceeds the limit');
    const converted = (await loadArchives(deps.db, ex.id)).filter((a) => a.convertedFrom !== null);
    expect(converted.map((a) => a.sectionId)).toEqual([small]);
  });

  it('needs the legacy archive set of a sectionless exercise in every format, without a section in problems', async () => {
    const ex = await exercise({ destinations: ['splunk', 'elastic'] });
    await upload(ex.id, null, 'windows.log', WINDOWS);
    const failed = await publishExercise(
      { ...deps, limits: { maxEntryBytes: WINDOWS.length + 10 } },
      ex.id,
      actor,
    );
    expect(failed.ok ? [] : failed.problems).toEqual([
      expect.objectContaining({ code: 'missing_format', siem: 'elastic', format: 'ecs' }),
    ]);
    expect(failed.ok ? {} : failed.problems[0]).not.toHaveProperty('section');

    const outcome = await publishExercise(deps, ex.id, actor);
    expect(outcome.ok).toBe(true);
    expect((await loadExercise(deps.db, ex.id)).archives.map((a) => [a.format, a.converted_from])).toEqual([
      ['ecs', 'leef'],
      ['leef', undefined],
    ]);
  });

  it('adds a LEEF conversion to ECS-only sections when convert_to_leef is on, even for ECS destinations', async () => {
    const ex = await exercise({ destinations: ['elastic'], convert_to_leef: true });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'events.ndjson', ECS);
    expect((await publishExercise(deps, ex.id, actor)).ok).toBe(true);
    expect((await loadArchives(deps.db, ex.id)).map((a) => [a.format, a.convertedFrom])).toEqual([
      ['ecs', null],
      ['leef', 'ecs'],
    ]);
  });

  it('reports a destination that no longer exists, and warns about a disabled one without needing its format', async () => {
    await createDestination(deps, {
      name: 'temp',
      driver: 'vendorB_bulk',
      url: 'https://x:9200',
      api_key: 'k',
      index: 'i',
    });
    const ex = await exercise({ destinations: ['temp', 'elastic-off', 'splunk'] });
    await deleteDestination(deps, 'temp');
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'windows.log', WINDOWS);
    const outcome = await publishExercise(deps, ex.id, actor);
    expect(outcome).toMatchObject({
      ok: false,
      state: 'draft',
      problems: [{ code: 'missing_destination', siem: 'temp' }],
      warnings: [{ code: 'destination_disabled', siem: 'elastic-off' }],
    });
    // The disabled ECS destination needed no conversion.
    expect((await loadArchives(deps.db, ex.id)).map((a) => a.format)).toEqual(['leef']);
  });

  it('reports deadlocks, and with the override publishes with a warning instead', async () => {
    const ex = await exercise({ destinations: ['splunk'] });
    const s = await section(ex.id, 'Gated');
    const { id: artifact } = await addArtifact(
      deps,
      ex.id,
      { name: 'ip', kind: 'ip', values: ['10.1.2.3'], section_id: s },
      {},
    );
    await patchSection(
      deps,
      ex.id,
      s,
      {
        release: {
          condition: 'artifacts_only',
          delay_minutes: 0,
          artifact_ids: [artifact],
          gate_mode: 'all',
        },
      },
      {},
    );
    await upload(ex.id, s, 'windows.log', WINDOWS);

    const blocked = await publishExercise(deps, ex.id, actor);
    expect(codes(blocked)).toEqual(['deadlock_no_start', 'deadlock_self_gate', 'deadlock_unreachable']);
    expect(blocked.ok ? undefined : blocked.problems[1]).toMatchObject({ section: s, artifact });

    await patchExercise(deps, ex.id, { deadlock_override: true }, {});
    const outcome = await publishExercise(deps, ex.id, actor);
    expect(outcome.ok).toBe(true);
    expect(outcome.warnings).toEqual([expect.objectContaining({ code: 'deadlock_override' })]);
    expect(outcome.warnings[0]?.deadlocks).toHaveLength(3);
  });

  it('runs every publish check: their problems and warnings come back inline, a throwing one is publish_check_failed', async () => {
    const ex = await exercise({ destinations: ['qradar', 'elastic-off'] });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'events.ndjson', ECS);
    const seen: Array<{ exercise: Exercise; destinations: string[] }> = [];
    const siemQ: PublishCheck = {
      name: 'siem-q',
      async check(exercise, destinations: readonly Destination[]) {
        seen.push({ exercise, destinations: destinations.map((d) => d.name) });
        return {
          problems: [
            { code: 'siem_q_deploy_required', message: 'deploy changes', siem: 'qradar', section: s },
          ],
          warnings: [{ code: 'siem_q_note', message: 'note' }],
        };
      },
    };
    const broken: PublishCheck = {
      name: 'broken',
      async check() {
        throw new Error('console unreachable');
      },
    };
    const outcome = await publishExercise({ ...deps, publishChecks: [siemQ, broken] }, ex.id, actor);
    expect(outcome).toMatchObject({
      ok: false,
      state: 'draft',
      problems: [
        { code: 'siem_q_deploy_required', siem: 'qradar', section: s },
        {
          code: 'publish_check_failed',
          check: 'broken',
          message: expect.stringContaining('console unreachable'),
        },
      ],
    });
    expect(outcome.warnings.map((w) => w.code)).toEqual(['destination_disabled', 'siem_q_note']);
    // Enabled destinations only, and the exercise with its converted archive.
    expect(seen[0]?.destinations).toEqual(['qradar']);
    expect(seen[0]?.exercise.sections[0]?.archives.map((a) => a.format)).toEqual(['ecs', 'leef']);
    expect((await exerciseRow(deps.db, ex.id)).state).toBe('draft');
  });

  it('reports every problem at once', async () => {
    await createDestination(deps, { name: 'temp', driver: 'syslog_tcp', host: 'h', port: 514 });
    const ex = await exercise({ destinations: ['temp', 'elastic', 'elastic-off'] });
    await deleteDestination(deps, 'temp');
    const s = await section(ex.id, 'Empty', {
      condition: 'delay_only',
      delay_minutes: 10,
      artifact_ids: [],
      gate_mode: 'all',
    });
    const failing: PublishCheck = {
      name: 'siem-q',
      check: async () => ({
        problems: [{ code: 'siem_q_unreachable', message: 'down', siem: 'qradar' }],
        warnings: [],
      }),
    };
    const outcome = await publishExercise({ ...deps, publishChecks: [failing] }, ex.id, actor);
    expect(codes(outcome)).toEqual([
      'missing_destination',
      'missing_format',
      'deadlock_no_start',
      'siem_q_unreachable',
    ]);
    expect(outcome.ok ? undefined : outcome.problems[1]).toMatchObject({
      siem: 'elastic',
      format: 'ecs',
      section: s,
    });
    expect(outcome.warnings.map((w) => w.code)).toEqual(['destination_disabled']);
  });

  it('makes a converted archive again when its source was uploaded anew', async () => {
    const ex = await exercise({ destinations: ['elastic'] });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'windows.log', WINDOWS);
    expect((await publishExercise(deps, ex.id, actor)).ok).toBe(true);
    const first = (await loadArchives(deps.db, ex.id)).find((a) => a.format === 'ecs');
    expect(first?.events).toBe(4);

    await unpublishExercise(deps, ex.id);
    clock.advance(60_000);
    await upload(ex.id, s, 'fortinet.log', FORTINET);
    clock.advance(60_000);
    expect((await publishExercise(deps, ex.id, actor)).ok).toBe(true);
    const again = (await loadArchives(deps.db, ex.id)).find((a) => a.format === 'ecs');
    expect(again).toMatchObject({ convertedFrom: 'leef', filename: 'fortinet.converted.ndjson', events: 4 });
    expect(again?.createdAt.getTime()).toBe(NOW + 120_000);
    expect(again?.storageKey).not.toBe(first?.storageKey);
    await expect(storage.get(EXERCISE_BUCKET, first?.storageKey ?? '')).rejects.toMatchObject({
      code: 'not_found',
    });

    // Published again without a new upload: nothing is converted.
    await unpublishExercise(deps, ex.id);
    expect((await publishExercise(deps, ex.id, actor)).ok).toBe(true);
    expect((await loadArchives(deps.db, ex.id)).find((a) => a.format === 'ecs')?.id).toBe(again?.id);
  });

  it('drops a stale converted archive no destination needs any more', async () => {
    const ex = await exercise({ destinations: ['elastic'] });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'windows.log', WINDOWS);
    expect((await publishExercise(deps, ex.id, actor)).ok).toBe(true);
    await unpublishExercise(deps, ex.id);
    await patchExercise(deps, ex.id, { destinations: ['splunk'] }, {});
    clock.advance(1000);
    await upload(ex.id, s, 'fortinet.log', FORTINET);
    expect((await publishExercise(deps, ex.id, actor)).ok).toBe(true);
    expect((await loadArchives(deps.db, ex.id)).map((a) => [a.format, a.filename])).toEqual([
      ['leef', 'fortinet.log'],
    ]);
  });

  it('re-runs the checks on an active exercise: ok when they pass, problems reported while it stays active', async () => {
    const ex = await exercise({ destinations: ['splunk'] });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'windows.log', WINDOWS);
    expect((await publishExercise(deps, ex.id, actor)).ok).toBe(true);
    const published = await exerciseRow(deps.db, ex.id);

    expect(await publishExercise(deps, ex.id, actor)).toEqual({ ok: true, state: 'active', warnings: [] });
    const failing: PublishCheck = {
      name: 'siem-q',
      check: async () => ({
        problems: [{ code: 'siem_q_error', message: 'refused', siem: 'qradar' }],
        warnings: [],
      }),
    };
    const outcome = await publishExercise({ ...deps, publishChecks: [failing] }, ex.id, actor);
    expect(outcome).toMatchObject({ ok: false, state: 'active', problems: [{ code: 'siem_q_error' }] });
    const row = await exerciseRow(deps.db, ex.id);
    expect(row.state).toBe('active');
    expect(row.version).toBe(published.version);
    expect(row.published_at).toEqual(published.published_at);
  });

  it('answers 404 for an unknown exercise', async () => {
    await expect(publishExercise(deps, '00000000-0000-4000-8000-000000000000', actor)).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe(unpublishExercise.name, () => {
  it('takes an active exercise back to draft with its version counted; a draft stays as it is', async () => {
    const ex = await exercise({ destinations: ['splunk'] });
    const s = await section(ex.id, 'Recon');
    await upload(ex.id, s, 'windows.log', WINDOWS);
    expect((await publishExercise(deps, ex.id, actor)).ok).toBe(true);
    const active = await exerciseRow(deps.db, ex.id);

    expect(await unpublishExercise(deps, ex.id)).toEqual({ state: 'draft', version: active.version + 1 });
    expect((await exerciseRow(deps.db, ex.id)).state).toBe('draft');
    expect(await unpublishExercise(deps, ex.id)).toEqual({ state: 'draft', version: active.version + 1 });
  });
});
