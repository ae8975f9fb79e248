import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { sendError, toAppError } from './error-handler.ts';
import type { RouteInfo } from './route-auth.ts';

/**
 * Longest path parameter the router accepts (Fastify's default is 100). Ids and names are far
 * shorter, but a longer one must still reach the authentication hook and the route's own lookup
 * or validation; only beyond this does the router refuse it.
 */
export const MAX_PARAM_LENGTH = 1000;

/** What the router-error handler needs from the app being built. */
export interface FrameworkErrorOptions {
  /** The app's onRequest authentication hook: it decides 401 and 403 here as on every route. */
  authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Registered routes with their auth declarations (filled while the app is built). */
  routes: readonly RouteInfo[];
  /** Fastify's `trustProxy`, for the client address of an audit record. */
  trustProxy: boolean;
}

/**
 * Fastify's `frameworkErrors` option. The router refuses a malformed URL (bad percent-encoding)
 * or an overlong path parameter before any hook runs. This first runs the authentication hook for
 * the route the path would reach, so the order stays 401, then 403, then 400 (and a Bearer header
 * anywhere but the dispatch route is 401), and answers in the decisions.md §3 shape.
 */
export function createFrameworkErrorHandler(
  options: FrameworkErrorOptions,
): (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (err, request, reply) => {
    // Fastify does not await this option: a failure must still end in an answer.
    answer(err, request, reply, options).catch((cause: unknown) => {
      request.log.error({ err: cause }, 'Request failed.');
      if (!reply.sent) sendError(reply, toAppError(cause));
    });
  };
}

async function answer(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  options: FrameworkErrorOptions,
): Promise<void> {
  const segments = pathSegments(request.url);
  const route = findRoute(options.routes, request.method, segments);
  try {
    await options.authenticate(asRouted(request, route, options.trustProxy), reply);
  } catch (authErr) {
    const appErr = toAppError(authErr);
    if (appErr.status >= 500) request.log.error({ err: authErr }, 'Request failed.');
    sendError(reply, appErr);
    return;
  }
  request.log.debug({ code: err.code }, err.message);
  sendError(reply, refusal(err, route, segments));
}

/**
 * The request as the authentication hook sees it on a matched route. The router failed before
 * Fastify attached the route and before the cookie plugin ran, so those parts are filled in from
 * the route table and the Cookie header; everything else is the real request.
 */
function asRouted(
  request: FastifyRequest,
  route: RouteInfo | undefined,
  trustProxy: boolean,
): FastifyRequest {
  const header = request.headers.cookie;
  const props: PropertyDescriptorMap = {
    actor: { value: null, writable: true },
    is404: { value: route === undefined },
    routeOptions: { value: { url: route?.url, config: { auth: route?.auth } } },
    cookies: { value: header ? request.server.parseCookie(header) : {} },
  };
  // The request object Fastify builds for a router error ignores trustProxy; trusting every proxy,
  // Fastify takes the first X-Forwarded-For address as the client's.
  if (trustProxy) props.ip = { value: forwardedClient(request) ?? request.ip };
  return Object.create(request, props) as FastifyRequest;
}

function forwardedClient(request: FastifyRequest): string | undefined {
  const forwarded = request.headers['x-forwarded-for'];
  const list = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
  const first = list?.split(',')[0]?.trim();
  return first === '' ? undefined : first;
}

/** The path's raw segments (query and a trailing slash dropped, as the router does). */
function pathSegments(url: string): string[] {
  let path = url.split('?')[0] ?? '';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path.split('/');
}

/** The registered route the path would reach: the one with the most static segments that fits. */
function findRoute(routes: readonly RouteInfo[], method: string, segments: string[]): RouteInfo | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  let best: RouteInfo | undefined;
  let bestStatics = -1;
  for (const route of routes) {
    if (route.method !== wanted) continue;
    const statics = staticMatches(route.url.split('/'), segments);
    if (statics > bestStatics) {
      best = route;
      bestStatics = statics;
    }
  }
  return best;
}

/** How many static segments of the pattern the path matches, or -1 when it does not fit. */
function staticMatches(pattern: string[], segments: string[]): number {
  let statics = 0;
  for (let i = 0; i < pattern.length; i += 1) {
    const part = pattern[i] as string;
    const segment = segments[i];
    if (segment === undefined) return -1;
    if (part === '*') return statics;
    if (part.startsWith(':')) {
      if (segment === '') return -1;
      continue;
    }
    if (part !== segment) return -1;
    statics += 1;
  }
  return pattern.length === segments.length ? statics : -1;
}

/** The 400 for a request the router refused, naming the bad path parameters when it can. */
function refusal(err: FastifyError, route: RouteInfo | undefined, segments: string[]): AppError {
  const fields: Record<string, string> = {};
  const pattern = route?.url.split('/') ?? [];
  for (let i = 0; i < pattern.length; i += 1) {
    const part = pattern[i] as string;
    const segment = segments[i] ?? '';
    if (!part.startsWith(':')) continue;
    const decoded = decode(segment);
    if (err.code === 'FST_ERR_BAD_URL' && decoded === undefined) {
      fields[part.slice(1)] = 'is not valid percent-encoding';
    } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH' && (decoded ?? segment).length > MAX_PARAM_LENGTH) {
      fields[part.slice(1)] = `must NOT have more than ${MAX_PARAM_LENGTH} characters`;
    }
  }
  if (Object.keys(fields).length > 0) {
    return new AppError('invalid_input', `Invalid params: ${Object.keys(fields).join(', ')}`, {
      details: { in: 'params', fields },
    });
  }
  if (err.code === 'FST_ERR_BAD_URL') {
    return new AppError('invalid_input', 'Invalid URL: the path is not valid percent-encoding');
  }
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new AppError(
      'invalid_input',
      `Invalid URL: a path segment is longer than ${MAX_PARAM_LENGTH} characters`,
    );
  }
  return toAppError(err);
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
