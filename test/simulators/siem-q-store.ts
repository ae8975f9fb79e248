import type { FieldSchema } from './siem-q-filter.ts';

/**
 * In-memory state of the simulated SIEM Q console and its operations, without HTTP
 * (protocols-qradar-leef-syslog.md §4.4–4.8). Operations refuse with {@link SiemQApiError}, which the
 * simulator renders as the console's error body (§4.3).
 */

/** A refusal of the console: HTTP status, the endpoint's unique code, the message. */
export class SiemQApiError extends Error {
  override readonly name = 'SiemQApiError';
  readonly status: number;
  readonly code: number;
  readonly description: string | undefined;

  constructor(status: number, code: number, message: string, description?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.description = description;
  }
}

export interface SimProtocolParameter {
  id: number;
  name: string;
  value: string;
}

export interface SimLogSourceStatus {
  status: 'SUCCESS' | 'N/A' | 'WARN' | 'ERROR' | 'DISABLED';
  messages: Array<{ severity: string; text: string; timestamp: number }>;
  last_updated: number;
}

export interface SimLogSource {
  id: number;
  name: string;
  description: string;
  type_id: number;
  protocol_type_id: number;
  protocol_parameters: SimProtocolParameter[];
  enabled: boolean;
  gateway: boolean;
  internal: boolean;
  credibility: number;
  target_event_collector_id: number;
  coalesce_events: boolean;
  store_event_payload: boolean;
  requires_deploy: boolean;
  status: SimLogSourceStatus;
  creation_date: number;
  modified_date: number;
  auto_discovered: boolean;
  average_eps: number;
  last_event_time: number;
}

export type SimOffenseStatus = 'OPEN' | 'HIDDEN' | 'CLOSED';

export interface SimOffense {
  id: number;
  status: SimOffenseStatus;
  description: string;
  start_time: number;
  last_updated_time: number;
  first_persisted_time: number;
  last_persisted_time: number;
  close_time: number | null;
  closing_user: string | null;
  closing_reason_id: number | null;
  log_sources: Array<{ id: number; name: string; type_id: number; type_name: string }>;
  event_count: number;
  magnitude: number;
  severity: number;
  credibility: number;
  relevance: number;
  offense_type: number;
  offense_source: string;
  domain_id: number;
  rules: Array<{ id: number; type: string }>;
}

export interface SimClosingReason {
  id: number;
  text: string;
  is_deleted: boolean;
  is_reserved: boolean;
}

export interface SimLogSourceType {
  id: number;
  name: string;
  internal: boolean;
  custom: boolean;
  protocol_types: Array<{ protocol_id: number; documented: boolean }>;
  default_protocol_id: number;
  log_source_extension_id: number | null;
  supported_language_ids: number[];
  version: string;
  latest_version: string;
  uuid: string;
}

export interface SimProtocolParameterSpec {
  id: number;
  name: string;
  label: string;
  type: string;
  required: boolean;
  default_value: string | null;
  description: string;
}

export interface SimProtocolType {
  id: number;
  name: string;
  inbound: boolean;
  gateway_supported: boolean;
  parameters: SimProtocolParameterSpec[];
  parameter_groups: unknown[];
  testing_capabilities: { can_collect_events: boolean; testable: boolean; can_accept_sample_events: boolean };
}

export interface SimEventCollector {
  id: number;
  name: string;
  component_name: string;
  host_id: number;
}

export interface SimDeployStatus {
  status: 'COMPLETE' | 'IN_PROGRESS' | 'INITIALIZING';
  type: 'INCREMENTAL' | 'FULL';
  percent_complete: number;
  hosts: Array<{ ip: string; status: string; host_status: string }>;
  has_errors: boolean;
  error_message: string | null;
  initiated_by: string;
  initiated_from: string;
}

/** Options of {@link SiemQStore}. */
export interface SiemQStoreOptions {
  readonly collectors?: ReadonlyArray<SimEventCollector>;
  /** A created (or changed) log source has `requires_deploy: true` until {@link SiemQStore.deploy}. */
  readonly requiresDeployOnCreate?: boolean;
  /** Who closes offenses and starts deploys (`closing_user`, `initiated_by`). */
  readonly user?: string;
  readonly now?: () => number;
}

