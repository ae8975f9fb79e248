import { existsSync } from 'node:fs';
import path from 'node:path';
import { invalidInput } from './errors.ts';

/** Validated, frozen service configuration (decisions.md §1). Read once at start. */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly s3:
    | {
        readonly endpoint: string;
        readonly region: string;
        readonly accessKeyId: string | undefined;
        readonly secretAccessKey: string | undefined;
        readonly forcePathStyle: boolean;
      }
    | undefined;
  /** Accepted Bearer secrets for the dispatch route; empty means Bearer is never accepted. */
  readonly dispatchTokens: readonly string[];
  readonly adminEmail: string | undefined;
  readonly adminPassword: string | undefined;
  /** 32-byte key from SECRET_KEY, or undefined when it must be generated into DATA_DIR. */
  readonly secretKey: Buffer | undefined;
  /** Older keys still accepted for decryption during a key rotation. */
  readonly previousSecretKeys: readonly Buffer[];
  readonly publicUrl: string;
  /** Origin (scheme://host[:port]) of publicUrl; state changes from other origins are refused. */
  readonly publicOrigin: string;
  readonly secureCookies: boolean;
  readonly archiveAllowedHosts: readonly string[];
  readonly archiveAllowHttp: boolean;
  readonly archiveMaxBytes: number;
  readonly archiveMaxUncompressedBytes: number;
  /** Inflated bytes of one archive entry (`ARCHIVE_MAX_ENTRY_BYTES`). */
  readonly archiveMaxEntryBytes: number;
  /** Entries in one archive, folders and skipped entries included (`ARCHIVE_MAX_ENTRIES`). */
  readonly archiveMaxEntries: number;
  /** Inflated to compressed bytes of one entry (`ARCHIVE_MAX_RATIO`, as N for N:1). */
  readonly archiveMaxRatio: number;
  /** Session starts (download and shipment) at once; more are refused with 503 (`ARCHIVE_MAX_CONCURRENT`). */
  readonly archiveMaxConcurrent: number;
  /** Downloaded bytes held in memory per archive; beyond, it goes to a file under DATA_DIR/tmp (`ARCHIVE_MEMORY_BYTES`). */
  readonly archiveMemoryBytes: number;
  /** Longest a shipment runs; then it stops with what was shipped (`SHIPMENT_DEADLINE_SECONDS`). */
  readonly shipmentDeadlineSeconds: number;
  readonly scheduler: boolean;
  /** Address live TCP intake listeners bind (`INTAKE_HOST`, default HOST). */
  readonly intakeHost: string;
  /** Background release of exercise sections whose delay passed (`RELEASE_TICK`, default on). */
  readonly releaseTick: boolean;
  /** Retry an HTTP 404 from a HEC collector like a busy server (Splunk Cloud answers 404 during maintenance). */
  readonly hecRetryNotFound: boolean;
  readonly prometheusUrl: string | undefined;
  /** Port of the Prometheus exporter's own listener (`METRICS_PORT`); undefined: no exporter. */
  readonly metricsPort: number | undefined;
  /** Address the exporter binds (`METRICS_HOST`, default 127.0.0.1); it has no authentication. */
  readonly metricsHost: string;
  /** Poll interval of the platform-status monitor; undefined: the provider's default (15 s / 30 s). */
  readonly platformStatusPollSeconds: number | undefined;
  readonly sessionIdleSeconds: number;
  readonly sessionAbsoluteSeconds: number;
  readonly logLevel: string;
  /** Trust X-Forwarded-For from a reverse proxy (client addresses in the audit log). */
  readonly trustProxy: boolean;
}

/** Environment as a plain record (a `.env` file in the working directory is loaded first). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Reads `process.env`, after loading `.env` from the working directory when present. */
export function readEnv(cwd = process.cwd()): Env {
  const file = path.join(cwd, '.env');
  // Variables already set in the environment win over the file (loadEnvFile never overrides).
  if (existsSync(file)) process.loadEnvFile(file);
  return { ...process.env };
}

