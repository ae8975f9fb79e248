import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors, OkBody } from '../http/common-schemas.ts';
import { archiveLimitsOf } from '../pipeline/archive/archive-limits.ts';
import { checkStoragePath, quotePath } from '../storage/storage-path.ts';
import { jobsUsingArchive, listJobRows } from './job-store.ts';
import { ArchivePathParams, ArchiveView } from './noise.schemas.ts';
import { checkNoiseArchive } from './noise-archive-check.ts';
import { createZipUploadGuard, declaredTooLarge } from './zip-upload-guard.ts';

const auth = { capability: 'manage_noise_logs' } as const;
const tags = ['noise'];
const BUCKET = 'noise-archives';

/** Content types an archive upload may carry (browsers on Windows send x-zip-compressed). */
export const ARCHIVE_CONTENT_TYPES = [
  'application/zip',
  'application/x-zip-compressed',
  'application/octet-stream',
];

/**
 * Noise archive storage API (decisions.md §4), `manage_noise_logs`. Uploads are raw bodies, read
 * into memory and opened as a noise run opens them before anything is stored; the parser that
 * allows them is registered in this plugin only, so every other route keeps accepting JSON alone.
 */
export const noiseArchiveRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // Hand the request stream to the handler untouched: the size limit and the zip signature are
  // checked while reading it (see createZipUploadGuard), so an oversized or non-zip body is refused
  // before it is read whole. The central directory sits at the end of a zip, so the archive is then
  // held whole in memory (at most ARCHIVE_MAX_BYTES, as a noise run holds it) to be opened before
  // it is stored.
  app.addContentTypeParser(ARCHIVE_CONTENT_TYPES, (_request, payload, done) => done(null, payload));

  app.put(
    '/api/noise/archives/*',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Upload a noise archive (raw .zip body) to the noise-archives bucket',
        description:
          'Body: the archive itself, `Content-Type: application/zip` or `application/octet-stream`; ' +
          'at most ARCHIVE_MAX_BYTES. Opened as a noise run opens it before it is stored: a body that ' +
          'is not a readable zip, or has no `.log`/`.txt` entry, is `400 archive_invalid` naming why; ' +
          'an archive over a cap (entries, entry size, ratio) is `413`. Replaces an object at the same path.',
        params: ArchivePathParams,
        response: {
          201: Type.Object({ storage_path: Type.String() }),
          ...errors(400, 401, 403, 409, 413, 415, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const storagePath = checkStoragePath(request.params['*']);
      const body = request.body as unknown;
      if (!(body instanceof Readable)) {
        throw new AppError(
          'unsupported_media_type',
          `Send the archive as the raw body with Content-Type ${ARCHIVE_CONTENT_TYPES.join(' or ')}`,
        );
      }
      const max = ctx.config.archiveMaxBytes;
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > max) throw declaredTooLarge(max);
      // The upload is held whole (its central directory is at its end), so it takes one of the
      // ARCHIVE_MAX_CONCURRENT slots session starts use: 503 with Retry-After beyond them.
      const slot = ctx.downloads.enter();
      let info: { size: number };
      try {
        const guard = createZipUploadGuard(max);
        (body as IncomingMessage).once('error', (err) => guard.destroy(err));
        const chunks: Buffer[] = [];
        for await (const chunk of body.pipe(guard)) chunks.push(chunk as Buffer);
        const data = Buffer.concat(chunks);
        chunks.length = 0;
        // A body that merely starts with the zip signature is not an archive a run can read.
        await checkNoiseArchive(data, archiveLimitsOf(ctx.config));
        info = await ctx.storage.put(BUCKET, storagePath, data, data.length);
      } finally {
        await slot.release();
      }
      await ctx.audit(
        auditEntry(request, {
          action: 'noise.archive.upload',
          target: storagePath,
          outcome: 'success',
          details: { size: info.size },
        }),
      );
      return reply.code(201).send({ storage_path: storagePath });
    },
  );

  app.get(
    '/api/noise/archives',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'List the noise-archives bucket',
        querystring: Type.Object(
          { prefix: Type.Optional(Type.String({ maxLength: 1024 })) },
          // Other query parameters are ignored, never refused (decisions.md §2 on tokens in the query).
          { additionalProperties: true },
        ),
        response: { 200: Type.Array(ArchiveView), ...errors(400, 401, 403, 502) },
      },
    },
    async (request) => {
      const [objects, jobs] = await Promise.all([
        ctx.storage.list(BUCKET, request.query.prefix ?? ''),
        listJobRows(ctx.db),
      ]);
      return objects.map((o) => ({
        storage_path: o.key,
        size: o.size,
        modified_at: new Date(o.modified).toISOString(),
        used_by: jobs.filter((j) => j.archives.some((a) => a.storage_path === o.key)).map((j) => j.name),
      }));
    },
  );

  app.delete(
    '/api/noise/archives/*',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Delete a noise archive (refused while a job uses it)',
        params: ArchivePathParams,
        response: { 200: OkBody, ...errors(400, 401, 403, 404, 409, 502) },
      },
    },
    async (request) => {
      const storagePath = checkStoragePath(request.params['*']);
      const users = await jobsUsingArchive(ctx.db, storagePath);
      if (users.length > 0) {
        throw new AppError(
          'conflict',
          `Archive ${quotePath(storagePath)} is used by noise jobs: ${users.map((j) => `"${j.name}"`).join(', ')}`,
          { details: { storage_path: storagePath, jobs: users } },
        );
      }
      await ctx.storage.delete(BUCKET, storagePath);
      await ctx.audit(
        auditEntry(request, { action: 'noise.archive.delete', target: storagePath, outcome: 'success' }),
      );
      return { ok: true as const };
    },
  );
};