export const DEFAULT_COLLECTOR: SimEventCollector = {
  id: 7,
  name: 'eventcollector0 :: siemq-aio',
  component_name: 'eventcollector0',
  host_id: 53,
};

const DEFAULT_USER = 'API_token: socdrill';
const SYSLOG = 0;

function syslogLikeParameters(): SimProtocolParameterSpec[] {
  return [
    {
      id: 0,
      name: 'identifier',
      label: 'Log Source Identifier',
      type: 'HOST',
      required: true,
      default_value: null,
      description: 'The host name or IP address of the sender, as in the syslog header.',
    },
    {
      id: 1,
      name: 'incomingPayloadEncoding',
      label: 'Incoming Payload Encoder',
      type: 'STRING',
      required: false,
      default_value: 'UTF-8',
      description: 'Character encoding of the payload.',
    },
  ];
}

function defaultProtocolTypes(): SimProtocolType[] {
  const testing = { can_collect_events: false, testable: false, can_accept_sample_events: false };
  return [
    {
      id: SYSLOG,
      name: 'Syslog',
      inbound: true,
      gateway_supported: false,
      parameters: syslogLikeParameters(),
      parameter_groups: [],
      testing_capabilities: testing,
    },
    {
      id: 30,
      name: 'TCP Multiline Syslog',
      inbound: true,
      gateway_supported: false,
      parameters: [
        ...syslogLikeParameters(),
        {
          id: 2,
          name: 'listenPort',
          label: 'Listen Port',
          type: 'INTEGER',
          required: false,
          default_value: '12468',
          description: 'TCP port to listen on.',
        },
      ],
      parameter_groups: [],
      testing_capabilities: testing,
    },
    {
      id: 48,
      name: 'JDBC',
      inbound: false,
      gateway_supported: false,
      parameters: [
        {
          id: 0,
          name: 'identifier',
          label: 'Log Source Identifier',
          type: 'STRING',
          required: true,
          default_value: null,
          description: 'Identifier of the database source.',
        },
      ],
      parameter_groups: [],
      testing_capabilities: testing,
    },
  ];
}

function logSourceType(id: number, name: string, protocols: number[]): SimLogSourceType {
  return {
    id,
    name,
    internal: false,
    custom: false,
    protocol_types: protocols.map((p) => ({ protocol_id: p, documented: true })),
    default_protocol_id: protocols[0] ?? SYSLOG,
    log_source_extension_id: null,
    supported_language_ids: [1],
    version: '7.5.0-20240101',
    latest_version: '7.5.0-20240101',
    uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  };
}

function defaultLogSourceTypes(): SimLogSourceType[] {
  return [
    logSourceType(277, 'Universal LEEF', [SYSLOG, 30]),
    logSourceType(11, 'Linux OS', [SYSLOG, 30]),
    logSourceType(4012, 'Universal DSM', [SYSLOG, 30, 48]),
    logSourceType(12, 'Microsoft Windows Security Event Log', [SYSLOG]),
  ];
}

function defaultClosingReasons(): SimClosingReason[] {
  return [
    { id: 3, text: 'System Reserved', is_deleted: false, is_reserved: true },
    { id: 54, text: 'Non-Issue', is_deleted: false, is_reserved: false },
    { id: 55, text: 'False-Positive, Tuned', is_deleted: false, is_reserved: false },
    { id: 56, text: 'Policy Violation', is_deleted: false, is_reserved: false },
    { id: 61, text: 'Retired Reason', is_deleted: true, is_reserved: false },
  ];
}

const NUMBER = { kind: 'number' } as const;
const STRING = { kind: 'string' } as const;
const BOOLEAN = { kind: 'boolean' } as const;

