import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { attemptRoutes } from '../attempts/attempt.routes.ts';
import { auditRoutes } from '../audit/audit.routes.ts';
import { authRoutes } from '../auth/auth.routes.ts';
import type { AppContext } from '../context.ts';
import { destinationRoutes } from '../destinations/destination.routes.ts';
import { AppError } from '../errors.ts';
import { bundleRoutes } from '../exercises/bundle/bundle.routes.ts';
import { exerciseRoutes } from '../exercises/exercise.routes.ts';
import { exerciseLifecycleRoutes } from '../exercises/exercise-lifecycle.routes.ts';
import { labSessionRoutes } from '../lab-sessions/lab-session.routes.ts';
import { logSourceRoutes } from '../log-sources/log-source.routes.ts';
import { noiseRoutes } from '../noise/noise.routes.ts';
import { platformStatusRoutes } from '../platform-status/platform-status.routes.ts';
import { roleRoutes } from '../roles/role.routes.ts';
import { userRoutes } from '../users/user.routes.ts';
import { auditEntry } from './audit-entry.ts';
import { createAuthenticateHook } from './authenticate.ts';
import { ErrorBody } from './common-schemas.ts';
import { consoleRoutes } from './console.ts';
import { installErrorHandlers } from './error-handler.ts';
import { createFrameworkErrorHandler, MAX_PARAM_LENGTH } from './framework-errors.ts';
import { healthRoutes } from './health.routes.ts';
import type { RouteInfo } from './route-auth.ts';
import { createTextRulesHook } from './text-rules.ts';
import { createValidatorCompiler } from './validator.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered after start-up wiring, with its auth declaration. */
    routeTable: RouteInfo[];
    /**
     * Starts refusing requests (503 in the error shape, `Connection: close`) while the server still
     * listens, so clients move to another instance during a shutdown's drain (main.ts).
     */
    refuseRequests(): void;
  }
}

/** The application instance with TypeBox typing. */
export type App = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Assembles the HTTP application from a context; never listens (tests use inject()). */
export async function buildApp(ctx: AppContext): Promise<App> {
  // Every route's method, URL and auth declaration, for the authorization matrix test and docs.
  const routes: RouteInfo[] = [];
  const authenticate = createAuthenticateHook(ctx);
  const frameworkErrors = createFrameworkErrorHandler({
    authenticate,
    routes,
    trustProxy: ctx.config.trustProxy,
  });
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Validation errors name every bad field; unknown fields are errors, not silently dropped.
    ajv: {
      customOptions: { allErrors: true, removeAdditional: false, coerceTypes: 'array', useDefaults: true },
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Fastify's own 503 while closing has its own body; the hook below answers in the API's shape.
    return503OnClosing: false,
    // The router refuses a malformed URL or an overlong path parameter before any hook runs, so
    // neither the auth hook nor the onSend hook sees it: the handler does both jobs itself.
    frameworkErrors: (err, request, reply) => {
      securityHeaders(reply);
      frameworkErrors(err, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON only: refusing text/plain keeps "simple" cross-site form posts away from the API.
  app.removeContentTypeParser('text/plain');
  // An empty body labelled JSON is no body: many clients send the header on every request, also on
  // a DELETE that takes none. Routes that need a body still refuse its absence by their schema.
  // Non-empty bodies keep Fastify's parser (it refuses `__proto__` and `constructor` keys).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') done(null, undefined);
    // Called with `done`, the default parser answers through it; its type also allows a promise.
    else void parseJson(req, body as string, done);
  });
  // Validation errors name every bad field; unknown fields are errors, not silently dropped.
  app.setValidatorCompiler(createValidatorCompiler());
  app.decorateRequest('actor', null);
  installErrorHandlers(app as unknown as FastifyInstance);
  await app.register(cookie);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Socdrill API',
        version: '0.1.0',
        description:
          'Security-operations training lab: ships exercise logs into SIEMs, runs background noise, wipes SIEM data. ' +
          'Authenticate with the session cookie from POST /login; only POST /api/noise/run also accepts ' +
          '`Authorization: Bearer <DISPATCH_TOKEN>`. Errors: `{ ok: false, error: { code, message, details? } }`.',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'socdrill_session' },
          dispatchToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  app.decorate('routeTable', routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: route.url, auth: route.config?.auth });
    }
  });
  app.addSchema(ErrorBody);
  // Closing: new requests get 503 in the error shape, and every answer closes its connection so
  // clients reconnect to another instance. Background work (runs, streams) is stopped by the
  // context meanwhile (main.ts), which lets the requests waiting on it answer.
  let closing = false;
  app.decorate('refuseRequests', () => {
    closing = true;
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new AppError(
      'unavailable',
      'Socdrill is shutting down; retry on another instance or after the restart',
    );
  });
  app.addHook('onRequest', authenticate);
  // Failures of routes that declare `auditFailures` (route-auth.ts); 401/403 are recorded by the
  // authentication hook as authz.denied already.
  app.addHook('onError', async (request, reply, error) => {
    const action = request.routeOptions.config.auditFailures;
    if (action === undefined || reply.statusCode === 401 || reply.statusCode === 403) return;
    const appError = error instanceof AppError ? error : undefined;
    if (appError && (appError.status === 401 || appError.status === 403)) return;
    await ctx.audit(
      auditEntry(request, {
        action,
        target: (request.params as { id?: string } | undefined)?.id ?? null,
        outcome: 'failure',
        details: { code: appError?.code ?? 'internal', message: error.message.slice(0, 500) },
      }),
    );
  });
  // Control characters and lone surrogates are refused here for every route (text-rules.ts).
  app.addHook('preValidation', createTextRulesHook());
  app.addHook('onSend', async (_request, reply) => {
    securityHeaders(reply);
    // server.close() reaps only the connections idle at that moment: an answer sent while the
    // service stops (a session start finishing, a cancelled dispatch) would keep its connection,
    // and the close with it, until the keep-alive timeout.
    if (closing) reply.header('connection', 'close');
  });
  // Request durations for the exporter (src/metrics), labelled by the matched route's pattern
  // (`/api/noise/jobs/:id`), never the raw URL, so label values stay as few as the routes.
  app.addHook('onResponse', async (request, reply) => {
    ctx.metrics.httpRequest(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });

  await app.register(healthRoutes);
  await app.register(authRoutes, { ctx });
  await app.register(userRoutes, { ctx });
  await app.register(roleRoutes, { ctx });
  await app.register(destinationRoutes, { ctx });
  await app.register(auditRoutes, { ctx });
  await app.register(labSessionRoutes, { ctx });
  await app.register(platformStatusRoutes, { ctx });
  await app.register(noiseRoutes, { ctx });
  await app.register(exerciseRoutes, { ctx });
  await app.register(exerciseLifecycleRoutes, { ctx });
  await app.register(attemptRoutes, { ctx });
  await app.register(logSourceRoutes, { ctx });
  await app.register(bundleRoutes, { ctx });
  await app.register(consoleRoutes);

  // Signed in, like the reference at /api/docs (decisions.md §5): only health is open.
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

/** Headers on every answer: no content sniffing, and no caching unless a route allows it. */
function securityHeaders(reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
}
