import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveSession } from '../auth/sessions.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { auditEntry } from './audit-entry.ts';
import { sessionCookieName } from './session-cookie.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * onRequest hook enforcing each route's `config.auth`. It runs before body parsing and validation,
 * so the order is always 401, then 403, then 400: an unauthenticated caller learns nothing about
 * its body. Credentials are read only from the Cookie and Authorization headers, never the query.
 */
export function createAuthenticateHook(ctx: AppContext) {
  const cookieName = sessionCookieName(ctx.config);
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.actor = null;
    const authorization = request.headers.authorization;
    const bearer = authorization !== undefined && /^bearer(\s|$)/i.test(authorization.trimStart());
    // Checked before the not-found case too: a Bearer token anywhere but the dispatch route is 401.
    if (bearer && request.is404) {
      throw new AppError('unauthenticated', 'Bearer tokens are accepted only on POST /api/noise/run');
    }
    if (request.is404) return;
    const declared = request.routeOptions.config.auth;
    // The API reference (served by a plugin that cannot carry route config) is public.
    const isPublic = declared === 'public' || request.routeOptions.url?.startsWith('/api/docs') === true;
    const auth = isPublic ? undefined : (declared as Exclude<typeof declared, 'public'>);

    if (bearer) {
      if (auth?.bearer !== true) {
        throw new AppError('unauthenticated', 'Bearer tokens are accepted only on POST /api/noise/run');
      }
      const token = authorization.trimStart().slice(6).trim();
      if (token === '' || !ctx.verifyDispatchToken(token)) {
        throw new AppError('unauthenticated', 'Invalid Bearer token');
      }
      request.actor = { kind: 'token' };
      return;
    }

    const token = request.cookies?.[cookieName];
    if (token) request.actor = await resolveSession(ctx.db, ctx.clock, ctx.sessionPolicy, token);

    if (!isPublic && request.actor === null) {
      throw new AppError('unauthenticated', 'Sign in first (POST /login)');
    }
    // decisions.md §2 for cookie-authenticated changes; sign-in from another origin is refused
    // too, so another site cannot sign a browser in to an account of its choosing (login CSRF).
    if (STATE_CHANGING.has(request.method)) refuseCrossOrigin(request, ctx.config.publicOrigin);

    const capability = auth?.capability;
    if (capability && request.actor?.kind === 'user' && !request.actor.capabilities.has(capability)) {
      await ctx.audit(
        auditEntry(request, {
          action: 'authz.denied',
          target: `${request.method} ${request.routeOptions.url}`,
          outcome: 'denied',
          details: { capability },
        }),
      );
      throw new AppError('forbidden', `This needs the ${capability} capability`, { details: { capability } });
    }
  };
}

/** decisions.md §2: a cookie-authenticated state change from another origin is refused. */
function refuseCrossOrigin(request: FastifyRequest, publicOrigin: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== publicOrigin) {
    throw new AppError('forbidden', `Cross-origin request refused (Origin ${origin.slice(0, 200)})`);
  }
  // Defence in depth: browsers mark requests made by other sites' pages.
  if (request.headers['sec-fetch-site'] === 'cross-site') {
    throw new AppError('forbidden', 'Cross-site request refused');
  }
}
