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
    /** Audits a refusal by this hook (best effort) and hands back the error to throw. */
    const refused = async (error: AppError, details: Record<string, unknown>): Promise<AppError> => {
      await auditRefusal(ctx, request, details);
      return error;
    };
    const authorization = request.headers.authorization;
    const bearer = authorization !== undefined && /^bearer(\s|$)/i.test(authorization.trimStart());
    // Checked before the not-found case too: a Bearer token anywhere but the dispatch route is 401.
    if (bearer && request.is404) {
      throw await refused(bearerNotAccepted(), { reason: 'bearer_not_accepted' });
    }
    if (request.is404) return;
    const declared = request.routeOptions.config.auth;
    // The API reference (/api/docs, /api/openapi.json) needs a signed-in user like every API route
    // but health (spec 5.1, decisions.md §5).
    const isPublic = declared === 'public';
    const auth = isPublic ? undefined : (declared as Exclude<typeof declared, 'public'>);

    if (bearer) {
      if (auth?.bearer !== true) {
        throw await refused(bearerNotAccepted(), { reason: 'bearer_not_accepted' });
      }
      const token = authorization.trimStart().slice(6).trim();
      if (token === '' || !ctx.verifyDispatchToken(token)) {
        // The token itself is never recorded: a near miss would leak most of the real one.
        throw await refused(new AppError('unauthenticated', 'Invalid Bearer token'), {
          reason: 'invalid_bearer_token',
        });
      }
      request.actor = { kind: 'token' };
      return;
    }

    const token = request.cookies?.[cookieName];
    if (token) {
      const session = await ctx.sessionCache.resolve(token, (t) =>
        resolveSession(ctx.db, ctx.clock, ctx.sessionPolicy, t),
      );
      request.actor = session?.actor ?? null;
    }

    // Not audited: a missing or expired session is what every anonymous probe and every stale
    // browser tab produces, and a record for each would let anyone flood the audit log.
    if (!isPublic && request.actor === null) {
      throw new AppError('unauthenticated', 'Sign in first (POST /login)');
    }
    // decisions.md §2 for cookie-authenticated changes; sign-in from another origin is refused
    // too, so another site cannot sign a browser in to an account of its choosing (login CSRF).
    const crossOrigin = STATE_CHANGING.has(request.method)
      ? crossOriginRefusal(request, ctx.config.publicOrigin)
      : undefined;
    if (crossOrigin) throw await refused(crossOrigin.error, crossOrigin.details);

    const capability = auth?.capability;
    if (capability && request.actor?.kind === 'user' && !request.actor.capabilities.has(capability)) {
      throw await refused(
        new AppError('forbidden', `This needs the ${capability} capability`, { details: { capability } }),
        { capability },
      );
    }
  };
}

function bearerNotAccepted(): AppError {
  return new AppError('unauthenticated', 'Bearer tokens are accepted only on POST /api/noise/run');
}

/** decisions.md §2: a cookie-authenticated state change from another origin is refused. */
function crossOriginRefusal(
  request: FastifyRequest,
  publicOrigin: string,
): { error: AppError; details: Record<string, unknown> } | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== publicOrigin) {
    const shown = origin.slice(0, 200);
    return {
      error: new AppError('forbidden', `Cross-origin request refused (Origin ${shown})`),
      details: { reason: 'cross_origin', origin: shown },
    };
  }
  // Defence in depth: browsers mark requests made by other sites' pages.
  if (request.headers['sec-fetch-site'] === 'cross-site') {
    return {
      error: new AppError('forbidden', 'Cross-site request refused'),
      details: { reason: 'cross_site' },
    };
  }
  return undefined;
}

/** Writes the `authz.denied` record of a refusal; a failed write is logged and never changes the answer. */
async function auditRefusal(
  ctx: AppContext,
  request: FastifyRequest,
  details: Record<string, unknown>,
): Promise<void> {
  // Unmatched requests have no route pattern: record the path, without a query that may carry secrets.
  const route = request.routeOptions.url ?? (request.url.split('?', 1)[0] ?? '').slice(0, 200);
  try {
    await ctx.audit(
      auditEntry(request, {
        action: 'authz.denied',
        target: `${request.method} ${route}`,
        outcome: 'denied',
        details,
      }),
    );
  } catch (err) {
    // ctx.audit already swallows database errors; this covers any other audit sink that throws.
    request.log.error({ err, details }, 'Refused request could not be audited.');
  }
}
