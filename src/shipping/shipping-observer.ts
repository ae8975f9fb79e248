import type { ShipOutcome } from './ship.ts';

/** What archives were fetched for: a session start (a URL) or a noise run (the noise-archives bucket). */
export type ArchiveUse = 'session_start' | 'noise';

/**
 * What the shipping path and its callers report as they work (the service's metrics, src/metrics);
 * calls are cheap and never throw. Tests and callers that do not care pass `ignoreShipping`.
 */
export interface ShippingObserver {
  /** A shipment ended (ship()): its outcome, which names the destination and its kind, and its wall time. */
  shipment(outcome: ShipOutcome, seconds: number): void;
  /** The archives of one session start or noise run were fetched, in `seconds` (wall time). */
  archivesDownloaded(use: ArchiveUse, seconds: number): void;
  /** The archives of one session start or noise run were inflated and read (pass 1), in `seconds`. */
  archivesInflated(use: ArchiveUse, seconds: number): void;
}

/** An observer that records nothing. */
export const ignoreShipping: ShippingObserver = {
  shipment: () => {},
  archivesDownloaded: () => {},
  archivesInflated: () => {},
};

/** Seconds since `startedAt` (a performance.now() reading): durations never follow the wall clock's jumps. */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
