import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { invalidInput } from '../errors.ts';
import { errors } from '../http/common-schemas.ts';
import { ScheduleInput } from './noise.schemas.ts';
import { checkSchedule } from './schedule.ts';

/** The body of POST /api/noise/run, exactly spec 4.1. */
export const DispatchBody = Type.Object(
  {
    job_id: Type.String({ format: 'uuid', description: 'the job to execute' }),
    trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual')], {
      description: 'schedule for scheduler calls, manual for API or console calls',
    }),
    run_ids: Type.Record(Type.String({ maxLength: 64 }), Type.String({ format: 'uuid' }), {
      description: 'SIEM name → id of its run row, created beforehand (status pending)',
    }),
    archives: Type.Array(
      Type.Object(
        {
          position: Type.Integer({ minimum: 0, description: 'zero-based; orders dispatch' }),
          storage_path: Type.String({
            minLength: 1,
            maxLength: 1024,
            description: 'path in the noise-archives bucket',
          }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100, description: 'archives of the job to ship' },
    ),
    targets: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      description: 'SIEM names; each needs an entry in run_ids',
    }),
    schedule: ScheduleInput,
  },
  { additionalProperties: false },
);

const DispatchAnswer = Type.Object({
  ok: Type.Boolean({ description: 'true when every target succeeded' }),
  failed: Type.Optional(
    Type.Array(Type.String(), { description: 'targets that did not succeed (details on their run rows)' }),
  ),
});

/**
 * POST /api/noise/run (spec 4.1, decisions.md §5): executes a job's pending run rows and answers
 * when the dispatch ended. Bearer DISPATCH_TOKEN (the built-in or an external scheduler) or a
 * session with manage_noise_logs. The runner takes the job's lease, so overlapping runs of one job
 * are refused (409 job_running, rows skipped); it also writes next_run_at and the audit record.
 */
export const noiseDispatchRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/noise/run',
    {
      config: { auth: { capability: 'manage_noise_logs', bearer: true } },
      schema: {
        tags: ['noise'],
        summary: 'Dispatch a noise job: ship its archives to its targets (spec 4.1)',
        description:
          'Answers once the dispatch ended: `{ ok: true }` when every target succeeded, otherwise ' +
          '`{ ok: false, failed: [siem] }` with details on the run rows. The dispatch carries on when ' +
          'the caller gives up waiting. 409 job_running while a run of the job is in progress (the ' +
          'rows of this request become skipped).',
        security: [{ dispatchToken: [] }, { session: [] }],
        body: DispatchBody,
        response: { 200: DispatchAnswer, ...errors(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request) => {
      const body = request.body;
      const bad: Record<string, string> = {};
      const seen = new Map<number, number>();
      for (const [i, a] of body.archives.entries()) {
        const first = seen.get(a.position);
        if (first !== undefined) bad[`archives.${i}.position`] = `repeats the position of archives.${first}`;
        else seen.set(a.position, i);
      }
      const checked = checkSchedule(body.schedule, ctx.clock.now());
      if (checked.problems) Object.assign(bad, checked.problems);
      if (Object.keys(bad).length > 0 || !checked.schedule) throw invalidInput('Invalid dispatch', bad);

      // 400 (targets without run rows), 404, 409 conflict / job_running are thrown here.
      const handle = await ctx.noise.runner.dispatch(
        { ...body, schedule: checked.schedule },
        { actor: request.actor, ip: request.ip },
      );
      const result = await handle.done;
      return result.ok ? { ok: true } : { ok: false, failed: result.failed };
    },
  );
};
