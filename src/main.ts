import { loadConfig, readEnv } from './config.ts';
import { createContext } from './context.ts';
import { buildApp } from './http/build-app.ts';

/** Runs the service until SIGINT/SIGTERM, then closes everything in order. */
export async function serve(): Promise<void> {
  const config = loadConfig(readEnv());
  const ctx = await createContext(config);
  const app = await buildApp(ctx);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    ctx.log.info({ signal }, 'Shutting down.');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    // app.close() first stops the noise scheduler and cancels running dispatches (noise.routes.ts,
    // preClose): POST /api/noise/run answers only when its dispatch ends, and the server's close
    // waits for it. ctx.close() then closes the rest.
    try {
      await app.close();
    } catch (err) {
      ctx.log.error({ err }, 'Closing the HTTP server failed; closing the rest anyway.');
    }
    // The database and storage are closed whatever happened above (PGlite flushes its files here).
    await ctx.close();
    clearTimeout(force);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await ctx.close();
    throw err;
  }
  ctx.log.info(
    { url: config.publicUrl, database: ctx.dbKind, dataDir: config.dataDir },
    'Socdrill is listening.',
  );
}
