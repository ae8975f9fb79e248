import { type PromSample, type PromTarget, readingsFromPrometheus } from './prometheus-mapping.ts';
import type { MonitoringProvider, StatusReading } from './status-types.ts';

/** Settings of the Prometheus provider. */
export interface PrometheusProviderOptions {
  /** PROMETHEUS_URL: base address, may carry a path prefix and `user:password@` for basic auth. */
  url: string;
  /** Default 15 s. */
  intervalMs?: number;
  /** Per request; default 10 s. */
  requestTimeoutMs?: number;
  /** Largest answer read; default 32 MiB. */
  maxResponseBytes?: number;
}

/** Id of the component that stands for Prometheus itself. */
export const PROMETHEUS_COMPONENT_ID = 'monitoring:prometheus';

/** Reason given to every last-known component while Prometheus cannot be read. */
export const PROMETHEUS_UNREACHABLE = 'no data: Prometheus cannot be read';

/**
 * Polls the Prometheus HTTP API: `up` and the firing `ALERTS` series through `/api/v1/query`, and
 * `/api/v1/targets` for target labels and scrape errors. When Prometheus cannot be read, its own
 * component goes `down` and every component last seen turns `unknown` instead of vanishing.
 */
export function createPrometheusProvider(options: PrometheusProviderOptions): MonitoringProvider {
  const { base, authorization, display } = parseBaseUrl(options.url);
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (authorization) headers.authorization = authorization;
  let last: StatusReading[] = [];

  const get = async (path: string, signal: AbortSignal): Promise<unknown> => {
    const res = await fetch(new URL(path, base), {
      headers,
      redirect: 'error',
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new PrometheusAnswerError(`Prometheus answered HTTP ${res.status}`);
    }
    const body = (await readJsonLimited(res, maxBytes)) as {
      status?: unknown;
      data?: unknown;
      error?: unknown;
    };
    if (body?.status !== 'success') {
      const error = typeof body?.error === 'string' ? `: ${body.error.slice(0, 200)}` : '';
      throw new PrometheusAnswerError(`Prometheus refused the request${error}`);
    }
    return body.data;
  };
  const query = async (promql: string, signal: AbortSignal): Promise<PromSample[]> =>
    vectorOf(await get(`api/v1/query?query=${encodeURIComponent(promql)}`, signal));

  const monitoring = (state: 'up' | 'down', reason: string | null): StatusReading => ({
    id: PROMETHEUS_COMPONENT_ID,
    kind: 'monitoring',
    name: 'Prometheus',
    state,
    reason,
    labels: { url: display },
  });

  return {
    name: 'prometheus',
    intervalMs: options.intervalMs ?? 15_000,
    async poll(signal) {
      try {
        const [up, alerts, targets] = await Promise.all([
          query('up', signal),
          query('ALERTS{alertstate="firing"}', signal),
          get('api/v1/targets?state=active', signal).then(activeTargetsOf),
        ]);
        last = readingsFromPrometheus({ up, alerts, targets });
        return [monitoring('up', null), ...last];
      } catch (err) {
        if (signal.aborted) throw err;
        return [
          monitoring('down', describeFailure(err, timeoutMs)),
          ...last.map((r) => ({ ...r, state: 'unknown' as const, reason: PROMETHEUS_UNREACHABLE })),
        ];
      }
    },
  };
}

/** An answer from Prometheus that is not usable (status, envelope, size). */
class PrometheusAnswerError extends Error {}

/** Splits credentials off the base URL (fetch refuses URLs with them) and ends the path with `/`. */
function parseBaseUrl(raw: string): { base: URL; authorization: string | null; display: string } {
  const base = new URL(raw);
  let authorization: string | null = null;
  if (base.username !== '' || base.password !== '') {
    const user = decodeURIComponent(base.username);
    const password = decodeURIComponent(base.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    base.username = '';
    base.password = '';
  }
  base.search = '';
  base.hash = '';
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return { base, authorization, display: base.href };
}

async function readJsonLimited(res: Response, maxBytes: number): Promise<unknown> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new PrometheusAnswerError(`Prometheus answer larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      total += chunk.byteLength;
      if (total > maxBytes)
        throw new PrometheusAnswerError(`Prometheus answer larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new PrometheusAnswerError('Prometheus answered something that is not JSON');
  }
}

function vectorOf(data: unknown): PromSample[] {
  const d = data as { resultType?: unknown; result?: unknown };
  if (d?.resultType !== 'vector' || !Array.isArray(d.result)) {
    throw new PrometheusAnswerError('Prometheus answered an unexpected query result');
  }
  return d.result.filter(
    (s): s is PromSample =>
      isStringRecord((s as PromSample)?.metric) &&
      Array.isArray((s as PromSample).value) &&
      typeof (s as PromSample).value[1] === 'string',
  );
}

function activeTargetsOf(data: unknown): PromTarget[] {
  const targets = (data as { activeTargets?: unknown })?.activeTargets;
  if (!Array.isArray(targets)) throw new PrometheusAnswerError('Prometheus answered unexpected targets');
  return targets.filter(
    (t): t is PromTarget =>
      isStringRecord((t as PromTarget)?.labels) && typeof (t as PromTarget).health === 'string',
  );
}

function isStringRecord(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && Object.values(v).every((x) => typeof x === 'string');
}

function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof PrometheusAnswerError) return err.message;
  const e = err as { name?: string; message?: string; cause?: { code?: unknown; name?: string } };
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError') {
    return `Prometheus did not answer within ${timeoutMs / 1000} s`;
  }
  if (typeof e?.cause?.code === 'string') return `cannot reach Prometheus (${e.cause.code})`;
  return `cannot reach Prometheus (${e?.message ?? 'unknown error'})`;
}
