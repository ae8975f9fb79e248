/** Health of one component, as the stream reports it. */
export const COMPONENT_STATES = ['up', 'down', 'degraded', 'unknown'] as const;
export type ComponentState = (typeof COMPONENT_STATES)[number];

/**
 * What a component is: hosts and services come from the monitoring system; the others are
 * Socdrill's own dependencies checked by the built-in provider.
 */
export const COMPONENT_KINDS = [
  'host',
  'service',
  'monitoring',
  'database',
  'storage',
  'scheduler',
  'siem',
] as const;
export type ComponentKind = (typeof COMPONENT_KINDS)[number];

/** What a provider reports about one component at one poll. */
export interface StatusReading {
  /** Stable identifier, e.g. `service:node/10.0.0.5:9100`, `host:10.0.0.5`, `siem:splunk-lab`. */
  readonly id: string;
  readonly kind: ComponentKind;
  readonly name: string;
  readonly state: ComponentState;
  /** Why the component is not up (null when up); never carries secrets. */
  readonly reason: string | null;
  readonly labels: Readonly<Record<string, string>>;
}

/** A component as clients see it: the latest reading plus when it entered its current state. */
export interface StatusComponent extends StatusReading {
  /** ISO 8601 time this instance first saw the component in `state`. */
  readonly since: string;
}

/** Which monitoring source feeds the stream. */
export type ProviderName = 'prometheus' | 'builtin';

/** A source of component health, polled by the hub. */
export interface MonitoringProvider {
  readonly name: ProviderName;
  /** Poll interval used unless the configuration sets one. */
  readonly intervalMs: number;
  /**
   * Reads the current health of every component. Unreachable monitoring is reported as readings
   * (a `down` monitoring component, `unknown` others), not thrown; only cancellation throws.
   */
  poll(signal: AbortSignal): Promise<StatusReading[]>;
}

/** Payload of a `status` event: one component changed, appeared or disappeared. */
export interface StatusChange {
  readonly change: 'added' | 'changed' | 'removed';
  /** ISO 8601 time of the poll that saw the change. */
  readonly at: string;
  /** The component after the change (for `removed`: as it was last seen). */
  readonly component: StatusComponent;
  /** The state before a `changed` event; null for `added` and `removed`. */
  readonly previous: Pick<StatusComponent, 'state' | 'reason' | 'since'> | null;
}

/** The full state: GET /api/platform-status and the `snapshot` event. */
export interface StatusSnapshot {
  /** Id of the last event folded into this state; resume the stream from it with Last-Event-ID. */
  readonly event_id: string;
  readonly provider: ProviderName;
  /** ISO 8601 time of the last completed poll; null before the first. */
  readonly polled_at: string | null;
  /** Every component, sorted by id. */
  readonly components: StatusComponent[];
}
