import createClient from 'openapi-fetch';
import type { paths } from './schema.gen.ts';

/** The API, typed from the service's OpenAPI document; same origin, the session cookie rides along. */
export const api = createClient<paths>({
  baseUrl: '',
  credentials: 'same-origin',
  // Looked up at each call, not at load: component tests replace the global fetch.
  fetch: (request) => globalThis.fetch(request),
});

/** Field messages of a 400 (`details.fields`), by field name. */
export type FieldErrors = Record<string, string>;

/** An error answer of the API in its one shape (decisions §3), or a network failure (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** The per-field messages of a validation error, if any. */
  get fields(): FieldErrors {
    const fields = this.details.fields;
    return fields && typeof fields === 'object' ? (fields as FieldErrors) : {};
  }
}

interface ErrorShape {
  error?: { code?: string; message?: string; details?: Record<string, unknown> };
}

/**
 * Awaits an openapi-fetch call and answers its data, or throws an ApiError built from the error
 * body, so every page handles failures one way (TanStack Query's `error`).
 */
export async function call<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch (err) {
    throw new ApiError(
      0,
      'network',
      `The service did not answer: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const { data, error, response } = result;
  if (!response.ok || error !== undefined) {
    const body = (error ?? {}) as ErrorShape;
    throw new ApiError(
      response.status,
      body.error?.code ?? `http_${response.status}`,
      body.error?.message ?? `${response.status} ${response.statusText}`,
      body.error?.details ?? {},
    );
  }
  return data as T;
}