/** Fields of each resource, for `filter`, `fields` and `sort`. */
export const SIEM_Q_SCHEMAS = {
  logSources: {
    id: NUMBER,
    name: STRING,
    description: STRING,
    type_id: NUMBER,
    protocol_type_id: NUMBER,
    protocol_parameters: { kind: 'array', fields: { id: NUMBER, name: STRING, value: STRING } },
    enabled: BOOLEAN,
    gateway: BOOLEAN,
    internal: BOOLEAN,
    credibility: NUMBER,
    target_event_collector_id: NUMBER,
    coalesce_events: BOOLEAN,
    store_event_payload: BOOLEAN,
    requires_deploy: BOOLEAN,
    status: {
      kind: 'object',
      fields: {
        status: STRING,
        messages: { kind: 'array', fields: { severity: STRING, text: STRING, timestamp: NUMBER } },
        last_updated: NUMBER,
      },
    },
    creation_date: NUMBER,
    modified_date: NUMBER,
    auto_discovered: BOOLEAN,
    average_eps: NUMBER,
    last_event_time: NUMBER,
  },
  offenses: {
    id: NUMBER,
    status: { kind: 'string', noRange: true },
    description: STRING,
    start_time: NUMBER,
    last_updated_time: NUMBER,
    first_persisted_time: NUMBER,
    last_persisted_time: NUMBER,
    close_time: NUMBER,
    closing_user: STRING,
    closing_reason_id: NUMBER,
    log_sources: { kind: 'array', fields: { id: NUMBER, name: STRING, type_id: NUMBER, type_name: STRING } },
    event_count: NUMBER,
    magnitude: NUMBER,
    severity: NUMBER,
    credibility: NUMBER,
    relevance: NUMBER,
    offense_type: NUMBER,
    offense_source: STRING,
    domain_id: NUMBER,
    rules: { kind: 'array', fields: { id: NUMBER, type: STRING } },
  },
  closingReasons: { id: NUMBER, text: STRING, is_deleted: BOOLEAN, is_reserved: BOOLEAN },
  logSourceTypes: {
    id: NUMBER,
    name: STRING,
    internal: BOOLEAN,
    custom: BOOLEAN,
    protocol_types: { kind: 'array', fields: { protocol_id: NUMBER, documented: BOOLEAN } },
    default_protocol_id: NUMBER,
    log_source_extension_id: NUMBER,
    supported_language_ids: { kind: 'array', items: 'number' },
    version: STRING,
    latest_version: STRING,
    uuid: STRING,
  },
  protocolTypes: {
    id: NUMBER,
    name: STRING,
    inbound: BOOLEAN,
    gateway_supported: BOOLEAN,
    parameters: {
      kind: 'array',
      fields: {
        id: NUMBER,
        name: STRING,
        label: STRING,
        type: STRING,
        required: BOOLEAN,
        default_value: STRING,
        description: STRING,
      },
    },
    parameter_groups: { kind: 'array' },
    testing_capabilities: {
      kind: 'object',
      fields: { can_collect_events: BOOLEAN, testable: BOOLEAN, can_accept_sample_events: BOOLEAN },
    },
  },
  collectors: { id: NUMBER, name: STRING, component_name: STRING, host_id: NUMBER },
  deployStatus: {
    status: STRING,
    type: STRING,
    percent_complete: NUMBER,
    hosts: { kind: 'array', fields: { ip: STRING, status: STRING, host_status: STRING } },
    has_errors: BOOLEAN,
    error_message: STRING,
    initiated_by: STRING,
    initiated_from: STRING,
  },
} satisfies Record<string, FieldSchema>;

/** What `addOffense` takes. */
export interface NewOffense {
  readonly log_source_ids: readonly number[];
  readonly start_time?: number;
  readonly status?: SimOffenseStatus;
  readonly description?: string;
}

/** A log source to seed: any field, plus `identifier` as a shorthand for that protocol parameter. */
export type NewLogSource = Partial<SimLogSource> & { readonly identifier?: string };

/** Fields a create or update may send (the rest is read-only and ignored). */
const WRITABLE = [
  'name',
  'description',
  'type_id',
  'protocol_type_id',
  'protocol_parameters',
  'enabled',
  'credibility',
  'target_event_collector_id',
  'coalesce_events',
  'store_event_payload',
  'requires_deploy',
] as const;

