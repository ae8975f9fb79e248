import type { Clock } from '../clock.ts';
import type { ProbeRegistry, ProbeResult, StatusProbe } from './status-probes.ts';
import type { MonitoringProvider, StatusReading } from './status-types.ts';

/** Settings of the built-in provider. */
export interface BuiltinProviderOptions {
  probes: ProbeRegistry;
  /** SIEM destination probes, listed again at every poll (destinations change). */
  listSiemProbes?: () => Promise<StatusProbe[]>;
  clock: Clock;
  /** Default 30 s. */
  intervalMs?: number;
  /** Per check; default 10 s. */
  timeoutMs?: number;
  /** Checks running at once; default 4. */
  concurrency?: number;
  /** Longest pause of a failing SIEM's checks; default 10 minutes. */
  maxBackoffMs?: number;
}

interface Backoff {
  failures: number;
  retryAt: number;
  last: StatusReading;
}

/**
 * Checks Socdrill's own dependencies: the registered probes (database, object storage, scheduler)
 * and every enabled SIEM destination through its driver. A SIEM that fails is checked less and
 * less often (1, 2, 4, 8 … poll intervals apart, at most `maxBackoffMs`), keeping its last reading
 * meanwhile, so a broken SIEM is not hammered; at most `concurrency` checks run at once and each
 * gives up after `timeoutMs`.
 */
export function createBuiltinProvider(options: BuiltinProviderOptions): MonitoringProvider {
  const intervalMs = options.intervalMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const maxBackoffMs = options.maxBackoffMs ?? 10 * 60_000;
  const backoff = new Map<string, Backoff>();
  let lastSiem: StatusReading[] = [];

  const checkOne = async (probe: StatusProbe, signal: AbortSignal): Promise<StatusReading> => {
    const now = options.clock.now();
    const held = backoff.get(probe.id);
    if (probe.kind === 'siem' && held && now < held.retryAt) return held.last;
    const result = await runCheck(probe, signal, timeoutMs);
    const reading: StatusReading = {
      id: probe.id,
      kind: probe.kind,
      name: probe.name,
      state: result.state,
      reason: result.state === 'up' ? null : (result.reason ?? null),
      labels: probe.labels ?? {},
    };
    if (probe.kind === 'siem' && (result.state === 'down' || result.state === 'degraded')) {
      const failures = (held?.failures ?? 0) + 1;
      // Half an interval of slack so a poll that comes on time is not skipped by timer jitter.
      const delay = Math.min(intervalMs * 2 ** (failures - 1), maxBackoffMs) - intervalMs / 2;
      backoff.set(probe.id, { failures, retryAt: now + delay, last: reading });
    } else {
      backoff.delete(probe.id);
    }
    return reading;
  };

  return {
    name: 'builtin',
    intervalMs,
    async poll(signal) {
      let siemProbes: StatusProbe[] = [];
      let listError: string | null = null;
      if (options.listSiemProbes) {
        const timeout = AbortSignal.timeout(timeoutMs);
        try {
          siemProbes = await untilAborted(options.listSiemProbes(), AbortSignal.any([signal, timeout]));
        } catch (err) {
          signal.throwIfAborted();
          listError = timeout.aborted
            ? `no answer within ${timeoutMs / 1000} s`
            : err instanceof Error
              ? err.message
              : String(err);
        }
      }
      signal.throwIfAborted();
      const probes = [...options.probes.list(), ...siemProbes];
      const readings = await mapLimit(probes, concurrency, (p) => checkOne(p, signal));
      signal.throwIfAborted();
      if (listError === null) {
        const ids = new Set(probes.map((p) => p.id));
        for (const id of backoff.keys()) if (!ids.has(id)) backoff.delete(id);
        lastSiem = readings.filter((r) => r.kind === 'siem');
        return readings;
      }
      // Destinations could not be read: keep showing the SIEMs last known, as unknown.
      const reason = `destinations cannot be read: ${listError}`.slice(0, 300);
      return [...readings, ...lastSiem.map((r) => ({ ...r, state: 'unknown' as const, reason }))];
    },
  };
}

/** Runs a check with a timeout, also when the probe ignores its signal; errors become `down`. */
async function runCheck(
  probe: StatusProbe,
  pollSignal: AbortSignal,
  timeoutMs: number,
): Promise<ProbeResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([pollSignal, timeout]);
  try {
    return await untilAborted(probe.check(signal), signal);
  } catch (err) {
    if (pollSignal.aborted) throw err;
    if (timeout.aborted) return { state: 'down', reason: `no answer within ${timeoutMs / 1000} s` };
    return { state: 'down', reason: `check failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      promise.catch(() => {});
      return;
    }
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Maps with at most `limit` calls in flight; results keep the input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next;
      next += 1;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
