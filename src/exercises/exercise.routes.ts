import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors, IdParams, OkBody } from '../http/common-schemas.ts';
import { archiveLimitsOf } from '../pipeline/archive/archive-limits.ts';
import {
  ArchiveView,
  ArtifactCreateBody,
  ArtifactPatchBody,
  ChildParams,
  ExerciseCreateBody,
  ExercisePatchBody,
  ExerciseSummary,
  ExerciseView,
  FilenameQuery,
  IfMatchHeaders,
  SectionCreateBody,
  SectionParams,
  SectionPatchBody,
  StepCreateBody,
  StepPatchBody,
} from './exercise.schemas.ts';
import { analyzeArchive, removeObjects, storeArchive } from './exercise-archives.ts';
import {
  addArtifact,
  addSection,
  addStep,
  createExercise,
  deleteChild,
  deleteExercise,
  parseIfMatch,
  patchArtifact,
  patchExercise,
  patchSection,
  patchStep,
} from './exercise-service.ts';
import { exerciseRow, listExerciseRows, loadExercise } from './exercise-store.ts';
import { readUpload } from './read-upload.ts';

const auth = { capability: 'manage_exercises' } as const;
const tags = ['exercises'];
const Created = Type.Object({ ...ExerciseView.properties, created_id: Type.String() });