const MiB = 1024 * 1024;

/** LOG_LEVEL values the README documents. */
const LOG_LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** Validates the environment into a Config; throws one AppError naming every bad variable. */
export function loadConfig(env: Env): Config {
  const bad: Record<string, string> = {};
  const str = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      bad[name] = `must be an integer between ${min} and ${max}`;
      return def;
    }
    return n;
  };
  const bool = (name: string, def: boolean): boolean => {
    const raw = str(name)?.toLowerCase();
    if (raw === undefined) return def;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    bad[name] = 'must be true or false';
    return def;
  };
  const key = (name: string): Buffer | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    const buf = Buffer.from(raw, 'base64');
    if (buf.length !== 32) {
      bad[name] = 'must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)';
      return undefined;
    }
    return buf;
  };

  const host = str('HOST') ?? '127.0.0.1';
  const port = int('PORT', 8080, 0, 65535);
  const dataDir = path.resolve(str('DATA_DIR') ?? './data');
  const databaseUrl = str('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    bad.DATABASE_URL = 'must be a postgres:// or postgresql:// URL';
  }

  const secretKey = key('SECRET_KEY');
  if (databaseUrl !== undefined && secretKey === undefined && bad.SECRET_KEY === undefined) {
    bad.SECRET_KEY =
      'is required with DATABASE_URL (every instance must share it); generate one with `openssl rand -base64 32`';
  }
  const previousSecretKeys: Buffer[] = [];
  const prev = key('SECRET_KEY_PREVIOUS');
  if (prev) previousSecretKeys.push(prev);

  const s3Endpoint = str('S3_ENDPOINT');
  if (s3Endpoint !== undefined && !isHttpUrl(s3Endpoint)) bad.S3_ENDPOINT = 'must be an http(s) URL';
  // The other S3 settings without an endpoint would be ignored, and archives silently kept on this
  // instance's disk: most likely an endpoint forgotten (AWS S3 too needs it, e.g. https://s3.eu-west-1.amazonaws.com).
  const s3Orphans = ['S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE'].filter(
    (name) => str(name) !== undefined,
  );
  if (s3Endpoint === undefined && s3Orphans.length > 0) {
    bad.S3_ENDPOINT = `is required when ${s3Orphans.join(', ')} ${s3Orphans.length > 1 ? 'are' : 'is'} set (otherwise archives are stored under DATA_DIR)`;
  }
  const s3 =
    s3Endpoint === undefined
      ? undefined
      : {
          endpoint: s3Endpoint,
          region: str('S3_REGION') ?? 'us-east-1',
          accessKeyId: str('S3_ACCESS_KEY_ID'),
          secretAccessKey: str('S3_SECRET_ACCESS_KEY'),
          forcePathStyle: bool('S3_FORCE_PATH_STYLE', false),
        };

  const dispatchTokens = [str('DISPATCH_TOKEN'), str('DISPATCH_TOKEN_PREVIOUS')].filter(
    (t): t is string => t !== undefined,
  );
  // A short token is the operator's choice; start-up warns about it (createContext) rather than refusing.

  const adminEmail = str('ADMIN_EMAIL')?.toLowerCase();
  const adminPassword = env.ADMIN_PASSWORD;
  if ((adminEmail === undefined) !== (adminPassword === undefined || adminPassword === '')) {
    bad[adminEmail === undefined ? 'ADMIN_EMAIL' : 'ADMIN_PASSWORD'] =
      'ADMIN_EMAIL and ADMIN_PASSWORD go together';
  }

  const publicUrl = str('PUBLIC_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let publicOrigin = '';
  if (!isHttpUrl(publicUrl)) bad.PUBLIC_URL = 'must be an http(s) URL';
  else publicOrigin = new URL(publicUrl).origin;

  const archiveAllowedHosts = (str('ARCHIVE_ALLOWED_HOSTS') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');

  const prometheusUrl = str('PROMETHEUS_URL');
  const prometheusProblem = prometheusUrl === undefined ? undefined : prometheusUrlProblem(prometheusUrl);
  if (prometheusProblem !== undefined) bad.PROMETHEUS_URL = prometheusProblem;

  const logLevel = str('LOG_LEVEL')?.toLowerCase() ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) bad.LOG_LEVEL = `must be one of ${LOG_LEVELS.join(', ')}`;

  const config: Config = {
    host,
    port,
    dataDir,
    databaseUrl,
    s3,
    dispatchTokens,
    adminEmail,
    adminPassword: adminEmail === undefined ? undefined : adminPassword,
    secretKey,
    previousSecretKeys,
    publicUrl,
    publicOrigin,
    secureCookies: publicUrl.startsWith('https://'),
    archiveAllowedHosts,
    archiveAllowHttp: bool('ARCHIVE_ALLOW_HTTP', false),
    archiveMaxBytes: int('ARCHIVE_MAX_BYTES', 512 * MiB, 1, Number.MAX_SAFE_INTEGER),
    archiveMaxUncompressedBytes: int(
      'ARCHIVE_MAX_UNCOMPRESSED_BYTES',
      4096 * MiB,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    archiveMaxEntryBytes: int('ARCHIVE_MAX_ENTRY_BYTES', 1024 * MiB, 1, Number.MAX_SAFE_INTEGER),
    archiveMaxEntries: int('ARCHIVE_MAX_ENTRIES', 10_000, 1, 10_000_000),
    archiveMaxRatio: int('ARCHIVE_MAX_RATIO', 1000, 1, 1_000_000_000),
    archiveMaxConcurrent: int('ARCHIVE_MAX_CONCURRENT', 2, 1, 1000),
    archiveMemoryBytes: int('ARCHIVE_MEMORY_BYTES', 64 * MiB, 0, Number.MAX_SAFE_INTEGER),
    shipmentDeadlineSeconds: int('SHIPMENT_DEADLINE_SECONDS', 900, 1, 7 * 24 * 3600),
    // `on`/`off`, and the usual true/false spellings.
    scheduler: bool('SCHEDULER', true),
    intakeHost: str('INTAKE_HOST') ?? host,
    releaseTick: bool('RELEASE_TICK', true),
    hecRetryNotFound: bool('HEC_RETRY_NOT_FOUND', false),
    prometheusUrl,
    // Off unless set; 0 is refused rather than taken as "any free port" (or mistaken for "off").
    metricsPort: str('METRICS_PORT') === undefined ? undefined : int('METRICS_PORT', 0, 1, 65535),
    metricsHost: str('METRICS_HOST') ?? '127.0.0.1',
    platformStatusPollSeconds:
      str('PLATFORM_STATUS_POLL_SECONDS') === undefined
        ? undefined
        : int('PLATFORM_STATUS_POLL_SECONDS', 30, 1, 3600),
    sessionIdleSeconds: int('SESSION_IDLE_SECONDS', 2 * 3600, 60, 30 * 24 * 3600),
    sessionAbsoluteSeconds: int('SESSION_ABSOLUTE_SECONDS', 12 * 3600, 60, 90 * 24 * 3600),
    logLevel,
    trustProxy: bool('TRUST_PROXY', false),
  };
  if (Object.keys(bad).length > 0) throw invalidInput('Invalid configuration', bad);
  return Object.freeze(config);
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function prometheusUrlProblem(s: string): string | undefined {
  if (!isHttpUrl(s)) return 'must be an http(s) URL';
  // The provider decodes `user:password@` for basic auth; a bad escape found only then would stop
  // start-up with a URIError that names no variable.
  const u = new URL(s);
  try {
    decodeURIComponent(u.username);
    decodeURIComponent(u.password);
  } catch {
    return 'has a user or password that is not valid percent-encoding';
  }
  return undefined;
}
