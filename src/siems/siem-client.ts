import type { Clock } from '../clock.ts';
import type { Destination } from '../destinations/destination-types.ts';
import type { Logger } from '../logger.ts';
import type { FramePiece } from '../pipeline/frames/frame-format.ts';
import type { OutboundEvent } from '../pipeline/shipment/outbound-event.ts';
import type { CheckStep } from './check-step.ts';
import type { LogSourceAdmin } from './log-source-admin.ts';
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

export type { CheckStep } from './check-step.ts';

/** The side of a client every kind has: its destination, the check, indexes and wipes, close. */
interface SiemClientBase {
  readonly destination: Destination;
  /** Live connectivity check: real, minimal requests to the SIEM. */
  check(signal?: AbortSignal): Promise<CheckStep[]>;
  /** Creates the index when it does not exist; present when the kind has `indexCreation`. */
  ensureIndex?(index: string, signal?: AbortSignal): Promise<IndexOutcome>;
  /** Permanently deletes the events of each index; present when the kind has `wipe`. */
  wipe?(indexes: readonly string[], signal?: AbortSignal): Promise<IndexOutcome[]>;
  /**
   * Log sources and offenses on the SIEM's console; present when the kind has `logSources` and
   * the destination has console settings.
   */
  readonly logSources?: LogSourceAdmin;
  /** Ends sockets and agents. */
  close(): Promise<void>;
}

/** A client that takes events (OutboundEvent: LEEF lines or ECS documents) and encodes them itself. */
export interface EventSiemClient extends SiemClientBase {
  readonly intake: 'events';
  /** Sends events; never buffers more than a few batches; counts each event shipped or failed once. */
  send(batches: AsyncIterable<readonly OutboundEvent[]>, options?: SendOptions): Promise<ShipResult>;
}

/** A client that takes ready syslog frames (pipeline/frames) and only delivers them. */
export interface FrameSiemClient extends SiemClientBase {
  readonly intake: 'frames';
  /** Delivers frames and counts refusals failed; every event counted shipped or failed once. */
  send(frames: AsyncIterable<FramePiece>, options?: SendOptions): Promise<ShipResult>;
}

/**
 * The client of one destination, built by its SIEM kind (SiemKind.create). The send side is for
 * src/shipping/ only; check, ensureIndex and wipe are its administrative side. Delivery problems
 * are returned as outcomes (counters, failures), never thrown; only programming errors and
 * cancellation throw.
 */
export type SiemClient = EventSiemClient | FrameSiemClient;

/** The client of a kind that creates indexes and wipes them (HEC, bulk). */
export type IndexingSiemClient = EventSiemClient & Required<Pick<EventSiemClient, 'ensureIndex' | 'wipe'>>;

/** Shared services a client may use. */
export interface SiemDeps {
  readonly log: Logger;
  readonly clock: Clock;
}
