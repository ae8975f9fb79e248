import type { ConsoleFailure } from '../../log-source-admin.ts';
import { backoffDelay, parseRetryAfter, type RetryPolicy, type Wait } from '../../shared/backoff.ts';
import { DEFAULT_TIMEOUTS, HttpEndpoint, type HttpTimeouts } from '../../shared/http-endpoint.ts';
import type { SecretScrubber } from '../../shared/secret-scrubber.ts';
import { clip, siemMessage } from '../../shared/siem-message.ts';

/** Tuning of the console client; tests shorten waits and timeouts. */
export interface ConsoleOptions {
  readonly timeouts?: Partial<HttpTimeouts>;
  readonly retry?: Partial<RetryPolicy>;
  readonly wait: Wait;
  readonly random?: () => number;
  readonly now: () => number;
}

/**
 * Four tries within about three seconds for a console that is busy (429) or restarting (503): a
 * publish or an attempt start waits for it, so a long patience would hold a person's click.
 */
export const CONSOLE_RETRY: RetryPolicy = { attempts: 4, baseMs: 250, capMs: 2_000 };

/** Ten seconds to connect, twenty of silence: console list calls over thousands of rows are slow. */
const CONSOLE_TIMEOUTS: HttpTimeouts = { ...DEFAULT_TIMEOUTS, readMs: 20_000 };

/** Items per page of a list call (`Range: items=x-y`): small bodies, a few calls. */
export const PAGE_SIZE = 200;

/** A list never reads more than this many items (a filter that matched far too much). */
export const MAX_LIST_ITEMS = 20_000;

/** The oldest API version the log-source endpoints are documented in (protocols 4.9). */
export const MIN_API_VERSION = '12.0';

/** A successful answer: status and parsed JSON body. */
export interface ConsoleAnswer {
  readonly ok: true;
  readonly status: number;
  readonly body: unknown;
  readonly contentRange: string | undefined;
}

/** An error answer of the console, read from its body (protocols 4.3), besides the failure. */
export interface ConsoleRefusal extends ConsoleFailure {
  /** HTTP status, when there was an answer. */
  readonly status?: number;
  /** The endpoint-specific code of the error body (1001, 1002, 1008, …). */
  readonly code?: number;
}

/** One call: path below the console base, query parameters, a JSON body, a page. */
export interface ConsoleCall {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly query?: Record<string, string | undefined>;
  readonly body?: unknown;
  /** `Range: items=from-to`, zero-based inclusive. */
  readonly range?: { readonly from: number; readonly to: number };
  readonly signal: AbortSignal;
}

/** Options of a list call. */
export interface ListQuery {
  readonly filter?: string;
  readonly fields?: string;
  readonly sort?: string;
  readonly query?: Record<string, string>;
}

/**
 * The SIEM Q console's REST client (protocols-qradar-leef-syslog.md §4): every call carries the
 * `SEC` token, `Version` and `Accept` headers; lists page with `Range`/`Content-Range`; errors are
 * read from the console's error body; 429 and 503 are retried a few times with jittered backoff
 * (a Retry-After counts, within the cap). Nothing throws but a cancelled signal.
 */
export class SiemQConsole {
  readonly #endpoint: HttpEndpoint;
  readonly #token: string;
  readonly #siem: string;
  readonly #scrubber: SecretScrubber;
  readonly #retry: RetryPolicy;
  readonly #options: ConsoleOptions;
  /** The API version sent; set by negotiateVersion(). */
  version: string = MIN_API_VERSION;

