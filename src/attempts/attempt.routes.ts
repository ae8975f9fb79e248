import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AuditOutcome } from '../audit/audit-log.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors, IdParams } from '../http/common-schemas.ts';
import type { UserActor } from './attempt-service.ts';

const tags = ['attempts'];
const run = { capability: 'run_exercises' } as const;
// Reading attempts: an analyst their own, manage_exercises all (checked by the service).
const signedIn = {} as const;

const SectionStatus = Type.Union([
  Type.Literal('not_due'),
  Type.Literal('waiting_on_artifact'),
  Type.Literal('shipping'),
  Type.Literal('shipped'),
  Type.Literal('failed'),
]);
/**
 * The after-complete hook's result for the attempt's last run (SIEM Q offense cleanup, decisions.md
 * §7: attempt_id, status ok | partial | failed, found, closed, failed, error), null when none ran.
 */
const OffenseCleanupView = Type.Object(
  { status: Type.String({ description: 'ok | partial | failed' }) },
  { additionalProperties: true },
);

const AttemptSection = Type.Object({
  section_id: Type.String({ description: "the section's id, or `legacy` for a sectionless exercise" }),
  name: Type.String(),
  position: Type.Union([Type.Integer(), Type.Null()]),
  status: SectionStatus,
  events_shipped: Type.Integer(),
  events_failed: Type.Integer(),
  releases_at: Type.Optional(Type.String({ format: 'date-time' })),
  waiting_for: Type.Optional(Type.Array(Type.String(), { description: 'artifact ids still needed' })),
  error: Type.Optional(Type.String()),
  shipped_at: Type.Optional(Type.String({ format: 'date-time' })),
});
const AttemptView = Type.Object({
  id: Type.String(),
  exercise_id: Type.String(),
  exercise_title: Type.String(),
  user_id: Type.String(),
  siem: Type.String(),
  state: Type.Union([Type.Literal('running'), Type.Literal('completed')]),
  started_at: Type.String({ format: 'date-time' }),
  completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  score: Type.Union([Type.Integer(), Type.Null()]),
  max_score: Type.Union([Type.Integer(), Type.Null()]),
  offense_cleanup: Type.Union([OffenseCleanupView, Type.Null()]),
  sections: Type.Array(AttemptSection),
  artifacts: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      kind: Type.String(),
      points: Type.Integer(),
      found_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      hint_available: Type.Boolean(),
      hint: Type.Union([Type.String(), Type.Null()]),
      hint_penalty: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
  steps: Type.Array(
    Type.Object({ id: Type.String(), position: Type.Integer(), title: Type.String(), body: Type.String() }),
  ),
});
const ShipReason = Type.Union(
  [
    Type.Literal('shipped'),
    Type.Literal('partial'),
    Type.Literal('already_shipped'),
    Type.Literal('not_due'),
    Type.Literal('waiting_on_artifacts'),
    Type.Literal('shipping'),
    Type.Literal('cooldown_skipped'),
    Type.Literal('failed'),
  ],
  { description: 'spec 3.2: what Ship logs did for the section' },
);

