import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { exerciseRow } from '../exercises/exercise-store.ts';
import { errors, IdParams } from '../http/common-schemas.ts';

/** One row of decisions.md §7, with the identifier its events carry as HOSTNAME. */
export const LogSourceView = Type.Object({
  exercise_id: Type.String({ format: 'uuid' }),
  section_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'null: the sectionless exercise’s one log source',
  }),
  siem: Type.String(),
  identifier: Type.String({ description: 'log source identifier = syslog HOSTNAME of the section’s events' }),
  name: Type.String(),
  status: Type.Union([Type.Literal('provisioned'), Type.Literal('missing'), Type.Literal('failed')]),
  log_source_id: Type.Union([Type.Integer(), Type.Null()]),
  requires_deploy: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
  checked_at: Type.String({ format: 'date-time' }),
});

/** GET /api/exercises/:id/log-sources (decisions.md §7), `manage_exercises`. */
export const logSourceRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/exercises/:id/log-sources',
    {
      config: { auth: { capability: 'manage_exercises' } },
      schema: {
        tags: ['exercises'],
        summary: 'SIEM Q log sources of the exercise: one per section and provisioning destination',
        params: IdParams,
        response: {
          200: Type.Object({ ok: Type.Literal(true), log_sources: Type.Array(LogSourceView) }),
          ...errors(401, 403, 404),
        },
      },
    },
    async (request) => {
      await exerciseRow(ctx.db, request.params.id);
      const rows = await ctx.logSources.list(request.params.id);
      return {
        ok: true as const,
        log_sources: rows.map((r) => ({
          exercise_id: r.exerciseId,
          section_id: r.sectionId,
          siem: r.siem,
          identifier: r.identifier,
          name: r.name,
          status: r.status,
          log_source_id: r.logSourceId,
          requires_deploy: r.requiresDeploy,
          error: r.error,
          checked_at: r.checkedAt.toISOString(),
        })),
      };
    },
  );
};
