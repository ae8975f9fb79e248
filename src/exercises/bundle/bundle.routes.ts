import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { auditEntry } from '../../http/audit-entry.ts';
import { errors, IdParams } from '../../http/common-schemas.ts';
import { archiveLimitsOf } from '../../pipeline/archive/archive-limits.ts';
import { ExerciseView } from '../exercise.schemas.ts';
import { readUpload } from '../read-upload.ts';
import { readBundle } from './bundle-read.ts';
import { bundleLimitsOf, exportExercise, importExercise } from './bundle-service.ts';

const auth = { capability: 'manage_exercises' } as const;
const tags = ['exercises'];

const ZipBody = Type.Unsafe<Buffer>({
  type: 'string',
  format: 'binary',
  description: 'the bundle zip (docs/exercise-bundle.md)',
});

const ImportQuery = Type.Object(
  {
    destinations: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: "comma-separated SIEM destination names to use instead of the bundle's",
      }),
    ),
  },
  { additionalProperties: false },
);

const Imported = Type.Object({
  ...ExerciseView.properties,
  warnings: Type.Array(Type.String(), {
    description: 'files ignored, destinations left out, archives stored together',
  }),
});

/** Exercise bundles (decisions.md §6, "Export/import"), `manage_exercises`. */
export const bundleRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const userId = (request: FastifyRequest) => (request.actor?.kind === 'user' ? request.actor.userId : null);
  const audit = (request: FastifyRequest, action: string, target: string, details: Record<string, unknown>) =>
    ctx.audit(auditEntry(request, { action, target, outcome: 'success', details }));

  app.get(
    '/api/exercises/:id/bundle',
    {
      config: { auth, auditFailures: 'exercise.export' },
      schema: {
        tags,
        summary: 'Export an exercise as a bundle zip (exercise.yaml and its archives, no ids)',
        params: IdParams,
        response: { 200: ZipBody, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { filename, data } = await exportExercise(ctx, request.params.id);
      await audit(request, 'exercise.export', request.params.id, { filename, size: data.length });
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(data);
    },
  );

  // The import takes the raw zip, in a scope of its own so every other route keeps JSON only.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    raw.post(
      '/api/exercises/import',
      {
        config: { auth, auditFailures: 'exercise.import' },
        schema: {
          tags,
          summary: 'Import a bundle zip as a new draft exercise',
          description:
            'Body: the raw bundle zip. Everything is checked before anything is saved: a bad bundle or ' +
            'archive is `400` naming what and where, a cap `413`; nothing is kept of a failed import. ' +
            "Destinations of the bundle that this installation lacks are left out with a warning; `destinations` replaces the bundle's.",
          querystring: ImportQuery,
          response: { 201: Imported, ...errors(400, 401, 403, 413, 415, 503) },
        },
      },
      async (request, reply) => {
        const { destinations } = request.query as { destinations?: string };
        // The bundle is held whole and its archives read twice, so it takes a download slot.
        const slot = ctx.downloads.enter();
        try {
          const data = await readUpload(
            request.body,
            ctx.config.archiveMaxBytes,
            Number(request.headers['content-length']),
          );
          const bundle = readBundle(data, bundleLimitsOf(ctx.config));
          const { exercise, warnings } = await importExercise(
            {
              db: ctx.db,
              storage: ctx.storage,
              clock: ctx.clock,
              limits: archiveLimitsOf(ctx.config),
              createdBy: userId(request),
            },
            bundle,
            destinations === undefined ? {} : { destinations: namesOf(destinations) },
          );
          await audit(request, 'exercise.import', exercise.id, {
            title: exercise.title,
            size: data.length,
            destinations: exercise.destinations,
            warnings: warnings.length,
          });
          return reply.code(201).send({ ...exercise, warnings });
        } finally {
          await slot.release();
        }
      },
    );
  });
};

function namesOf(list: string): string[] {
  return list
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
}
