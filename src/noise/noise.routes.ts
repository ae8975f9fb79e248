import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.ts';
import { noiseArchiveRoutes } from './noise-archive.routes.ts';
import { noiseDispatchRoutes } from './noise-dispatch.routes.ts';
import { noiseJobRoutes } from './noise-job.routes.ts';
import { noiseRunRoutes } from './noise-run.routes.ts';

/**
 * Noise archives, jobs, runs (decisions.md §4) and the dispatch route (spec 4.1). The built-in
 * scheduler runs in the serving process only — CLI commands open a context without an app — so it
 * starts when the app is ready.
 */
export const noiseRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(noiseArchiveRoutes, { ctx });
  await app.register(noiseJobRoutes, { ctx });
  await app.register(noiseRunRoutes, { ctx });
  await app.register(noiseDispatchRoutes, { ctx });
  app.addHook('onReady', async () => {
    if (ctx.config.scheduler) ctx.noise.scheduler.start();
  });
};