/** State and operations of the simulated console. */
export class SiemQStore {
  readonly logSources = new Map<number, SimLogSource>();
  readonly offenses = new Map<number, SimOffense>();
  readonly closingReasons: SimClosingReason[] = defaultClosingReasons();
  readonly logSourceTypes: SimLogSourceType[] = defaultLogSourceTypes();
  readonly protocolTypes: SimProtocolType[] = defaultProtocolTypes();
  readonly collectors: SimEventCollector[];
  /** Closing these offenses answers this error; persistent until removed from the map. */
  readonly failClose = new Map<number, { status: number; code: number; message: string }>();
  /** Offense ids of every POST that asked for `status=CLOSED`, in order, whatever the answer. */
  readonly closeCalls: number[] = [];
  /** The API version each authenticated /api request was served with, in order. */
  readonly versionsUsed: string[] = [];
  /** Deploys started through the API (`POST /api/staged_config/deploy_status`), in order. */
  readonly deploys: Array<{ type: 'INCREMENTAL' | 'FULL'; at: number }> = [];
  /** Status polls a started deploy reports IN_PROGRESS before it completes (0: completes at once). */
  deployPollsInProgress = 0;
  deployStatus: SimDeployStatus;
  requiresDeployOnCreate: boolean;
  readonly user: string;
  readonly now: () => number;
  #nextLogSourceId = 101;
  #nextOffenseId = 501;
  #pollsLeft = 0;

  constructor(options: SiemQStoreOptions = {}) {
    this.collectors = (options.collectors ?? [DEFAULT_COLLECTOR]).map((c) => ({ ...c }));
    this.requiresDeployOnCreate = options.requiresDeployOnCreate ?? false;
    this.user = options.user ?? DEFAULT_USER;
    this.now = options.now ?? Date.now;
    this.deployStatus = {
      status: 'COMPLETE',
      type: 'FULL',
      percent_complete: 100,
      hosts: [],
      has_errors: false,
      error_message: null,
      initiated_by: 'admin',
      initiated_from: 'siemq-aio',
    };
  }

  /** The value of the log source's protocol parameter named `identifier`. */
  identifierOf(ls: Pick<SimLogSource, 'protocol_parameters'>): string | undefined {
    return ls.protocol_parameters.find((p) => p.name === 'identifier')?.value;
  }

  /** Whether any log source waits for a deploy. */
  get pendingDeploy(): boolean {
    for (const ls of this.logSources.values()) if (ls.requires_deploy) return true;
    return false;
  }

  /** Seeds a log source without validation (tests); defaults: Universal LEEF over Syslog, enabled. */
  addLogSource(partial: NewLogSource = {}): SimLogSource {
    const { identifier, ...rest } = partial;
    const id = rest.id ?? this.#nextLogSourceId;
    if (this.logSources.has(id)) throw new Error(`log source ${id} exists`);
    this.#nextLogSourceId = Math.max(this.#nextLogSourceId, id + 1);
    const now = this.now();
    const ls: SimLogSource = {
      id,
      name: `log source ${id}`,
      description: '',
      type_id: 277,
      protocol_type_id: SYSLOG,
      protocol_parameters: [
        { id: 0, name: 'identifier', value: identifier ?? `host-${id}` },
        { id: 1, name: 'incomingPayloadEncoding', value: 'UTF-8' },
      ],
      enabled: true,
      gateway: false,
      internal: false,
      credibility: 5,
      target_event_collector_id: this.collectors[0]?.id ?? 0,
      coalesce_events: true,
      store_event_payload: true,
      requires_deploy: false,
      status: { status: 'N/A', messages: [], last_updated: now },
      creation_date: now,
      modified_date: now,
      auto_discovered: false,
      average_eps: 0,
      last_event_time: 0,
      ...rest,
    };
    if (identifier !== undefined && rest.protocol_parameters !== undefined) {
      ls.protocol_parameters = setParam(ls.protocol_parameters, 0, 'identifier', identifier);
    }
    this.logSources.set(id, ls);
    return ls;
  }

