import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTarGz } from '../../test/fixtures/archives/tar-builder.ts';
import { buildZip } from '../../test/fixtures/archives/zip-builder.ts';
import { buildTestApp, signedInAs, TEST_NOW, type TestApp } from '../../test/helpers/test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import { EXERCISE_BUCKET } from './exercise-archives.ts';

const LEEF = [
  'LEEF:2.0|Lab|Auth|1.0|login|^|devTimeFormat=yyyy-MM-dd HH:mm:ss^devTime=2024-03-11 09:15:02^src=10.0.0.1^usrName=alice',
  'LEEF:2.0|Lab|Auth|1.0|login|^|devTimeFormat=yyyy-MM-dd HH:mm:ss^devTime=2024-03-11 09:16:02^src=10.0.0.2^usrName=bob',
  'LEEF:2.0|Lab|Auth|1.0|logout|^|devTimeFormat=yyyy-MM-dd HH:mm:ss^devTime=2024-03-11 09:17:02^src=10.0.0.1^usrName=alice',
].join('\n');

const ECS = [
  '{"@timestamp":"2024-03-11T09:15:02Z","event":{"action":"login"},"source":{"ip":"10.0.0.1"}}',
  '{"@timestamp":"2024-03-11T09:16:02Z","event":{"action":"logout"},"source":{"ip":"10.0.0.1"}}',
].join('\n');

const MAX_BYTES = 2000;

