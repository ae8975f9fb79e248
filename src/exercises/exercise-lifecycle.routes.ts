import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AuditOutcome } from '../audit/audit-log.ts';
import type { AppContext } from '../context.ts';
import { isUuid, notFound } from '../errors.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors, IdParams, OkBody } from '../http/common-schemas.ts';
import { archiveLimitsOf } from '../pipeline/archive/archive-limits.ts';
import { ArchiveView, IfMatchHeaders, PublishResult, SectionParams } from './exercise.schemas.ts';
import { analyzeArchive, storeArchive } from './exercise-archives.ts';
import { parseIfMatch } from './exercise-service.ts';
import { assertChangeable, exerciseRow } from './exercise-store.ts';
import { publishExercise, unpublishExercise } from './publish-exercise.ts';

const auth = { capability: 'manage_exercises' } as const;
const tags = ['exercises'];
const MiB = 1024 * 1024;
// Matches no row: text that is no UUID names no section.
const NO_ID = '00000000-0000-0000-0000-000000000000';

const IntakeTicket = Type.Object({
  host: Type.String(),
  port: Type.Integer(),
  token: Type.String({ description: 'send it as the first line of every connection' }),
  expires_at: Type.String({ format: 'date-time' }),
});
const IntakeStatus = Type.Object({
  lines: Type.Integer(),
  bytes: Type.Integer(),
  connections: Type.Integer(),
  rejected: Type.Integer(),
  expires_at: Type.String({ format: 'date-time' }),
  state: Type.Union([
    Type.Literal('open'),
    Type.Literal('full'),
    Type.Literal('expired'),
    Type.Literal('finished'),
  ]),
});

