import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CAPABILITIES } from '../auth/capabilities.ts';
import type { AppContext } from '../context.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors } from '../http/common-schemas.ts';
import { createRole, deleteRole, getRole, listRoles, ROLE_NAME_PATTERN, updateRole } from './role-service.ts';

const Role = Type.Object({
  name: Type.String(),
  permissions: Type.Array(Type.String()),
  builtin: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
const Permissions = Type.Array(Type.String(), {
  maxItems: 64,
  description: `Capability names: ${CAPABILITIES.join(', ')}`,
});
// No length limit: a name too long to exist is unknown like any other, so 404, not 400 (decisions §3).
const NameParams = Type.Object({ name: Type.String() });
const auth = { capability: 'manage_users' } as const;
const tags = ['roles'];

/** Roles API (decisions.md §4), `manage_users`. */
export const roleRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/roles',
    {
      config: { auth },
      schema: { tags, summary: 'List roles', response: { 200: Type.Array(Role), ...errors(401, 403) } },
    },
    async () => listRoles(ctx.db),
  );

  app.get(
    '/api/roles/:name',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'One role',
        params: NameParams,
        response: { 200: Role, ...errors(401, 403, 404) },
      },
    },
    async (request) => getRole(ctx.db, request.params.name),
  );

  app.post(
    '/api/roles',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Create a role',
        body: Type.Object(
          { name: Type.String({ pattern: ROLE_NAME_PATTERN }), permissions: Permissions },
          { additionalProperties: false },
        ),
        response: { 201: Role, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const role = await createRole(ctx.db, request.body);
      await ctx.audit(
        auditEntry(request, {
          action: 'role.create',
          target: role.name,
          outcome: 'success',
          details: { permissions: role.permissions },
        }),
      );
      return reply.code(201).send(role);
    },
  );

  app.patch(
    '/api/roles/:name',
    {
      config: { auth },
      schema: {
        tags,
        summary: "Change a role's permissions",
        params: NameParams,
        body: Type.Object({ permissions: Type.Optional(Permissions) }, { additionalProperties: false }),
        response: { 200: Role, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const role = await updateRole(ctx.db, request.params.name, request.body, new Date(ctx.clock.now()));
      // Holders of the role get its new permissions on their next request.
      ctx.sessionEvents.accessChanged();
      await ctx.audit(
        auditEntry(request, {
          action: 'role.update',
          target: role.name,
          outcome: 'success',
          details: { permissions: role.permissions },
        }),
      );
      return role;
    },
  );

  app.delete(
    '/api/roles/:name',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Delete a role (not a built-in one)',
        params: NameParams,
        response: { 200: Type.Object({ ok: Type.Literal(true) }), ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => {
      await deleteRole(ctx.db, request.params.name);
      ctx.sessionEvents.accessChanged();
      await ctx.audit(
        auditEntry(request, { action: 'role.delete', target: request.params.name, outcome: 'success' }),
      );
      return { ok: true as const };
    },
  );
};
