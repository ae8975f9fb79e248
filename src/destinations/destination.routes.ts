import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors } from '../http/common-schemas.ts';
import { checkDestination } from './check-destination.ts';
import {
  DestinationCreateBody,
  DestinationPatchBody,
  DestinationView,
  NameParams,
} from './destination.schemas.ts';
import {
  createDestination,
  deleteDestination,
  getDestinationView,
  listDestinations,
  updateDestination,
} from './destination-service.ts';

const auth = { capability: 'manage_destinations' } as const;
const tags = ['destinations'];

/** SIEM destinations API (decisions.md §4), `manage_destinations`. */
export const destinationRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
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
    async () => listDestinations(ctx.db),
  );

  app.post(
    '/api/destinations',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Create a SIEM destination',
        body: DestinationCreateBody,
        response: { 201: DestinationView, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const view = await createDestination(ctx.db, ctx.secretBox, request.body);
      await ctx.audit(
        auditEntry(request, {
          action: 'destination.create',
          target: view.name,
          outcome: 'success',
          details: { driver: view.driver, fields: Object.keys(request.body).sort() },
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
    async (request) => getDestinationView(ctx.db, request.params.name),
  );

  app.patch(
    '/api/destinations/:name',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Change a SIEM destination',
        params: NameParams,
        body: DestinationPatchBody,
        response: { 200: DestinationView, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const view = await updateDestination(
        ctx.db,
        ctx.secretBox,
        request.params.name,
        request.body,
        new Date(ctx.clock.now()),
      );
      await ctx.audit(
        auditEntry(request, {
          action: 'destination.update',
          target: view.name,
          outcome: 'success',
          details: { fields: Object.keys(request.body).sort() },
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
      const view = await deleteDestination(ctx.db, request.params.name);
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
          ...errors(401, 403, 404, 501),
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
