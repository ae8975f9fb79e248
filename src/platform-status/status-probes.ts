import { type Kysely, sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { type DestinationDeps, loadEnabledDestinations } from '../destinations/destination-service.ts';
import type { Destination } from '../destinations/destination-types.ts';
import type { SiemRegistry } from '../siems/registry.ts';
import type { CheckStep } from '../siems/siem-client.ts';
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

/** A probe running the destination's kind's live check against it. */
export function destinationProbe(destination: Destination, siems: SiemRegistry): StatusProbe {
  return {
    id: `siem:${destination.name}`,
    kind: 'siem',
    name: destination.name,
    labels: { driver: destination.driver },
    async check(signal) {
      const client = siems.client(destination);
      try {
        return resultFromCheckSteps(await client.check(signal));
      } finally {
        await client.close().catch(() => {});
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
 * Lists a probe for every enabled destination (secrets decrypted for its client only; one that
 * cannot be decrypted, or whose kind is unknown, is listed as unknown with the reason, alone).
 */
export function enabledDestinationProbes(deps: DestinationDeps): () => Promise<StatusProbe[]> {
  return async () =>
    (await loadEnabledDestinations(deps)).map((loaded) =>
      'destination' in loaded
        ? destinationProbe(loaded.destination, deps.siems)
        : unreadableDestinationProbe(loaded.name, loaded.driver, loaded.error),
    );
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
