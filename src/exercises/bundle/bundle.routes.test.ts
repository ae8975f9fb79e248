import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../../test/helpers/test-app.ts';
import { createDestination } from '../../destinations/destination-service.ts';
import { EXERCISE_BUCKET } from '../exercise-archives.ts';
import { readBundle, readBundleDirectory } from './bundle-read.ts';
import type { ExerciseBundle } from './bundle-schema.ts';
import { writeBundle } from './bundle-write.ts';

const LEEF = [
  'LEEF:2.0|Lab|Auth|1.0|login|^|devTimeFormat=yyyy-MM-dd HH:mm:ss^devTime=2024-03-11 09:15:02^src=10.0.0.1^usrName=alice',
  'LEEF:2.0|Lab|Auth|1.0|logout|^|devTimeFormat=yyyy-MM-dd HH:mm:ss^devTime=2024-03-11 09:17:02^src=10.0.0.1^usrName=alice',
].join('\n');

const MAX_BYTES = 300_000;
const LIMITS = { maxBytes: 10_000_000, maxEntries: 100, maxUncompressedBytes: 50_000_000 };

describe('exercise bundle API', () => {
  let t: TestApp;
  let cookie: string;
  let analyst: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ARCHIVE_MAX_BYTES: String(MAX_BYTES) } });
    cookie = (await signedInAs(t, ['author'])).cookie;
    analyst = (await signedInAs(t, ['analyst'])).cookie;
    await createDestination(t.ctx, { name: 'qradar-lab', driver: 'syslog_tcp', host: '10.0.0.5', port: 514 });
  });
  afterAll(async () => {
    await t.close();
  });

  const importZip = (zip: Buffer, query = '', as = cookie) =>
    t.app.inject({
      method: 'POST',
      url: `/api/exercises/import${query}`,
      headers: { cookie: as, 'content-type': 'application/zip' },
      payload: zip,
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
  const auditOf = (action: string) =>
    t.ctx.db
      .selectFrom('audit_log')
      .select(['target', 'outcome', 'details'])
      .where('action', '=', action)
      .orderBy('id')
      .execute();
  const small = (over: Partial<ExerciseBundle> = {}, leef = LEEF) =>
    writeBundle(
      {
        schema_version: 1,
        title: 'Small one',
        destinations: ['qradar-lab', 'elsewhere'],
        artifacts: [{ ref: 'ip', name: 'IP', kind: 'ip', values: ['10.0.0.1'], section: 'one' }],
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
            release: { condition: 'artifacts_only', artifacts: ['ip'] },
          },
        ],
        ...over,
      },
      new Map([['archives/one/leef/a.log', Buffer.from(leef)]]),
    );

  it('imports a bundle zip as a new draft (201) and exports it again as a zip', async () => {
    const res = await importZip(small());
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      title: 'Small one',
      state: 'draft',
      destinations: ['qradar-lab'],
      sections: [
        {
          name: 'One',
          position: 1,
          release: null,
          archives: [{ format: 'leef', filename: 'a.log', events: 2 }],
        },
        {
          name: 'Two',
          position: 2,
          release: { condition: 'artifacts_only', artifact_ids: [body.artifacts[0].id], gate_mode: 'all' },
        },
      ],
    });
    expect(body.artifacts[0].section_id).toBe(body.sections[0].id);
    expect(body.warnings).toEqual([
      'SIEM destination(s) "elsewhere" do not exist on this installation and were left out',
    ]);
    expect(await auditOf('exercise.import')).toContainEqual(
      expect.objectContaining({
        target: body.id,
        outcome: 'success',
        details: expect.objectContaining({ title: 'Small one', warnings: 1 }),
      }),
    );

    const exported = await t.app.inject({
      method: 'GET',
      url: `/api/exercises/${body.id}/bundle`,
      headers: { cookie },
    });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toBe('application/zip');
    expect(exported.headers['content-disposition']).toBe('attachment; filename="small-one.zip"');
    const read = readBundle(exported.rawPayload, LIMITS);
    expect(read.bundle).toMatchObject({
      title: 'Small one',
      destinations: ['qradar-lab'],
      sections: [{ ref: 's1' }, { ref: 's2', release: { artifacts: ['a1'] } }],
      artifacts: [{ ref: 'a1', section: 's1' }],
    });
    expect(read.archives.get('archives/s1/leef/a.log')?.toString()).toBe(LEEF);
    expect(await auditOf('exercise.export')).toContainEqual(
      expect.objectContaining({
        target: body.id,
        details: { filename: 'small-one.zip', size: exported.rawPayload.length },
      }),
    );
  });

  it('imports a zipped example folder', async () => {
    const folder = await readBundleDirectory(path.resolve('examples/exercises/ssh-brute-force'), LIMITS);
    const zip = writeBundle(folder.bundle, folder.archives);
    const res = await importZip(zip);
    expect(res.statusCode, res.body).toBe(201);
    expect(
      res.json().sections.map((s: { archives: Array<{ events: number }> }) => s.archives[0]?.events),
    ).toEqual([712, 328]);
  });

  it('takes the destinations of the query instead of the bundle’s', async () => {
    const res = await importZip(small(), '?destinations=qradar-lab');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().destinations).toEqual(['qradar-lab']);
    expect(res.json().warnings).toEqual([]);
    const none = await importZip(small(), '?destinations=');
    expect(none.json().destinations).toEqual([]);
    const unknown = await importZip(small(), '?destinations=qradar-lab,ghost');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('"ghost"');
  });

  it('refuses bad bundles with 400 naming what, and saves nothing', async () => {
    const before = await exerciseCount();
    const keys = (await t.ctx.storage.list(EXERCISE_BUCKET)).length;
    const notZip = await importZip(Buffer.from('hello, not a zip'));
    expect(notZip.statusCode).toBe(400);
    expect(notZip.json().error.details.reason).toBe('not_a_zip');

    const badArchive = await importZip(small({}, 'no LEEF here\n'));
    expect(badArchive.statusCode).toBe(400);
    expect(badArchive.json().error.message).toContain('archives/one/leef/a.log');
    expect(badArchive.json().error.details.file).toBe('archives/one/leef/a.log');

    const yaml = 'schema_version: 1\ntitle: ""\n';
    const badYaml = await importZip(Buffer.from(zipSync({ 'exercise.yaml': Buffer.from(yaml) })));
    expect(badYaml.statusCode).toBe(400);
    expect(badYaml.json().error.details.reason).toBe('schema');

    const empty = await importZip(Buffer.alloc(0));
    expect(empty.statusCode).toBe(400);

    expect(await exerciseCount()).toBe(before);
    expect((await t.ctx.storage.list(EXERCISE_BUCKET)).length).toBe(keys);
  });

  it('answers 413 to a bundle over ARCHIVE_MAX_BYTES', async () => {
    const res = await importZip(randomBytes(MAX_BYTES + 1));
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
  });

  it('needs manage_exercises, and an exercise that exists', async () => {
    expect((await importZip(small(), '', analyst)).statusCode).toBe(403);
    const forbidden = await t.app.inject({
      method: 'GET',
      url: `/api/exercises/${randomUUID()}/bundle`,
      headers: { cookie: analyst },
    });
    expect(forbidden.statusCode).toBe(403);
    const missing = await t.app.inject({
      method: 'GET',
      url: `/api/exercises/${randomUUID()}/bundle`,
      headers: { cookie },
    });
    expect(missing.statusCode).toBe(404);
  });

  it('describes both routes in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { cookie } })).json();
    expect(doc.paths['/api/exercises/import'].post.summary).toContain('Import');
    expect(Object.keys(doc.paths['/api/exercises/import'].post.responses)).toEqual(
      expect.arrayContaining(['201', '400', '413']),
    );
    expect(doc.paths['/api/exercises/{id}/bundle'].get.summary).toContain('Export');
  });
});