/** Analysts' attempts and staged shipping (decisions.md §6). */
export const attemptRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const attempts = ctx.exercises.attempts;
  const actorOf = (request: FastifyRequest): UserActor => {
    if (request.actor?.kind !== 'user') throw new AppError('forbidden', 'attempts belong to signed-in users');
    return request.actor;
  };
  const readerOf = (request: FastifyRequest): UserActor => {
    const actor = actorOf(request);
    if (!actor.capabilities.has('run_exercises') && !actor.capabilities.has('manage_exercises')) {
      throw new AppError('forbidden', 'reading attempts needs run_exercises or manage_exercises', {
        details: { capability: 'run_exercises' },
      });
    }
    return actor;
  };
  const audit = (
    request: FastifyRequest,
    action: string,
    target: string,
    outcome: AuditOutcome,
    details: Record<string, unknown>,
  ) => ctx.audit(auditEntry(request, { action, target, outcome, details }));
  // Audits an attempt action whatever its end: refusals and failures are part of the record too.
  const audited = async <T>(
    request: FastifyRequest,
    action: string,
    target: string,
    details: Record<string, unknown>,
    work: () => Promise<T>,
    summary: (result: T) => Record<string, unknown>,
  ): Promise<T> => {
    try {
      const result = await work();
      await audit(request, action, target, 'success', { ...details, ...summary(result) });
      return result;
    } catch (err) {
      const code = err instanceof AppError ? err.code : 'internal';
      await audit(request, action, target, 'failure', {
        ...details,
        code,
        message: err instanceof Error ? err.message : String(err),
      });
      throw err;
    }
  };

  app.post(
    '/api/exercises/:id/attempts',
    {
      config: { auth: run },
      schema: {
        tags,
        summary:
          'Start an attempt on one of the exercise destinations; sections releasing at start ship before the answer',
        params: IdParams,
        body: Type.Object(
          { siem: Type.String({ minLength: 1, maxLength: 64 }) },
          { additionalProperties: false },
        ),
        // 500: a SIEM's console (SIEM Q) that cannot be asked before shipping (docs/siem-q.md).
        response: { 201: AttemptView, ...errors(400, 401, 403, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const view = await audited(
        request,
        'attempt.start',
        request.params.id,
        { exercise_id: request.params.id, siem: request.body.siem },
        () => attempts.start(actor, request.params.id, request.body.siem),
        (v) => ({
          attempt_id: v.id,
          sections: v.sections.map((s) => ({ section_id: s.section_id, status: s.status })),
        }),
      );
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/api/attempts',
    {
      config: { auth: signedIn },
      schema: {
        tags,
        summary: "Attempts: an analyst's own; with manage_exercises every one unless mine=true",
        querystring: Type.Object(
          { exercise_id: Type.Optional(Type.String({ maxLength: 64 })), mine: Type.Optional(Type.Boolean()) },
          { additionalProperties: true },
        ),
        response: { 200: Type.Array(AttemptView), ...errors(401, 403) },
      },
    },
    async (request) =>
      attempts.list(readerOf(request), { exerciseId: request.query.exercise_id, mine: request.query.mine }),
  );

  app.get(
    '/api/attempts/:id',
    {
      config: { auth: signedIn },
      schema: {
        tags,
        summary: 'One attempt (others’ are 404 to analysts)',
        params: IdParams,
        response: { 200: AttemptView, ...errors(401, 403, 404) },
      },
    },
    async (request) => attempts.view(readerOf(request), request.params.id),
  );

  app.post(
    '/api/attempts/:id/artifacts',
    {
      config: { auth: run },
      schema: {
        tags,
        summary: 'Submit an answer; released sections ship before the answer',
        params: IdParams,
        body: Type.Object(
          {
            value: Type.String({ minLength: 1, maxLength: 4096 }),
            artifact_id: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            matched: Type.Boolean(),
            artifact_id: Type.Optional(Type.String()),
            points: Type.Optional(Type.Integer()),
            already_found: Type.Optional(Type.Boolean()),
            released: Type.Array(Type.String()),
          }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      audited(
        request,
        'attempt.submit',
        request.params.id,
        {
          attempt_id: request.params.id,
          ...(request.body.artifact_id ? { artifact_id: request.body.artifact_id } : {}),
        },
        () => attempts.submit(actorOf(request), request.params.id, request.body),
        (r) => ({
          matched: r.matched,
          ...(r.artifact_id ? { found: r.artifact_id } : {}),
          released: r.released,
        }),
      ),
  );

  app.post(
    '/api/attempts/:id/hints/:artifactId',
    {
      config: { auth: run },
      schema: {
        tags,
        summary: "Reveal an artifact's hint (its penalty counts once)",
        params: Type.Object({ id: Type.String(), artifactId: Type.String() }),
        response: {
          200: Type.Object({ artifact_id: Type.String(), hint: Type.String(), penalty: Type.Integer() }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      audited(
        request,
        'attempt.hint',
        request.params.id,
        { attempt_id: request.params.id, artifact_id: request.params.artifactId },
        () => attempts.revealHint(actorOf(request), request.params.id, request.params.artifactId),
        (r) => ({ penalty: r.penalty }),
      ),
  );

  app.post(
    '/api/attempts/:id/ship',
    {
      config: { auth: run },
      schema: {
        tags,
        summary:
          'Ship logs to SIEM: one of eight reasons per section; concurrent presses never ship a section twice',
        params: IdParams,
        response: {
          200: Type.Object({
            sections: Type.Array(
              Type.Object({
                section_id: Type.String(),
                reason: ShipReason,
                events_shipped: Type.Integer(),
                events_failed: Type.Integer(),
              }),
            ),
          }),
          ...errors(401, 403, 404, 409, 500),
        },
      },
    },
    async (request) =>
      audited(
        request,
        'attempt.ship',
        request.params.id,
        { attempt_id: request.params.id },
        () => attempts.shipNow(actorOf(request), request.params.id),
        (r) => ({ sections: r.sections }),
      ),
  );

  app.post(
    '/api/attempts/:id/complete',
    {
      config: { auth: run },
      schema: {
        tags,
        summary: 'Complete with score (points found minus hint penalties); offense cleanup never blocks it',
        params: IdParams,
        response: {
          200: Type.Object({
            score: Type.Integer(),
            max_score: Type.Integer(),
            offense_cleanup: Type.Union([OffenseCleanupView, Type.Null()]),
          }),
          ...errors(401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      audited(
        request,
        'attempt.complete',
        request.params.id,
        { attempt_id: request.params.id },
        () => attempts.complete(actorOf(request), request.params.id),
        (r) => ({
          score: r.score,
          max_score: r.max_score,
          offense_cleanup: cleanupSummary(r.offense_cleanup),
        }),
      ),
  );

  app.post(
    '/api/attempts/:id/redo',
    {
      config: { auth: run },
      schema: {
        tags,
        summary:
          'Reset the attempt: findings and hints cleared, sections re-evaluated from now, released ones shipped',
        params: IdParams,
        response: { 200: AttemptView, ...errors(401, 403, 404, 409, 500) },
      },
    },
    async (request) =>
      audited(
        request,
        'attempt.redo',
        request.params.id,
        { attempt_id: request.params.id },
        () => attempts.redo(actorOf(request), request.params.id),
        (v) => ({
          sections: v.sections.map((s) => ({ section_id: s.section_id, status: s.status })),
          offense_cleanup: cleanupSummary(v.offense_cleanup),
        }),
      ),
  );
};

/** What an audit record keeps of an offense cleanup: its status and counts (offenses were closed). */
function cleanupSummary(
  cleanup: { status: string; [detail: string]: unknown } | null,
): Record<string, unknown> | null {
  if (cleanup === null) return null;
  const { status, found, closed, failed } = cleanup;
  return { status, found, closed, failed };
}
