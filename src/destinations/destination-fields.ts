import { syslogHostnameProblem } from '../pipeline/syslog/syslog-hostname.ts';
import {
  DRIVERS,
  type DriverName,
  FRAMINGS,
  HEADER_MODES,
  PAYLOAD_FORMATS,
  SYSLOG_FORMATS,
} from './destination-types.ts';

/** How one destination setting is checked, stored and shown. */
export interface FieldSpec {
  readonly kind: 'string' | 'url' | 'boolean' | 'port' | 'int' | 'pem' | 'enum' | 'hostname';
  readonly secret?: boolean;
  readonly required?: boolean;
  readonly default?: string | number | boolean | null;
  readonly values?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly maxLength?: number;
  readonly description: string;
}

const tls = {
  tls_verify: { kind: 'boolean', default: true, description: 'verify the server certificate (default true)' },
  ca_pem: { kind: 'pem', default: null, description: 'PEM CA bundle trusted in addition to the system CAs' },
} as const satisfies Record<string, FieldSpec>;

/** Settings of each driver (decisions.md §4) beyond name, driver, payload_format, index and enabled. */
export const DRIVER_FIELDS: Record<DriverName, Readonly<Record<string, FieldSpec>>> = {
  vendorA_hec: {
    url: { kind: 'url', required: true, description: 'collector base URL, e.g. https://siem-a:8088' },
    token: { kind: 'string', secret: true, required: true, maxLength: 512, description: 'HEC token' },
    management_url: {
      kind: 'url',
      default: null,
      description: 'management API base URL, e.g. https://siem-a:8089',
    },
    management_token: {
      kind: 'string',
      secret: true,
      maxLength: 4096,
      description: 'sent as Authorization: Bearer',
    },
    management_username: { kind: 'string', default: null, maxLength: 256, description: 'basic auth user' },
    management_password: {
      kind: 'string',
      secret: true,
      maxLength: 1024,
      description: 'basic auth password',
    },
    sourcetype: { kind: 'string', default: null, maxLength: 256, description: 'event sourcetype' },
    source: { kind: 'string', default: null, maxLength: 256, description: 'event source' },
    channel: {
      kind: 'string',
      default: null,
      maxLength: 64,
      description: 'X-Splunk-Request-Channel value (GUID)',
    },
    ...tls,
  },
  vendorB_bulk: {
    url: { kind: 'url', required: true, description: 'cluster URL, e.g. https://siem-b:9200' },
    api_key: { kind: 'string', secret: true, maxLength: 4096, description: 'sent as Authorization: ApiKey' },
    username: { kind: 'string', default: null, maxLength: 256, description: 'basic auth user' },
    password: { kind: 'string', secret: true, maxLength: 1024, description: 'basic auth password' },
    ...tls,
  },
  syslog_tcp: {
    host: { kind: 'hostname', required: true, description: 'receiver host name or address' },
    port: { kind: 'port', required: true, description: 'receiver TCP port' },
    tls: { kind: 'boolean', default: false, description: 'TLS instead of plain TCP' },
    source_identity: {
      kind: 'string',
      default: null,
      maxLength: 255,
      description: 'HOSTNAME of synthesized syslog headers',
    },
    header_mode: {
      kind: 'enum',
      values: HEADER_MODES,
      default: 'synthesize_if_missing',
      description: 'syslog header handling',
    },
    syslog_format: {
      kind: 'enum',
      values: SYSLOG_FORMATS,
      default: 'rfc3164',
      description: 'header format when synthesized',
    },
    framing: { kind: 'enum', values: FRAMINGS, default: 'lf', description: 'TCP framing (RFC 6587)' },
    facility: {
      kind: 'int',
      min: 0,
      max: 23,
      default: 16,
      description: 'facility of synthesized headers (16 = local0)',
    },
    severity: {
      kind: 'int',
      min: 0,
      max: 7,
      default: 6,
      description: 'severity of synthesized headers (6 = info)',
    },
    provision_log_source: {
      kind: 'boolean',
      default: false,
      description: 'SIEM Q: one log source per exercise section',
    },
    offense_cleanup: {
      kind: 'boolean',
      default: false,
      description: 'SIEM Q: close offenses when an attempt ends',
    },
    ...tls,
  },
};

/** Settings of the nested `siem_q` object of a syslog_tcp destination. */
export const SIEM_Q_FIELDS: Readonly<Record<string, FieldSpec>> = {
  console_url: { kind: 'url', required: true, description: 'SIEM Q console base URL' },
  token: {
    kind: 'string',
    secret: true,
    maxLength: 512,
    description: 'authorized service token (SEC header)',
  },
  event_collector_id: {
    kind: 'int',
    min: 0,
    max: 2_147_483_647,
    default: null,
    description: 'event collector id',
  },
  log_source_type: {
    kind: 'string',
    default: 'Universal LEEF',
    maxLength: 256,
    description: 'log source type name',
  },
  log_source_protocol: {
    kind: 'string',
    default: 'Syslog',
    maxLength: 256,
    description: 'log source protocol name',
  },
  ...tls,
};

/** Names of the secret fields of a driver, `siem_q.token` included for syslog_tcp. */
export function secretFieldNames(driver: DriverName): string[] {
  const own = Object.entries(DRIVER_FIELDS[driver])
    .filter(([, f]) => f.secret)
    .map(([k]) => k);
  return driver === 'syslog_tcp' ? [...own, 'siem_q.token'] : own;
}

/** Why `value` does not fit `spec`, or undefined when it does. `null` is checked by the caller. */
export function fieldProblem(spec: FieldSpec, value: unknown): string | undefined {
  switch (spec.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'port':
      return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535
        ? undefined
        : 'must be an integer from 1 to 65535';
    case 'int': {
      const ok =
        Number.isInteger(value) &&
        (value as number) >= (spec.min ?? 0) &&
        (value as number) <= (spec.max ?? 2 ** 31);
      return ok ? undefined : `must be an integer from ${spec.min ?? 0} to ${spec.max}`;
    }
    case 'enum':
      return typeof value === 'string' && spec.values?.includes(value)
        ? undefined
        : `must be one of ${spec.values?.join(', ')}`;
    case 'url': {
      if (typeof value !== 'string') return 'must be a URL';
      let u: URL;
      try {
        u = new URL(value);
      } catch {
        return 'must be an absolute http(s) URL';
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
      if (u.username || u.password) return 'must not carry credentials; use the credential fields';
      if (u.search || u.hash) return 'must not carry a query or fragment';
      return undefined;
    }
    case 'hostname':
      if (typeof value !== 'string' || value.length === 0 || value.length > 253)
        return 'must be a host name or address';
      return /^[A-Za-z0-9.:_[\]-]+$/.test(value) ? undefined : 'must be a host name or address';
    case 'pem':
      if (typeof value !== 'string') return 'must be PEM text';
      if (value.length > 1_000_000) return 'is too long';
      return /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(value)
        ? undefined
        : 'must hold at least one PEM certificate (-----BEGIN CERTIFICATE-----)';
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      if (spec.maxLength !== undefined && value.length > spec.maxLength)
        return `must be at most ${spec.maxLength} characters`;
      return undefined;
  }
}

/** Extra per-field rules beyond the kind (source identity must be a syslog HOSTNAME). */
export function extraFieldProblem(name: string, value: unknown): string | undefined {
  if (name === 'source_identity' && typeof value === 'string') return syslogHostnameProblem(value);
  return undefined;
}

export { DRIVERS, PAYLOAD_FORMATS };
