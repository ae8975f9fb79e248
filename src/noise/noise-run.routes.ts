import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors, IdParams } from '../http/common-schemas.ts';
import { CreateRunsBody, RunsQuery, RunView } from './noise.schemas.ts';
import { listRuns } from './run-store.ts';

const auth = { capability: 'manage_noise_logs' } as const;
const tags = ['noise'];

/** Noise runs API (decisions.md §4), `manage_noise_logs`. */
export const noiseRunRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/noise/jobs/:id/runs',
    {
      config: { auth },
      // The body is optional: a bare POST means { "dispatch": true }.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary: 'Create one run row per target (trigger manual) and, by default, dispatch them',
        description:
          'Answers at once; the dispatch continues in the background and its outcome is on the run rows. ' +
          'A job already running answers 409 job_running and its new rows are `skipped`. Rows created with ' +
          '`dispatch: false` are `manual` until POST /api/noise/run dispatches them with its own `trigger`.',
        params: IdParams,
        body: CreateRunsBody,
        response: {
          201: Type.Object({
            run_ids: Type.Record(Type.String(), Type.String({ format: 'uuid' }), {
              description: 'SIEM name → run id',
            }),
            dispatched: Type.Boolean(),
          }),
          ...errors(400, 401, 403, 404, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const dispatch = request.body.dispatch ?? true;
      const by = { actor: request.actor, ip: request.ip };
      // With dispatch, the outcome lands on the run rows and in the audit log (`done` never rejects).
      const run_ids = dispatch
        ? (await ctx.noise.runner.runJob(request.params.id, { trigger: 'manual', by })).run_ids
        : await ctx.noise.runner.createRuns(request.params.id, { trigger: 'manual' });
      await ctx.audit(
        auditEntry(request, {
          action: 'noise.run.create',
          target: request.params.id,
          outcome: 'success',
          details: { job_id: request.params.id, run_ids, dispatch },
        }),
      );
      return reply.code(201).send({ run_ids, dispatched: dispatch });
    },
  );

  app.get(
    '/api/noise/runs',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Noise run rows, newest first',
        querystring: RunsQuery,
        response: { 200: Type.Array(RunView), ...errors(400, 401, 403) },
      },
    },
    async (request) => listRuns(ctx.db, { ...request.query, limit: request.query.limit ?? 100 }),
  );
};
