import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors } from '../http/common-schemas.ts';
import { createValidatorCompiler } from '../http/validator.ts';
import { secretPaths } from '../siems/settings-schema.ts';
import { checkDestination } from './check-destination.ts';
import {
  DestinationView,
  destinationCreateBody,
  destinationPatchBody,
  NameParams,
  SiemKindView,
} from './destination.schemas.ts';
import {
  createDestination,
  deleteDestination,
  getDestinationView,
  listDestinations,
  updateDestination,
} from './destination-service.ts';

const auth = { capability: 'manage_destinations' } as const;

const SiemSummary = Type.Object({
  name: Type.String(),
  driver: Type.String(),
  payload_format: Type.String(),
  index: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  can_wipe: Type.Boolean({ description: 'a session wipe reaches it (its kind can wipe)' }),
  closes_offenses: Type.Boolean({
    description: 'a session wipe closes its offenses (a kind with log sources, offense_cleanup on)',
  }),
  indexes: Type.String({ description: 'native, label or none: how the kind routes to an index' }),
});
const tags = ['destinations'];

/**
 * Destination bodies are checked by the service against the chosen kind's settings schema, which
 * names every bad field; the route's body schema (a union over the kinds) is for the OpenAPI
 * document, and the route itself only requires a JSON object.
 */
function bodyByService(): FastifySchemaCompiler<unknown> {
  const standard = createValidatorCompiler();
  const objectOnly = (data: unknown) =>
    typeof data === 'object' && data !== null && !Array.isArray(data)
      ? { value: data }
      : {
          error: Object.assign(new Error('body must be a JSON object'), {
            validation: [
              {
                instancePath: '',
                message: 'must be a JSON object',
                params: {},
                keyword: 'type',
                schemaPath: '',
              },
            ],
            validationContext: 'body',
          }),
        };
  return (route) => (route.httpPart === 'body' ? objectOnly : standard(route));
}

