import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DispatchTrigger } from '../noise/dispatch-types.ts';
import type { NoiseObserver } from '../noise/noise-observer.ts';
import type { RunStatus } from '../noise/run-status.ts';
import type { ShipOutcome } from '../shipping/ship.ts';
import type { ArchiveUse, ShippingObserver } from '../shipping/shipping-observer.ts';

/** What the metrics read at scrape time rather than being told. */
export interface MetricsSources {
  /** Open platform-status event streams (SSE clients). */
  sseClients(): number;
}

/** Choices of one context's metrics. */
export interface MetricsOptions {
  /**
   * Process and Node.js metrics (CPU, memory, event-loop delay, GC, handles). They start timers and
   * observers that last as long as the process, so only a context that exports them (METRICS_PORT)
   * collects them.
   */
  readonly processMetrics: boolean;
}

/** Label values of a route no route matched (404s, refused paths): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The service's Prometheus metrics (README "Metrics"), in a registry of their own — never the
 * global default one, so two contexts in one process never share or collide. The domain sees it
 * through narrow observers (ShippingObserver, NoiseObserver); the HTTP layer reports requests and
 * serves scrape() on its own listener (src/http/metrics-server.ts).
 */
export class Metrics implements ShippingObserver, NoiseObserver {
  readonly registry = new Registry();

  readonly #shipments = new Counter({
    name: 'socdrill_shipments_total',
    help: 'Shipments by destination, SIEM kind and outcome (succeeded: every event shipped; partial; failed: none shipped).',
    labelNames: ['destination', 'kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly #eventsShipped = new Counter({
    name: 'socdrill_events_shipped_total',
    help: 'Events a SIEM acknowledged, by destination and SIEM kind.',
    labelNames: ['destination', 'kind'] as const,
    registers: [this.registry],
  });
  readonly #eventsFailed = new Counter({
    name: 'socdrill_events_failed_total',
    help: 'Events not delivered, by destination, SIEM kind and reason (unreachable, tls, auth, index_refused, unavailable, rejected, config, cancelled, deadline, internal).',
    labelNames: ['destination', 'kind', 'reason'] as const,
    registers: [this.registry],
  });
  readonly #shipmentDuration = new Histogram({
    name: 'socdrill_shipment_duration_seconds',
    help: 'Wall time of one shipment to one destination (pass 2 and delivery), by destination and SIEM kind.',
    labelNames: ['destination', 'kind'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 900, 1800],
    registers: [this.registry],
  });
  readonly #shipmentBytes = new Histogram({
    name: 'socdrill_shipment_bytes',
    help: 'Bytes one shipment sent to its destination, by destination and SIEM kind.',
    labelNames: ['destination', 'kind'] as const,
    // 1 KiB … 4 GiB, times 4.
    buckets: Array.from({ length: 12 }, (_, i) => 1024 * 4 ** i),
    registers: [this.registry],
  });
  readonly #downloadDuration = new Histogram({
    name: 'socdrill_archive_download_seconds',
    help: 'Time to fetch the archives of a session start (its URL) or a noise run (object storage), by use.',
    labelNames: ['use'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly #inflateDuration = new Histogram({
    name: 'socdrill_archive_inflate_seconds',
    help: 'Time to inflate and read the archives of a session start or noise run (rebase pass 1), by use.',
    labelNames: ['use'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly #noiseRuns = new Counter({
    name: 'socdrill_noise_runs_total',
    help: 'Noise run rows (one per target of a dispatch) by final status and trigger.',
    labelNames: ['status', 'trigger'] as const,
    registers: [this.registry],
  });
  readonly #schedulerLag = new Histogram({
    name: 'socdrill_scheduler_lag_seconds',
    help: 'How late the scheduler claimed due noise jobs: now - next_run_at at the claim.',
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600],
    registers: [this.registry],
  });
  readonly #httpDuration = new Histogram({
    name: 'socdrill_http_request_duration_seconds',
    help: `HTTP requests of the API and console by method, route pattern ("${UNMATCHED_ROUTE}" when none matched) and status code.`,
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers: [this.registry],
  });

  constructor(sources: MetricsSources, options: MetricsOptions) {
    new Gauge({
      name: 'socdrill_sse_clients',
      help: 'Open platform-status event streams (SSE clients).',
      registers: [this.registry],
      collect() {
        this.set(sources.sseClients());
      },
    });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  shipment(outcome: ShipOutcome, seconds: number): void {
    const labels = { destination: outcome.siem, kind: outcome.driver };
    this.#shipments.inc({ ...labels, outcome: shipmentOutcome(outcome) });
    this.#eventsShipped.inc(labels, outcome.shipped);
    let attributed = 0;
    for (const f of outcome.failures) {
      if (f.events <= 0) continue;
      this.#eventsFailed.inc({ ...labels, reason: f.reason }, f.events);
      attributed += f.events;
    }
    // ship() names a reason for every failed event; should one slip through, it still counts.
    if (outcome.failed > attributed)
      this.#eventsFailed.inc({ ...labels, reason: 'internal' }, outcome.failed - attributed);
    this.#shipmentDuration.observe(labels, seconds);
    this.#shipmentBytes.observe(labels, outcome.bytes);
  }

  archivesDownloaded(use: ArchiveUse, seconds: number): void {
    this.#downloadDuration.observe({ use }, seconds);
  }

  archivesInflated(use: ArchiveUse, seconds: number): void {
    this.#inflateDuration.observe({ use }, seconds);
  }

  runEnded(status: RunStatus, trigger: DispatchTrigger): void {
    this.#noiseRuns.inc({ status, trigger });
  }

  jobClaimed(lagSeconds: number): void {
    this.#schedulerLag.observe(Math.max(0, lagSeconds));
  }

  /** One answered HTTP request; `route` is the matched route's pattern, never the raw URL. */
  httpRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    this.#httpDuration.observe(
      { method, route: route ?? UNMATCHED_ROUTE, status_code: String(statusCode) },
      seconds,
    );
  }

  /** The exposition text of every metric, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

function shipmentOutcome(outcome: ShipOutcome): 'succeeded' | 'partial' | 'failed' {
  if (outcome.failed === 0) return 'succeeded';
  return outcome.shipped > 0 ? 'partial' : 'failed';
}
