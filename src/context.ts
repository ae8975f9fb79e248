import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { type AuditEntry, recordAudit } from './audit/audit-log.ts';
import { createTokenVerifier } from './auth/dispatch-token.ts';
import { LoginThrottle } from './auth/login-throttle.ts';
import { passwordProblem } from './auth/passwords.ts';
import { SessionCache } from './auth/session-cache.ts';
import { SessionEvents } from './auth/session-events.ts';
import type { SessionPolicy } from './auth/sessions.ts';
import { type Clock, systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { type DbHandle, openDatabase } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { Database } from './db/schema.ts';
import {
  createExerciseServices,
  type ExerciseServices,
  type ExerciseServicesOptions,
} from './exercises/exercise-services.ts';
import { LogSourceService } from './log-sources/log-source-service.ts';
import { createLogger, type Logger } from './logger.ts';
import { Metrics } from './metrics/metrics.ts';
import { DownloadGate } from './net/download-gate.ts';
import type { NoiseDispatcher } from './noise/dispatch-types.ts';
import { createNoiseDispatcher } from './noise/noise-dispatcher.ts';
import {
  createNoiseServices,
  type NoiseServices,
  type NoiseServicesOptions,
} from './noise/noise-services.ts';
import { schedulerProbe } from './noise/scheduler-probe.ts';
import { archiveLimitsOf } from './pipeline/archive/archive-limits.ts';
import { EcsScanPool } from './pipeline/ecs/ecs-scan-pool.ts';
import {
  createPlatformStatus,
  type PlatformStatus,
  type PlatformStatusOptions,
} from './platform-status/create-platform-status.ts';
import { seedBuiltinRoles } from './roles/role-service.ts';
import { RunEngine, type RunEngineOptions } from './runs/run-engine.ts';
import { loadSecretKey } from './secrets/load-secret-key.ts';
import { createSecretBox, type SecretBox } from './secrets/secret-box.ts';
import { createShipping, type Shipping } from './shipping/shipping.ts';
import { builtinSiemKinds, SiemRegistry } from './siems/registry.ts';
import type { AnySiemKind } from './siems/siem-kind.ts';
import type { ObjectStorage } from './storage/object-storage.ts';
import { openStorage } from './storage/open-storage.ts';
import { storageProbe } from './storage/storage-probe.ts';
import { bootstrapAdmin } from './users/user-service.ts';

/** Everything the service's parts need, wired in one place; nothing in it is replaced later. */
export interface AppContext {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly db: Kysely<Database>;
  readonly dbKind: DbHandle['kind'];
  readonly secretBox: SecretBox;
  readonly sessionPolicy: SessionPolicy;
  readonly loginThrottle: LoginThrottle;
  /** Announces ended sessions and changed access to open event streams and the session cache. */
  readonly sessionEvents: SessionEvents;
  /** Resolved sessions for a moment, so a burst of requests does not queue on the database. */
  readonly sessionCache: SessionCache;
  /** The SIEM kinds (src/siems) and the clients of their destinations. */
  readonly siems: SiemRegistry;
  /** Object storage with the buckets noise-archives and exercise-archives (local or S3). */
  readonly storage: ObjectStorage;
  /** The one shipping path: targets, prepared archives, shipments (src/shipping). */
  readonly shipping: Shipping;
  /**
   * Session starts at once (ARCHIVE_MAX_CONCURRENT) and where their downloads go past
   * ARCHIVE_MEMORY_BYTES (files under DATA_DIR/tmp, removed when the start ends and at close).
   */
  readonly downloads: DownloadGate;
  /** Leased background runs of this instance: heartbeats, aborts, shutdown (src/runs). */
  readonly runs: RunEngine;
  /** Noise runner and scheduler. */
  readonly noise: NoiseServices;
  /** Exercise attempts, the section release tick, live intakes and the SIEM Q seams. */
  readonly exercises: ExerciseServices;
  /** SIEM Q log sources of exercises: provisioning, readiness, offense cleanup (src/log-sources). */
  readonly logSources: LogSourceService;
  /** Platform-status poller, probes and event streams. */
  readonly platformStatus: PlatformStatus;
  /** Prometheus metrics of this context (own registry); served on METRICS_PORT by main.ts. */
  readonly metrics: Metrics;
  /** Constant-time check of a Bearer token against DISPATCH_TOKEN (false when unset). */
  readonly verifyDispatchToken: (token: string) => boolean;
  /** Writes an audit record; failures are logged, not thrown (use recordAudit to fail closed). */
  audit(entry: AuditEntry): Promise<void>;
  /**
   * Aborted when stop() begins: work a request started (a session start's shipment) ends early,
   * its unsent events counted failed, so shutdown does not wait out a SIEM's retries.
   */
  readonly stopping: AbortSignal;
  /** Starts background work: the status poller, and the noise scheduler when SCHEDULER is on. */
  start(): void;
  /**
   * Stops background work: the scheduler stops claiming, every run is aborted and awaited (bounded),
   * event streams end. Requests waiting on them then answer. Idempotent.
   */
  stop(): Promise<void>;
  /** stop(), then closes every part in reverse order of creation. Idempotent. */
  close(): Promise<void>;
}

/** Parts a caller (tests, benchmarks, the CLI) may supply instead of the defaults. */
export interface ContextOverrides {
  clock?: Clock;
  log?: Logger;
  /** An already opened database (tests); it is closed with the context. */
  database?: DbHandle;
  /** Platform-status choices (a provider, intervals, stream timing, SIEM checks). */
  platformStatus?: PlatformStatusOptions;
  /** The SIEM kinds instead of the built-in ones (builtinSiemKinds): a test's own kind, tuned clients. */
  siemKinds?: (config: Config) => readonly AnySiemKind[];
  /** Replaces the noise dispatcher; it is given the real one to wrap or ignore. */
  noiseDispatcher?: (real: NoiseDispatcher) => NoiseDispatcher;
  /** Run timing: leases, heartbeats, shutdown grace. */
  runs?: RunEngineOptions;
  /** Noise runner and scheduler tuning. */
  noise?: NoiseServicesOptions;
  /** Names this instance in lease owners (default host:pid:random). */
  instanceId?: string;
  /** Exercise seams and release-tick timing. */
  exercises?: ExerciseServicesOptions;
}

const DAY_MS = 24 * 3600 * 1000;

/** Below this, a dispatch token is guessable enough to warn about at start. */
const DISPATCH_TOKEN_ADVISED_LENGTH = 16;

/**
 * The composition root: opens the database, migrates it, seeds built-in roles and the bootstrap
 * admin, and wires every part once, in dependency order. Nothing else constructs them.
 */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? systemClock;
  const handle = overrides.database ?? (await openDatabase(config));
  const closers: Array<() => Promise<void>> = [() => handle.close()];
  const closeAll = async () => {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (err) {
        log.warn({ err }, 'Error while closing.');
      }
    }
  };
  try {
    if (config.dispatchTokens.some((t) => t.length < DISPATCH_TOKEN_ADVISED_LENGTH)) {
      log.warn(
        `DISPATCH_TOKEN is shorter than ${DISPATCH_TOKEN_ADVISED_LENGTH} characters: use a long random value (e.g. \`openssl rand -hex 32\`).`,
      );
    }
    const db = handle.db;
    const applied = await migrateToLatest(db as Kysely<unknown>);
    if (applied.length > 0) log.info({ migrations: applied }, 'Database migrated.');
    const secretKey = loadSecretKey(config.secretKey, config.dataDir);
    await seedBuiltinRoles(db);
    if (config.adminEmail && config.adminPassword) await bootstrap(config, db, log, clock);

    const audit = async (entry: AuditEntry) => {
      try {
        await recordAudit(db, clock.now(), entry);
      } catch (err) {
        log.error({ err, action: entry.action }, 'Audit record could not be written.');
      }
    };
    const secretBox = createSecretBox(secretKey, config.previousSecretKeys);
    const sessionPolicy: SessionPolicy = {
      idleSeconds: config.sessionIdleSeconds,
      absoluteSeconds: config.sessionAbsoluteSeconds,
    };
    const sessionEvents = new SessionEvents();
    const sessionCache = new SessionCache(clock, sessionEvents);
    const siems = new SiemRegistry(
      overrides.siemKinds?.(config) ?? builtinSiemKinds({ hecRetryNotFound: config.hecRetryNotFound }),
      { log, clock },
    );
    const storage = await openStorage(config, log, handle);
    closers.push(() => storage.close());
    // The SSE gauge reads platformStatus (wired below) only when scraped, after this returns.
    const metrics = new Metrics(
      { sseClients: () => platformStatus.streams.size },
      { processMetrics: config.metricsPort !== undefined },
    );
    // Started by the first ECS shipment, not here: an instance that never ships ECS pays nothing.
    const ecsScanPool = new EcsScanPool({
      onFailure: (err) =>
        log.warn(
          { err: err.message },
          'The ECS scan worker failed; pass 1 of ECS archives runs on one thread.',
        ),
    });
    closers.push(() => ecsScanPool.close());
    const shipping = createShipping({
      db,
      secretBox,
      siems,
      clock,
      log,
      limits: archiveLimitsOf(config),
      deadlineMs: config.shipmentDeadlineSeconds * 1000,
      observer: metrics,
      ecsScanPool,
    });
    const downloads = new DownloadGate({
      maxConcurrent: config.archiveMaxConcurrent,
      memoryBytes: config.archiveMemoryBytes,
      tempDir: path.join(config.dataDir, 'tmp'),
    });
    closers.push(() => downloads.close());
    // Spill files a killed process left (wall-clock file times). The embedded database locks
    // DATA_DIR to this process, so every file there is an earlier one's; with PostgreSQL another
    // instance may share DATA_DIR, and no start runs a day past its shipment deadline.
    const orphanAge = handle.kind === 'pglite' ? 0 : DAY_MS + config.shipmentDeadlineSeconds * 1000;
    const swept = await downloads.sweep(Date.now(), orphanAge);
    if (swept > 0) log.info({ files: swept }, 'Removed archive downloads an earlier process left.');
    const instanceId =
      overrides.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    const runs = new RunEngine({ clock, log, instanceId }, overrides.runs);
    const shippingDispatcher = createNoiseDispatcher({ db, clock, log, storage, shipping });
    const noise = createNoiseServices(
      {
        db,
        clock,
        log,
        engine: runs,
        audit,
        dispatcher: overrides.noiseDispatcher?.(shippingDispatcher) ?? shippingDispatcher,
        observer: metrics,
      },
      overrides.noise,
    );
    const platformStatus = createPlatformStatus(
      { config, log, clock, db, dbKind: handle.kind, secretBox, siems, sessionEvents, sessionPolicy },
      overrides.platformStatus,
    );
    platformStatus.probes.register(storageProbe(storage));
    // With SCHEDULER=off an external scheduler dispatches; there is no heartbeat to watch.
    if (config.scheduler) platformStatus.probes.register(schedulerProbe(noise.scheduler, clock));
    closers.push(() => platformStatus.close());

    let stopping: Promise<void> | undefined;
    let closing: Promise<void> | undefined;
    const stopSignal = new AbortController();
    const logSources = new LogSourceService({ db, siems, clock, log, stopping: stopSignal.signal });
    const exercises = createExerciseServices(
      {
        config,
        db,
        clock,
        log,
        storage,
        shipping,
        stopping: stopSignal.signal,
        owner: instanceId,
        logSources,
      },
      overrides.exercises,
    );
    const stop = () => {
      stopping ??= (async () => {
        stopSignal.abort(new Error('the service is shutting down'));
        // In this order: a scheduler tick still claiming would otherwise start a run after the
        // aborts; streams end at once, not after the runs drained.
        platformStatus.streams.close();
        await noise.scheduler.stop();
        await exercises.stop();
        await runs.close();
        await platformStatus.close();
      })();
      return stopping;
    };
    return {
      config,
      log,
      clock,
      db,
      dbKind: handle.kind,
      secretBox,
      sessionPolicy,
      loginThrottle: new LoginThrottle(clock),
      sessionEvents,
      sessionCache,
      siems,
      storage,
      shipping,
      downloads,
      runs,
      noise,
      exercises,
      logSources,
      platformStatus,
      metrics,
      verifyDispatchToken:
        config.dispatchTokens.length > 0 ? createTokenVerifier(config.dispatchTokens) : () => false,
      audit,
      stopping: stopSignal.signal,
      start() {
        if (stopping !== undefined) return;
        platformStatus.start();
        if (config.scheduler) noise.scheduler.start();
        exercises.start();
      },
      stop,
      close() {
        closing ??= (async () => {
          await stop();
          await closeAll();
        })();
        return closing;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** ADMIN_EMAIL/ADMIN_PASSWORD: creates that admin when no user has the e-mail (decisions.md §1). */
async function bootstrap(config: Config, db: Kysely<Database>, log: Logger, clock: Clock): Promise<void> {
  const email = config.adminEmail as string;
  const password = config.adminPassword as string;
  const created = await bootstrapAdmin(db, email, password);
  if (!created) return;
  log.info({ email }, 'Bootstrap admin created.');
  const weak = passwordProblem(password);
  if (weak) log.warn({ email }, `ADMIN_PASSWORD ${weak}: change it after signing in.`);
  await recordAudit(db, clock.now(), {
    actor: 'system',
    action: 'user.create',
    target: email,
    outcome: 'success',
    details: { reason: 'ADMIN_EMAIL bootstrap', roles: ['admin'] },
  });
}
