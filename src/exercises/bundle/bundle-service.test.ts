import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, TEST_NOW, type TestApp } from '../../../test/helpers/test-app.ts';
import { createDestination } from '../../destinations/destination-service.ts';
import { AppError } from '../../errors.ts';
import type { ObjectStorage } from '../../storage/object-storage.ts';
import { analyzeArchive, EXERCISE_BUCKET, storeArchive } from '../exercise-archives.ts';
import { addArtifact, addSection, addStep, createExercise, patchSection } from '../exercise-service.ts';
import { loadArchives, loadExercise } from '../exercise-store.ts';
import type { Exercise } from '../exercise-types.ts';
import { type BundleLimits, readBundle, readBundleDirectory } from './bundle-read.ts';
import type { ExerciseBundle } from './bundle-schema.ts';
import { exportExercise, type ImportDeps, importExercise, slugOf } from './bundle-service.ts';
import { writeBundle } from './bundle-write.ts';

const LIMITS: BundleLimits = { maxBytes: 50_000_000, maxEntries: 100, maxUncompressedBytes: 100_000_000 };
const EXAMPLES = path.resolve('examples/exercises');

const LEEF = [
  'LEEF:2.0|Lab|Auth|1.0|login|^|devTimeFormat=yyyy-MM-dd HH:mm:ss^devTime=2024-03-11 09:15:02^src=10.0.0.1^usrName=alice',
  'LEEF:2.0|Lab|Auth|1.0|login|^|devTimeFormat=yyyy-MM-dd HH:mm:ss^devTime=2024-03-11 09:16:02^src=10.0.0.2^usrName=bob',
  'LEEF:2.0|Lab|Auth|1.0|logout|^|devTimeFormat=yyyy-MM-dd HH:mm:ss^devTime=2024-03-11 09:17:02^src=10.0.0.1^usrName=alice',
].join('\n');
const ECS = [
  '{"@timestamp":"2024-03-11T09:15:02Z","event":{"action":"login"},"source":{"ip":"10.0.0.1"}}',
  '{"@timestamp":"2024-03-11T09:16:02Z","event":{"action":"logout"},"source":{"ip":"10.0.0.1"}}',
].join('\n');

