import type { Logger } from '../../logger.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, realWait, type Wait } from './backoff.ts';
import { DEFAULT_TIMEOUTS, type HttpTimeouts } from './http-endpoint.ts';
import type { BatchLimits } from './ship-loop.ts';

/** Tuning of an HTTP driver; every field has a default, tests and benchmarks override a few. */
export interface HttpDriverOptions {
  readonly batch?: Partial<BatchLimits>;
  readonly retry?: Partial<RetryPolicy>;
  readonly timeouts?: Partial<HttpTimeouts>;
  /** Replaces the backoff timer (tests step through retries without real waiting). */
  readonly wait?: Wait;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
  /** Longest wait for an administrative job (HEC search job, delete-by-query), ms. */
  readonly jobTimeoutMs?: number;
  /** First poll interval of a HEC search job, ms (grows to 2 s). */
  readonly jobPollMs?: number;
}

/** Options with every default filled in. */
export interface ResolvedDriverOptions {
  readonly batch: BatchLimits;
  readonly retry: RetryPolicy;
  readonly timeouts: HttpTimeouts;
  readonly wait: Wait;
  readonly random: () => number;
  readonly jobTimeoutMs: number;
  readonly jobPollMs: number;
}

/** Fills in defaults; `batch` holds the driver's own batch defaults. */
export function resolveDriverOptions(options: HttpDriverOptions, batch: BatchLimits): ResolvedDriverOptions {
  return {
    batch: { ...batch, ...options.batch },
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    timeouts: { ...DEFAULT_TIMEOUTS, ...options.timeouts },
    wait: options.wait ?? realWait,
    random: options.random ?? Math.random,
    jobTimeoutMs: options.jobTimeoutMs ?? 10 * 60_000,
    jobPollMs: options.jobPollMs ?? 250,
  };
}

/** Logs once, at creation, that a driver will not verify the SIEM's certificate. */
export function warnIfUnverified(
  log: Logger,
  siem: string,
  tlsVerify: boolean,
  urls: ReadonlyArray<string | null>,
): void {
  if (tlsVerify || !urls.some((url) => url?.startsWith('https:'))) return;
  log.warn({ siem }, 'TLS certificate verification is off for this SIEM (tls_verify=false).');
}