  /** `POST …/log_sources`: validates like the console (§4.4) and creates. */
  createLogSource(body: unknown): SimLogSource {
    const input = writable(body);
    const name = checkName(input.name);
    const type = this.#type(input.type_id);
    const protocol = this.#protocol(input.protocol_type_id ?? type.default_protocol_id, type);
    const collectorId = this.#collector(input.target_event_collector_id);
    const params = checkParameters(protocol, input.protocol_parameters ?? []);
    const requiresDeploy = this.#requiresDeployFlag(input.requires_deploy, protocol.id);
    const candidate = {
      name,
      type_id: type.id,
      protocol_type_id: protocol.id,
      protocol_parameters: params,
    };
    this.#checkUnique(candidate, undefined);
    const now = this.now();
    const enabled = optionalBoolean(input.enabled, 'enabled') ?? true;
    return this.addLogSource({
      id: this.#nextLogSourceId,
      name,
      description: checkDescription(input.description) ?? '',
      type_id: type.id,
      protocol_type_id: protocol.id,
      protocol_parameters: params,
      enabled,
      credibility: checkCredibility(input.credibility) ?? 5,
      target_event_collector_id: collectorId,
      coalesce_events: optionalBoolean(input.coalesce_events, 'coalesce_events') ?? true,
      store_event_payload: optionalBoolean(input.store_event_payload, 'store_event_payload') ?? true,
      requires_deploy: requiresDeploy ?? this.requiresDeployOnCreate,
      status: { status: enabled ? 'N/A' : 'DISABLED', messages: [], last_updated: now },
      creation_date: now,
      modified_date: now,
    });
  }