  constructor(
    settings: { console_url: string; token: string | null; tls_verify: boolean; ca_pem: string | null },
    siem: string,
    scrubber: SecretScrubber,
    options: ConsoleOptions,
  ) {
    this.#siem = siem;
    this.#token = settings.token ?? '';
    this.#scrubber = scrubber;
    this.#retry = { ...CONSOLE_RETRY, ...options.retry };
    this.#options = options;
    this.#endpoint = new HttpEndpoint(settings.console_url, settings, {
      connections: 4,
      timeouts: { ...CONSOLE_TIMEOUTS, ...options.timeouts },
      scrubber,
    });
  }

  /** `scheme://host:port` of the console, for messages. */
  get label(): string {
    return this.#endpoint.label('').replace(/\/$/, '');
  }

  /** A message naming the SIEM and the console endpoint of `path`. */
  describe(path: string, cause: string): string {
    return this.#scrubber.text(
      siemMessage(this.#siem, `SIEM Q console ${this.#endpoint.label(path)}`, cause),
    );
  }

  /**
   * Reads `GET /api/help/versions` and picks the newest version the console still serves, at least
   * MIN_API_VERSION; a console without that endpoint keeps MIN_API_VERSION. Sent as `Version` from
   * then on.
   */
  async negotiateVersion(signal: AbortSignal): Promise<{ ok: true; version: string } | ConsoleRefusal> {
    const answer = await this.call({ method: 'GET', path: '/api/help/versions', signal }, false);
    if (!answer.ok) {
      if (answer.status === 404) return { ok: true, version: this.version };
      return answer;
    }
    const offered = Array.isArray(answer.body) ? answer.body : [];
    const usable = offered
      .filter((v): v is { version: string; removed?: unknown } => typeof v?.version === 'string')
      .filter((v) => v.removed !== true && /^\d+(\.\d+)?$/.test(v.version))
      .map((v) => v.version)
      .filter((v) => compareVersions(v, MIN_API_VERSION) >= 0)
      .sort(compareVersions);
    const newest = usable.at(-1);
    if (newest === undefined) {
      const listed = offered.map((v) => String(v?.version)).join(', ') || 'none';
      return refusal(
        'refused',
        this.describe(
          '/api/help/versions',
          `no API version ${MIN_API_VERSION} or newer is served (offered: ${clip(listed, 200)})`,
        ),
      );
    }
    this.version = newest;
    return { ok: true, version: newest };
  }

  /** One call, retried on 429/503; the body parsed as JSON (null when empty). */
  async call(req: ConsoleCall, sendVersion = true): Promise<ConsoleAnswer | ConsoleRefusal> {
    const path = withQuery(req.path, req.query);
    const headers: Record<string, string> = { sec: this.#token, accept: 'application/json' };
    if (sendVersion) headers.version = this.version;
    if (req.range) headers.range = `items=${req.range.from}-${req.range.to}`;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    for (let attempt = 1; ; attempt++) {
      if (req.signal.aborted) throw req.signal.reason ?? new Error('cancelled');
      const answer = await this.#endpoint.request({
        method: req.method,
        path,
        headers,
        signal: req.signal,
        ...(body !== undefined ? { body } : {}),
      });
      if (answer.kind === 'network') {
        if (answer.cancelled) throw req.signal.reason ?? new Error('cancelled');
        return refusal('unreachable', this.describe(req.path, answer.message));
      }
      const retriable = answer.status === 429 || answer.status === 503;
      if (retriable && attempt < this.#retry.attempts) {
        const after = parseRetryAfter(answer.headers['retry-after'], this.#options.now());
        const delay = backoffDelay(attempt, this.#retry, this.#options.random, after);
        if (!(await this.#options.wait(delay, req.signal))) throw req.signal.reason ?? new Error('cancelled');
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) {
        let parsed: unknown = null;
        if (answer.text.trim() !== '') {
          try {
            parsed = JSON.parse(answer.text);
          } catch {
            return refusal(
              'refused',
              this.describe(
                req.path,
                `HTTP ${answer.status} with a body that is not JSON: ${clip(answer.text, 120)}`,
              ),
              answer.status,
            );
          }
        }
        const range = answer.headers['content-range'];
        return {
          ok: true,
          status: answer.status,
          body: parsed,
          contentRange: Array.isArray(range) ? range[0] : range,
        };
      }
      const error = readConsoleError(answer.text);
      const cause = `HTTP ${answer.status}${error.code !== undefined ? ` (code ${error.code})` : ''}${error.text ? `: ${error.text}` : ''}${authHint(answer.status)}`;
      return refusal(reasonOf(answer.status), this.describe(req.path, cause), answer.status, error.code);
    }
  }

  /**
   * Every item of a list endpoint, a page at a time (`Range`), until `Content-Range` says the last
   * one arrived or a short page ends it; never more than MAX_LIST_ITEMS.
   */
  async list(
    path: string,
    query: ListQuery,
    signal: AbortSignal,
  ): Promise<{ ok: true; items: Record<string, unknown>[] } | ConsoleRefusal> {
    const items: Record<string, unknown>[] = [];
    const params: Record<string, string | undefined> = {
      ...query.query,
      filter: query.filter,
      fields: query.fields,
      sort: query.sort,
    };
    for (let from = 0; ; ) {
      const answer = await this.call({
        method: 'GET',
        path,
        query: params,
        range: { from, to: from + PAGE_SIZE - 1 },
        signal,
      });
      if (!answer.ok) return answer;
      if (!Array.isArray(answer.body)) {
        return refusal('refused', this.describe(path, 'the answer is not a list'), answer.status);
      }
      for (const item of answer.body) if (item !== null && typeof item === 'object') items.push(item);
      const received = answer.body.length;
      const total = totalOf(answer.contentRange);
      // The total decides (protocols 4.2: page until y + 1 >= TOTAL), so a console that answers
      // fewer items than asked loses none; without it, a short page is the last. An empty page
      // ends it either way.
      const done = received === 0 || (total !== undefined ? from + received >= total : received < PAGE_SIZE);
      if (done) return { ok: true, items };
      from += received;
      if (items.length >= MAX_LIST_ITEMS) {
        return refusal(
          'refused',
          this.describe(path, `more than ${MAX_LIST_ITEMS} items match; narrow the settings`),
        );
      }
    }
  }

  async close(): Promise<void> {
    await this.#endpoint.close();
  }
}

/** A filter's string literal: double quotes, with `"` and `\` escaped. */
export function filterString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The console's error body (protocols 4.3): its code and the most specific text. */
export function readConsoleError(text: string): { code?: number; text: string } {
  try {
    const body = JSON.parse(text) as {
      code?: unknown;
      message?: unknown;
      description?: unknown;
      http_response?: { message?: unknown };
    };
    const code = typeof body.code === 'number' ? body.code : undefined;
    const message = [body.message, body.description, body.http_response?.message].find(
      (m): m is string => typeof m === 'string' && m.trim() !== '',
    );
    return { ...(code !== undefined ? { code } : {}), text: clip(message ?? '', 300) };
  } catch {
    return { text: clip(text, 200) };
  }
}

/** `items 0-49/120` → 120; undefined when absent or unreadable. */
export function totalOf(contentRange: string | undefined): number | undefined {
  const match = /\/(\d+)\s*$/.exec(contentRange ?? '');
  return match ? Number(match[1]) : undefined;
}

/** Orders `x.y` version strings numerically. */
export function compareVersions(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('.').map(Number);
  const [bm = 0, bn = 0] = b.split('.').map(Number);
  return am - bm || an - bn;
}

function withQuery(path: string, query: Record<string, string | undefined> | undefined): string {
  const pairs = Object.entries(query ?? {}).filter((e): e is [string, string] => e[1] !== undefined);
  if (pairs.length === 0) return path;
  // Encoded once: the console decodes it (protocols 4.2 notes that once works in practice).
  return `${path}?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

function reasonOf(status: number): ConsoleFailure['reason'] {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 502 || status === 503 || status === 504) return 'unreachable';
  return 'refused';
}

function authHint(status: number): string {
  if (status === 401) return ' (the console refused the token: check siem_q.token)';
  if (status === 403) return ' (the token lacks a capability this needs)';
  return '';
}

function refusal(
  reason: ConsoleFailure['reason'],
  message: string,
  status?: number,
  code?: number,
): ConsoleRefusal {
  return {
    ok: false,
    reason,
    message,
    ...(status !== undefined ? { status } : {}),
    ...(code !== undefined ? { code } : {}),
  };
}
