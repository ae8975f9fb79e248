import { randomBytes, randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { type ParsedHecEvent, parseHecEventBody } from './hec-events.ts';
import { handleManagement, type ManagementUser } from './hec-management.ts';
import { hecNotFound, hecReply, hecTooLarge, hecUnsupportedEncoding } from './hec-replies.ts';
import type { SearchJob } from './hec-search-jobs.ts';
import { createHecStore, type HecEvent, type HecIndexInfo, type HecStore } from './hec-store.ts';
import type { HttpFaults } from './http-faults.ts';
import { type SimRequest, type SimResponse, type SimTls, startSimHttpServer } from './sim-http-server.ts';

/** A HEC token of the simulator and its per-token settings (inputs.conf `[http://<name>]`). */
export interface HecTokenConfig {
  /** The token value (a GUID in Splunk). */
  readonly token: string;
  /** Token name; events get `source = http:<name>` by default. */
  readonly name?: string;
  readonly disabled?: boolean;
  /** Allowed indexes; empty or absent allows any index. */
  readonly indexes?: readonly string[];
  /** Index for events that name none (default `main`). */
  readonly defaultIndex?: string;
  /** Sourcetype for events that name none (default `httpevent`). */
  readonly sourcetype?: string;
  /** Indexer acknowledgement: channel required, `ackId` in answers, `/ack` polling. */
  readonly useAck?: boolean;
  /** Accept the token as `?token=` (otherwise code 16). */
  readonly allowQueryStringAuth?: boolean;
}

/** Options of {@link startHecSimulator}; every field is optional. */
export interface HecSimulatorOptions {
  readonly host?: string;
  /** Collector port (0 = any free port, the default). */
  readonly port?: number;
  /** Management API port (0 = any free port, the default). */
  readonly managementPort?: number;
  /** Serve both ports over HTTPS with this certificate. */
  readonly tls?: SimTls;
  /** Default: one enabled token with a random GUID, no allow-list, no ack. */
  readonly tokens?: readonly HecTokenConfig[];
  /** Event indexes to create besides `main`, `history`, `summary`, `_internal`, `_audit`. */
  readonly indexes?: readonly string[];
  /**
   * Event for an index that does not exist: `reject` (default) answers 400 code 7 like a token with
   * an allow-list; `drop` answers 200 and discards it (a token with no allow-list, per reports).
   */
  readonly unknownIndex?: 'reject' | 'drop';
  /** `max_content_length` (default 838 860 800 bytes): larger bodies get 413. */
  readonly maxContentLength?: number;
  /** `maxEventSize` (default 5 MB): a larger event is code 6. */
  readonly maxEventBytes?: number;
  /** Accept a top-level JSON array of events (default true). */
  readonly acceptArray?: boolean;
  /** Host name used for the default `host` (`<name>:<port>`) and `splunk_server`. */
  readonly serverName?: string;
  readonly management?: {
    /** Default: user `socdrill` with a random password and roles `admin`, `can_delete`. */
    readonly users?: readonly ManagementUser[];
    /** Bearer tokens → user name. Default: one random token for the first user. */
    readonly bearerTokens?: Readonly<Record<string, string>>;
    /** Status polls before a normal job reports DONE (default 3: QUEUED, RUNNING, DONE). */
    readonly pollsUntilDone?: number;
  };
  /** Clock in epoch milliseconds (receipt times, search `now`, sids). */
  readonly now?: () => number;
}

/** A running HEC + management API simulator. */
export interface HecSimulator {
  /** Collector base URL, e.g. `http://127.0.0.1:41234` (post to `${url}/services/collector/event`). */
  readonly url: string;
  readonly port: number;
  /** Management API base URL. */
  readonly managementUrl: string;
  readonly managementPort: number;
  /** The first token's value. */
  readonly token: string;
  readonly tokens: readonly HecTokenConfig[];
  /** A Bearer token for the management API. */
  readonly managementToken: string;
  /** The first management user (Basic auth). */
  readonly managementUser: { readonly username: string; readonly password: string };
  /** Indexes by name (event and metric); add with {@link HecSimulator.createIndex}. */
  readonly indexes: Map<string, HecIndexInfo>;
  readonly store: HecStore;
  /** Faults of the collector port. */
  readonly faults: HttpFaults;
  /** Faults of the management port. */
  readonly managementFaults: HttpFaults;
  /** Queues full: health answers 503 code 18 and events 503 code 9 until set back. */
  busy: boolean;
  createIndex(name: string, datatype?: 'event' | 'metric'): void;
  close(): Promise<void>;
}

const DEFAULT_INDEXES = ['main', 'history', 'summary', '_internal', '_audit'];
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const EVENT_PATHS = new Set([
  '/services/collector',
  '/services/collector/event',
  '/services/collector/event/1.0',
]);
const RAW_PATHS = new Set(['/services/collector/raw', '/services/collector/raw/1.0']);
const HEALTH_PATHS = new Set(['/services/collector/health', '/services/collector/health/1.0']);

/**
 * Starts a simulator of Splunk's HTTP Event Collector and of the parts of its management API the
 * lab uses (indexes, search jobs with `| delete`), on two ports, from the public documentation and
 * observed behaviour. It is a simulator, not Splunk: see README.md for what it does not do.
 */
export async function startHecSimulator(options: HecSimulatorOptions = {}): Promise<HecSimulator> {
  const now = options.now ?? Date.now;
  const serverName = options.serverName ?? 'socdrill-hec-simulator';
  const tokens = (options.tokens ?? [{ token: randomUUID() }]).map((t, i) => ({
    ...t,
    name: t.name ?? (i === 0 ? 'socdrill-lab' : `token-${i + 1}`),
  }));
  const indexes = new Map<string, HecIndexInfo>();
  for (const name of [...DEFAULT_INDEXES, ...(options.indexes ?? [])]) {
    indexes.set(name, { datatype: 'event', createdAt: now(), settings: {} });
  }
  const users = options.management?.users ?? [
    { username: 'socdrill', password: randomBytes(12).toString('base64url'), roles: ['admin', 'can_delete'] },
  ];
  const bearer = new Map(
    Object.entries(
      options.management?.bearerTokens ?? {
        [randomBytes(24).toString('base64url')]: users[0]?.username ?? '',
      },
    ),
  );
  const maxContentLength = options.maxContentLength ?? 838_860_800;
  const acks = new Map<string, { next: number; pending: Set<number> }>();
  let port = 0;
  let busy = false;
  const sessions = new Map<string, string>();
  const jobs = new Map<string, SearchJob>();
  const management = { url: '' };
  // Assigned once both servers exist; handlers only run after that.
  let store!: HecStore;

  const collector = await startSimHttpServer({
    host: options.host,
    port: options.port,
    tls: options.tls,
    maxBodyBytes: maxContentLength,
    tooLarge: (length) => hecTooLarge(length, maxContentLength),
    faultResponse: (fault, req) => {
      if (fault.body !== undefined) return { status: fault.status, body: fault.body, headers: fault.headers };
      return collectorFault(fault.status, HEALTH_PATHS.has(trimSlash(req.path)));
    },
    handle: (req) => handleCollector(req),
    commonHeaders: () => ({ 'x-socdrill-simulator': 'hec' }),
  });
  port = collector.port;
  // A busy management port must not leave the collector listening.
  const managementServer = await startSimHttpServer({
    host: options.host,
    port: options.managementPort,
    tls: options.tls,
    maxBodyBytes: 10_000_000,
    tooLarge: () => ({
      status: 413,
      body: { messages: [{ type: 'ERROR', text: 'Request entity too large' }] },
    }),
    faultResponse: (fault) =>
      fault.body !== undefined
        ? { status: fault.status, body: fault.body, headers: fault.headers }
        : { status: fault.status, body: { messages: [{ type: 'ERROR', text: statusText(fault.status) }] } },
    commonHeaders: () => ({ 'x-socdrill-simulator': 'hec-management' }),
    handle: (req) =>
      handleManagement(
        {
          indexes,
          store,
          users,
          bearerTokens: bearer,
          sessions,
          jobs,
          pollsUntilDone: options.management?.pollsUntilDone ?? 3,
          serverName,
          version: '9.2.1',
          build: 'simulator',
          baseUrl: () => management.url,
          now,
        },
        req,
      ),
  }).catch(async (err: unknown) => {
    await collector.close();
    throw err;
  });
  management.url = managementServer.url;
  store = createHecStore(collector.requests, managementServer.requests, (name) => indexes.has(name));

  function handleCollector(req: SimRequest): SimResponse {
    const path = trimSlash(req.path);
    const known = EVENT_PATHS.has(path) || RAW_PATHS.has(path) || path === '/services/collector/ack';
    if (HEALTH_PATHS.has(path)) {
      if (req.method === 'OPTIONS') return { status: 200, headers: { allow: 'GET,HEAD,OPTIONS' } };
      if (req.method !== 'GET' && req.method !== 'HEAD') return hecNotFound(405, 'GET,HEAD,OPTIONS');
      // The health endpoint does not check the token (observed on Splunk 10).
      return hecReply(busy ? 18 : 17);
    }
    if (!known) return hecNotFound();
    if (req.method === 'OPTIONS') return { status: 200, headers: { allow: 'POST,OPTIONS' } };
    if (req.method !== 'POST') return hecNotFound(405, 'POST,OPTIONS');
    const token = resolveToken(req);
    if ('status' in token) return token;
    const channel =
      headerValue(req.headers['x-splunk-request-channel']) ?? req.query.get('channel') ?? undefined;
    if (path === '/services/collector/ack') return handleAck(req, token, channel);
    if (busy) return hecReply(9);
    if (token.useAck && !channel) return hecReply(10);
    if (channel !== undefined && !GUID.test(channel)) return hecReply(11);
    const body = decodeBody(req);
    if ('status' in body) return body;
    const defaults = {
      index: req.query.get('index') ?? token.defaultIndex ?? 'main',
      host: req.query.get('host') ?? `${serverName}:${port}`,
      source: req.query.get('source') ?? `http:${token.name}`,
      sourcetype: req.query.get('sourcetype') ?? token.sourcetype ?? 'httpevent',
    };
    const checkIndex = (index: string): 'ok' | 'incorrect' | 'drop' => {
      if (token.indexes && token.indexes.length > 0 && !token.indexes.includes(index)) return 'incorrect';
      if (!indexes.has(index)) return options.unknownIndex === 'drop' ? 'drop' : 'incorrect';
      return 'ok';
    };
    const endpoint = RAW_PATHS.has(path) ? 'raw' : 'event';
    let parsed: { events: ParsedHecEvent[]; error?: { code: number; invalidEventNumber?: number } };
    if (endpoint === 'raw') {
      const text = body.bytes.toString('utf8');
      if (text.trim() === '') return hecReply(5);
      const verdict = checkIndex(defaults.index);
      if (verdict === 'incorrect') return hecReply(7);
      parsed = {
        events: text
          .split(/\r?\n/)
          .filter((line) => line.trim() !== '')
          .map((line) => ({
            ...defaults,
            envelopeText: '',
            time: undefined,
            timeSent: undefined,
            event: line,
            fields: undefined,
            dropped: verdict === 'drop',
          })),
      };
    } else {
      parsed = parseHecEventBody(body.bytes, {
        defaults,
        checkIndex,
        maxEventBytes: options.maxEventBytes ?? 5 * 1024 * 1024,
        acceptArray: options.acceptArray ?? true,
      });
    }
    const receivedAt = now();
    for (const e of parsed.events) {
      const stored: HecEvent = {
        index: e.index,
        time: e.time ?? Math.trunc(receivedAt * 1000) / 1e6,
        timeSent: e.timeSent,
        host: e.host,
        source: e.source,
        sourcetype: e.sourcetype,
        event: e.event,
        raw: typeof e.event === 'string' ? e.event : JSON.stringify(e.event),
        fields: e.fields,
        envelopeText: e.envelopeText,
        token: token.name,
        channel,
        endpoint,
        requestSeq: req.record.seq,
        receivedAt,
        deleted: false,
      };
      (e.dropped ? store.dropped : store.events).push(stored);
    }
    if (parsed.error)
      return hecReply(parsed.error.code, { invalidEventNumber: parsed.error.invalidEventNumber });
    if (!token.useAck || channel === undefined) return hecReply(0);
    const state = acks.get(channel) ?? { next: 0, pending: new Set<number>() };
    acks.set(channel, state);
    const ackId = state.next++;
    state.pending.add(ackId);
    return hecReply(0, { ackId });
  }

  function handleAck(req: SimRequest, token: HecTokenConfig, channel: string | undefined): SimResponse {
    if (!token.useAck) return hecReply(14);
    if (!channel) return hecReply(10);
    if (!GUID.test(channel)) return hecReply(11);
    const body = decodeBody(req);
    if ('status' in body) return body;
    let ids: unknown;
    try {
      ids = (JSON.parse(body.bytes.toString('utf8')) as { acks?: unknown }).acks;
    } catch {
      return hecReply(6);
    }
    if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))) return hecReply(6);
    const pending = acks.get(channel)?.pending;
    const result: Record<string, boolean> = {};
    for (const id of ids as number[]) {
      // `true` is reported once, then forgotten, as splunkd does.
      result[String(id)] = pending?.delete(id) ?? false;
    }
    return { status: 200, body: { acks: result } };
  }

  function resolveToken(req: SimRequest): (HecTokenConfig & { name: string }) | SimResponse {
    const lookup = (value: string) => tokens.find((t) => t.token === value);
    const fromQuery = req.query.get('token');
    let value: string;
    if (fromQuery !== null) {
      const t = lookup(fromQuery);
      if (!t) return hecReply(4);
      if (!t.allowQueryStringAuth) return hecReply(16);
      value = fromQuery;
    } else {
      const header = headerValue(req.headers.authorization);
      if (!header) return hecReply(2);
      const m = /^(\S+)\s+(.*)$/.exec(header);
      if (m?.[1] === 'Splunk') value = m[2]!.trim();
      else if (m?.[1]?.toLowerCase() === 'basic') {
        const decoded = Buffer.from(m[2]!.trim(), 'base64').toString('utf8');
        value = decoded.slice(decoded.indexOf(':') + 1);
      } else return hecReply(3);
    }
    const token = tokens.find((t) => t.token === value);
    if (!token) return hecReply(4);
    if (token.disabled) return hecReply(1);
    return token;
  }

  return {
    url: collector.url,
    port: collector.port,
    managementUrl: managementServer.url,
    managementPort: managementServer.port,
    token: tokens[0]?.token ?? '',
    tokens,
    managementToken: [...bearer.keys()][0] ?? '',
    managementUser: { username: users[0]?.username ?? '', password: users[0]?.password ?? '' },
    indexes,
    store,
    faults: collector.faults,
    managementFaults: managementServer.faults,
    get busy() {
      return busy;
    },
    set busy(value: boolean) {
      busy = value;
    },
    createIndex(name, datatype = 'event') {
      indexes.set(name, { datatype, createdAt: now(), settings: {} });
    },
    async close() {
      await Promise.all([collector.close(), managementServer.close()]);
    },
  };
}