  /** `POST …/log_sources/{id}`: a partial update (404/1050, the same 409s and 422s as a create). */
  updateLogSource(id: number, body: unknown): SimLogSource {
    const ls = this.logSources.get(id);
    if (!ls) throw new SiemQApiError(404, 1050, `No log source with id ${id} was found.`);
    const input = writable(body);
    const name = input.name === undefined ? ls.name : checkName(input.name);
    const type = input.type_id === undefined ? this.#type(ls.type_id) : this.#type(input.type_id);
    const protocol = this.#protocol(input.protocol_type_id ?? ls.protocol_type_id, type);
    const collectorId =
      input.target_event_collector_id === undefined
        ? ls.target_event_collector_id
        : this.#collector(input.target_event_collector_id);
    const params =
      input.protocol_parameters === undefined
        ? ls.protocol_parameters
        : checkParameters(protocol, mergeParams(ls.protocol_parameters, input.protocol_parameters));
    const requiresDeploy = this.#requiresDeployFlag(input.requires_deploy, protocol.id);
    this.#checkUnique(
      { name, type_id: type.id, protocol_type_id: protocol.id, protocol_parameters: params },
      id,
    );
    const next: SimLogSource = {
      ...ls,
      name,
      description: checkDescription(input.description) ?? ls.description,
      type_id: type.id,
      protocol_type_id: protocol.id,
      protocol_parameters: params,
      enabled: optionalBoolean(input.enabled, 'enabled') ?? ls.enabled,
      credibility: checkCredibility(input.credibility) ?? ls.credibility,
      target_event_collector_id: collectorId,
      coalesce_events: optionalBoolean(input.coalesce_events, 'coalesce_events') ?? ls.coalesce_events,
      store_event_payload:
        optionalBoolean(input.store_event_payload, 'store_event_payload') ?? ls.store_event_payload,
    };
    const changed =
      JSON.stringify({ ...next, requires_deploy: false }) !==
      JSON.stringify({ ...ls, requires_deploy: false });
    next.requires_deploy = requiresDeploy ?? (ls.requires_deploy || (changed && this.requiresDeployOnCreate));
    if (changed) {
      next.modified_date = this.now();
      if (next.enabled !== ls.enabled) {
        next.status = { status: next.enabled ? 'N/A' : 'DISABLED', messages: [], last_updated: this.now() };
      }
    }
    this.logSources.set(id, next);
    return next;
  }

  /** `DELETE …/log_sources/{id}` (404/1010; an internal one 422/1001). */
  deleteLogSource(id: number): void {
    const ls = this.logSources.get(id);
    if (!ls) throw new SiemQApiError(404, 1010, `No log source with id ${id} was found.`);
    if (ls.internal)
      throw new SiemQApiError(422, 1001, `Log source ${id} is internal and cannot be deleted.`);
    this.logSources.delete(id);
  }

  /** What the console's Deploy Changes does: no log source requires a deploy any more. */
  deploy(): void {
    for (const ls of this.logSources.values()) ls.requires_deploy = false;
  }

  /** `POST /api/staged_config/deploy_status` (409/1002 while one runs, 409/1004 with nothing to deploy). */
  startDeploy(body: unknown): SimDeployStatus {
    const type = (body as { type?: unknown } | null)?.type;
    if (type !== 'INCREMENTAL' && type !== 'FULL') {
      throw new SiemQApiError(422, 1005, 'type must be one of INCREMENTAL, FULL.');
    }
    if (this.deployStatus.status !== 'COMPLETE') {
      throw new SiemQApiError(409, 1002, 'A deployment is already in progress.');
    }
    if (!this.pendingDeploy) throw new SiemQApiError(409, 1004, 'No changes to deploy.');
    this.deploys.push({ type, at: this.now() });
    this.deployStatus = {
      ...this.deployStatus,
      type,
      initiated_by: this.user,
      initiated_from: 'socdrill',
      status: 'COMPLETE',
      percent_complete: 100,
    };
    if (this.deployPollsInProgress > 0) {
      this.#pollsLeft = this.deployPollsInProgress;
      this.deployStatus = { ...this.deployStatus, status: 'IN_PROGRESS', percent_complete: 0 };
    } else {
      this.deploy();
    }
    return { ...this.deployStatus };
  }

  /** `GET /api/staged_config/deploy_status`: a running deploy advances one poll. */
  pollDeploy(): SimDeployStatus {
    const current = { ...this.deployStatus };
    if (this.deployStatus.status === 'IN_PROGRESS') {
      this.#pollsLeft--;
      if (this.#pollsLeft <= 0) {
        this.deploy();
        this.deployStatus = { ...this.deployStatus, status: 'COMPLETE', percent_complete: 100 };
      } else {
        const done = this.deployPollsInProgress - this.#pollsLeft;
        this.deployStatus = {
          ...this.deployStatus,
          percent_complete: Math.floor((done / this.deployPollsInProgress) * 100),
        };
      }
    }
    return current;
  }

  /** Seeds an offense on stored log sources (an unknown id throws). */
  addOffense(input: NewOffense): SimOffense {
    const sources = input.log_source_ids.map((id) => {
      const ls = this.logSources.get(id);
      if (!ls) throw new Error(`no log source ${id}`);
      const typeName = this.logSourceTypes.find((t) => t.id === ls.type_id)?.name ?? 'Unknown';
      return { id: ls.id, name: ls.name, type_id: ls.type_id, type_name: typeName };
    });
    const start = input.start_time ?? this.now();
    const id = this.#nextOffenseId++;
    const offense: SimOffense = {
      id,
      status: input.status ?? 'OPEN',
      description: input.description ?? 'Simulated offense\n',
      start_time: start,
      last_updated_time: start,
      first_persisted_time: start,
      last_persisted_time: start,
      close_time: null,
      closing_user: null,
      closing_reason_id: null,
      log_sources: sources,
      event_count: 1,
      magnitude: 2,
      severity: 5,
      credibility: 3,
      relevance: 1,
      offense_type: 0,
      offense_source: '10.0.0.1',
      domain_id: 0,
      rules: [],
    };
    if (offense.status === 'CLOSED') {
      offense.close_time = start;
      offense.closing_user = 'admin';
      offense.closing_reason_id =
        this.closingReasons.find((r) => !r.is_reserved && !r.is_deleted)?.id ?? null;
    }
    this.offenses.set(id, offense);
    return offense;
  }

  /**
   * `POST /api/siem/offenses/{id}?status=…&closing_reason_id=…`: OPEN ⇄ HIDDEN, or CLOSED with a
   * usable closing reason; a CLOSED offense changes no more (409/1008).
   */
  updateOffense(
    id: number,
    params: { status?: string | null; closing_reason_id?: string | null },
  ): SimOffense {
    if (params.status === 'CLOSED') this.closeCalls.push(id);
    let status: SimOffenseStatus | undefined;
    if (params.status !== undefined && params.status !== null) {
      if (params.status !== 'OPEN' && params.status !== 'HIDDEN' && params.status !== 'CLOSED') {
        throw new SiemQApiError(
          422,
          11,
          `Cannot convert query parameter status value "${params.status}" to type OffenseStatus. Allowed: OPEN, HIDDEN, CLOSED.`,
          'Cannot convert query parameter.',
        );
      }
      status = params.status;
    }
    let reasonId: number | undefined;
    if (params.closing_reason_id !== undefined && params.closing_reason_id !== null) {
      if (!/^\d+$/.test(params.closing_reason_id)) {
        throw new SiemQApiError(
          422,
          11,
          `Cannot convert query parameter closing_reason_id value "${params.closing_reason_id}" to type Long.`,
          'Cannot convert query parameter.',
        );
      }
      reasonId = Number(params.closing_reason_id);
    }
    const injected = status === 'CLOSED' ? this.failClose.get(id) : undefined;
    if (injected) throw new SiemQApiError(injected.status, injected.code, injected.message);
    const offense = this.offenses.get(id);
    if (!offense)
      throw new SiemQApiError(404, 1002, `No offense was found for the provided offense_id ${id}.`);
    if (status === 'CLOSED' && reasonId === undefined) {
      throw new SiemQApiError(422, 1005, 'closing_reason_id must be provided when closing an offense.');
    }
    if (reasonId !== undefined) {
      const reason = this.closingReasons.find((r) => r.id === reasonId);
      if (!reason || reason.is_deleted || reason.is_reserved) {
        throw new SiemQApiError(422, 1005, `closing_reason_id ${reasonId} is not a valid closing reason.`);
      }
      if (status !== 'CLOSED' && offense.status !== 'CLOSED') {
        throw new SiemQApiError(422, 1005, 'closing_reason_id can only be provided when closing an offense.');
      }
    }
    if (offense.status === 'CLOSED' && status !== undefined) {
      throw new SiemQApiError(409, 1008, `Offense ${id} is closed and its status cannot be changed.`);
    }
    if (status === undefined || status === offense.status) return offense;
    const now = this.now();
    offense.status = status;
    if (status === 'CLOSED') {
      offense.close_time = now;
      offense.closing_user = this.user;
      offense.closing_reason_id = reasonId ?? null;
    }
    return offense;
  }

  #type(typeId: unknown): SimLogSourceType {
    const type = this.logSourceTypes.find((t) => t.id === typeId);
    if (!type)
      throw new SiemQApiError(
        422,
        1007,
        `type_id ${JSON.stringify(typeId ?? null)} is not a valid log source type.`,
      );
    return type;
  }

  #protocol(protocolId: unknown, type: SimLogSourceType): SimProtocolType {
    const protocol = this.protocolTypes.find((p) => p.id === protocolId);
    if (!protocol || !type.protocol_types.some((p) => p.protocol_id === protocol.id)) {
      throw new SiemQApiError(
        422,
        1011,
        `protocol_type_id ${JSON.stringify(protocolId ?? null)} is not supported by log source type ${type.id}.`,
      );
    }
    return protocol;
  }

  #collector(collectorId: unknown): number {
    if (collectorId === undefined || collectorId === null) {
      const first = this.collectors[0];
      if (!first) throw new SiemQApiError(422, 1025, 'target_event_collector_id must be provided.');
      return first.id;
    }
    if (!this.collectors.some((c) => c.id === collectorId)) {
      throw new SiemQApiError(
        422,
        1025,
        `target_event_collector_id ${JSON.stringify(collectorId)} is not a valid event collector.`,
      );
    }
    return collectorId as number;
  }

  #requiresDeployFlag(value: unknown, protocolId: number): boolean | undefined {
    const flag = optionalBoolean(value, 'requires_deploy');
    if (flag !== undefined && protocolId !== SYSLOG) {
      throw new SiemQApiError(422, 1038, 'requires_deploy can only be set when protocol_type_id=0 (Syslog).');
    }
    return flag;
  }

  #checkUnique(
    candidate: Pick<SimLogSource, 'name' | 'type_id' | 'protocol_type_id' | 'protocol_parameters'>,
    self: number | undefined,
  ): void {
    const identifier = this.identifierOf(candidate);
    for (const ls of this.logSources.values()) {
      if (ls.id === self) continue;
      if (ls.name === candidate.name) {
        throw new SiemQApiError(409, 1001, `A log source with the name "${candidate.name}" already exists.`);
      }
    }
    for (const ls of this.logSources.values()) {
      if (ls.id === self) continue;
      if (
        ls.type_id === candidate.type_id &&
        ls.protocol_type_id === candidate.protocol_type_id &&
        this.identifierOf(ls) === identifier
      ) {
        throw new SiemQApiError(
          409,
          1002,
          `A log source with type_id ${ls.type_id}, protocol_type_id ${ls.protocol_type_id} and identifier "${identifier}" already exists (id ${ls.id}).`,
        );
      }
    }
  }
}

