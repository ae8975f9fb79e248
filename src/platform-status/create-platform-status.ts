import type { Kysely } from 'kysely';
import type { SessionEvents } from '../auth/session-events.ts';
import type { SessionPolicy } from '../auth/sessions.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SiemRegistry } from '../siems/registry.ts';
import { createBuiltinProvider } from './builtin-provider.ts';
import { liveSessionHashes } from './live-sessions.ts';
import { createPrometheusProvider } from './prometheus-provider.ts';
import { StatusHub } from './status-hub.ts';
import { databaseProbe, enabledDestinationProbes, ProbeRegistry } from './status-probes.ts';
import { DEFAULT_STREAM_SETTINGS, StatusStreams, type StreamSettings } from './status-streams.ts';
import type { MonitoringProvider } from './status-types.ts';

/** The platform-status feature of one instance. */
export interface PlatformStatus {
  /** The one poller and the fan-out to streams. */
  readonly hub: StatusHub;
  /** Where other features register checks of their dependencies (object storage, scheduler). */
  readonly probes: ProbeRegistry;
  /** The open event streams. */
  readonly streams: StatusStreams;
  /** Starts polling (ctx.start()). Idempotent. */
  start(): void;
  /** Ends every stream and stops polling. Idempotent. */
  close(): Promise<void>;
}

/** Choices a caller (tests, the benchmark, wiring of drivers) may make. */
export interface PlatformStatusOptions {
  /** Replaces the provider chosen from the configuration. */
  provider?: MonitoringProvider;
  /** Overrides PLATFORM_STATUS_POLL_SECONDS and the provider's default. */
  pollIntervalMs?: number;
  stream?: Partial<StreamSettings>;
  replayLimit?: number;
  replayMaxAgeMs?: number;
  /**
   * Whether the built-in provider checks SIEM destinations (default true). Tests that count
   * requests at simulators turn it off; the destinations then are not in the status at all.
   */
  siemChecks?: boolean;
  builtin?: { timeoutMs?: number; concurrency?: number; maxBackoffMs?: number };
}

/** What the feature uses from the context. */
export interface PlatformStatusDeps {
  config: Config;
  log: Logger;
  clock: Clock;
  db: Kysely<Database>;
  dbKind: string;
  secretBox: SecretBox;
  siems: SiemRegistry;
  sessionEvents: SessionEvents;
  sessionPolicy: SessionPolicy;
}

/**
 * Wires the feature: Prometheus when PROMETHEUS_URL is set, else the built-in checks (the database
 * probe registered here; storage and scheduler register theirs through `probes`).
 */
export function createPlatformStatus(
  deps: PlatformStatusDeps,
  options: PlatformStatusOptions = {},
): PlatformStatus {
  const probes = new ProbeRegistry();
  probes.register(databaseProbe(deps.db, deps.dbKind));
  const configured = deps.config.platformStatusPollSeconds;
  const intervalMs = options.pollIntervalMs ?? (configured === undefined ? undefined : configured * 1000);
  // The provider gets the interval too: the built-in checks space a failing SIEM's retries in
  // poll intervals (1, 2, 4, 8 …), which must be the hub's, not the provider's default.
  const provider =
    options.provider ??
    (deps.config.prometheusUrl !== undefined
      ? createPrometheusProvider({ url: deps.config.prometheusUrl, intervalMs })
      : createBuiltinProvider({
          probes,
          clock: deps.clock,
          intervalMs,
          ...(options.siemChecks === false ? {} : { listSiemProbes: enabledDestinationProbes(deps) }),
          ...options.builtin,
        }));
  const hub = new StatusHub({
    provider,
    clock: deps.clock,
    log: deps.log,
    intervalMs,
    replayLimit: options.replayLimit,
    replayMaxAgeMs: options.replayMaxAgeMs,
  });
  const streams = new StatusStreams({
    hub,
    sessionEvents: deps.sessionEvents,
    liveSessions: (hashes) => liveSessionHashes(deps.db, deps.clock, deps.sessionPolicy, hashes),
    log: deps.log,
    settings: { ...DEFAULT_STREAM_SETTINGS, ...options.stream },
  });
  return {
    hub,
    probes,
    streams,
    start: () => hub.start(),
    async close() {
      streams.close();
      await hub.close();
    },
  };
}
