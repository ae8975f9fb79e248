/** Machine-readable error codes; each maps to one HTTP status in the error handler. */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'job_running'
  | 'destination_disabled'
  | 'source_identity_required'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'archive_url_blocked'
  | 'archive_invalid'
  | 'unknown_format'
  | 'precondition_failed'
  | 'archive_download_failed'
  | 'no_events'
  | 'siem_error'
  | 'shipment_deadline'
  | 'siem_unreachable'
  | 'siem_q_not_ready'
  | 'siem_q_unreachable'
  | 'siem_q_error'
  | 'bad_gateway'
  | 'unavailable'
  | 'internal';

/** HTTP status for each error code (decisions.md §3). */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  archive_url_blocked: 400,
  archive_invalid: 400,
  // Spec 2.5: content that is neither LEEF nor ECS fails closed, naming the file and entry.
  unknown_format: 400,
  // A PATCH with a stale If-Match version (decisions.md §6).
  precondition_failed: 412,
  no_events: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  unsupported_media_type: 415,
  conflict: 409,
  job_running: 409,
  destination_disabled: 409,
  source_identity_required: 400,
  payload_too_large: 413,
  rate_limited: 429,
  siem_error: 500,
  // A shipment stopped by SHIPMENT_DEADLINE_SECONDS: a failure while shipping (decisions.md §5).
  shipment_deadline: 500,
  siem_unreachable: 500,
  // Spec 3.3: a section's log source is not ready; details.sections names each and why.
  siem_q_not_ready: 409,
  // Spec 4.2: the SIEM Q console could not be reached, or refused (token, settings): start fails.
  siem_q_unreachable: 500,
  siem_q_error: 500,
  internal: 500,
  bad_gateway: 502,
  // spec part 7 lists 400/401/403/500 for session start: a failed download is a 500 there.
  archive_download_failed: 500,
  unavailable: 503,
};

/** What an AppError may carry besides its code and message. */
export interface AppErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Overrides the status derived from the code (rarely needed). */
  status?: number;
}

/** The one error type domain code throws; the HTTP layer renders it as decisions.md §3. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly status: number;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.status = options.status ?? ERROR_STATUS[code];
  }
}

/** True when `err` is an AppError of this module (an `instanceof` check, usable as a type guard). */
export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/**
 * A 400 naming each bad field: `invalidInput('Invalid destination', { port: 'must be 1-65535' })`
 * has the message "Invalid destination: port must be 1-65535" and `details.fields`.
 */
export function invalidInput(message: string, fields?: Record<string, string>): AppError {
  if (!fields) return new AppError('invalid_input', message);
  const list = Object.entries(fields)
    .map(([k, v]) => `${k} ${v}`)
    .join('; ');
  return new AppError('invalid_input', `${message}: ${list}`, { details: { fields } });
}

/** True for a UUID in its canonical text form (ids of users, jobs and runs). */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

/** Shorthand for a 404 of a named resource: `destination "x" does not exist`, `details: { destination: 'x' }`. */
export function notFound(what: string, id: string): AppError {
  return new AppError('not_found', `${what} "${id}" does not exist`, { details: { [what]: id } });
}