/** Collector answer for an injected status: the reply code splunkd uses for it where there is one. */
function collectorFault(status: number, health: boolean): SimResponse {
  if (status === 503) return hecReply(health ? 18 : 9);
  if (status === 500) return hecReply(8);
  if (status === 404) return hecNotFound();
  return { status, headers: { 'content-type': 'text/plain' }, body: statusText(status) };
}

function decodeBody(req: SimRequest): { bytes: Buffer } | SimResponse {
  const encoding = headerValue(req.headers['content-encoding'])?.trim().toLowerCase();
  if (!encoding || encoding === 'identity') return { bytes: req.body };
  if (encoding !== 'gzip') return hecUnsupportedEncoding(encoding);
  try {
    return { bytes: gunzipSync(req.body, { chunkSize: inflateChunk(req.body) }) };
  } catch {
    // A gzip header on a body that is not gzip is refused (Vector saw a 400 for exactly this).
    return hecReply(6);
  }
}

/**
 * Output chunk for inflating `body`: the size its gzip trailer declares (ISIZE, the length modulo
 * 2^32), bounded, plus room for zlib to see the end, so a body inflates into one buffer instead
 * of many 16 KiB ones joined afterwards. A wrong trailer only costs more chunks.
 */
function inflateChunk(body: Buffer): number {
  const declared = body.length >= 18 ? body.readUInt32LE(body.length - 4) : 0;
  return Math.min(Math.max(declared + 1024, 16 * 1024), 64 * 1024 * 1024);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return texts[status] ?? `HTTP ${status}`;
}
