import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors, IdParams } from '../http/common-schemas.ts';
import { createUser, deleteUser, getUser, listUsers, updateUser } from './user-service.ts';

const User = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  display_name: Type.String(),
  roles: Type.Array(Type.String()),
  capabilities: Type.Array(Type.String()),
  disabled: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const auth = { capability: 'manage_users' } as const;
const tags = ['users'];

/** Users API (decisions.md §4), `manage_users`. */
export const userRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/users',
    {
      config: { auth },
      schema: { tags, summary: 'List users', response: { 200: Type.Array(User), ...errors(401, 403) } },
    },
    async () => listUsers(ctx.db),
  );

  app.get(
    '/api/users/:id',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'One user',
        params: IdParams,
        response: { 200: User, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => getUser(ctx.db, request.params.id),
  );

  app.post(
    '/api/users',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Create a user',
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 320 }),
            password: Type.String({ maxLength: 1024, description: 'at least 8 characters' }),
            display_name: Type.Optional(Type.String({ maxLength: 200 })),
            roles: Type.Array(Type.String(), { maxItems: 50 }),
          },
          { additionalProperties: false },
        ),
        response: { 201: User, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const user = await createUser(ctx.db, request.body);
      await ctx.audit(
        auditEntry(request, {
          action: 'user.create',
          target: user.email,
          outcome: 'success',
          details: { id: user.id, roles: user.roles },
        }),
      );
      return reply.code(201).send(user);
    },
  );

  app.patch(
    '/api/users/:id',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Change a user (a new password, disabling or new roles end their sessions)',
        params: IdParams,
        body: Type.Object(
          {
            email: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
            password: Type.Optional(Type.String({ maxLength: 1024 })),
            display_name: Type.Optional(Type.String({ maxLength: 200 })),
            roles: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
            disabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: User, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { user, sessionsEnded } = await updateUser(
        ctx.db,
        request.params.id,
        request.body,
        new Date(ctx.clock.now()),
      );
      if (sessionsEnded > 0) ctx.sessionEvents.ended({ userId: user.id });
      // Roles or the name may have changed: signed-in users' cached sessions are read again.
      ctx.sessionEvents.accessChanged();
      const changed = Object.keys(request.body).map((k) => (k === 'password' ? 'password (changed)' : k));
      await ctx.audit(
        auditEntry(request, {
          action: 'user.update',
          target: user.email,
          outcome: 'success',
          details: {
            id: user.id,
            changed,
            sessions_ended: sessionsEnded,
            ...(request.body.roles ? { roles: user.roles } : {}),
          },
        }),
      );
      return user;
    },
  );

  app.delete(
    '/api/users/:id',
    {
      config: { auth },
      schema: {
        tags,
        summary: 'Delete a user and end their sessions',
        params: IdParams,
        response: { 200: Type.Object({ ok: Type.Literal(true) }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const user = await deleteUser(ctx.db, request.params.id);
      ctx.sessionEvents.ended({ userId: user.id });
      await ctx.audit(
        auditEntry(request, {
          action: 'user.delete',
          target: user.email,
          outcome: 'success',
          details: { id: user.id },
        }),
      );
      return { ok: true as const };
    },
  );
};
