import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { errors } from '../http/common-schemas.ts';
import { listAudit } from './audit-log.ts';

/** Largest audit record id: the column is a PostgreSQL bigint. */
const MAX_AUDIT_ID = 2n ** 63n - 1n;

const Record_ = Type.Object({
  id: Type.String(),
  at: Type.String({ format: 'date-time' }),
  actor_type: Type.String({ description: 'user, token, system or anonymous' }),
  actor_id: Type.Union([Type.String(), Type.Null()]),
  actor: Type.Union([Type.String(), Type.Null()], { description: 'e-mail of the user, or what was tried' }),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.String({
    description:
      'success, failure, denied, or started (written when a wipe or a session start begins; its end is a ' +
      'later record, which for a session start names it in details.started_id)',
  }),
  details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
});

/** GET /api/audit for `manage_users`: newest first, filterable, keyset-paginated by `before`. */
export const auditRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/audit',
    {
      config: { auth: { capability: 'manage_users' } },
      schema: {
        tags: ['audit'],
        summary: 'Audit log: who did what, when, from where',
        querystring: Type.Object(
          {
            action: Type.Optional(
              Type.String({ maxLength: 100, description: 'exact action, or a prefix ending in "."' }),
            ),
            actor: Type.Optional(Type.String({ maxLength: 320, description: 'user id or e-mail' })),
            outcome: Type.Optional(
              Type.Union([
                Type.Literal('success'),
                Type.Literal('failure'),
                Type.Literal('denied'),
                Type.Literal('started'),
              ]),
            ),
            since: Type.Optional(Type.String({ format: 'date-time', description: 'records at or after' })),
            until: Type.Optional(Type.String({ format: 'date-time', description: 'records before' })),
            before: Type.Optional(
              Type.String({
                pattern: '^[0-9]{1,19}$',
                description: 'id of the last record of the previous page',
              }),
            ),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
          },
          // Other query parameters are ignored, never refused (decisions.md §2 on tokens in the query).
          { additionalProperties: true },
        ),
        response: { 200: Type.Array(Record_), ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const q = request.query;
      // 19 digits still run past the bigint id column, which PostgreSQL refuses with an error.
      if (q.before !== undefined && BigInt(q.before) > MAX_AUDIT_ID) {
        throw new AppError('invalid_input', 'Invalid querystring: before', {
          details: { in: 'querystring', fields: { before: `must be at most ${MAX_AUDIT_ID}` } },
        });
      }
      return listAudit(ctx.db, {
        action: q.action,
        actor: q.actor,
        outcome: q.outcome,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
        before: q.before,
        limit: q.limit ?? 100,
      });
    },
  );
};
