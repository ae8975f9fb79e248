import { type Kysely, sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { loadEnabledDestinations } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { CheckStep, Driver } from '../siems/siem-client.ts';
import type { ComponentState } from './status-types.ts';

/** Kinds of Socdrill's own dependencies that the built-in provider checks. */
export type ProbeKind = 'database' | 'storage' | 'scheduler' | 'siem';

/** Outcome of one check. */
export interface ProbeResult {
  readonly state: ComponentState;
  /** Why it is not up; null or omitted when up. */
  readonly reason?: string | null;
}

/** One dependency the built-in provider checks on every poll. */
export interface StatusProbe {
  /** Stable component id, e.g. `database`, `storage`, `scheduler`, `siem:<name>`. */
  readonly id: string;
  readonly kind: ProbeKind;
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Checks once; should honour `signal` (the provider also gives up on its own at its timeout). */
  check(signal: AbortSignal): Promise<ProbeResult>;
}

/** Builds a driver for a destination (the SIEM driver registry); absent until drivers exist. */
export type CreateDriver = (destination: Destination) => Driver;

/**
 * The probes other features register (object storage, the scheduler heartbeat); SIEM probes are
 * built from the destinations at each poll instead.
 */
export class ProbeRegistry {
  readonly #probes = new Map<string, StatusProbe>();

  /** Adds a probe (replacing one with the same id); returns a function that removes it. */
  register(probe: StatusProbe): () => void {
    this.#probes.set(probe.id, probe);
    return () => {
      if (this.#probes.get(probe.id) === probe) this.#probes.delete(probe.id);
    };
  }

  /** Registered probes, in registration order. */
  list(): StatusProbe[] {
    return [...this.#probes.values()];
  }
}

/** Checks the database with `select 1`. */
export function databaseProbe(db: Kysely<Database>, engine: string): StatusProbe {
  return {
    id: 'database',
    kind: 'database',
    name: 'Database',
    labels: { engine },
    async check() {
      await sql`select 1`.execute(db);
      return { state: 'up' };
    },
  };
}

/**
 * A probe for a component that proves it is alive by beating (the scheduler): up while the last
 * beat is at most `maxAgeMs` old.
 */
export function heartbeatProbe(options: {
  id: string;
  kind: ProbeKind;
  name: string;
  clock: Clock;
  maxAgeMs: number;
  /** Epoch ms of the last beat, or null before the first. */
  lastBeat: () => number | null | Promise<number | null>;
}): StatusProbe {
  return {
    id: options.id,
    kind: options.kind,
    name: options.name,
    async check() {
      const beat = await options.lastBeat();
      if (beat === null) return { state: 'unknown', reason: 'no heartbeat yet' };
      const age = options.clock.now() - beat;
      if (age <= options.maxAgeMs) return { state: 'up' };
      return { state: 'down', reason: `no heartbeat since ${new Date(beat).toISOString()}` };
    },
  };
}

/** Reason of a SIEM destination whose driver is not wired in. */
export const DRIVER_NOT_AVAILABLE = 'driver not available';

/** A probe running the driver's live check against one destination. */
export function destinationProbe(
  destination: Destination,
  createDriver: CreateDriver | undefined,
): StatusProbe {
  return {
    id: `siem:${destination.name}`,
    kind: 'siem',
    name: destination.name,
    labels: { driver: destination.driver },
    async check(signal) {
      if (!createDriver) return { state: 'unknown', reason: DRIVER_NOT_AVAILABLE };
      const driver = createDriver(destination);
      try {
        return resultFromCheckSteps(await driver.check(signal));
      } finally {
        await driver.close().catch(() => {});
      }
    },
  };
}

/** Every step ok: up; none ok: down; some: degraded. The reason names the failed steps. */
export function resultFromCheckSteps(steps: readonly CheckStep[]): ProbeResult {
  if (steps.length === 0) return { state: 'unknown', reason: 'the check reported nothing' };
  const failed = steps.filter((s) => !s.ok);
  if (failed.length === 0) return { state: 'up' };
  const reason = failed.map((s) => `${s.name}: ${s.message}`).join('; ');
  return { state: failed.length === steps.length ? 'down' : 'degraded', reason };
}

/**
 * Lists a probe for every enabled destination (secrets decrypted for the driver only; one that
 * cannot be decrypted is listed as unknown with the reason, alone). The driver
 * factory is looked up at each listing, so drivers wired in after start-up are used.
 */
export function enabledDestinationProbes(
  db: Kysely<Database>,
  secretBox: SecretBox,
  driverFactory: () => CreateDriver | undefined,
): () => Promise<StatusProbe[]> {
  return async () => {
    const createDriver = driverFactory();
    return (await loadEnabledDestinations(db, secretBox)).map((loaded) =>
      'destination' in loaded
        ? destinationProbe(loaded.destination, createDriver)
        : unreadableDestinationProbe(loaded.name, loaded.driver, loaded.error),
    );
  };
}

/** A destination whose secrets cannot be opened: unknown with the reason, the others unaffected. */
function unreadableDestinationProbe(name: string, driver: string, error: string): StatusProbe {
  const reason = `its settings cannot be read: ${error}`.slice(0, 300);
  return {
    id: `siem:${name}`,
    kind: 'siem',
    name,
    labels: { driver },
    check: async () => ({ state: 'unknown', reason }),
  };
}
