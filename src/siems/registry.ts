import type { Destination } from '../destinations/destination-types.ts';
import { AppError } from '../errors.ts';
import { bulkKind } from './bulk/bulk-kind.ts';
import { hecKind } from './hec/hec-kind.ts';
import { createSettingsValidator, type SettingsValidator } from './settings-validator.ts';
import type { SiemClient, SiemDeps } from './siem-client.ts';
import type { AnySiemKind } from './siem-kind.ts';
import { syslogTcpKind } from './syslog-tcp/syslog-tcp-kind.ts';

/** What the built-in kinds take from the configuration. */
export interface SiemKindsConfig {
  /** vendorA_hec: retry a 404 from the collector instead of stopping (HEC_RETRY_NOT_FOUND). */
  readonly hecRetryNotFound: boolean;
}

/** The SIEM kinds this build ships, one line each (a new kind: its folder and a line here). */
export function builtinSiemKinds(config: SiemKindsConfig): AnySiemKind[] {
  return [hecKind({ retryNotFound: config.hecRetryNotFound }), syslogTcpKind(), bulkKind()];
}

/** The SIEM kinds of one service instance, and the clients of their destinations. */
export class SiemRegistry {
  readonly kinds: readonly AnySiemKind[];
  readonly #byName: ReadonlyMap<string, AnySiemKind>;
  readonly #deps: SiemDeps;
  readonly #validators = new Map<string, SettingsValidator>();

  constructor(kinds: readonly AnySiemKind[], deps: SiemDeps) {
    const byName = new Map<string, AnySiemKind>();
    for (const kind of kinds) {
      if (byName.has(kind.name)) throw new Error(`SIEM kind "${kind.name}" is registered twice`);
      if (kind.intake === 'frames' && !kind.frameFormat)
        throw new Error(`SIEM kind "${kind.name}" takes frames but declares no frameFormat`);
      byName.set(kind.name, kind);
    }
    this.kinds = [...kinds];
    this.#byName = byName;
    this.#deps = deps;
  }

  /** Names of the registered kinds (the values of a destination's `driver`). */
  get names(): string[] {
    return this.kinds.map((k) => k.name);
  }

  /** The kind named `name`, or undefined. */
  find(name: string): AnySiemKind | undefined {
    return this.#byName.get(name);
  }

  /** The kind of a destination; a kind no longer registered is an error naming it. */
  kindOf(destination: Pick<Destination, 'name' | 'driver'>): AnySiemKind {
    const kind = this.#byName.get(destination.driver);
    if (!kind) {
      throw new AppError(
        'internal',
        `SIEM destination "${destination.name}" is of kind "${destination.driver}", which this version does not know`,
      );
    }
    return kind;
  }

  /** A new client of `destination` (its kind's create); close it after use. */
  client(destination: Destination): SiemClient {
    const kind = this.kindOf(destination);
    const client = kind.create(destination, this.#deps);
    if (client.intake !== kind.intake) {
      // A bug in the kind; the client may hold sockets already.
      void client.close().catch(() => {});
      throw new Error(
        `SIEM kind "${kind.name}" declares ${kind.intake} but its client takes ${client.intake}`,
      );
    }
    return client;
  }

  /** Checks settings against the kind's schema (compiled once per kind). */
  validate(kind: AnySiemKind, settings: Readonly<Record<string, unknown>>): Record<string, string> {
    let validator = this.#validators.get(kind.name);
    if (!validator) {
      validator = createSettingsValidator(kind.settings, `is not a setting of driver ${kind.name}`);
      this.#validators.set(kind.name, validator);
    }
    return validator(settings);
  }
}
