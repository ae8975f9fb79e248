import type { Clock } from '../clock.ts';
import type { Destination, DriverName, HeaderMode } from '../destinations/destination-types.ts';
import type { Logger } from '../logger.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import type { SiemFailure } from './siem-failure.ts';

/** Running counters of a shipment; shipped + failed = events handed to the driver at the end. */
export interface ShipCounters {
  shipped: number;
  failed: number;
  /** Sends repeated after a retriable failure (batches or items). */
  retried: number;
  /** Payload bytes accepted by the SIEM. */
  bytes: number;
}

/** Outcome of a shipment: counters plus the first distinct error messages (bounded list). */
export interface ShipResult extends ShipCounters {
  /** The first distinct error messages (bounded list). */
  errors: string[];
  /** Why events failed, as data: each distinct reason (and index) with the events it cost. */
  failures: SiemFailure[];
}

/** Per-shipment options. */
export interface ShipOptions {
  /** Target index for index-aware drivers (HEC, bulk); null/undefined uses the destination default. */
  index?: string | null;
  /** syslog_tcp: overrides of the destination's header handling for this shipment. */
  syslog?: {
    /** A request's syslogSourceIdentity: forces synthesized headers with this HOSTNAME. */
    sourceIdentity?: string;
    headerMode?: HeaderMode;
  };
  /** Time of shipping (epoch ms), for headers of events without a readable time. */
  now?: number;
  signal?: AbortSignal;
  /** Called after each acknowledged batch, for progress on long shipments. */
  onProgress?: (counters: Readonly<ShipCounters>) => void;
}

/** Outcome of an operation on one index. */
export type IndexOutcome =
  | { ok: true; index: string; created?: boolean; deleted?: number | null }
  | { ok: false; index: string; error: string };

/** One probe of a connectivity check. */
export interface CheckStep {
  name: string;
  ok: boolean;
  message: string;
  endpoint?: string;
}

/**
 * What every SIEM driver implements. Delivery problems are returned as outcomes (counters, errors),
 * never thrown; only programming errors and cancellation throw.
 */
export interface Driver {
  readonly driver: DriverName;
  readonly destination: Destination;
  /** Sends events; never buffers more than a few batches; counts each event shipped or failed once. */
  ship(batches: AsyncIterable<readonly OutboundEvent[]>, options?: ShipOptions): Promise<ShipResult>;
  /** Creates the index when it does not exist (HEC, bulk); syslog_tcp answers ok without doing anything. */
  ensureIndex(index: string, signal?: AbortSignal): Promise<IndexOutcome>;
  /** Permanently deletes the events of each index (HEC search | delete, bulk delete-by-query). */
  wipe(indexes: readonly string[], signal?: AbortSignal): Promise<IndexOutcome[]>;
  /** Live connectivity check: real, minimal requests to the SIEM. */
  check(signal?: AbortSignal): Promise<CheckStep[]>;
  /** Ends sockets and agents. */
  close(): Promise<void>;
}

/** Shared services a driver may use. */
export interface DriverDeps {
  readonly log: Logger;
  readonly clock: Clock;
  /** vendorA_hec: retry a 404 from the collector instead of stopping (HEC_RETRY_NOT_FOUND; default false). */
  readonly hecRetryNotFound?: boolean;
}

/** Builds a driver for one destination. */
export type DriverFactory = (destination: Destination, deps: DriverDeps) => Driver;