/** SIEM destinations API (decisions.md §4), `manage_destinations`. */
export const destinationRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const kinds = ctx.siems.kinds;
  const validatorCompiler = bodyByService();

  app.get(
    '/api/siem-kinds',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'The SIEM kinds this service can ship to, with their settings schemas',
        response: { 200: Type.Array(SiemKindView), ...errors(401, 403) },
      },
    },
    async () =>
      kinds.map((kind) => ({
        name: kind.name,
        title: kind.title,
        payload_formats: [...kind.payloadFormats],
        capabilities: {
          indexes: kind.capabilities.indexes,
          labels_index: kind.capabilities.labelsIndex,
          index_creation: kind.capabilities.indexCreation,
          wipe: kind.capabilities.wipe,
          source_identity: kind.capabilities.sourceIdentity,
        },
        secret_fields: secretPaths(kind.settings),
        settings: kind.settings as unknown as Record<string, unknown>,
      })),
  );
  // What pages that pick SIEMs need (noise targets, wipe, attempts), without any setting: every
  // user who works with SIEMs may read it, not only those who manage destinations.
  app.get(
    '/api/siems',
    {
      config: { auth: {} },
      schema: {
        tags,
        summary: 'SIEM destinations by name, kind, format, default index and what they can do (no settings)',
        description:
          'For users holding manage_destinations, manage_noise_logs, manage_exercises or run_exercises; others get 403.',
        response: { 200: Type.Array(SiemSummary), ...errors(401, 403) },
      },
    },
    async (request) => {
      const actor = request.actor;
      const allowed = [
        'manage_destinations',
        'manage_noise_logs',
        'manage_exercises',
        'run_exercises',
      ] as const;
      if (actor?.kind !== 'user' || !allowed.some((c) => actor.capabilities.has(c))) {
        throw new AppError('forbidden', `Listing SIEMs needs one of ${allowed.join(', ')}`, {
          details: { capabilities: [...allowed] },
        });
      }
      const rows = await ctx.db
        .selectFrom('destinations')
        .select(['name', 'driver', 'payload_format', 'index_name', 'enabled', 'settings'])
        .orderBy('name')
        .execute();
      return rows.map((row) => {
        const kind = ctx.siems.kinds.find((k) => k.name === row.driver);
        return {
          name: row.name,
          driver: row.driver,
          payload_format: row.payload_format,
          index: row.index_name,
          enabled: row.enabled,
          can_wipe: kind?.capabilities.wipe ?? false,
          closes_offenses:
            (kind?.capabilities.logSources ?? false) &&
            (row.settings as Record<string, unknown>).offense_cleanup === true,
          indexes: kind?.capabilities.indexes ?? 'none',
        };
      });
    },
  );

  app.get(
    '/api/destinations',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'List SIEM destinations',
        response: { 200: Type.Array(DestinationView), ...errors(401, 403) },
      },
    },
    async () => listDestinations(ctx),
  );

  app.post(
    '/api/destinations',
    {
      config: { auth },
      validatorCompiler,
      schema: {
        tags,
        summary: 'Create a SIEM destination',
        body: destinationCreateBody(kinds),
        response: { 201: DestinationView, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const view = await createDestination(ctx, request.body as Record<string, unknown>);
      await ctx.audit(
        auditEntry(request, {
          action: 'destination.create',
          target: view.name,
          outcome: 'success',
          details: { driver: view.driver, fields: Object.keys(request.body as object).sort() },
        }),
      );
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/api/destinations/:name',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'One SIEM destination',
        params: NameParams,
        response: { 200: DestinationView, ...errors(401, 403, 404) },
      },
    },
    async (request) => getDestinationView(ctx, request.params.name),
  );

  app.patch(
    '/api/destinations/:name',
    {
      config: { auth },
      validatorCompiler,
      schema: {
        tags,
        summary: 'Change a SIEM destination',
        params: NameParams,
        body: destinationPatchBody(kinds),
        response: { 200: DestinationView, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const view = await updateDestination(
        ctx,
        request.params.name,
        request.body as Record<string, unknown>,
        new Date(ctx.clock.now()),
      );
      await ctx.audit(
        auditEntry(request, {
          action: 'destination.update',
          target: view.name,
          outcome: 'success',
          details: { fields: Object.keys(request.body as object).sort() },
        }),
      );
      return view;
    },
  );

  app.delete(
    '/api/destinations/:name',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Delete a SIEM destination (its SIEM data is left alone)',
        params: NameParams,
        response: { 200: Type.Object({ ok: Type.Literal(true) }), ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const view = await deleteDestination(ctx, request.params.name);
      await ctx.audit(
        auditEntry(request, {
          action: 'destination.delete',
          target: view.name,
          outcome: 'success',
          details: { driver: view.driver },
        }),
      );
      return { ok: true as const };
    },
  );

  app.post(
    '/api/destinations/:name/test',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Live connectivity check of a SIEM destination',
        params: NameParams,
        response: {
          200: Type.Object(
            {
              ok: Type.Boolean(),
              siem: Type.String(),
              driver: Type.String(),
              checks: Type.Array(
                Type.Object({
                  name: Type.String(),
                  ok: Type.Boolean(),
                  message: Type.String(),
                  endpoint: Type.Optional(Type.String()),
                }),
              ),
              duration_ms: Type.Number(),
            },
            { description: 'ok is true only when every check passed' },
          ),
          ...errors(401, 403, 404),
        },
      },
    },
    async (request) => {
      const result = await checkDestination(ctx, request.params.name);
      await ctx.audit(
        auditEntry(request, {
          action: 'destination.test',
          target: request.params.name,
          outcome: result.ok ? 'success' : 'failure',
          details: { checks: result.checks.map((c) => ({ name: c.name, ok: c.ok })) },
        }),
      );
      return result;
    },
  );
};