/** Publish, unpublish, live TCP intake and author progress (decisions.md §6), `manage_exercises`. */
export const exerciseLifecycleRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const audit = (
    request: FastifyRequest,
    action: string,
    target: string,
    outcome: AuditOutcome,
    details?: Record<string, unknown>,
  ) => ctx.audit(auditEntry(request, { action, target, outcome, ...(details ? { details } : {}) }));
  const publishDeps = () => ({
    db: ctx.db,
    storage: ctx.storage,
    clock: ctx.clock,
    siems: ctx.siems,
    secretBox: ctx.secretBox,
    limits: archiveLimitsOf(ctx.config),
    publishChecks: ctx.exercises.publishChecks,
  });

  app.post(
    '/api/exercises/:id/publish',
    {
      config: { auth, auditFailures: 'exercise.publish' },
      schema: {
        tags,
        summary:
          'Publish: every check runs; 200 active, or 422 with every problem (the exercise stays draft)',
        params: IdParams,
        response: { 200: PublishResult, 422: PublishResult, ...errors(401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const actor = request.actor?.kind === 'user' ? { id: request.actor.userId } : null;
      const outcome = await publishExercise(publishDeps(), request.params.id, actor);
      await audit(request, 'exercise.publish', request.params.id, outcome.ok ? 'success' : 'failure', {
        state: outcome.state,
        ...('problems' in outcome ? { problems: outcome.problems.map((p) => p.code) } : {}),
        warnings: outcome.warnings.map((w) => w.code),
      });
      return reply.code(outcome.ok ? 200 : 422).send(outcome);
    },
  );

  app.post(
    '/api/exercises/:id/unpublish',
    {
      config: { auth, auditFailures: 'exercise.unpublish' },
      schema: {
        tags,
        summary: 'Back to draft (attempts in progress go on)',
        params: IdParams,
        response: {
          200: Type.Object({ ok: Type.Literal(true), state: Type.Literal('draft'), version: Type.Integer() }),
          ...errors(401, 403, 404),
        },
      },
    },
    async (request) => {
      const result = await unpublishExercise(ctx, request.params.id);
      await audit(request, 'exercise.unpublish', request.params.id, 'success', { version: result.version });
      return { ok: true as const, ...result };
    },
  );

  app.get(
    '/api/exercises/:id/progress',
    {
      config: { auth },
      schema: {
        tags,
        summary:
          "Every attempt of the exercise: analyst, sections' statuses, found artifacts with times, score",
        params: IdParams,
        response: { 200: Type.Object({}, { additionalProperties: true }), ...errors(401, 403, 404) },
      },
    },
    async (request) => ctx.exercises.attempts.progress(request.params.id),
  );

  // ---- live TCP intake, one listener per section
  const intakeTarget = async (params: { id: string; sectionId: string }) => {
    const exercise = await exerciseRow(ctx.db, params.id);
    const section = await ctx.db
      .selectFrom('exercise_sections')
      .select('id')
      .where('exercise_id', '=', params.id)
      .where('id', '=', isUuid(params.sectionId) ? params.sectionId : NO_ID)
      .executeTakeFirst();
    if (!section) throw notFound('section', params.sectionId);
    return { key: `${params.id}/${params.sectionId}`, exercise };
  };
  const intakeKey = async (params: { id: string; sectionId: string }) => (await intakeTarget(params)).key;

  app.post(
    '/api/exercises/:id/sections/:sectionId/intake',
    {
      config: { auth, auditFailures: 'exercise.intake.open' },
      schema: {
        tags,
        summary: 'Open a live TCP intake for a section: send the token as first line, then syslog/LEEF lines',
        params: SectionParams,
        body: Type.Optional(
          Type.Object(
            {
              max_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, default: 600 })),
              max_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 * MiB, default: 64 * MiB })),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 201: IntakeTicket, ...errors(400, 401, 403, 404, 503) },
      },
    },
    async (request, reply) => {
      const key = await intakeKey(request.params);
      const body = request.body ?? {};
      const ticket = await ctx.exercises.intake.open(key, {
        ...(body.max_seconds !== undefined ? { maxSeconds: body.max_seconds } : {}),
        ...(body.max_bytes !== undefined ? { maxBytes: body.max_bytes } : {}),
      });
      await audit(request, 'exercise.intake.open', request.params.id, 'success', {
        section_id: request.params.sectionId,
        port: ticket.port,
        expires_at: ticket.expires_at,
      });
      return reply.code(201).send(ticket);
    },
  );

  app.get(
    '/api/exercises/:id/sections/:sectionId/intake',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Counters of a live intake',
        params: SectionParams,
        response: { 200: IntakeStatus, ...errors(401, 403, 404) },
      },
    },
    async (request) => ctx.exercises.intake.status(await intakeKey(request.params)),
  );

  app.post(
    '/api/exercises/:id/sections/:sectionId/intake/finish',
    {
      config: { auth, auditFailures: 'exercise.intake.finish' },
      schema: {
        tags,
        summary:
          "Close the intake and store what arrived as the section's archive (as an upload); when storing fails the data stays and finish may be tried again",
        params: SectionParams,
        headers: IfMatchHeaders,
        response: { 201: ArchiveView, ...errors(400, 401, 403, 404, 409, 412, 413) },
      },
    },
    async (request, reply) => {
      // Refused before the intake closes, so a stale version or an active exercise costs no data.
      const ifMatch = parseIfMatch(request.headers['if-match']);
      const { key, exercise } = await intakeTarget(request.params);
      assertChangeable(exercise, { ifMatch });
      // The intake keeps what it received until it is forgotten below, once the archive is stored.
      const data = await ctx.exercises.intake.finish(key);
      const filename = `intake-${new Date(ctx.clock.now()).toISOString().replace(/[:.]/g, '-')}.log`;
      const analysis = await analyzeArchive(data, filename, {
        limits: archiveLimitsOf(ctx.config),
        now: ctx.clock.now(),
      });
      const stored = await storeArchive(
        ctx,
        {
          exerciseId: request.params.id,
          sectionId: request.params.sectionId,
          ifMatch,
        },
        filename,
        data,
        analysis,
      );
      await ctx.exercises.intake.forget(key);
      await audit(request, 'exercise.intake.finish', request.params.id, 'success', {
        section_id: request.params.sectionId,
        format: stored.format,
        events: stored.events,
        size: stored.size,
      });
      return reply.code(201).send(stored);
    },
  );

  app.delete(
    '/api/exercises/:id/sections/:sectionId/intake',
    {
      config: { auth, auditFailures: 'exercise.intake.cancel' },
      schema: {
        tags,
        summary: 'Cancel a live intake (what arrived is discarded)',
        params: SectionParams,
        response: { 200: OkBody, ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      await ctx.exercises.intake.cancel(await intakeKey(request.params));
      await audit(request, 'exercise.intake.cancel', request.params.id, 'success', {
        section_id: request.params.sectionId,
      });
      return { ok: true as const };
    },
  );
};
