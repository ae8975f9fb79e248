import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.ts';
import { noiseArchiveRoutes } from './noise-archive.routes.ts';
import { noiseDispatchRoutes } from './noise-dispatch.routes.ts';
import { noiseJobRoutes } from './noise-job.routes.ts';
import { noiseRunRoutes } from './noise-run.routes.ts';

/** Noise archives, jobs, runs (decisions.md §4) and the dispatch route (spec 4.1). */
export const noiseRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(noiseArchiveRoutes, { ctx });
  await app.register(noiseJobRoutes, { ctx });
  await app.register(noiseRunRoutes, { ctx });
  await app.register(noiseDispatchRoutes, { ctx });
};
