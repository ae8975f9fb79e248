import type { Clock } from '../clock.ts';
import { heartbeatProbe, type StatusProbe } from '../platform-status/status-probes.ts';
import type { NoiseScheduler } from './scheduler.ts';

/** How old the last successful tick may be before the scheduler shows as down (ticks are ~1 s apart). */
export const SCHEDULER_HEARTBEAT_MAX_AGE_MS = 30_000;

/**
 * The platform-status probe of the built-in noise scheduler: up while its last successful tick
 * (claims need the database) is recent; `unknown` before the first tick.
 */
export function schedulerProbe(scheduler: NoiseScheduler, clock: Clock): StatusProbe {
  return heartbeatProbe({
    id: 'scheduler',
    kind: 'scheduler',
    name: 'Noise scheduler',
    clock,
    maxAgeMs: SCHEDULER_HEARTBEAT_MAX_AGE_MS,
    lastBeat: () => scheduler.lastTickAt ?? null,
  });
}
