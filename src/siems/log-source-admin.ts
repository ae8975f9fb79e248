import type { CheckStep } from './check-step.ts';

/**
 * Why a console operation failed, as data: `unreachable` (no answer: down, refused, timed out,
 * TLS), `auth` (the token was refused), `not_found` (a name or id the settings point at does not
 * exist on the console), `refused` (any other error answer). `message` names the console and what
 * went wrong, with secrets scrubbed.
 */
export interface ConsoleFailure {
  readonly ok: false;
  readonly reason: 'unreachable' | 'auth' | 'not_found' | 'refused';
  readonly message: string;
}

/** What the console resolved for a destination (by name, never hard-coded ids). */
export interface ConsoleSetup {
  readonly ok: true;
  /** The API version every call sends. */
  readonly apiVersion: string;
  readonly collector: { readonly id: number; readonly name: string };
  readonly logSourceType: { readonly id: number; readonly name: string };
  readonly protocol: { readonly id: number; readonly name: string };
}

/** One log source as the console describes it. */
export interface LogSourceState {
  readonly id: number;
  readonly name: string;
  readonly identifier: string | null;
  readonly enabled: boolean;
  readonly typeId: number | null;
  readonly protocolTypeId: number | null;
  /** The console holds a change to the log source that needs "Deploy Changes" before it routes events. */
  readonly requiresDeploy: boolean;
}

/** A log source to ensure: its identifier (= syslog HOSTNAME of its events) and its name. */
export interface LogSourceSpec {
  readonly identifier: string;
  readonly name: string;
  readonly description: string;
  /** The id this service provisioned before, when it has one: read and reused when it still exists. */
  readonly knownId?: number | null;
}

/** How ensuring a log source ended. */
export type EnsureOutcome =
  | { readonly ok: true; readonly source: LogSourceState; readonly created: boolean }
  | ConsoleFailure;

/** What closing offenses did: each offense counted once, closed or failed. */
export interface OffenseCloseOutcome {
  /** Offenses found open for the log sources in the window. */
  readonly found: number;
  readonly closed: number;
  readonly failed: number;
  /** The first distinct errors (bounded), listing included. */
  readonly errors: readonly string[];
  /** The listing itself failed: nothing was closed. */
  readonly listFailed: boolean;
}

/** Which offenses to close. */
export interface OffenseSelection {
  /** Offenses linked to any of these log sources. */
  readonly logSourceIds: readonly number[];
  /** Opened at or after this time (epoch ms); absent: any time. */
  readonly openedFrom?: number;
  /** Opened at or before this time (epoch ms); absent: up to now. */
  readonly openedUntil?: number;
}

/**
 * The administrative side of a SIEM with log sources and offenses (SIEM Q's console API), as a
 * kind's client offers it when the destination has console settings. Domain code asks
 * `client.logSources`, never the kind's name. Failures are returned, never thrown; only a
 * cancelled signal throws.
 */
export interface LogSourceAdmin {
  /** The destination wants one log source per exercise section (spec 2.6). */
  readonly provision: boolean;
  /** The destination wants offenses closed when an attempt ends (spec 3.4). */
  readonly offenseCleanup: boolean;
  /** The console's address, for messages. */
  readonly console: string;
  /**
   * Reachable, token accepted, API version, collector, log source type and protocol resolved;
   * from the destination's cache unless `fresh` (then asked of the console now).
   */
  setup(signal?: AbortSignal, options?: { fresh?: boolean }): Promise<ConsoleSetup | ConsoleFailure>;
  /** Finds the log source (by known id, name or identifier) or creates it; idempotent. */
  ensure(spec: LogSourceSpec, signal?: AbortSignal): Promise<EnsureOutcome>;
  /** The log sources of these identifiers (of the configured type and protocol) that exist; one listing. */
  find(
    identifiers: readonly string[],
    signal?: AbortSignal,
  ): Promise<{ readonly ok: true; readonly sources: ReadonlyMap<string, LogSourceState> } | ConsoleFailure>;
  /** The log sources of these ids as the console has them now (missing ids are absent). */
  read(
    ids: readonly number[],
    signal?: AbortSignal,
  ): Promise<{ readonly ok: true; readonly sources: ReadonlyMap<number, LogSourceState> } | ConsoleFailure>;
  /** Closes the open offenses of the selection with the configured closing reason, each once. */
  closeOffenses(selection: OffenseSelection, signal?: AbortSignal): Promise<OffenseCloseOutcome>;
  /** The console part of the destination check (token, API version, collector, type). */
  check(signal?: AbortSignal): Promise<CheckStep[]>;
}