/** Exercise authoring (decisions.md §6), `manage_exercises`. */
export const exerciseRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const userId = (request: FastifyRequest) => (request.actor?.kind === 'user' ? request.actor.userId : null);
  const version = (request: FastifyRequest) => ({ ifMatch: parseIfMatch(request.headers['if-match']) });
  const audit = (
    request: FastifyRequest,
    action: string,
    target: string,
    details?: Record<string, unknown>,
  ) =>
    ctx.audit(auditEntry(request, { action, target, outcome: 'success', ...(details ? { details } : {}) }));

  app.get(
    '/api/exercises',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'List exercises',
        response: { 200: Type.Array(ExerciseSummary), ...errors(401, 403) },
      },
    },
    async () => listExerciseRows(ctx.db),
  );

  app.post(
    '/api/exercises',
    {
      config: { auth, auditFailures: 'exercise.create' },
      schema: {
        tags,
        summary: 'Create a draft exercise (only title is required)',
        body: ExerciseCreateBody,
        response: { 201: ExerciseView, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const exercise = await createExercise(ctx, request.body, userId(request));
      await audit(request, 'exercise.create', exercise.id, { title: exercise.title });
      return reply.code(201).send(exercise);
    },
  );

  app.get(
    '/api/exercises/:id',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'One exercise with its steps, artifacts, sections and archives',
        params: IdParams,
        response: { 200: ExerciseView, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const exercise = await loadExercise(ctx.db, request.params.id);
      return reply.header('etag', `"${exercise.version}"`).send(exercise);
    },
  );

  app.patch(
    '/api/exercises/:id',
    {
      config: { auth, auditFailures: 'exercise.update' },
      schema: {
        tags,
        summary: 'Change a draft exercise (If-Match: <version> refuses a stale change with 412)',
        params: IdParams,
        headers: IfMatchHeaders,
        body: ExercisePatchBody,
        response: { 200: ExerciseView, ...errors(400, 401, 403, 404, 409, 412) },
      },
    },
    async (request) => {
      const exercise = await patchExercise(ctx, request.params.id, request.body, version(request));
      await audit(request, 'exercise.update', exercise.id, {
        fields: Object.keys(request.body),
        version: exercise.version,
      });
      return exercise;
    },
  );

  app.delete(
    '/api/exercises/:id',
    {
      config: { auth, auditFailures: 'exercise.delete' },
      schema: {
        tags,
        summary: 'Delete an exercise, its archives and finished attempts (409 while an attempt runs)',
        params: IdParams,
        response: { 200: OkBody, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { title, storageKeys } = await deleteExercise(ctx, request.params.id);
      await removeObjects(ctx.storage, storageKeys);
      await audit(request, 'exercise.delete', request.params.id, { title });
      return { ok: true as const };
    },
  );

  // ---- steps, sections, artifacts: one create/patch/delete trio each.
  const children = [
    { path: 'steps', what: 'step', create: StepCreateBody, patch: StepPatchBody },
    { path: 'sections', what: 'section', create: SectionCreateBody, patch: SectionPatchBody },
    { path: 'artifacts', what: 'artifact', create: ArtifactCreateBody, patch: ArtifactPatchBody },
  ] as const;
  for (const child of children) {
    app.post(
      `/api/exercises/:id/${child.path}`,
      {
        config: { auth, auditFailures: `exercise.${child.what}.create` },
        schema: {
          tags,
          summary: `Add a ${child.what} to a draft exercise; answers the exercise and created_id`,
          params: IdParams,
          headers: IfMatchHeaders,
          body: child.create,
          response: { 201: Created, ...errors(400, 401, 403, 404, 409, 412) },
        },
      },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const body = request.body as never;
        const v = version(request);
        const done =
          child.path === 'steps'
            ? await addStep(ctx, id, body, v)
            : child.path === 'sections'
              ? await addSection(ctx, id, body, v)
              : await addArtifact(ctx, id, body, v);
        await audit(request, `exercise.${child.what}.create`, id, {
          [`${child.what}_id`]: done.id,
          version: done.exercise.version,
        });
        return reply.code(201).send({ ...done.exercise, created_id: done.id });
      },
    );

    app.patch(
      `/api/exercises/:id/${child.path}/:childId`,
      {
        config: { auth, auditFailures: `exercise.${child.what}.update` },
        schema: {
          tags,
          summary: `Change a ${child.what} of a draft exercise`,
          params: ChildParams,
          headers: IfMatchHeaders,
          body: child.patch,
          response: { 200: ExerciseView, ...errors(400, 401, 403, 404, 409, 412) },
        },
      },
      async (request) => {
        const { id, childId } = request.params as { id: string; childId: string };
        const body = request.body as never;
        const v = version(request);
        const exercise =
          child.path === 'steps'
            ? await patchStep(ctx, id, childId, body, v)
            : child.path === 'sections'
              ? await patchSection(ctx, id, childId, body, v)
              : await patchArtifact(ctx, id, childId, body, v);
        await audit(request, `exercise.${child.what}.update`, id, {
          [`${child.what}_id`]: childId,
          fields: Object.keys(request.body as object),
          version: exercise.version,
        });
        return exercise;
      },
    );

    app.delete(
      `/api/exercises/:id/${child.path}/:childId`,
      {
        config: { auth, auditFailures: `exercise.${child.what}.delete` },
        schema: {
          tags,
          summary: `Delete a ${child.what} of a draft exercise`,
          params: ChildParams,
          headers: IfMatchHeaders,
          response: { 200: ExerciseView, ...errors(400, 401, 403, 404, 409, 412) },
        },
      },
      async (request) => {
        const { id, childId } = request.params as { id: string; childId: string };
        const { exercise, storageKeys } = await deleteChild(ctx, id, child.path, childId, version(request));
        await removeObjects(ctx.storage, storageKeys);
        await audit(request, `exercise.${child.what}.delete`, id, {
          [`${child.what}_id`]: childId,
          version: exercise.version,
        });
        return exercise;
      },
    );
  }

  // ---- archive uploads: raw bodies, in a scope of their own so every other route keeps JSON only.
  await app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    const upload = async (request: FastifyRequest, exerciseId: string, sectionId: string | null) => {
      const { filename } = request.query as { filename: string };
      const max = ctx.config.archiveMaxBytes;
      await exerciseRow(ctx.db, exerciseId);
      if (sectionId === null) {
        // Spec 2.5: a sectioned exercise ships its section archives only, never a legacy one.
        const sectioned = await ctx.db
          .selectFrom('exercise_sections')
          .select('id')
          .where('exercise_id', '=', exerciseId)
          .executeTakeFirst();
        if (sectioned) {
          throw new AppError(
            'conflict',
            'the exercise has sections, which are its only archives (spec 2.5): upload to a section instead',
            { details: { reason: 'sectioned_exercise' } },
          );
        }
      }
      // The upload is held whole and read twice, so it takes a download slot (503 beyond them).
      const slot = ctx.downloads.enter();
      try {
        const data = await readUpload(request.body, max, Number(request.headers['content-length']));
        const analysis = await analyzeArchive(data, filename, {
          limits: archiveLimitsOf(ctx.config),
          now: ctx.clock.now(),
        });
        const stored = await storeArchive(
          ctx,
          { exerciseId, sectionId, ...version(request) },
          filename,
          data,
          analysis,
        );
        await audit(request, 'exercise.archive.upload', exerciseId, {
          section_id: sectionId,
          filename,
          format: stored.format,
          files: stored.files,
          events: stored.events,
          size: stored.size,
        });
        return stored;
      } finally {
        await slot.release();
      }
    };
    const uploadSchema = {
      tags,
      description:
        'Body: the raw upload — `.zip`, `.tar.gz`/`.tgz`, or plain text (LEEF lines, ECS NDJSON/JSON), named ' +
        'by `filename`. The format is detected (spec 2.5); unknown content is `400 unknown_format` naming the ' +
        'file and entry. Archive limits apply (413, nothing stored). A new upload of a format replaces that ' +
        "format's archive.",
      querystring: FilenameQuery,
      headers: IfMatchHeaders,
      response: { 201: ArchiveView, ...errors(400, 401, 403, 404, 409, 412, 413, 415, 503) },
    };

    uploads.put(
      '/api/exercises/:id/sections/:sectionId/archives',
      {
        config: { auth, auditFailures: 'exercise.archive.upload' },
        schema: { ...uploadSchema, summary: "Upload a section's archive", params: SectionParams },
      },
      async (request, reply) => {
        const { id, sectionId } = request.params as { id: string; sectionId: string };
        return reply.code(201).send(await upload(request, id, sectionId));
      },
    );

    uploads.put(
      '/api/exercises/:id/archives',
      {
        config: { auth, auditFailures: 'exercise.archive.upload' },
        schema: {
          ...uploadSchema,
          summary: 'Upload the legacy archive of a sectionless exercise',
          params: IdParams,
        },
      },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        return reply.code(201).send(await upload(request, id, null));
      },
    );
  });
};
