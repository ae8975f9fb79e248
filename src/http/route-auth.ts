import type { Capability } from '../auth/capabilities.ts';
import type { Actor } from '../auth/sessions.ts';

/**
 * How a route is protected, declared in its `config.auth`:
 * - omitted: any signed-in user;
 * - `'public'`: no sign-in (health, sign-in page, API reference);
 * - `{ capability }`: a signed-in user holding that capability;
 * - `{ capability, bearer: true }`: additionally accepts `Authorization: Bearer <DISPATCH_TOKEN>`.
 */
export type RouteAuth = 'public' | { capability?: Capability; bearer?: boolean };

/** One registered route and how it is protected. */
export interface RouteInfo {
  method: string;
  url: string;
  auth: RouteAuth | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /**
     * The audit action of a route whose handler records its successes itself: when the request
     * fails (a refused edit, a stale version, a bad upload) a `failure` record with the error code
     * is written by buildApp, so refusals of destructive or authoring actions leave a trace too.
     */
    auditFailures?: string;
  }
  interface FastifyRequest {
    /** Set by the authentication hook; null on public routes without a session. */
    actor: Actor | null;
  }
}

/** The signed-in user of a request on a protected route (throws if the hook did not run). */
export function userOf(actor: Actor | null): Extract<Actor, { kind: 'user' }> {
  if (actor?.kind !== 'user') throw new Error('route reached without a signed-in user');
  return actor;
}
