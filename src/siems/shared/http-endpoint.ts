import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { classifyNetworkError, type NetworkFailure } from './network-failure.ts';
import type { SecretScrubber } from './secret-scrubber.ts';
import { endpointLabel, joinPath } from './siem-message.ts';
import type { TlsSettings } from './tls-options.ts';
import { tlsConnectOptions } from './tls-options.ts';

/** Connect and read limits of a driver's HTTP requests. */
export interface HttpTimeouts {
  /** TCP + TLS connect, ms. */
  readonly connectMs: number;
  /** Longest wait for the answer's headers, and longest pause inside its body, ms. */
  readonly readMs: number;
}

/** Ten seconds to connect, thirty seconds of silence before a read is given up. */
export const DEFAULT_TIMEOUTS: HttpTimeouts = { connectMs: 10_000, readMs: 30_000 };

/** An HTTP answer, any status, body read as text (with the client's secrets scrubbed). */
export interface HttpAnswer {
  readonly kind: 'answer';
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** One request to an endpoint. */
export interface HttpRequest {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  /** Path below the base URL, with its query string. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  readonly signal?: AbortSignal;
  /** Overrides the read timeout for slow operations (a wipe). */
  readonly readMs?: number;
}

/**
 * A keep-alive connection pool to one SIEM origin (collector, management API or cluster). Requests
 * never throw for network trouble: they resolve to an answer or a classified {@link NetworkFailure}.
 */
export class HttpEndpoint {
  readonly base: string;
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #timeouts: HttpTimeouts;
  readonly #scrubber: Pick<SecretScrubber, 'answer'>;

  /**
   * `scrubber`: the credentials this client sends, removed from every answer body as it is read,
   * before anything parses, quotes or clips it (a SIEM may repeat a refused credential). Required,
   * so no client of a new kind forgets it.
   */
  constructor(
    base: string,
    tls: TlsSettings,
    options: { connections: number; timeouts: HttpTimeouts; scrubber: Pick<SecretScrubber, 'answer'> },
  ) {
    const url = new URL(base);
    this.base = base;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#timeouts = options.timeouts;
    this.#scrubber = options.scrubber;
    this.#pool = new Pool(url.origin, {
      connections: options.connections,
      pipelining: 1,
      connectTimeout: options.timeouts.connectMs,
      headersTimeout: options.timeouts.readMs,
      bodyTimeout: options.timeouts.readMs,
      connect: tlsConnectOptions(tls),
    });
  }

  /** The endpoint of `path` for messages (no query string). */
  label(path: string): string {
    return endpointLabel(this.base, path.split('?')[0] ?? '');
  }

  /** Full URL of `path` (for tests and logs at debug level). */
  url(path: string): string {
    return joinPath(this.base, path);
  }

  async request(req: HttpRequest): Promise<HttpAnswer | NetworkFailure> {
    try {
      const res = await this.#pool.request({
        method: req.method,
        path: `${this.#prefix}${req.path}`,
        headers: req.headers,
        body: req.body,
        signal: req.signal,
        ...(req.readMs !== undefined ? { headersTimeout: req.readMs, bodyTimeout: req.readMs } : {}),
      });
      let text = '';
      if (req.method === 'HEAD') await res.body.dump();
      else text = await res.body.text();
      text = this.#scrubber.answer(text);
      return { kind: 'answer', status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      return classifyNetworkError(err, req.signal);
    }
  }

  /** Read limits in force, for messages about timeouts. */
  get timeouts(): HttpTimeouts {
    return this.#timeouts;
  }

  async close(): Promise<void> {
    await this.#pool.close().catch(() => {});
  }
}
