import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.ts';

/** The body of every non-2xx JSON response (decisions.md §3). */
export interface ErrorBody {
  ok: false;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Installs the one error handler and the 404 handler. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request, reply) => {
    const appErr = toAppError(err);
    // 503 unavailable (shutting down, ARCHIVE_MAX_CONCURRENT starts running) is the service
    // working as meant: worth seeing, not an error.
    if (appErr.code === 'unavailable') {
      request.log.info({ code: appErr.code, details: appErr.details }, appErr.message);
    } else if (appErr.status >= 500) {
      request.log.error({ err }, 'Request failed.');
    } else {
      request.log.debug({ code: appErr.code }, appErr.message);
    }
    return sendError(reply, appErr);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
}

/** Renders an AppError as decisions.md §3; adds Retry-After for rate limiting when known. */
export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  const body: ErrorBody = { ok: false, error: { code: err.code, message: err.message } };
  if (err.details !== undefined) body.error.details = err.details;
  const retry = err.details?.retry_after_seconds;
  if (typeof retry === 'number') void reply.header('retry-after', String(retry));
  return reply.code(err.status).type('application/json; charset=utf-8').send(body);
}

/** Maps anything thrown during a request (ours, Fastify's, or a bug) to an AppError. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & { validationContext?: string };
  if (fe && Array.isArray(fe.validation)) {
    const fields: Record<string, string> = {};
    for (const v of fe.validation) {
      const params = v.params as Record<string, unknown>;
      let at = (v.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
      if (typeof params?.missingProperty === 'string')
        at = at ? `${at}.${params.missingProperty}` : params.missingProperty;
      if (typeof params?.additionalProperty === 'string') {
        at = at ? `${at}.${params.additionalProperty}` : params.additionalProperty;
        fields[at || '(root)'] = 'is not a known field';
        continue;
      }
      const key = at || '(root)';
      fields[key] ??= v.message ?? 'is invalid';
    }
    const part = fe.validationContext ?? 'request';
    const names = Object.keys(fields).join(', ');
    return new AppError('invalid_input', `Invalid ${part}: ${names}`, { details: { in: part, fields } });
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 500) return new AppError('internal', 'Internal server error', { cause: err });
  const code: ErrorCode =
    status === 413
      ? 'payload_too_large'
      : status === 415
        ? 'unsupported_media_type'
        : status === 404
          ? 'not_found'
          : status === 429
            ? 'rate_limited'
            : 'invalid_input';
  const message =
    fe?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
      ? `Unsupported Content-Type; send ${'application/json'}`
      : (fe?.message ?? 'Bad request');
  return new AppError(code, message, {
    status: ERROR_STATUS[code] === status ? undefined : status,
    cause: err,
  });
}