type Writable = Partial<Record<(typeof WRITABLE)[number], unknown>>;

function writable(body: unknown): Writable {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new SiemQApiError(422, 1005, 'The request body must be a JSON object.');
  }
  const out: Writable = {};
  for (const key of WRITABLE) if (key in body) out[key] = (body as Record<string, unknown>)[key];
  return out;
}

function checkName(name: unknown): string {
  if (name === undefined || name === null || name === '') {
    throw new SiemQApiError(422, 1003, 'name must be provided.');
  }
  if (typeof name !== 'string') throw new SiemQApiError(422, 1003, 'name must be a string.');
  if (name.length > 255) throw new SiemQApiError(422, 1004, 'name must be at most 255 characters long.');
  if (name.includes('\\')) throw new SiemQApiError(422, 1043, 'name cannot contain a backslash (\\).');
  return name;
}

function checkDescription(description: unknown): string | undefined {
  if (description === undefined || description === null) return undefined;
  if (typeof description !== 'string' || description.length > 255) {
    throw new SiemQApiError(422, 1005, 'description must be a string of at most 255 characters.');
  }
  return description;
}

function checkCredibility(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 10) {
    throw new SiemQApiError(422, 1005, 'credibility must be an integer from 0 to 10.');
  }
  return value as number;
}

