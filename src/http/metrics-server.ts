import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from '../context.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics/metrics.ts';

/** The Prometheus exporter's own listener. */
export interface MetricsServer {
  /** Where it listens (the port chosen when 0 was asked for). */
  readonly address: AddressInfo;
  /** Stops listening and ends open connections. Idempotent. */
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (and HEAD) on a listener of its own, apart from the API: Prometheus
 * scrapes without a session, and the API refuses Bearer tokens on every route but dispatch
 * (decisions.md §2), so the exporter has no authentication and belongs on loopback or a private
 * interface (METRICS_HOST). Anything else is 404. Rejects when the address cannot be bound.
 */
export async function listenMetrics(
  metrics: Metrics,
  at: { host: string; port: number },
  log: Logger,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        log.error({ err }, 'Metrics could not be collected.');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics unavailable\n');
      },
    );
  });
  // Scrapes are short: a stalled client is dropped rather than held.
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log.error({ err }, 'Metrics listener failed.'));
  let closing: Promise<void> | undefined;
  return {
    address: server.address() as AddressInfo,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * The exporter of a context as configured: listening on METRICS_HOST:METRICS_PORT, or undefined
 * (nothing listens) when METRICS_PORT is unset.
 */
export async function serveMetrics(
  ctx: Pick<AppContext, 'config' | 'metrics' | 'log'>,
): Promise<MetricsServer | undefined> {
  const { metricsPort, metricsHost } = ctx.config;
  if (metricsPort === undefined) return undefined;
  const server = await listenMetrics(ctx.metrics, { host: metricsHost, port: metricsPort }, ctx.log);
  ctx.log.info(
    { host: metricsHost, port: server.address.port },
    'Prometheus metrics are served at /metrics (no authentication: keep this address private).',
  );
  return server;
}