describe('exercise authoring API', () => {
  let t: TestApp;
  let cookie: string;
  let analyst: string;
  let analystId: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ARCHIVE_MAX_BYTES: String(MAX_BYTES) } });
    cookie = (await signedInAs(t, ['author'])).cookie;
    const signedIn = await signedInAs(t, ['analyst']);
    analyst = signedIn.cookie;
    analystId = signedIn.user.id;
    await createDestination(t.ctx, {
      name: 'splunk-lab',
      driver: 'vendorA_hec',
      url: 'https://siem-a:8088',
      token: 'hec-token',
      index: 'lab',
    });
    await createDestination(t.ctx, { name: 'qradar-lab', driver: 'syslog_tcp', host: '10.0.0.5', port: 514 });
  });
  afterAll(async () => {
    await t.close();
  });

  type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
  const req = (
    method: Method,
    url: string,
    payload?: object,
    headers: Record<string, string> = {},
    as = cookie,
  ) => t.app.inject({ method, url, headers: { cookie: as, ...headers }, ...(payload ? { payload } : {}) });
  const upload = (url: string, payload: Buffer | string, headers: Record<string, string> = {}, as = cookie) =>
    t.app.inject({
      method: 'PUT',
      url,
      headers: { cookie: as, 'content-type': 'application/octet-stream', ...headers },
      payload,
    });

  let seq = 0;
  const newExercise = async (over: Record<string, unknown> = {}) => {
    const res = await req('POST', '/api/exercises', { title: `exercise ${++seq}`, ...over });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const addChild = async (id: string, what: 'steps' | 'sections' | 'artifacts', body: object) => {
    const res = await req('POST', `/api/exercises/${id}/${what}`, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().created_id as string;
  };
  const read = async (id: string) => (await req('GET', `/api/exercises/${id}`)).json();
  const auditOf = (target: string) =>
    t.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'outcome', 'actor_type', 'details'])
      .where('target', '=', target)
      .orderBy('id')
      .execute();

  describe('exercises', () => {
    it('creates a draft from a title only: 201, version 1, defaults filled in', async () => {
      const res = await req('POST', '/api/exercises', { title: 'Phishing triage' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({
        id: expect.any(String),
        title: 'Phishing triage',
        description: '',
        state: 'draft',
        destinations: [],
        convert_to_leef: false,
        deadlock_override: false,
        tags: [],
        version: 1,
        updated_at: new Date(TEST_NOW).toISOString(),
        steps: [],
        artifacts: [],
        sections: [],
        archives: [],
      });
    });

    it('creates with every field, de-duplicating destinations and tags', async () => {
      const ex = await newExercise({
        description: 'A **lab**',
        destinations: ['splunk-lab', 'qradar-lab', 'splunk-lab'],
        convert_to_leef: true,
        deadlock_override: true,
        tags: ['T1566', 'T1566', 'T1078'],
      });
      expect(ex).toMatchObject({
        description: 'A **lab**',
        destinations: ['splunk-lab', 'qradar-lab'],
        convert_to_leef: true,
        deadlock_override: true,
        tags: ['T1566', 'T1078'],
      });
    });

    it('refuses a body without a title, or with unknown fields, with 400', async () => {
      for (const body of [{}, { title: '' }, { title: 'x', colour: 'red' }]) {
        const res = await req('POST', '/api/exercises', body);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      }
    });

    it('refuses unknown destinations with 400 naming them', async () => {
      const res = await req('POST', '/api/exercises', {
        title: 'x',
        destinations: ['splunk-lab', 'ghost', 'nope'],
      });
      expect(res.statusCode).toBe(400);
      const { error } = res.json();
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain('"ghost"');
      expect(error.message).toContain('"nope"');
      expect(error.details.unknown).toEqual(['ghost', 'nope']);

      const ex = await newExercise();
      const patch = await req('PATCH', `/api/exercises/${ex.id}`, { destinations: ['ghost'] });
      expect(patch.statusCode).toBe(400);
      expect(patch.json().error.details.unknown).toEqual(['ghost']);
      expect((await read(ex.id)).version).toBe(1);
    });

    it('lists exercises without their children', async () => {
      const ex = await newExercise({ title: 'listed one' });
      const res = await req('GET', '/api/exercises');
      expect(res.statusCode).toBe(200);
      const row = res.json().find((e: { id: string }) => e.id === ex.id);
      expect(row).toEqual({
        id: ex.id,
        title: 'listed one',
        description: '',
        state: 'draft',
        destinations: [],
        convert_to_leef: false,
        deadlock_override: false,
        tags: [],
        version: 1,
        updated_at: new Date(TEST_NOW).toISOString(),
      });
    });

    it('reads one exercise with its version as ETag; unknown or non-UUID ids are 404', async () => {
      const ex = await newExercise();
      const res = await req('GET', `/api/exercises/${ex.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe('"1"');
      expect(res.json()).toEqual(ex);
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const missing = await req('GET', `/api/exercises/${id}`);
        expect(missing.statusCode).toBe(404);
        expect(missing.json()).toMatchObject({ ok: false, error: { code: 'not_found' } });
      }
    });

    it('patches fields and increments the version on every change', async () => {
      const ex = await newExercise();
      t.clock.advance(1000);
      const res = await req('PATCH', `/api/exercises/${ex.id}`, {
        title: 'renamed',
        destinations: ['qradar-lab'],
        tags: ['T1059'],
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        title: 'renamed',
        destinations: ['qradar-lab'],
        tags: ['T1059'],
        version: 2,
        updated_at: new Date(t.clock.now()).toISOString(),
      });
      const again = await req('PATCH', `/api/exercises/${ex.id}`, { description: 'more' });
      expect(again.json()).toMatchObject({ title: 'renamed', description: 'more', version: 3 });
      const view = await req('GET', `/api/exercises/${ex.id}`);
      expect(view.headers.etag).toBe('"3"');
    });

    it('applies a PATCH whose If-Match is current, bare or quoted', async () => {
      const ex = await newExercise();
      const bare = await req('PATCH', `/api/exercises/${ex.id}`, { title: 'a' }, { 'if-match': '1' });
      expect(bare.statusCode).toBe(200);
      expect(bare.json().version).toBe(2);
      const quoted = await req('PATCH', `/api/exercises/${ex.id}`, { title: 'b' }, { 'if-match': '"2"' });
      expect(quoted.statusCode).toBe(200);
      expect(quoted.json()).toMatchObject({ title: 'b', version: 3 });
      const weak = await req('PATCH', `/api/exercises/${ex.id}`, { title: 'c' }, { 'if-match': 'W/"3"' });
      expect(weak.statusCode).toBe(200);
      expect(weak.json()).toMatchObject({ title: 'c', version: 4 });
      // `*` and an empty header ask for no version.
      for (const header of ['*', '']) {
        expect(
          (await req('PATCH', `/api/exercises/${ex.id}`, { title: 'd' }, { 'if-match': header })).statusCode,
        ).toBe(200);
      }
    });

    it('refuses a stale If-Match with 412 and the error body, changing nothing', async () => {
      const ex = await newExercise({ title: 'contested' });
      expect((await req('PATCH', `/api/exercises/${ex.id}`, { title: 'first editor' })).statusCode).toBe(200);
      const stale = await req(
        'PATCH',
        `/api/exercises/${ex.id}`,
        { title: 'second editor' },
        { 'if-match': '1' },
      );
      expect(stale.statusCode).toBe(412);
      expect(stale.json()).toEqual({
        ok: false,
        error: {
          code: 'precondition_failed',
          message: expect.stringContaining('version 1'),
          details: { version: 2 },
        },
      });
      expect(await read(ex.id)).toMatchObject({ title: 'first editor', version: 2 });
    });

    it('refuses an If-Match that is no version with 400', async () => {
      const ex = await newExercise();
      for (const header of ['abc', '"1', '1"', 'W/1', '1.5', '-1', '1, 2']) {
        const res = await req('PATCH', `/api/exercises/${ex.id}`, { title: 'x' }, { 'if-match': header });
        expect(res.statusCode, header).toBe(400);
        expect(res.json().error.code).toBe('invalid_input');
      }
      expect((await read(ex.id)).version).toBe(1);
    });

    it('answers 404 to a PATCH or DELETE of an unknown exercise', async () => {
      const id = '00000000-0000-4000-8000-000000000001';
      expect((await req('PATCH', `/api/exercises/${id}`, { title: 'x' })).statusCode).toBe(404);
      expect((await req('DELETE', `/api/exercises/${id}`)).statusCode).toBe(404);
    });
  });

  describe('steps, sections and artifacts', () => {
    it('creates, patches and deletes steps, each a new version', async () => {
      const ex = await newExercise();
      const res = await req('POST', `/api/exercises/${ex.id}/steps`, {
        title: 'Open the SIEM',
        body: '# Go',
      });
      expect(res.statusCode).toBe(201);
      const created = res.json();
      expect(created.version).toBe(2);
      expect(created.steps).toEqual([
        { id: created.created_id, position: 1, title: 'Open the SIEM', body: '# Go' },
      ]);
      const second = await addChild(ex.id, 'steps', { title: 'Find the IP' });

      const patched = await req('PATCH', `/api/exercises/${ex.id}/steps/${created.created_id}`, {
        body: 'changed',
      });
      expect(patched.statusCode).toBe(200);
      expect(patched.json().version).toBe(4);
      expect(patched.json().steps).toEqual([
        { id: created.created_id, position: 1, title: 'Open the SIEM', body: 'changed' },
        { id: second, position: 2, title: 'Find the IP', body: '' },
      ]);

      const deleted = await req('DELETE', `/api/exercises/${ex.id}/steps/${created.created_id}`);
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json().steps.map((s: { id: string }) => s.id)).toEqual([second]);
      expect(deleted.json().version).toBe(5);
      expect((await req('DELETE', `/api/exercises/${ex.id}/steps/${created.created_id}`)).statusCode).toBe(
        404,
      );
    });

    it('inserts a step at a given position, moving later steps down', async () => {
      const ex = await newExercise();
      const a = await addChild(ex.id, 'steps', { title: 'a' });
      const b = await addChild(ex.id, 'steps', { title: 'b' });
      const c = await addChild(ex.id, 'steps', { title: 'c', position: 1 });
      expect(
        (await read(ex.id)).steps.map((s: { id: string; position: number }) => [s.id, s.position]),
      ).toEqual([
        [c, 1],
        [a, 2],
        [b, 3],
      ]);
    });

    it('creates sections at the next free position and refuses a position clash with 409', async () => {
      const ex = await newExercise();
      const first = await addChild(ex.id, 'sections', { name: 'Initial access' });
      const second = await addChild(ex.id, 'sections', { name: 'Lateral movement' });
      const view = await read(ex.id);
      expect(view.sections).toEqual([
        { id: first, name: 'Initial access', position: 1, release: null, archives: [] },
        { id: second, name: 'Lateral movement', position: 2, release: null, archives: [] },
      ]);

      const clash = await req('POST', `/api/exercises/${ex.id}/sections`, {
        name: 'Exfiltration',
        position: 2,
      });
      expect(clash.statusCode).toBe(409);
      expect(clash.json()).toMatchObject({
        ok: false,
        error: { code: 'conflict', message: expect.stringContaining('"Lateral movement"') },
      });
      const moved = await req('PATCH', `/api/exercises/${ex.id}/sections/${first}`, { position: 2 });
      expect(moved.statusCode).toBe(409);
      // Its own position is no clash.
      const same = await req('PATCH', `/api/exercises/${ex.id}/sections/${first}`, {
        position: 1,
        name: 'Access',
      });
      expect(same.statusCode).toBe(200);
      expect(same.json().sections[0]).toMatchObject({ id: first, name: 'Access', position: 1 });
      expect((await read(ex.id)).version).toBe(4);
    });

    it('creates artifacts with defaults, patches and deletes them', async () => {
      const ex = await newExercise();
      const section = await addChild(ex.id, 'sections', { name: 'S1' });
      const res = await req('POST', `/api/exercises/${ex.id}/artifacts`, {
        name: 'C2 address',
        kind: 'ip',
        values: ['203.0.113.7'],
        section_id: section,
        hint: 'Look at outbound traffic',
        hint_penalty: 3,
      });
      expect(res.statusCode).toBe(201);
      const id = res.json().created_id;
      expect(res.json().artifacts).toEqual([
        {
          id,
          name: 'C2 address',
          kind: 'ip',
          values: ['203.0.113.7'],
          match: 'exact',
          points: 10,
          section_id: section,
          hint: 'Look at outbound traffic',
          hint_penalty: 3,
        },
      ]);

      const patched = await req('PATCH', `/api/exercises/${ex.id}/artifacts/${id}`, {
        match: 'regex',
        values: ['203\\.0\\.113\\.\\d+'],
        points: 25,
        hint: null,
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json().artifacts[0]).toMatchObject({
        match: 'regex',
        values: ['203\\.0\\.113\\.\\d+'],
        points: 25,
        hint: null,
        hint_penalty: 3,
        section_id: section,
      });

      const unknownSection = await req('POST', `/api/exercises/${ex.id}/artifacts`, {
        name: 'x',
        kind: 'text',
        values: ['x'],
        section_id: '00000000-0000-4000-8000-000000000002',
      });
      expect(unknownSection.statusCode).toBe(404);

      const deleted = await req('DELETE', `/api/exercises/${ex.id}/artifacts/${id}`);
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json().artifacts).toEqual([]);
    });

    it('refuses an artifact with an invalid or unsafe regex with 400 naming the artifact', async () => {
      const ex = await newExercise();
      const cases = [
        ['backreference', '(a)\\1'],
        ['lookahead', '(?=x)abc'],
        ['too long', 'a'.repeat(300)],
        ['unbalanced', '(abc'],
      ];
      for (const [name, pattern] of cases) {
        const res = await req('POST', `/api/exercises/${ex.id}/artifacts`, {
          name: `pattern ${name}`,
          kind: 'text',
          values: [pattern],
          match: 'regex',
        });
        expect(res.statusCode, name).toBe(400);
        const { error } = res.json();
        expect(error.code).toBe('invalid_input');
        expect(error.message).toContain(`"pattern ${name}"`);
        expect(error.details.artifact).toBe(`pattern ${name}`);
      }
      // The same on a patch that turns an artifact's values into regexes.
      const id = await addChild(ex.id, 'artifacts', { name: 'plain', kind: 'text', values: ['(a)\\1'] });
      const res = await req('PATCH', `/api/exercises/${ex.id}/artifacts/${id}`, { match: 'regex' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details.artifact).toBe('plain');
      expect((await read(ex.id)).artifacts[0].match).toBe('exact');
    });

    it('saves release rules with defaults filled in', async () => {
      const ex = await newExercise();
      const artifact = await addChild(ex.id, 'artifacts', { name: 'user', kind: 'user', values: ['alice'] });
      const gated = await addChild(ex.id, 'sections', {
        name: 'gated',
        release: { condition: 'delay_or_artifacts', delay_minutes: 30, artifact_ids: [artifact] },
      });
      const delayed = await addChild(ex.id, 'sections', {
        name: 'delayed',
        release: { condition: 'delay_only', delay_minutes: 5 },
      });
      const view = await read(ex.id);
      expect(view.sections.find((s: { id: string }) => s.id === gated).release).toEqual({
        condition: 'delay_or_artifacts',
        delay_minutes: 30,
        artifact_ids: [artifact],
        gate_mode: 'all',
      });
      expect(view.sections.find((s: { id: string }) => s.id === delayed).release).toEqual({
        condition: 'delay_only',
        delay_minutes: 5,
        artifact_ids: [],
        gate_mode: 'all',
      });
      const cleared = await req('PATCH', `/api/exercises/${ex.id}/sections/${gated}`, { release: null });
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json().sections.find((s: { id: string }) => s.id === gated).release).toBeNull();
    });

    it('refuses a release gate naming an artifact of another exercise with 400', async () => {
      const other = await newExercise();
      const foreign = await addChild(other.id, 'artifacts', { name: 'theirs', kind: 'text', values: ['x'] });
      const ex = await newExercise();
      const own = await addChild(ex.id, 'artifacts', { name: 'ours', kind: 'text', values: ['y'] });
      const res = await req('POST', `/api/exercises/${ex.id}/sections`, {
        name: 'gated',
        release: { condition: 'artifacts_only', artifact_ids: [own, foreign, 'not-a-uuid'] },
      });
      expect(res.statusCode).toBe(400);
      const { error } = res.json();
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain(foreign);
      expect(error.details.artifacts).toEqual([foreign, 'not-a-uuid']);
      expect((await read(ex.id)).sections).toEqual([]);

      const section = await addChild(ex.id, 'sections', { name: 'open' });
      const patch = await req('PATCH', `/api/exercises/${ex.id}/sections/${section}`, {
        release: { condition: 'artifacts_only', artifact_ids: [foreign] },
      });
      expect(patch.statusCode).toBe(400);
    });

    it('refuses an invalid release (artifacts_only without artifacts) with 400', async () => {
      const ex = await newExercise();
      for (const release of [
        { condition: 'artifacts_only' },
        { condition: 'delay_and_artifacts', delay_minutes: 5, artifact_ids: [] },
      ]) {
        const res = await req('POST', `/api/exercises/${ex.id}/sections`, { name: 'gated', release });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          ok: false,
          error: { code: 'invalid_input', details: { fields: { release: expect.any(String) } } },
        });
      }
      const bad = await req('POST', `/api/exercises/${ex.id}/sections`, {
        name: 'x',
        release: { condition: 'whenever' },
      });
      expect(bad.statusCode).toBe(400);
      expect((await read(ex.id)).version).toBe(1);
    });

    it('refuses to delete an artifact a gate names with 409; once ungated it goes', async () => {
      const ex = await newExercise();
      const artifact = await addChild(ex.id, 'artifacts', { name: 'key', kind: 'hash', values: ['abc123'] });
      const section = await addChild(ex.id, 'sections', {
        name: 'Stage 2',
        release: { condition: 'artifacts_only', artifact_ids: [artifact] },
      });
      const res = await req('DELETE', `/api/exercises/${ex.id}/artifacts/${artifact}`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        ok: false,
        error: {
          code: 'conflict',
          message: expect.stringContaining('"Stage 2"'),
          details: { sections: ['Stage 2'] },
        },
      });
      expect((await read(ex.id)).artifacts).toHaveLength(1);
      await req('PATCH', `/api/exercises/${ex.id}/sections/${section}`, { release: null });
      expect((await req('DELETE', `/api/exercises/${ex.id}/artifacts/${artifact}`)).statusCode).toBe(200);
    });

    it('refuses to delete a section whose artifacts gate another section with 409; once ungated it goes', async () => {
      const ex = await newExercise();
      const stage1 = await addChild(ex.id, 'sections', { name: 'Stage 1' });
      const gate = await addChild(ex.id, 'artifacts', {
        name: 'key',
        kind: 'hash',
        values: ['abc123'],
        section_id: stage1,
      });
      await addChild(ex.id, 'artifacts', { name: 'other', kind: 'text', values: ['x'], section_id: stage1 });
      const stage2 = await addChild(ex.id, 'sections', {
        name: 'Stage 2',
        release: { condition: 'artifacts_only', artifact_ids: [gate] },
      });
      const version = (await read(ex.id)).version;
      const res = await req('DELETE', `/api/exercises/${ex.id}/sections/${stage1}`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        ok: false,
        error: {
          code: 'conflict',
          message: expect.stringContaining('"Stage 2"'),
          details: { sections: ['Stage 2'], artifacts: [gate] },
        },
      });
      const unchanged = await read(ex.id);
      expect(unchanged.version).toBe(version);
      expect(unchanged.sections).toHaveLength(2);
      expect(unchanged.artifacts.map((a: { section_id: string | null }) => a.section_id)).toEqual([
        stage1,
        stage1,
      ]);
      await req('PATCH', `/api/exercises/${ex.id}/sections/${stage2}`, { release: null });
      expect((await req('DELETE', `/api/exercises/${ex.id}/sections/${stage1}`)).statusCode).toBe(200);
    });

    it('takes If-Match on child changes too', async () => {
      const ex = await newExercise();
      const stale = await req('POST', `/api/exercises/${ex.id}/steps`, { title: 's' }, { 'if-match': '7' });
      expect(stale.statusCode).toBe(412);
      expect(stale.json().error).toMatchObject({ code: 'precondition_failed', details: { version: 1 } });
      const ok = await req('POST', `/api/exercises/${ex.id}/steps`, { title: 's' }, { 'if-match': '1' });
      expect(ok.statusCode).toBe(201);
      expect((await read(ex.id)).steps).toHaveLength(1);
    });

    it('answers 404 for children of another exercise or unknown ids', async () => {
      const a = await newExercise();
      const b = await newExercise();
      const step = await addChild(a.id, 'steps', { title: 'mine' });
      expect((await req('PATCH', `/api/exercises/${b.id}/steps/${step}`, { title: 'x' })).statusCode).toBe(
        404,
      );
      expect((await req('DELETE', `/api/exercises/${b.id}/steps/${step}`)).statusCode).toBe(404);
      expect((await req('PATCH', `/api/exercises/${a.id}/sections/nope`, { name: 'x' })).statusCode).toBe(
        404,
      );
      expect((await req('PATCH', `/api/exercises/${a.id}/artifacts/nope`, { name: 'x' })).statusCode).toBe(
        404,
      );
      expect((await read(b.id)).version).toBe(1);
    });
  });

  describe('archive uploads', () => {
    const sectionUrl = (id: string, section: string, filename: string) =>
      `/api/exercises/${id}/sections/${section}/archives?filename=${encodeURIComponent(filename)}`;
    const withSection = async () => {
      const ex = await newExercise();
      const section = await addChild(ex.id, 'sections', { name: 'S1' });
      return { id: ex.id as string, section };
    };
    const stored = async (id: string) =>
      (await t.ctx.storage.list(EXERCISE_BUCKET, `${id}/`)).map((o) => o.key);

    it('stores a LEEF zip and answers 201 with format, files and events', async () => {
      const { id, section } = await withSection();
      const zip = buildZip([
        { name: 'logs/a.log', data: LEEF },
        { name: 'logs/b.txt', data: LEEF.split('\n')[0] },
        { name: 'README.md', data: 'not selected' },
      ]);
      const res = await upload(sectionUrl(id, section, 'auth.zip'), zip);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toEqual({
        format: 'leef',
        filename: 'auth.zip',
        files: 2,
        events: 4,
        size: zip.length,
        uploaded_at: new Date(t.clock.now()).toISOString(),
      });
      const view = await read(id);
      expect(view.version).toBe(3);
      expect(view.sections[0].archives).toEqual([res.json()]);
      const keys = await stored(id);
      expect(keys).toHaveLength(1);
      expect((await t.ctx.storage.get(EXERCISE_BUCKET, keys[0] as string)).equals(zip)).toBe(true);
    });

    it('stores a LEEF .tar.gz and .tgz', async () => {
      const { id, section } = await withSection();
      const tgz = buildTarGz([{ name: 'a.log', data: LEEF }]);
      for (const name of ['auth.tar.gz', 'auth.tgz']) {
        const res = await upload(sectionUrl(id, section, name), tgz);
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json()).toMatchObject({ format: 'leef', filename: name, files: 1, events: 3 });
      }
    });

    it('takes the raw body whatever its content type', async () => {
      const { id, section } = await withSection();
      const res = await upload(sectionUrl(id, section, 'auth.ndjson'), ECS, {
        'content-type': 'application/json',
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ format: 'ecs', filename: 'auth.ndjson', files: 1, events: 2 });
    });

    it('stores an ECS JSON array inside a zip', async () => {
      const { id, section } = await withSection();
      const zip = buildZip([{ name: 'events.json', data: `[${ECS.split('\n').join(',\n')}]` }]);
      const res = await upload(sectionUrl(id, section, 'ecs.zip'), zip);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ format: 'ecs', files: 1, events: 2 });
    });

    it('stores an upload under a safe key whatever its filename', async () => {
      const { id, section } = await withSection();
      const res = await upload(sectionUrl(id, section, '../../etc/odd name?.log'), LEEF);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().filename).toBe('../../etc/odd name?.log');
      const [key] = await stored(id);
      expect(key).toMatch(new RegExp(`^${id}/${section}/leef/[0-9a-f-]{36}-odd_name_\\.log$`));
    });

    it('stores plain LEEF text', async () => {
      const { id, section } = await withSection();
      const res = await upload(sectionUrl(id, section, 'auth.log'), LEEF, { 'content-type': 'text/plain' });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ format: 'leef', filename: 'auth.log', files: 1, events: 3 });
    });

    it('detects ECS NDJSON text and keeps it beside the LEEF archive', async () => {
      const { id, section } = await withSection();
      expect((await upload(sectionUrl(id, section, 'auth.log'), LEEF)).statusCode).toBe(201);
      const res = await upload(sectionUrl(id, section, 'auth.ndjson'), ECS);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ format: 'ecs', filename: 'auth.ndjson', files: 1, events: 2 });
      const view = await read(id);
      expect(view.sections[0].archives.map((a: { format: string }) => a.format)).toEqual(['ecs', 'leef']);
      expect(await stored(id)).toHaveLength(2);
    });

    it('refuses unknown content with 400 unknown_format naming the file and the entry', async () => {
      const { id, section } = await withSection();
      const zip = buildZip([
        { name: 'a.log', data: LEEF },
        { name: 'notes.txt', data: 'just some prose\nwith two lines\n' },
      ]);
      const res = await upload(sectionUrl(id, section, 'mixed.zip'), zip);
      expect(res.statusCode).toBe(400);
      const { error } = res.json();
      expect(error.code).toBe('unknown_format');
      expect(error.message).toContain('"mixed.zip"');
      expect(error.message).toContain('"notes.txt"');
      expect(error.details).toEqual({ filename: 'mixed.zip', entry: 'notes.txt' });

      const text = await upload(sectionUrl(id, section, 'prose.log'), 'hello world\nnothing here\n');
      expect(text.statusCode).toBe(400);
      expect(text.json().error).toMatchObject({ code: 'unknown_format', details: { filename: 'prose.log' } });
      expect(text.json().error.message).toContain('"prose.log"');
      expect(await stored(id)).toEqual([]);
      expect((await read(id)).version).toBe(2);
    });

    it('refuses a zip mixing LEEF and ECS entries with 400 unknown_format', async () => {
      const { id, section } = await withSection();
      const zip = buildZip([
        { name: 'a.log', data: LEEF },
        { name: 'b.ndjson', data: ECS },
      ]);
      const res = await upload(sectionUrl(id, section, 'both.zip'), zip);
      expect(res.statusCode).toBe(400);
      const { error } = res.json();
      expect(error.code).toBe('unknown_format');
      expect(error.message).toContain('"a.log"');
      expect(error.message).toContain('"b.ndjson"');
      expect(error.details).toEqual({ filename: 'both.zip', entries: { leef: 'a.log', ecs: 'b.ndjson' } });
      expect(await stored(id)).toEqual([]);
    });

    it('refuses an upload over ARCHIVE_MAX_BYTES with 413 and stores nothing', async () => {
      const { id, section } = await withSection();
      const big = `${LEEF}\n`.repeat(Math.ceil((MAX_BYTES + 1) / (LEEF.length + 1)));
      expect(big.length).toBeGreaterThan(MAX_BYTES);
      const res = await upload(sectionUrl(id, section, 'big.log'), big);
      expect(res.statusCode).toBe(413);
      expect(res.json()).toMatchObject({
        ok: false,
        error: { code: 'payload_too_large', details: { max_bytes: MAX_BYTES } },
      });
      const view = await read(id);
      expect(view.sections[0].archives).toEqual([]);
      expect(view.version).toBe(2);
      expect(await stored(id)).toEqual([]);
    });

    it('refuses an over-long upload even when it is sent without a length', async () => {
      const { id, section } = await withSection();
      const big = Buffer.from(`${LEEF}\n`.repeat(Math.ceil((MAX_BYTES + 1) / (LEEF.length + 1))));
      const { Readable } = await import('node:stream');
      const res = await t.app.inject({
        method: 'PUT',
        url: sectionUrl(id, section, 'big.log'),
        headers: { cookie, 'content-type': 'application/octet-stream' },
        payload: Readable.from([big.subarray(0, 1000), big.subarray(1000)]),
      });
      expect(res.statusCode).toBe(413);
      expect(await stored(id)).toEqual([]);
    });

    it('refuses an empty upload with 400', async () => {
      const { id, section } = await withSection();
      const res = await upload(sectionUrl(id, section, 'empty.log'), Buffer.alloc(0));
      expect(res.statusCode).toBe(400);
      expect(await stored(id)).toEqual([]);
    });

    it('replaces the archive of the same format and removes the old object', async () => {
      const { id, section } = await withSection();
      expect((await upload(sectionUrl(id, section, 'first.log'), LEEF)).statusCode).toBe(201);
      const [oldKey] = await stored(id);
      t.clock.advance(1000);
      const second = buildZip([{ name: 'a.log', data: LEEF.split('\n')[0] }]);
      const res = await upload(sectionUrl(id, section, 'second.zip'), second);
      expect(res.statusCode, res.body).toBe(201);
      const view = await read(id);
      expect(view.sections[0].archives).toEqual([
        expect.objectContaining({ format: 'leef', filename: 'second.zip', files: 1, events: 1 }),
      ]);
      const keys = await stored(id);
      expect(keys).toHaveLength(1);
      expect(keys).not.toContain(oldKey);
      expect(await t.ctx.storage.stat(EXERCISE_BUCKET, oldKey as string)).toBeUndefined();
    });

    it('answers 404 for an unknown section, storing nothing', async () => {
      const { id } = await withSection();
      const res = await upload(sectionUrl(id, '00000000-0000-4000-8000-000000000003', 'a.log'), LEEF);
      expect(res.statusCode).toBe(404);
      expect(await stored(id)).toEqual([]);
      const other = await withSection();
      expect((await upload(sectionUrl(id, other.section, 'a.log'), LEEF)).statusCode).toBe(404);
      expect(await stored(id)).toEqual([]);
    });

    it('refuses an upload without a filename with 400', async () => {
      const { id, section } = await withSection();
      const res = await upload(`/api/exercises/${id}/sections/${section}/archives`, LEEF);
      expect(res.statusCode).toBe(400);
    });

    it('refuses an upload with a stale If-Match with 412, storing nothing', async () => {
      const { id, section } = await withSection();
      const res = await upload(sectionUrl(id, section, 'a.log'), LEEF, { 'if-match': '1' });
      expect(res.statusCode).toBe(412);
      expect(await stored(id)).toEqual([]);
      expect((await upload(sectionUrl(id, section, 'a.log'), LEEF, { 'if-match': '2' })).statusCode).toBe(
        201,
      );
    });

    it('stores the legacy archive of a sectionless exercise', async () => {
      const ex = await newExercise();
      const res = await upload(`/api/exercises/${ex.id}/archives?filename=legacy.ndjson`, ECS);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ format: 'ecs', filename: 'legacy.ndjson', files: 1, events: 2 });
      const view = await read(ex.id);
      expect(view.archives).toEqual([res.json()]);
      expect(view.sections).toEqual([]);
      const again = await upload(`/api/exercises/${ex.id}/archives?filename=again.ndjson`, ECS);
      expect(again.statusCode).toBe(201);
      expect((await read(ex.id)).archives).toEqual([again.json()]);
      expect(await stored(ex.id)).toHaveLength(1);
    });

    it('removes a section archive when its section is deleted', async () => {
      const { id, section } = await withSection();
      expect((await upload(sectionUrl(id, section, 'a.log'), LEEF)).statusCode).toBe(201);
      expect(await stored(id)).toHaveLength(1);
      expect((await req('DELETE', `/api/exercises/${id}/sections/${section}`)).statusCode).toBe(200);
      expect(await stored(id)).toEqual([]);
      const rows = await t.ctx.db
        .selectFrom('exercise_archives')
        .select('id')
        .where('exercise_id', '=', id)
        .execute();
      expect(rows).toEqual([]);
    });
  });

  describe('active exercises', () => {
    it('refuses every change to an active exercise with 409', async () => {
      const ex = await newExercise();
      const step = await addChild(ex.id, 'steps', { title: 's' });
      const section = await addChild(ex.id, 'sections', { name: 'S' });
      const artifact = await addChild(ex.id, 'artifacts', { name: 'a', kind: 'text', values: ['a'] });
      await t.ctx.db.updateTable('exercises').set({ state: 'active' }).where('id', '=', ex.id).execute();
      const before = await read(ex.id);
      const changes: [Method | 'PUT', string, object?][] = [
        ['PATCH', `/api/exercises/${ex.id}`, { title: 'x' }],
        ['POST', `/api/exercises/${ex.id}/steps`, { title: 'x' }],
        ['PATCH', `/api/exercises/${ex.id}/steps/${step}`, { title: 'x' }],
        ['DELETE', `/api/exercises/${ex.id}/steps/${step}`],
        ['POST', `/api/exercises/${ex.id}/sections`, { name: 'x' }],
        ['PATCH', `/api/exercises/${ex.id}/sections/${section}`, { name: 'x' }],
        ['DELETE', `/api/exercises/${ex.id}/sections/${section}`],
        ['POST', `/api/exercises/${ex.id}/artifacts`, { name: 'x', kind: 'text', values: ['x'] }],
        ['PATCH', `/api/exercises/${ex.id}/artifacts/${artifact}`, { name: 'x' }],
        ['DELETE', `/api/exercises/${ex.id}/artifacts/${artifact}`],
      ];
      for (const [method, url, payload] of changes) {
        const res = await req(method as Method, url, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(409);
        expect(res.json()).toMatchObject({
          ok: false,
          error: { code: 'conflict', details: { state: 'active' } },
        });
      }
      const put = await upload(`/api/exercises/${ex.id}/sections/${section}/archives?filename=a.log`, LEEF);
      expect(put.statusCode).toBe(409);
      expect(await t.ctx.storage.list(EXERCISE_BUCKET, `${ex.id}/`)).toEqual([]);
      expect(await read(ex.id)).toEqual(before);
    });
  });

  describe('refused authoring actions', () => {
    it('leave a failure record with the error code, and a refusal by capability stays authz.denied', async () => {
      const ex = await newExercise({ title: 'audited refusals' });
      const stale = await req('PATCH', `/api/exercises/${ex.id}`, { title: 'x' }, { 'if-match': '99' });
      expect(stale.statusCode).toBe(412);
      const clash = await addChild(ex.id, 'sections', { name: 'A', position: 1 });
      expect(clash).toEqual(expect.any(String));
      expect(
        (await req('POST', `/api/exercises/${ex.id}/sections`, { name: 'B', position: 1 })).statusCode,
      ).toBe(409);
      const unknown = await upload(`/api/exercises/${ex.id}/archives?filename=notes.txt`, 'no events here\n');
      expect(unknown.statusCode).toBe(409);
      expect((await req('PATCH', `/api/exercises/${ex.id}`, { title: 'y' }, {}, analyst)).statusCode).toBe(
        403,
      );

      const failures = (await auditOf(ex.id)).filter((r) => r.outcome === 'failure');
      expect(failures.map((r) => [r.action, (r.details as { code: string }).code])).toEqual([
        ['exercise.update', 'precondition_failed'],
        ['exercise.section.create', 'conflict'],
        ['exercise.archive.upload', 'conflict'],
      ]);
    });
  });

  describe('deleting an exercise', () => {
    it('removes its rows and its stored objects', async () => {
      const ex = await newExercise({ title: 'to delete' });
      const section = await addChild(ex.id, 'sections', { name: 'S' });
      await addChild(ex.id, 'artifacts', { name: 'a', kind: 'text', values: ['a'], section_id: section });
      await upload(`/api/exercises/${ex.id}/sections/${section}/archives?filename=a.log`, LEEF);
      await upload(`/api/exercises/${ex.id}/sections/${section}/archives?filename=a.ndjson`, ECS);
      // A sectioned exercise ships its section archives only (spec 2.5): no legacy archive beside them.
      const legacy = await upload(`/api/exercises/${ex.id}/archives?filename=legacy.log`, LEEF);
      expect(legacy.statusCode).toBe(409);
      expect(legacy.json().error.details).toEqual({ reason: 'sectioned_exercise' });
      expect(await t.ctx.storage.list(EXERCISE_BUCKET, `${ex.id}/`)).toHaveLength(2);

      const res = await req('DELETE', `/api/exercises/${ex.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      expect(await t.ctx.storage.list(EXERCISE_BUCKET, `${ex.id}/`)).toEqual([]);
      expect((await req('GET', `/api/exercises/${ex.id}`)).statusCode).toBe(404);
      for (const table of ['exercise_sections', 'exercise_artifacts', 'exercise_archives'] as const) {
        const rows = await t.ctx.db.selectFrom(table).select('id').where('exercise_id', '=', ex.id).execute();
        expect(rows, table).toEqual([]);
      }
    });

    it('refuses while an attempt runs with 409, and deletes once it is completed', async () => {
      const ex = await newExercise({ destinations: ['splunk-lab'] });
      const attempt = '00000000-0000-4000-8000-0000000000a1';
      await t.ctx.db
        .insertInto('attempts')
        .values({
          id: attempt,
          exercise_id: ex.id,
          user_id: analystId,
          siem: 'splunk-lab',
          state: 'running',
          started_at: new Date(TEST_NOW),
          shift_ms: 0,
        })
        .execute();
      const res = await req('DELETE', `/api/exercises/${ex.id}`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        ok: false,
        error: { code: 'conflict', details: { running_attempts: 1 } },
      });
      expect((await req('GET', `/api/exercises/${ex.id}`)).statusCode).toBe(200);

      await t.ctx.db.updateTable('attempts').set({ state: 'completed' }).where('id', '=', attempt).execute();
      expect((await req('DELETE', `/api/exercises/${ex.id}`)).statusCode).toBe(200);
      expect(await t.ctx.db.selectFrom('attempts').select('id').where('id', '=', attempt).execute()).toEqual(
        [],
      );
    });
  });

  describe('audit', () => {
    it('writes an audit row for every change, with the acting user', async () => {
      const ex = await newExercise({ title: 'audited' });
      await req('PATCH', `/api/exercises/${ex.id}`, { description: 'd' });
      const step = await addChild(ex.id, 'steps', { title: 's' });
      await req('PATCH', `/api/exercises/${ex.id}/steps/${step}`, { title: 's2' });
      await req('DELETE', `/api/exercises/${ex.id}/steps/${step}`);
      const section = await addChild(ex.id, 'sections', { name: 'S' });
      await req('PATCH', `/api/exercises/${ex.id}/sections/${section}`, { name: 'S2' });
      const artifact = await addChild(ex.id, 'artifacts', { name: 'a', kind: 'text', values: ['a'] });
      await req('PATCH', `/api/exercises/${ex.id}/artifacts/${artifact}`, { points: 5 });
      await req('DELETE', `/api/exercises/${ex.id}/artifacts/${artifact}`);
      await upload(`/api/exercises/${ex.id}/sections/${section}/archives?filename=a.log`, LEEF);
      await req('DELETE', `/api/exercises/${ex.id}/sections/${section}`);
      await req('DELETE', `/api/exercises/${ex.id}`);

      const rows = await auditOf(ex.id);
      expect(rows.map((r) => r.action)).toEqual([
        'exercise.create',
        'exercise.update',
        'exercise.step.create',
        'exercise.step.update',
        'exercise.step.delete',
        'exercise.section.create',
        'exercise.section.update',
        'exercise.artifact.create',
        'exercise.artifact.update',
        'exercise.artifact.delete',
        'exercise.archive.upload',
        'exercise.section.delete',
        'exercise.delete',
      ]);
      expect(rows.every((r) => r.outcome === 'success' && r.actor_type === 'user')).toBe(true);
      expect(rows[0]?.details).toMatchObject({ title: 'audited' });
      expect(rows[1]?.details).toMatchObject({ fields: ['description'], version: 2 });
      expect(rows[10]?.details).toMatchObject({
        section_id: section,
        filename: 'a.log',
        format: 'leef',
        files: 1,
        events: 3,
      });
    });
  });

  describe('access', () => {
    const everyRoute = (id: string, child: string): [string, string][] => [
      ['GET', '/api/exercises'],
      ['POST', '/api/exercises'],
      ['GET', `/api/exercises/${id}`],
      ['PATCH', `/api/exercises/${id}`],
      ['DELETE', `/api/exercises/${id}`],
      ...(['steps', 'sections', 'artifacts'] as const).flatMap((what): [string, string][] => [
        ['POST', `/api/exercises/${id}/${what}`],
        ['PATCH', `/api/exercises/${id}/${what}/${child}`],
        ['DELETE', `/api/exercises/${id}/${what}/${child}`],
      ]),
      ['PUT', `/api/exercises/${id}/sections/${child}/archives?filename=a.log`],
      ['PUT', `/api/exercises/${id}/archives?filename=a.log`],
    ];

    it('refuses an analyst with 403 on every authoring route, changing nothing', async () => {
      const ex = await newExercise();
      const section = await addChild(ex.id, 'sections', { name: 'S' });
      for (const [method, url] of everyRoute(ex.id, section)) {
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          headers: { cookie: analyst, ...(method === 'PUT' ? { 'content-type': 'text/plain' } : {}) },
          ...(method === 'PUT'
            ? { payload: LEEF }
            : method === 'GET' || method === 'DELETE'
              ? {}
              : { payload: { title: 'x' } }),
        });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json()).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      }
      expect((await read(ex.id)).version).toBe(2);
    });

    it('answers 401 without a session on every authoring route', async () => {
      const ex = await newExercise();
      const section = await addChild(ex.id, 'sections', { name: 'S' });
      for (const [method, url] of everyRoute(ex.id, section)) {
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          ...(method === 'PUT'
            ? { payload: LEEF, headers: { 'content-type': 'text/plain' } }
            : method === 'GET' || method === 'DELETE'
              ? {}
              : { payload: { title: 'x' } }),
        });
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        expect(res.json()).toMatchObject({ ok: false, error: { code: 'unauthenticated' } });
      }
    });

    it('refuses a change from a foreign origin with 403', async () => {
      const res = await req('POST', '/api/exercises', { title: 'x' }, { origin: 'https://evil.example' });
      expect(res.statusCode).toBe(403);
    });
  });

  describe('OpenAPI', () => {
    it('documents every exercise authoring route', async () => {
      const res = await req('GET', '/api/openapi.json');
      expect(res.statusCode).toBe(200);
      const paths = res.json().paths as Record<string, Record<string, unknown>>;
      const ops = (path: string) => Object.keys(paths[path] ?? {}).sort();
      expect(ops('/api/exercises')).toEqual(['get', 'post']);
      expect(ops('/api/exercises/{id}')).toEqual(['delete', 'get', 'patch']);
      for (const what of ['steps', 'sections', 'artifacts']) {
        expect(ops(`/api/exercises/{id}/${what}`)).toEqual(['post']);
        expect(ops(`/api/exercises/{id}/${what}/{childId}`)).toEqual(['delete', 'patch']);
      }
      expect(ops('/api/exercises/{id}/sections/{sectionId}/archives')).toEqual(['put']);
      expect(ops('/api/exercises/{id}/archives')).toEqual(['put']);
      const patch = paths['/api/exercises/{id}']?.patch as { responses: Record<string, unknown> };
      expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(['200', '400', '409', '412']));
    });

    it('is not served without a session', async () => {
      expect((await t.app.inject({ url: '/api/openapi.json' })).statusCode).toBe(401);
    });
  });
});
