import type { RecordedRequest } from './sim-http-server.ts';

/** One event the HEC simulator accepted, with everything Splunk would index for it. */
export interface HecEvent {
  readonly index: string;
  /** `_time` in epoch seconds (microsecond precision); receipt time when the envelope had none. */
  readonly time: number;
  /** The envelope's `time` as sent (undefined when absent). */
  readonly timeSent: unknown;
  readonly host: string;
  readonly source: string;
  readonly sourcetype: string;
  /** The `event` value as sent (string or JSON). */
  readonly event: unknown;
  /** `_raw`: the event string, or the JSON text of an object event. */
  readonly raw: string;
  readonly fields: Readonly<Record<string, unknown>> | undefined;
  /** The envelope object exactly as it appeared in the body (empty for `/raw`). */
  readonly envelopeText: string;
  /** Name of the token that sent it. */
  readonly token: string;
  readonly channel: string | undefined;
  readonly endpoint: 'event' | 'raw';
  /** `seq` of the request that carried it (see `store.requests`). */
  readonly requestSeq: number;
  readonly receivedAt: number;
  /** Set by `| delete`: hidden from searches but still stored, as Splunk only masks deleted events. */
  deleted: boolean;
}

/** Settings of one simulated index. */
export interface HecIndexInfo {
  readonly datatype: 'event' | 'metric';
  readonly createdAt: number;
  /** Extra settings given at creation (form fields other than `name`). */
  readonly settings: Readonly<Record<string, string>>;
}

/** What the HEC simulator keeps for tests to assert on. */
export interface HecStore {
  /** Every accepted event in arrival order, deleted ones included (flagged). */
  readonly events: HecEvent[];
  /** Events answered with 200 but discarded (unknown index while `unknownIndex: 'drop'`). */
  readonly dropped: HecEvent[];
  /** Requests to the collector port, bodies as received. */
  readonly requests: RecordedRequest[];
  /** Requests to the management port. */
  readonly managementRequests: RecordedRequest[];
  /** Events a search would still find: not deleted, in an index that exists, optionally one index. */
  searchable(index?: string): HecEvent[];
  /** Forgets events and recorded requests (indexes stay). */
  clear(): void;
}

/** Creates the store; `indexExists` keeps events of a deleted index out of searches. */
export function createHecStore(
  requests: RecordedRequest[],
  managementRequests: RecordedRequest[],
  indexExists: (name: string) => boolean,
): HecStore {
  const events: HecEvent[] = [];
  const dropped: HecEvent[] = [];
  return {
    events,
    dropped,
    requests,
    managementRequests,
    searchable: (index) =>
      events.filter((e) => !e.deleted && indexExists(e.index) && (index === undefined || e.index === index)),
    clear() {
      events.length = 0;
      dropped.length = 0;
      requests.length = 0;
      managementRequests.length = 0;
    },
  };
}