describe('exercise bundle export and import', () => {
  let t: TestApp;
  let deps: ImportDeps;
  beforeAll(async () => {
    t = await buildTestApp();
    deps = { db: t.ctx.db, storage: t.ctx.storage, clock: t.ctx.clock, limits: {}, createdBy: null };
    await createDestination(t.ctx, { name: 'qradar-lab', driver: 'syslog_tcp', host: '10.0.0.5', port: 514 });
  });
  afterAll(async () => {
    await t.close();
  });

  const exerciseCount = async () =>
    Number(
      (
        await t.ctx.db
          .selectFrom('exercises')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const storedKeys = async () => (await t.ctx.storage.list(EXERCISE_BUCKET)).map((o) => o.key).sort();
  const store = async (
    exerciseId: string,
    sectionId: string | null,
    filename: string,
    text: string,
    convertedFrom?: 'leef',
  ) => {
    const data = Buffer.from(text);
    const analysis = await analyzeArchive(data, filename, { limits: {}, now: TEST_NOW });
    await storeArchive(
      deps,
      { exerciseId, sectionId, ...(convertedFrom ? { convertedFrom } : {}) },
      filename,
      data,
      analysis,
    );
  };

  // Everything of an exercise that an import must reproduce, with ids replaced by names.
  const shape = (e: Exercise) => {
    const sectionName = new Map(e.sections.map((s) => [s.id, s.name]));
    const artifactName = new Map(e.artifacts.map((a) => [a.id, a.name]));
    return {
      title: e.title,
      description: e.description,
      destinations: e.destinations,
      convert_to_leef: e.convert_to_leef,
      deadlock_override: e.deadlock_override,
      tags: e.tags,
      steps: e.steps.map((s) => ({ position: s.position, title: s.title, body: s.body })),
      artifacts: e.artifacts.map((a) => ({
        ...a,
        id: undefined,
        section_id: a.section_id && sectionName.get(a.section_id),
      })),
      sections: e.sections.map((s) => ({
        name: s.name,
        position: s.position,
        release: s.release && {
          ...s.release,
          artifact_ids: s.release.artifact_ids.map((id) => artifactName.get(id)),
        },
        archives: s.archives.map((a) => ({ ...a, uploaded_at: undefined })),
      })),
      archives: e.archives.map((a) => ({ ...a, uploaded_at: undefined })),
    };
  };

  it('exports an exercise and imports it as an equivalent new draft', async () => {
    const ex = await createExercise(
      deps,
      {
        title: 'Brute force: the bastion (v2)',
        description: 'Night shift.',
        destinations: ['qradar-lab'],
        convert_to_leef: true,
        tags: ['T1110.001', 'ssh'],
      },
      null,
    );
    const v = {};
    await addStep(deps, ex.id, { title: 'Spot it', body: '## Who?\n\nGroup by `source.ip`.' }, v);
    await addStep(deps, ex.id, { title: 'Follow it' }, v);
    const access = (await addSection(deps, ex.id, { name: 'Access', position: 1 }, v)).id;
    const later = (await addSection(deps, ex.id, { name: 'Later', position: 5 }, v)).id;
    const ip = (
      await addArtifact(
        deps,
        ex.id,
        {
          name: 'Attacker IP',
          kind: 'ip',
          values: ['10.0.0.1'],
          match: 'normalized',
          section_id: access,
          hint: 'src',
          hint_penalty: 2,
        },
        v,
      )
    ).id;
    const user = (
      await addArtifact(
        deps,
        ex.id,
        { name: 'User', kind: 'user', values: ['(?i)alice'], match: 'regex', points: 25, section_id: access },
        v,
      )
    ).id;
    await addArtifact(deps, ex.id, { name: 'Free text', kind: 'text', values: ['anything'] }, v);
    await patchSection(
      deps,
      ex.id,
      later,
      {
        release: {
          condition: 'delay_or_artifacts',
          delay_minutes: 7,
          artifact_ids: [user, ip],
          gate_mode: 'any',
        },
      },
      v,
    );
    await store(ex.id, access, 'auth.log', LEEF);
    await store(ex.id, access, 'auth.ndjson', ECS, 'leef');
    await store(ex.id, later, 'later.log', LEEF);

    const exported = await exportExercise(t.ctx, ex.id);
    expect(exported.filename).toBe('brute-force-the-bastion-v2.zip');
    const read = readBundle(exported.data, LIMITS);
    expect(read.bundle.sections.map((s) => s.ref)).toEqual(['s1', 's2']);
    expect(read.bundle.artifacts.map((a) => a.ref)).toEqual(['a1', 'a2', 'a3']);
    expect(read.bundle.sections[1]?.release?.artifacts).toEqual(['a2', 'a1']);
    expect(read.bundle.sections[0]?.archives).toEqual([
      { format: 'ecs', file: 'archives/s1/ecs/auth.ndjson', filename: 'auth.ndjson', converted_from: 'leef' },
      { format: 'leef', file: 'archives/s1/leef/auth.log', filename: 'auth.log', converted_from: null },
    ]);
    expect(read.archives.get('archives/s2/leef/later.log')?.toString()).toBe(LEEF);
    expect(JSON.stringify(read.bundle)).not.toContain(ex.id);

    const original = await loadExercise(t.ctx.db, ex.id);
    const { exercise, warnings } = await importExercise({ ...deps, createdBy: null }, read);
    expect(warnings).toEqual([]);
    expect(exercise.id).not.toBe(ex.id);
    expect(exercise.state).toBe('draft');
    expect(shape(exercise)).toEqual(shape(original));
    // New ids everywhere, and the release names the new artifacts.
    const newArtifactIds = new Set(exercise.artifacts.map((a) => a.id));
    expect(exercise.sections[1]?.release?.artifact_ids.every((id) => newArtifactIds.has(id))).toBe(true);
    expect(exercise.artifacts.every((a) => !original.artifacts.some((o) => o.id === a.id))).toBe(true);
    const archives = await loadArchives(t.ctx.db, exercise.id);
    expect(archives).toHaveLength(3);
    for (const a of archives) {
      const bytes = await t.ctx.storage.get(EXERCISE_BUCKET, a.storageKey);
      expect(bytes.toString()).toBe(a.format === 'leef' ? LEEF : ECS);
    }
    // Exported again, the bundle has the same bytes.
    expect((await exportExercise(t.ctx, exercise.id)).data.equals(exported.data)).toBe(true);
  });

  it('imports both example bundles as drafts whose archives hold the expected events', async () => {
    const expected: Record<string, Array<[string, 'leef' | 'ecs', number, number]>> = {
      'phishing-to-lateral-movement': [
        ['Delivery: mail gateway and web proxy', 'leef', 2, 263 + 644],
        ['Execution: endpoint and firewall', 'leef', 2, 986 + 500],
        ['Lateral movement: Windows authentication', 'leef', 1, 1162],
      ],
      'ssh-brute-force': [
        ['Initial access: SSH authentication', 'ecs', 1, 712],
        ['Post-compromise activity', 'ecs', 1, 328],
      ],
    };
    for (const [folder, sections] of Object.entries(expected)) {
      const read = await readBundleDirectory(path.join(EXAMPLES, folder), LIMITS);
      const { exercise, warnings } = await importExercise(deps, read);
      expect(exercise.state).toBe('draft');
      expect(exercise.title).toBe(read.bundle.title);
      expect(exercise.steps).toHaveLength(read.bundle.steps.length);
      expect(exercise.artifacts).toHaveLength(read.bundle.artifacts.length);
      expect(
        exercise.sections.map((s) => [
          s.name,
          s.archives[0]?.format,
          s.archives[0]?.files,
          s.archives[0]?.events,
        ]),
      ).toEqual(sections);
      expect(exercise.sections.every((s) => s.archives.length === 1)).toBe(true);
      // Stored archives read back as the format they were stored as.
      for (const a of await loadArchives(t.ctx.db, exercise.id)) {
        const bytes = await t.ctx.storage.get(EXERCISE_BUCKET, a.storageKey);
        const again = await analyzeArchive(bytes, a.filename, { limits: {}, now: TEST_NOW });
        expect([again.format, again.events]).toEqual([a.format, a.events]);
      }
      const merged = sections.filter((s) => s[2] > 1).length;
      expect(warnings.filter((w) => w.includes('stored as one'))).toHaveLength(merged);
    }
  });

  it('maps release refs onto the new artifact ids (example with gates)', async () => {
    const read = await readBundleDirectory(path.join(EXAMPLES, 'phishing-to-lateral-movement'), LIMITS);
    const { exercise } = await importExercise(deps, read);
    const byName = new Map(exercise.artifacts.map((a) => [a.name, a.id]));
    expect(exercise.sections[1]?.release).toEqual({
      condition: 'artifacts_only',
      delay_minutes: 0,
      artifact_ids: [byName.get('Phishing link domain'), byName.get('Clicked URL')],
      gate_mode: 'any',
    });
    expect(exercise.sections[2]?.release?.artifact_ids).toEqual([
      byName.get('Command-and-control IP'),
      byName.get('Payload SHA-256'),
    ]);
    const section = new Map(exercise.sections.map((s) => [s.id, s.name]));
    expect(exercise.artifacts.map((a) => section.get(a.section_id ?? ''))).toEqual([
      'Delivery: mail gateway and web proxy',
      'Delivery: mail gateway and web proxy',
      'Execution: endpoint and firewall',
      'Execution: endpoint and firewall',
      'Lateral movement: Windows authentication',
      'Lateral movement: Windows authentication',
    ]);
  });

  const smallBundle = (over: Partial<ExerciseBundle> = {}, files: Record<string, string> = {}) => {
    const bundle: ExerciseBundle = {
      schema_version: 1,
      title: 'Small',
      sections: [
        {
          ref: 'one',
          name: 'One',
          position: 1,
          archives: [{ format: 'leef', file: 'archives/one/leef/a.log', filename: 'a.log' }],
        },
        {
          ref: 'two',
          name: 'Two',
          position: 2,
          archives: [{ format: 'ecs', file: 'archives/two/ecs/b.ndjson', filename: 'b.ndjson' }],
        },
      ],
      ...over,
    };
    const archives = new Map(
      Object.entries({ 'archives/one/leef/a.log': LEEF, 'archives/two/ecs/b.ndjson': ECS, ...files }).map(
        ([k, v]) => [k, Buffer.from(v)],
      ),
    );
    return readBundle(writeBundle(bundle, archives), LIMITS);
  };

  it('refuses a bundle with a bad archive with 400 naming the file, leaving nothing behind', async () => {
    const before = { exercises: await exerciseCount(), keys: await storedKeys() };
    const read = smallBundle({}, { 'archives/two/ecs/b.ndjson': 'this is neither LEEF nor ECS\n' });
    const err = await importExercise(deps, read).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).message).toContain('archives/two/ecs/b.ndjson');
    expect((err as AppError).details?.file).toBe('archives/two/ecs/b.ndjson');
    expect(await exerciseCount()).toBe(before.exercises);
    expect(await storedKeys()).toEqual(before.keys);

    // An archive whose content is not the format the yaml declares.
    const mislabelled = smallBundle({}, { 'archives/two/ecs/b.ndjson': LEEF });
    const wrong = await importExercise(deps, mislabelled).catch((e: unknown) => e);
    expect((wrong as AppError).status).toBe(400);
    expect((wrong as AppError).message).toContain('declared ECS but holds LEEF');
    expect(await exerciseCount()).toBe(before.exercises);
  });

  it('undoes everything when a failure comes after the exercise was created', async () => {
    const before = { exercises: await exerciseCount(), keys: await storedKeys() };
    let puts = 0;
    const put: ObjectStorage['put'] = (...args) => {
      puts += 1;
      if (puts === 2) return Promise.reject(new Error('disk full'));
      return t.ctx.storage.put(...args);
    };
    const failing = new Proxy(t.ctx.storage, {
      get: (target, name) => {
        if (name === 'put') return put;
        const value = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const err = await importExercise({ ...deps, storage: failing }, smallBundle()).catch((e: unknown) => e);
    expect((err as Error).message).toBe('disk full');
    expect(puts).toBe(2);
    expect(await exerciseCount()).toBe(before.exercises);
    expect(await storedKeys()).toEqual(before.keys);
  });

  it('keeps the destinations this installation has and drops the others with a warning', async () => {
    const read = smallBundle({ destinations: ['qradar-lab', 'splunk-elsewhere', 'ghost'] });
    const { exercise, warnings } = await importExercise(deps, read);
    expect(exercise.destinations).toEqual(['qradar-lab']);
    expect(warnings).toEqual([
      'SIEM destination(s) "splunk-elsewhere", "ghost" do not exist on this installation and were left out',
    ]);

    const chosen = await importExercise(deps, read, { destinations: [] });
    expect(chosen.exercise.destinations).toEqual([]);
    expect(chosen.warnings).toEqual([]);

    const before = await exerciseCount();
    const unknown = await importExercise(deps, read, { destinations: ['nope'] }).catch((e: unknown) => e);
    expect((unknown as AppError).status).toBe(400);
    expect(await exerciseCount()).toBe(before);
  });

  it('makes file names of titles', () => {
    expect(slugOf('From a phishing link to lateral movement')).toBe(
      'from-a-phishing-link-to-lateral-movement',
    );
    expect(slugOf('Éclair à la crème!')).toBe('eclair-a-la-creme');
    expect(slugOf('***')).toBe('exercise');
    expect(slugOf('x'.repeat(300))).toHaveLength(80);
  });
});
