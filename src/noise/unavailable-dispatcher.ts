import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { NoiseDispatcher } from './dispatch-types.ts';
import { finishRun } from './run-store.ts';

/** Error on run rows while no real dispatcher is wired in. */
export const DISPATCH_UNAVAILABLE_ERROR = 'noise dispatch is not available yet';

/**
 * The dispatcher used until event shipping exists: it ships nothing and says so, marking every
 * run row `failed` — never a pretended success.
 */
export function createUnavailableDispatcher(deps: { db: Kysely<Database>; clock: Clock }): NoiseDispatcher {
  return async (request) => {
    for (const id of Object.values(request.run_ids)) {
      await finishRun(
        deps.db,
        id,
        { status: 'failed', events_shipped: 0, events_failed: 0, error: DISPATCH_UNAVAILABLE_ERROR },
        deps.clock.now(),
      );
    }
    return { ok: false, failed: [...request.targets] };
  };
}
