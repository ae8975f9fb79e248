import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import type { ArchiveLimits } from '../pipeline/archive/archive-limits.ts';
import type { EcsScanPool } from '../pipeline/ecs/ecs-scan-pool.ts';
import type { ShipmentFormat, ShipmentSource } from '../pipeline/shipment/prepare-shipment.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SiemRegistry } from '../siems/registry.ts';
import { type PreparedSources, prepareSources } from './prepared-sources.ts';
import { type ShipOutcome, type ShipRequest, type ShipTarget, ship } from './ship.ts';
import { loadShipTarget } from './ship-target.ts';
import { ignoreShipping, type ShippingObserver, secondsSince } from './shipping-observer.ts';

/**
 * The one shipping path (session start and noise runs today, exercise attempts next): a target by
 * name, archives prepared once, shipments to targets. Callers keep their own bookkeeping (audit,
 * run rows).
 */
export interface Shipping {
  /**
   * The enabled destination named `siem` and its kind (404 unknown, 409 destination_disabled);
   * `allowDisabled` for work on a SIEM that ships nothing (an attempt's offense cleanup).
   */
  target(siem: string, options?: { allowDisabled?: boolean }): Promise<ShipTarget>;
  /**
   * Starts, without waiting, what pass 1 of `format` runs on (the ECS scan worker), so that it loads
   * while the archives download; `prepare` does not wait for it either.
   */
  warmFor(format: ShipmentFormat): void;
  /** Reads the archives and runs pass 1 (counts, formats, one shift), at the clock's now. */
  /** `signal` stops pass 1 between batches, throwing its reason (a deadline, a shutdown). */
  prepare(
    sources: readonly ShipmentSource[],
    options: { format: ShipmentFormat; signal?: AbortSignal },
  ): Promise<PreparedSources>;
  /** Ships prepared sources to one target (ship.ts); never throws for delivery. */
  ship(request: ShipRequest): Promise<ShipOutcome>;
  /** Where shipments are reported, and where callers report their archive downloads and preparation. */
  readonly observer: ShippingObserver;
}

/** What the shipping path uses. */
export interface ShippingDeps {
  readonly db: Kysely<Database>;
  readonly secretBox: SecretBox;
  readonly siems: SiemRegistry;
  readonly clock: Clock;
  readonly log: Logger;
  /** Archive limits (decisions.md §5), from the configuration. */
  readonly limits: Partial<ArchiveLimits>;
  /** Longest a shipment runs, in ms (SHIPMENT_DEADLINE_SECONDS); a request may set its own. */
  readonly deadlineMs?: number;
  /** Told of every shipment's outcome and duration (the service's metrics); none when absent. */
  readonly observer?: ShippingObserver;
  /** The instance's scan worker for pass 1 of ECS archives; pass 1 runs on one thread without it. */
  readonly ecsScanPool?: EcsScanPool;
}

/** The shipping path of one service instance. */
export function createShipping(deps: ShippingDeps): Shipping {
  const observer = deps.observer ?? ignoreShipping;
  return {
    target: (siem, options) => loadShipTarget(deps, siem, options),
    warmFor: (format) => {
      if (format === 'ecs') deps.ecsScanPool?.start();
    },
    prepare: (sources, options) =>
      prepareSources(sources, {
        format: options.format,
        now: deps.clock.now(),
        limits: deps.limits,
        ecsScanPool: deps.ecsScanPool ?? null,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    ship: async (request) => {
      const startedAt = performance.now();
      const outcome = await ship(deps, request);
      observer.shipment(outcome, secondsSince(startedAt));
      return outcome;
    },
    observer,
  };
}
