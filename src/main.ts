import { loadConfig, readEnv } from './config.ts';
import { type AppContext, createContext } from './context.ts';
import { type App, buildApp } from './http/build-app.ts';
import { type MetricsServer, serveMetrics } from './http/metrics-server.ts';
import { releaseStartupMemory } from './startup-memory.ts';

/** Runs the service until SIGINT/SIGTERM, then closes everything in order. */
export async function serve(): Promise<void> {
  const config = loadConfig(readEnv());
  const ctx = await createContext(config);
  const app = await buildApp(ctx);
  // The Prometheus exporter (METRICS_PORT): up with the app, closed last so a drain can be watched.
  let metricsServer: MetricsServer | undefined;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    ctx.log.info({ signal }, 'Shutting down.');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await stopServing(app, ctx);
    await metricsServer?.close();
    clearTimeout(force);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  // Before listening: the first request finds the start-up's memory given back.
  releaseStartupMemory();
  try {
    await app.listen({ host: config.host, port: config.port });
    metricsServer = await serveMetrics(ctx);
  } catch (err) {
    await app.close().catch(() => {});
    await ctx.close();
    throw err;
  }
  ctx.start();
  ctx.log.info(
    { url: config.publicUrl, database: ctx.dbKind, dataDir: config.dataDir },
    'Socdrill is listening.',
  );
}

/**
 * Stops a serving instance, in this order:
 * 1. new requests get 503 (the server still listens, so clients learn to go elsewhere);
 * 2. the context stops its background work: the scheduler stops claiming, running dispatches are
 *    aborted and awaited, event streams end — so requests waiting on them answer (POST
 *    /api/noise/run answers when its dispatch ends);
 * 3. the HTTP server closes, waiting for the requests still open;
 * 4. the database and storage close (PGlite flushes its files there), whatever happened before.
 */
export async function stopServing(app: App, ctx: AppContext): Promise<void> {
  await drainServing(app, ctx);
  await ctx.close();
}

/** Steps 1-3 of stopServing: nothing runs or answers any more, the database is still open. */
export async function drainServing(app: App, ctx: AppContext): Promise<void> {
  app.refuseRequests();
  await ctx.stop();
  try {
    await app.close();
  } catch (err) {
    ctx.log.error({ err }, 'Closing the HTTP server failed; closing the rest anyway.');
  }
}
