import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors, IdParams, OkBody } from '../http/common-schemas.ts';
import { createJob, deleteJob, getJob, type JobServiceDeps, listJobs, updateJob } from './job-service.ts';
import { JobCreateBody, JobPatchBody, JobView, SavedJobView } from './noise.schemas.ts';

const auth = { capability: 'manage_noise_logs' } as const;
const tags = ['noise'];

/** Noise jobs API (decisions.md §4), `manage_noise_logs`. */
export const noiseJobRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const deps = (): JobServiceDeps => ctx;

  app.get(
    '/api/noise/jobs',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'List noise jobs',
        response: { 200: Type.Array(JobView), ...errors(401, 403) },
      },
    },
    async () => listJobs(ctx.db, ctx.clock.now()),
  );

  app.post(
    '/api/noise/jobs',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Create a noise job (creates its new indexes on vendorA_hec and vendorB_bulk targets)',
        body: JobCreateBody,
        response: { 201: SavedJobView, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const job = await createJob(deps(), request.body);
      await ctx.audit(
        auditEntry(request, {
          action: 'noise.job.create',
          target: job.name,
          outcome: 'success',
          details: { id: job.id, targets: job.targets, schedule: job.schedule, warnings: job.warnings },
        }),
      );
      return reply.code(201).send(job);
    },
  );

  app.get(
    '/api/noise/jobs/:id',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'One noise job',
        params: IdParams,
        response: { 200: JobView, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => getJob(ctx.db, request.params.id, ctx.clock.now()),
  );

  app.patch(
    '/api/noise/jobs/:id',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Change a noise job (absent fields keep their value)',
        params: IdParams,
        body: JobPatchBody,
        response: { 200: SavedJobView, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const job = await updateJob(deps(), request.params.id, request.body);
      await ctx.audit(
        auditEntry(request, {
          action: 'noise.job.update',
          target: job.name,
          outcome: 'success',
          details: { id: job.id, fields: Object.keys(request.body).sort(), warnings: job.warnings },
        }),
      );
      return job;
    },
  );

  app.delete(
    '/api/noise/jobs/:id',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Delete a noise job and its run rows (refused while it runs)',
        params: IdParams,
        response: { 200: OkBody, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const job = await deleteJob(ctx.db, request.params.id, ctx.clock.now());
      await ctx.audit(
        auditEntry(request, {
          action: 'noise.job.delete',
          target: job.name,
          outcome: 'success',
          details: { id: job.id },
        }),
      );
      return { ok: true as const };
    },
  );
};
