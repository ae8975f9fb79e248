import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { errors } from '../http/common-schemas.ts';
import { toAppError } from '../http/error-handler.ts';
import { refusedStart, startSession } from './start-session.ts';
import { wipeSiems } from './wipe-siems.ts';

const auth = { capability: 'manage_exercises' } as const;
const tags = ['sessions'];

const WipeBody = Type.Object({
  ok: Type.Boolean(),
  wiped: Type.Array(Type.String()),
  skipped: Type.Array(Type.String()),
  re_fired: Type.Array(Type.Object({ siem: Type.String(), job_ids: Type.Array(Type.String()) })),
  re_fire_errors: Type.Array(Type.String()),
  offense_cleanup: Type.Optional(
    Type.Array(
      Type.Object({
        siem: Type.String(),
        status: Type.Union([Type.Literal('ok'), Type.Literal('partial'), Type.Literal('failed')]),
        found: Type.Integer(),
        closed: Type.Integer(),
        failed: Type.Integer(),
        error: Type.Union([Type.String(), Type.Null()]),
      }),
      { description: 'SIEM Q: offenses of the provisioned log sources closed (offense_cleanup on)' },
    ),
  ),
});
const WipeFailedBody = Type.Object({
  ok: Type.Literal(false),
  wiped: Type.Array(Type.String()),
  skipped: Type.Array(Type.String()),
  re_fired: Type.Array(Type.Object({ siem: Type.String(), job_ids: Type.Array(Type.String()) })),
  re_fire_errors: Type.Array(Type.String()),
  errors: Type.Array(Type.Object({ siem: Type.String(), message: Type.String() })),
  offense_cleanup: Type.Optional(
    Type.Array(
      Type.Object({
        siem: Type.String(),
        status: Type.Union([Type.Literal('ok'), Type.Literal('partial'), Type.Literal('failed')]),
        found: Type.Integer(),
        closed: Type.Integer(),
        failed: Type.Integer(),
        error: Type.Union([Type.String(), Type.Null()]),
      }),
      { description: 'SIEM Q: offenses of the provisioned log sources closed (offense_cleanup on)' },
    ),
  ),
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  }),
});

/** POST /api/sessions/start and DELETE /api/sessions (spec 4.2, 4.3), `manage_exercises`. */
export const labSessionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/sessions/start',
    {
      config: { auth },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Download an exercise archive and ship its events, rebased to now, to one SIEM',
        description:
          'The archive (.zip only) is downloaded over https (checked against private and loopback ' +
          'addresses; beyond ARCHIVE_MEMORY_BYTES into a temporary file, removed afterwards), its .log/.txt ' +
          "(LEEF) or .ndjson/.json (ECS) entries are read as the destination's driver requires, timestamps " +
          'are moved so the newest event lies at now + 2 h, and the events are shipped. A shipping failure ' +
          'is a 500 with details.events_shipped and events_failed (code shipment_deadline when the shipment ' +
          'stopped at SHIPMENT_DEADLINE_SECONDS). With ARCHIVE_MAX_CONCURRENT starts running, another is ' +
          'refused with 503 and Retry-After (details.retry_after_seconds).',
        body: Type.Object(
          {
            archiveDownloadUrl: Type.String({
              minLength: 1,
              maxLength: 8192,
              description: 'signed URL of a .zip archive',
            }),
            siem: Type.String({
              minLength: 1,
              maxLength: 64,
              description: 'destination name, exactly as configured',
            }),
            // Lengths and characters are checked per driver in startSession: a field the
            // destination's driver ignores (spec 4.2) must not fail the request.
            indexName: Type.Optional(
              Type.String({
                description:
                  'overrides the index (vendorA_hec, vendorB_bulk; 1-120 characters); ignored for syslog_tcp',
              }),
            ),
            syslogSourceIdentity: Type.Optional(
              Type.String({
                description:
                  'syslog_tcp only (1-255 printable ASCII characters): forces synthesized headers with this HOSTNAME; ignored for the other drivers',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            ok: Type.Literal(true),
            siem: Type.String(),
            driver: Type.String(),
            events: Type.Integer({ description: 'events shipped' }),
            files: Type.Integer({ description: 'archive entries processed' }),
            shiftDays: Type.Number({ description: 'days the timestamps moved forward (may be fractional)' }),
          }),
          ...errors(400, 401, 403, 409, 413, 500, 502, 503),
        },
      },
    },
    async (request) => {
      // The schema's refusal is attached, not answered at once, so it is audited like every start.
      if (request.validationError) {
        throw await refusedStart(
          ctx,
          request.actor,
          request.ip,
          request.body,
          toAppError(request.validationError),
        );
      }
      return startSession(ctx, request.actor, request.ip, request.body);
    },
  );

  app.delete(
    '/api/sessions',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Permanently delete lab events from SIEMs, then re-fire noise jobs marked to repopulate',
        description:
          'THE DELETION IS PERMANENT. For vendorA_hec (search | delete) and vendorB_bulk (delete-by-query): ' +
          "first the custom indexes of noise jobs targeting the SIEM, then the destination's index. syslog_tcp " +
          'destinations are skipped. Afterwards every enabled noise job with propagate_on_wipe targeting a wiped ' +
          'SIEM is re-fired to it; the answer waits up to 120 s for those runs. A SIEM whose wipe failed makes ' +
          'the answer 502 with `errors`.',
        querystring: Type.Object(
          {
            siem: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
              minItems: 1,
              maxItems: 50,
              description: 'destination name; repeat to wipe several',
            }),
          },
          // Other query parameters are ignored, never refused (decisions.md §2 on tokens in the query).
          { additionalProperties: true },
        ),
        response: { 200: WipeBody, 502: WipeFailedBody, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const result = await wipeSiems(ctx, { actor: request.actor, ip: request.ip }, request.query.siem);
      if (result.ok) return result;
      const message = (result.errors ?? []).map((e) => e.message).join('; ');
      return reply.code(502).send({
        ...result,
        ok: false as const,
        errors: result.errors ?? [],
        error: { code: 'bad_gateway', message, details: { errors: result.errors ?? [] } },
      });
    },
  );
};
