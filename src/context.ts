import type { Kysely } from 'kysely';
import { type AuditEntry, recordAudit } from './audit/audit-log.ts';
import { createTokenVerifier } from './auth/dispatch-token.ts';
import { LoginThrottle } from './auth/login-throttle.ts';
import { passwordProblem } from './auth/passwords.ts';
import { SessionEvents } from './auth/session-events.ts';
import type { SessionPolicy } from './auth/sessions.ts';
import { type Clock, systemClock } from './clock.ts';
import type { Config } from './config.ts';
import { type DbHandle, openDatabase } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import type { Database } from './db/schema.ts';
import { createLogger, type Logger } from './logger.ts';
import type { CreateDriver } from './noise/ensure-job-indexes.ts';
import { createNoiseDispatcher } from './noise/noise-dispatcher.ts';
import { createNoiseServices, type NoiseServices } from './noise/noise-services.ts';
import { schedulerProbe } from './noise/scheduler-probe.ts';
import {
  createPlatformStatus,
  type PlatformStatus,
  type PlatformStatusOptions,
} from './platform-status/create-platform-status.ts';
import { seedBuiltinRoles } from './roles/role-service.ts';
import { loadSecretKey } from './secrets/load-secret-key.ts';
import { createSecretBox, type SecretBox } from './secrets/secret-box.ts';
import { createDriver } from './siems/registry.ts';
import type { ObjectStorage } from './storage/object-storage.ts';
import { openStorage } from './storage/open-storage.ts';
import { storageProbe } from './storage/storage-probe.ts';
import { bootstrapAdmin } from './users/user-service.ts';

/** Everything the service's parts need, wired in one place. */
export interface AppContext {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly db: Kysely<Database>;
  readonly dbKind: DbHandle['kind'];
  readonly secretBox: SecretBox;
  readonly sessionPolicy: SessionPolicy;
  readonly loginThrottle: LoginThrottle;
  /** Announces ended sessions to open event streams. */
  readonly sessionEvents: SessionEvents;
  /** Platform-status poller, probes and event streams (started by the HTTP app). */
  readonly platformStatus: PlatformStatus;
  /** Object storage with the buckets noise-archives and exercise-archives (local or S3). */
  readonly storage: ObjectStorage;
  /** Noise runner, scheduler (started by the HTTP app when SCHEDULER is on) and dispatcher slot. */
  readonly noise: NoiseServices;
  /** Builds the SIEM driver of a destination (src/pipeline/drivers/registry.ts); tests may swap it. */
  createDriver?: CreateDriver;
  /** Constant-time check of a Bearer token against DISPATCH_TOKEN (false when unset). */
  readonly verifyDispatchToken: (token: string) => boolean;
  /** Writes an audit record; failures are logged, not thrown (use recordAudit to fail closed). */
  audit(entry: AuditEntry): Promise<void>;
  /** Closes every part in reverse order of creation. */
  close(): Promise<void>;
}

/** Parts a caller (tests, the CLI) may supply instead of the defaults. */
/** Below this, a dispatch token is guessable enough to warn about at start. */
const DISPATCH_TOKEN_ADVISED_LENGTH = 16;

export interface ContextOverrides {
  clock?: Clock;
  log?: Logger;
  /** An already opened database (tests); it is closed with the context. */
  database?: DbHandle;
  /** Platform-status choices (a provider, intervals, stream timing). */
  platformStatus?: PlatformStatusOptions;
}

/**
 * The composition root: opens the database, migrates it, seeds built-in roles and the bootstrap
 * admin, and wires the parts. Nothing else constructs them.
 */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? systemClock;
  const handle = overrides.database ?? (await openDatabase(config));
  const closers: Array<() => Promise<void>> = [() => handle.close()];
  try {
    if (config.dispatchTokens.some((t) => t.length < DISPATCH_TOKEN_ADVISED_LENGTH)) {
      log.warn(
        `DISPATCH_TOKEN is shorter than ${DISPATCH_TOKEN_ADVISED_LENGTH} characters: use a long random value (e.g. \`openssl rand -hex 32\`).`,
      );
    }
    const applied = await migrateToLatest(handle.db as Kysely<unknown>);
    if (applied.length > 0) log.info({ migrations: applied }, 'Database migrated.');
    const secretKey = loadSecretKey(config.secretKey, config.dataDir);
    await seedBuiltinRoles(handle.db);
    if (config.adminEmail && config.adminPassword) {
      const created = await bootstrapAdmin(handle.db, config.adminEmail, config.adminPassword);
      if (created) {
        log.info({ email: config.adminEmail }, 'Bootstrap admin created.');
        const weak = passwordProblem(config.adminPassword);
        if (weak)
          log.warn({ email: config.adminEmail }, `ADMIN_PASSWORD ${weak}: change it after signing in.`);
        await recordAudit(handle.db, clock.now(), {
          actor: 'system',
          action: 'user.create',
          target: config.adminEmail,
          outcome: 'success',
          details: { reason: 'ADMIN_EMAIL bootstrap', roles: ['admin'] },
        });
      }
    }

    const secretBox = createSecretBox(secretKey, config.previousSecretKeys);
    const sessionPolicy: SessionPolicy = {
      idleSeconds: config.sessionIdleSeconds,
      absoluteSeconds: config.sessionAbsoluteSeconds,
    };
    const sessionEvents = new SessionEvents();
    const driverFor: CreateDriver = (destination) =>
      createDriver(destination, { log, clock, hecRetryNotFound: config.hecRetryNotFound });
    const platformStatus = createPlatformStatus(
      { config, log, clock, db: handle.db, dbKind: handle.kind, secretBox, sessionEvents, sessionPolicy },
      { driverFactory: () => driverFor, ...overrides.platformStatus },
    );
    closers.push(() => platformStatus.close());

    const storage = await openStorage(config, log);
    closers.push(() => storage.close());
    const noise = createNoiseServices({ db: handle.db, clock, log, audit: (entry) => ctx.audit(entry) });
    // Read at every dispatch: tests may swap ctx.createDriver.
    noise.dispatch = createNoiseDispatcher({
      db: handle.db,
      clock,
      log,
      secretBox,
      storage,
      config,
      createDriver: () => ctx.createDriver,
    });
    closers.push(() => noise.close());
    platformStatus.probes.register(storageProbe(storage));
    // With SCHEDULER=off an external scheduler dispatches; there is no heartbeat to watch.
    if (config.scheduler) platformStatus.probes.register(schedulerProbe(noise.scheduler, clock));

    const ctx: AppContext = {
      config,
      log,
      clock,
      db: handle.db,
      dbKind: handle.kind,
      secretBox,
      sessionPolicy,
      loginThrottle: new LoginThrottle(clock),
      sessionEvents,
      platformStatus,
      storage,
      noise,
      createDriver: driverFor,
      verifyDispatchToken:
        config.dispatchTokens.length > 0 ? createTokenVerifier(config.dispatchTokens) : () => false,
      async audit(entry) {
        try {
          await recordAudit(handle.db, clock.now(), entry);
        } catch (err) {
          log.error({ err, action: entry.action }, 'Audit record could not be written.');
        }
      },
      async close() {
        for (const close of closers.reverse()) {
          try {
            await close();
          } catch (err) {
            log.warn({ err }, 'Error while closing.');
          }
        }
      },
    };
    return ctx;
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}
