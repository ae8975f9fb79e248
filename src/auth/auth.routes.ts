import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { auditEntry } from '../http/audit-entry.ts';
import { errors } from '../http/common-schemas.ts';
import { userOf } from '../http/route-auth.ts';
import { sessionCookieName, sessionCookieOptions } from '../http/session-cookie.ts';
import { normalizeEmail } from '../users/user-service.ts';
import { deleteSession, hashSessionToken } from './sessions.ts';
import { signIn } from './sign-in.ts';
import { signInPage } from './sign-in-page.ts';

const SignedInUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  display_name: Type.String(),
  capabilities: Type.Array(Type.String()),
});
const SignedInBody = Type.Object({ ok: Type.Literal(true), user: SignedInUser });

/** POST /login, POST /logout, GET /login (page) and GET /api/me (decisions.md §2). */
export const authRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const cookieName = sessionCookieName(ctx.config);
  const cookieOptions = sessionCookieOptions(ctx.config);

  app.get('/login', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header(
        'content-security-policy',
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'`,
      )
      .send(signInPage(nonce));
  });

  app.post(
    '/login',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Sign in; sets the session cookie',
        body: Type.Object(
          {
            email: Type.String({ minLength: 1, maxLength: 320 }),
            password: Type.String({ minLength: 1, maxLength: 1024 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SignedInBody, ...errors(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const email = normalizeEmail(request.body.email);
      const result = await signIn(ctx, { email, password: request.body.password, ip: request.ip });
      if (result.kind === 'throttled') {
        await ctx.audit({
          ...auditEntry(request, {
            action: 'auth.login',
            target: email,
            outcome: 'denied',
            details: { reason: 'throttled' },
          }),
          actorLabel: email,
        });
        throw new AppError('rate_limited', 'Too many failed sign-ins; try again later', {
          details: { retry_after_seconds: result.retryAfter },
        });
      }
      if (result.kind === 'refused') {
        await ctx.audit({
          ...auditEntry(request, { action: 'auth.login', target: email, outcome: 'failure' }),
          actorLabel: email,
        });
        throw new AppError('unauthenticated', 'Wrong e-mail or password');
      }
      // Session rotation: whatever session the browser held before is ended.
      const previous = request.cookies[cookieName];
      if (previous) {
        const previousHash = hashSessionToken(previous);
        await deleteSession(ctx.db, previousHash);
        ctx.sessionEvents.ended({ sessionHash: previousHash });
      }
      const session = await result.startSession({
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
      });
      await ctx.audit({
        actor: { kind: 'user', ...result.user, sessionHash: '' },
        ip: request.ip,
        action: 'auth.login',
        target: email,
        outcome: 'success',
      });
      reply.setCookie(cookieName, session.token, cookieOptions);
      return {
        ok: true as const,
        user: {
          id: result.user.userId,
          email: result.user.email,
          display_name: result.user.displayName,
          capabilities: [...result.user.capabilities].sort(),
        },
      };
    },
  );

  app.post(
    '/logout',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'End the session',
        response: { 200: Type.Object({ ok: Type.Literal(true) }) },
      },
    },
    async (request, reply) => {
      if (request.actor?.kind === 'user') {
        await deleteSession(ctx.db, request.actor.sessionHash);
        ctx.sessionEvents.ended({ sessionHash: request.actor.sessionHash });
        await ctx.audit(auditEntry(request, { action: 'auth.logout', outcome: 'success' }));
      }
      reply.clearCookie(cookieName, {
        path: '/',
        secure: ctx.config.secureCookies,
        httpOnly: true,
        sameSite: 'lax',
      });
      return { ok: true as const };
    },
  );

  app.get(
    '/api/me',
    {
      schema: {
        tags: ['auth'],
        summary: 'The signed-in user',
        response: { 200: SignedInBody, ...errors(401) },
      },
    },
    async (request) => {
      const user = userOf(request.actor);
      return {
        ok: true as const,
        user: {
          id: user.userId,
          email: user.email,
          display_name: user.displayName,
          capabilities: [...user.capabilities].sort(),
        },
      };
    },
  );
};