function optionalBoolean(value: unknown, name: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new SiemQApiError(422, 1005, `${name} must be true or false.`);
  return value;
}

function mergeParams(current: readonly SimProtocolParameter[], update: unknown): unknown {
  if (!Array.isArray(update)) return update;
  const merged = current.map((p) => ({ ...p }));
  for (const u of update) {
    const name = (u as { name?: unknown } | null)?.name;
    const i = merged.findIndex((p) => p.name === name);
    if (i >= 0) merged[i] = u as SimProtocolParameter;
    else merged.push(u as SimProtocolParameter);
  }
  return merged;
}

/** Protocol parameters matched by name against the protocol (1012 missing, 1013 unknown, 1014 bad). */
function checkParameters(protocol: SimProtocolType, given: unknown): SimProtocolParameter[] {
  if (!Array.isArray(given)) throw new SiemQApiError(422, 1014, 'protocol_parameters must be a list.');
  const out: SimProtocolParameter[] = [];
  for (const raw of given) {
    const p = raw as { id?: unknown; name?: unknown; value?: unknown } | null;
    const spec = protocol.parameters.find((s) => s.name === p?.name);
    if (!spec) {
      throw new SiemQApiError(
        422,
        1013,
        `Protocol parameter "${String(p?.name)}" is not a parameter of protocol type ${protocol.id} (${protocol.name}).`,
      );
    }
    if (p?.id !== undefined && p.id !== spec.id) {
      throw new SiemQApiError(
        422,
        1014,
        `Protocol parameter "${spec.name}" has id ${spec.id}, not ${String(p.id)}.`,
      );
    }
    if (typeof p?.value !== 'string') {
      throw new SiemQApiError(422, 1014, `Protocol parameter "${spec.name}" needs a string value.`);
    }
    if (out.some((o) => o.name === spec.name)) {
      throw new SiemQApiError(422, 1014, `Protocol parameter "${spec.name}" is given twice.`);
    }
    out.push({ id: spec.id, name: spec.name, value: p.value });
  }
  for (const spec of protocol.parameters) {
    if (out.some((o) => o.name === spec.name)) continue;
    if (spec.required) {
      throw new SiemQApiError(
        422,
        1012,
        `Protocol parameter "${spec.name}" is required by protocol type ${protocol.id} (${protocol.name}).`,
      );
    }
    if (spec.default_value !== null) out.push({ id: spec.id, name: spec.name, value: spec.default_value });
  }
  const identifier = out.find((o) => o.name === 'identifier');
  if (identifier && identifier.value.trim() === '') {
    throw new SiemQApiError(422, 1012, 'Protocol parameter "identifier" must not be empty.');
  }
  return out.sort((a, b) => a.id - b.id);
}

function setParam(
  params: SimProtocolParameter[],
  id: number,
  name: string,
  value: string,
): SimProtocolParameter[] {
  const rest = params.filter((p) => p.name !== name);
  return [...rest, { id, name, value }].sort((a, b) => a.id - b.id);
}
