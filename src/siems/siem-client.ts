import type { Clock } from '../clock.ts';
import type { Destination } from '../destinations/destination-types.ts';
import type { Logger } from '../logger.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import type { SiemFailure } from './siem-failure.ts';

/** Running counters of a shipment; shipped + failed = events handed to the client at the end. */
export interface ShipCounters {
  shipped: number;
  failed: number;
  /** Sends repeated after a retriable failure (batches or items). */
  retried: number;
  /** Payload bytes accepted by the SIEM. */
  bytes: number;
}

/** Outcome of a shipment: counters, the first distinct error messages, and the failures as data. */
export interface ShipResult extends ShipCounters {
  /** The first distinct error messages (bounded list). */
  errors: string[];
  /** Why events failed, as data: each distinct reason (and index) with the events it cost. */
  failures: SiemFailure[];
}

/** What one shipment tells a client besides its events. */
export interface SendOptions {
  /** Target index on a SIEM with native indexes; null/undefined is the destination's default. */
  index?: string | null;
  /**
   * The syslog HOSTNAME this shipment's events carry (a kind with the `sourceIdentity`
   * capability): forces synthesized headers with it, over the destination's header settings.
   */
  identity?: string;
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
 * The client of one destination, built by its SIEM kind (SiemKind.create). The send side is for
 * src/shipping/ only; check, ensureIndex and wipe are its administrative side. Delivery problems
 * are returned as outcomes (counters, failures), never thrown; only programming errors and
 * cancellation throw.
 */
export interface SiemClient {
  readonly destination: Destination;
  /** Sends events; never buffers more than a few batches; counts each event shipped or failed once. */
  send(batches: AsyncIterable<readonly OutboundEvent[]>, options?: SendOptions): Promise<ShipResult>;
  /** Live connectivity check: real, minimal requests to the SIEM. */
  check(signal?: AbortSignal): Promise<CheckStep[]>;
  /** Creates the index when it does not exist; present when the kind has `indexCreation`. */
  ensureIndex?(index: string, signal?: AbortSignal): Promise<IndexOutcome>;
  /** Permanently deletes the events of each index; present when the kind has `wipe`. */
  wipe?(indexes: readonly string[], signal?: AbortSignal): Promise<IndexOutcome[]>;
  /** Ends sockets and agents. */
  close(): Promise<void>;
}

/** The client of a kind that creates indexes and wipes them (HEC, bulk). */
export type IndexingSiemClient = SiemClient & Required<Pick<SiemClient, 'ensureIndex' | 'wipe'>>;

/** Shared services a client may use. */
export interface SiemDeps {
  readonly log: Logger;
  readonly clock: Clock;
}
