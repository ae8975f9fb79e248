import type { MonitoringProvider, ProviderName, StatusReading } from './status-types.ts';

/** A provider whose readings are set by code; for tests and benchmarks (like manualClock). */
export interface ManualProvider extends MonitoringProvider {
  /** Readings returned by the next polls. */
  set(readings: readonly StatusReading[]): void;
  /** Makes the next polls fail with this error (null: succeed again). */
  fail(error: Error | null): void;
  /** Number of polls so far. */
  readonly polls: number;
}

/** Creates a manual provider reporting no components until `set` is called. */
export function manualProvider(name: ProviderName = 'builtin', intervalMs = 60_000): ManualProvider {
  let readings: readonly StatusReading[] = [];
  let error: Error | null = null;
  let polls = 0;
  return {
    name,
    intervalMs,
    async poll() {
      polls += 1;
      if (error) throw error;
      return [...readings];
    },
    set(next) {
      readings = next;
    },
    fail(next) {
      error = next;
    },
    get polls() {
      return polls;
    },
  };
}

/** A reading with defaults, for tests. */
export function reading(
  id: string,
  state: StatusReading['state'],
  extra: Partial<Omit<StatusReading, 'id' | 'state'>> = {},
): StatusReading {
  return { id, kind: 'service', name: id, state, reason: null, labels: {}, ...extra };
}
