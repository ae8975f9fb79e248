import { randomBytes } from 'node:crypto';
import type { HttpFaults } from './http-faults.ts';
import { parseFields, parseSort, project, sortItems } from './siem-q-fields.ts';
import { compileFilter, type FieldSchema, QueryParamError } from './siem-q-filter.ts';
import { SIEM_Q_SCHEMAS, SiemQApiError, SiemQStore } from './siem-q-store.ts';
import {
  type RecordedRequest,
  type SimRequest,
  type SimResponse,
  type SimTls,
  startSimHttpServer,
} from './sim-http-server.ts';

/** Options of {@link startSiemQSimulator}; every field is optional. */
export interface SiemQSimulatorOptions {
  host?: string;
  port?: number;
  tls?: SimTls;
  /** The `SEC` token the console accepts; default random hex. */
  token?: string;
  /** Served API versions; default `['12.0', '19.0', '20.0', '26.0']` (the newest answers a request without `Version`). */
  versions?: string[];
  /** Listed as removed by `/api/help/versions` and refused in `Version`; default `['3.0', '8.0']`. */
  removedVersions?: string[];
  /** Default one: `{ id: 7, name: 'eventcollector0 :: siemq-aio', component_name: 'eventcollector0', host_id: 53 }`. */
  collectors?: Array<{ id: number; name: string; component_name: string; host_id: number }>;
  /** Default false; true: a created or changed log source has `requires_deploy: true` until a deploy. */
  requiresDeployOnCreate?: boolean;
  /** Clock in epoch milliseconds (creation dates, close times). */
  now?: () => number;
}

/** A running SIEM Q console API simulator. */
export interface SiemQSimulator {
  /** Base URL, e.g. `http://127.0.0.1:41234` (the API is under `/api`). */
  readonly url: string;
  readonly token: string;
  readonly faults: HttpFaults;
  readonly requests: RecordedRequest[];
  readonly store: SiemQStore;
  close(): Promise<void>;
}

const LSM = '/api/config/event_sources/log_source_management';

/** `http_response.message` of the console per status (§4.3). */
const HTTP_MESSAGES: Readonly<Record<number, string>> = {
  400: 'The request could not be understood by the server due to malformed syntax.',
  401: 'You are unauthorized to access the requested resource.',
  403: 'Your account is not authorized to access the requested resource.',
  404: 'We could not find the resource you requested.',
  405: 'The method specified in the request is not allowed for the resource identified by the request URI.',
  406: 'The resource identified by the request is only capable of generating response entities which have content characteristics not acceptable according to the accept headers sent in the request.',
  409: 'The request could not be completed due to a conflict with the current state of the resource.',
  413: 'The request entity is larger than the server is willing or able to process.',
  422: 'The request was well-formed but was unable to be followed due to semantic errors.',
  429: 'Too many requests have been sent in a given amount of time.',
  500: 'Unexpected internal server error.',
  502: 'The server received an invalid response from an upstream server.',
  503: 'The server is currently unable to handle the request due to a temporary overload or maintenance.',
  504: 'The server did not receive a timely response from an upstream server.',
};

/** Top-level `description` per code where the console has a fixed one, else per status. */
const DESCRIPTIONS: Readonly<Record<number, string>> = {
  11: 'Cannot convert query parameter.',
  26: 'Insufficient capabilities.',
  27: 'The request could not be authenticated.',
  36: 'Failed to parse Range header.',
  1005: 'A request parameter is not valid.',
  1020: 'An error occurred during the attempt to process the request.',
};

/** Unique code the simulator answers an injected status fault with. */
const FAULT_CODES: Readonly<Record<number, number>> = {
  401: 27,
  403: 26,
  404: 1002,
  409: 1008,
  422: 1005,
  429: 1029,
  500: 1020,
  502: 1020,
  503: 1020,
  504: 1020,
};

/** The console's error body (§4.3). */
export function siemQErrorBody(status: number, code: number, message: string, description?: string): object {
  return {
    http_response: { code: status, message: HTTP_MESSAGES[status] ?? `HTTP ${status}` },
    code,
    description: description ?? DESCRIPTIONS[code] ?? '',
    details: {},
    message,
  };
}

function errorResponse(err: SiemQApiError, headers?: Record<string, string>): SimResponse {
  return {
    status: err.status,
    body: siemQErrorBody(err.status, err.code, err.message, err.description),
    ...(headers ? { headers } : {}),
  };
}

/** Error codes of a list endpoint: bad `filter`, bad `fields`/other parameters, bad `sort`. */
interface ListCodes {
  readonly filter: number;
  readonly param: number;
  readonly sort: number;
}

const OFFENSE_CODES: ListCodes = { filter: 1010, param: 1005, sort: 1030 };
const LOG_SOURCE_CODES: ListCodes = { filter: 1001, param: 1005, sort: 1005 };
const OTHER_CODES: ListCodes = { filter: 1005, param: 1005, sort: 1005 };

/**
 * Starts a simulator of the SIEM Q console REST API (protocols-qradar-leef-syslog.md §4): versions,
 * event collectors, log source types and protocol types, log sources, deploy, offenses and their
 * closing reasons, with `SEC` auth, `Version`, `Range`/`Content-Range`, `filter`, `fields` and
 * `sort`. It is a simulator, not the console: see README.md for what it leaves out.
 */
export async function startSiemQSimulator(options: SiemQSimulatorOptions = {}): Promise<SiemQSimulator> {
  const token = options.token ?? randomBytes(16).toString('hex');
  const versions = [...(options.versions ?? ['12.0', '19.0', '20.0', '26.0'])];
  const removed = [...(options.removedVersions ?? ['3.0', '8.0'])];
  const latest = [...versions].sort(byVersion).at(-1) ?? '26.0';
  const store = new SiemQStore({
    collectors: options.collectors,
    requiresDeployOnCreate: options.requiresDeployOnCreate ?? false,
    now: options.now,
  });

  const server = await startSimHttpServer({
    host: options.host,
    port: options.port,
    tls: options.tls,
    maxBodyBytes: 10 * 1024 * 1024,
    tooLarge: () => errorResponse(new SiemQApiError(413, 1005, 'The request body is too large.')),
    faultResponse: (fault) => {
      if (fault.body !== undefined) return { status: fault.status, body: fault.body, headers: fault.headers };
      const code = FAULT_CODES[fault.status] ?? 1020;
      return {
        status: fault.status,
        body: siemQErrorBody(fault.status, code, HTTP_MESSAGES[fault.status] ?? `HTTP ${fault.status}`),
        ...(fault.headers ? { headers: fault.headers } : {}),
      };
    },
    commonHeaders: () => ({ 'x-socdrill-simulator': 'siem-q' }),
    handle: (req) => {
      try {
        return handle(req);
      } catch (err) {
        if (err instanceof SiemQApiError) return errorResponse(err);
        throw err;
      }
    },
  });

  function handle(req: SimRequest): SimResponse {
    const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
    if (path !== '/api' && !path.startsWith('/api/')) {
      throw new SiemQApiError(404, 1002, `No resource was found at ${path}.`);
    }
    authenticate(req);
    const version = apiVersion(req);
    store.versionsUsed.push(version);
    return route(req, path);
  }

  function authenticate(req: SimRequest): void {
    const sec = header(req, 'sec');
    if (sec === undefined) {
      const basic = header(req, 'authorization') !== undefined;
      throw new SiemQApiError(
        401,
        27,
        'You are unauthorized to access the requested resource.',
        basic
          ? 'Basic authentication is not enabled on this console; use an authorized service token in the SEC header.'
          : 'No SEC header present in request. Please provide it via "SEC: token".',
      );
    }
    if (sec !== token) {
      throw new SiemQApiError(
        401,
        27,
        'You are unauthorized to access the requested resource.',
        'The SEC token is not valid.',
      );
    }
  }

  function apiVersion(req: SimRequest): string {
    const asked = header(req, 'version')?.trim();
    if (asked === undefined || asked === '') return latest;
    if (removed.includes(asked))
      throw new SiemQApiError(406, 1005, `Version (${asked}) of the API has been removed`);
    if (!versions.includes(asked))
      throw new SiemQApiError(406, 1005, `Version (${asked}) is not a valid version`);
    return asked;
  }

  function route(req: SimRequest, path: string): SimResponse {
    const m = req.method;
    if (path === '/api/help/versions') {
      allow(m, ['GET']);
      const all = [
        ...removed.map((v) => ({ version: v, removed: true })),
        ...versions.map((v) => ({ version: v, removed: false })),
      ].sort((a, b) => byVersion(a.version, b.version));
      const items = all.map((v, i) => ({
        id: i + 1,
        version: v.version,
        deprecated: false,
        removed: v.removed,
        root_resource_ids: [],
      }));
      return list(
        req,
        items,
        {
          id: { kind: 'number' },
          version: { kind: 'string' },
          deprecated: { kind: 'boolean' },
          removed: { kind: 'boolean' },
          root_resource_ids: { kind: 'array', items: 'number' },
        },
        OTHER_CODES,
      );
    }
    const collectors = '/api/config/event_sources/event_collectors';
    if (path === collectors) {
      allow(m, ['GET']);
      return list(req, store.collectors, SIEM_Q_SCHEMAS.collectors, OTHER_CODES);
    }
    const collectorId = idUnder(path, collectors);
    if (collectorId !== undefined) {
      allow(m, ['GET']);
      const found = store.collectors.find((c) => c.id === collectorId);
      if (!found) throw new SiemQApiError(404, 1002, `No event collector with id ${collectorId} was found.`);
      return one(req, found, SIEM_Q_SCHEMAS.collectors);
    }
    if (path === `${LSM}/log_source_types`) {
      allow(m, ['GET']);
      return list(req, store.logSourceTypes, SIEM_Q_SCHEMAS.logSourceTypes, OTHER_CODES);
    }
    const typeId = idUnder(path, `${LSM}/log_source_types`);
    if (typeId !== undefined) {
      allow(m, ['GET']);
      const found = store.logSourceTypes.find((t) => t.id === typeId);
      if (!found) throw new SiemQApiError(404, 1002, `No log source type with id ${typeId} was found.`);
      return one(req, found, SIEM_Q_SCHEMAS.logSourceTypes);
    }
    if (path === `${LSM}/protocol_types`) {
      allow(m, ['GET']);
      return list(req, store.protocolTypes, SIEM_Q_SCHEMAS.protocolTypes, OTHER_CODES);
    }
    const protocolId = idUnder(path, `${LSM}/protocol_types`);
    if (protocolId !== undefined) {
      allow(m, ['GET']);
      const found = store.protocolTypes.find((p) => p.id === protocolId);
      if (!found) throw new SiemQApiError(404, 1002, `No protocol type with id ${protocolId} was found.`);
      return one(req, found, SIEM_Q_SCHEMAS.protocolTypes);
    }
    if (path === `${LSM}/log_sources`) {
      allow(m, ['GET', 'POST']);
      if (m === 'GET')
        return list(req, [...store.logSources.values()], SIEM_Q_SCHEMAS.logSources, LOG_SOURCE_CODES);
      const created = store.createLogSource(jsonBody(req));
      return one(req, created, SIEM_Q_SCHEMAS.logSources, 201);
    }
    const logSourceId = idUnder(path, `${LSM}/log_sources`);
    if (logSourceId !== undefined) {
      allow(m, ['GET', 'POST', 'DELETE']);
      if (m === 'GET') {
        const found = store.logSources.get(logSourceId);
        if (!found) throw new SiemQApiError(404, 1002, `No log source with id ${logSourceId} was found.`);
        return one(req, found, SIEM_Q_SCHEMAS.logSources);
      }
      if (m === 'POST') {
        return one(req, store.updateLogSource(logSourceId, jsonBody(req)), SIEM_Q_SCHEMAS.logSources);
      }
      store.deleteLogSource(logSourceId);
      return { status: 204 };
    }
    if (path === '/api/staged_config/deploy_status') {
      allow(m, ['GET', 'POST']);
      if (m === 'GET') return one(req, store.pollDeploy(), SIEM_Q_SCHEMAS.deployStatus);
      return one(req, store.startDeploy(jsonBody(req)), SIEM_Q_SCHEMAS.deployStatus);
    }
    if (path === '/api/siem/offenses') {
      allow(m, ['GET']);
      return list(req, [...store.offenses.values()], SIEM_Q_SCHEMAS.offenses, OFFENSE_CODES);
    }
    const offenseId = idUnder(path, '/api/siem/offenses');
    if (offenseId !== undefined) {
      allow(m, ['GET', 'POST']);
      if (m === 'GET') {
        const found = store.offenses.get(offenseId);
        if (!found)
          throw new SiemQApiError(
            404,
            1002,
            `No offense was found for the provided offense_id ${offenseId}.`,
          );
        return one(req, found, SIEM_Q_SCHEMAS.offenses);
      }
      const updated = store.updateOffense(offenseId, {
        status: req.query.get('status'),
        closing_reason_id: req.query.get('closing_reason_id'),
      });
      return one(req, updated, SIEM_Q_SCHEMAS.offenses);
    }
    if (path === '/api/siem/offense_closing_reasons') {
      allow(m, ['GET']);
      const reserved = flag(req, 'include_reserved');
      const deleted = flag(req, 'include_deleted');
      const items = store.closingReasons.filter(
        (r) => (reserved || !r.is_reserved) && (deleted || !r.is_deleted),
      );
      return list(req, items, SIEM_Q_SCHEMAS.closingReasons, OTHER_CODES);
    }
    const reasonId = idUnder(path, '/api/siem/offense_closing_reasons');
    if (reasonId !== undefined) {
      allow(m, ['GET']);
      const found = store.closingReasons.find((r) => r.id === reasonId);
      if (!found) throw new SiemQApiError(404, 1002, `No closing reason with id ${reasonId} was found.`);
      return one(req, found, SIEM_Q_SCHEMAS.closingReasons);
    }
    throw new SiemQApiError(404, 1002, `No endpoint was found at ${path}.`);
  }

  return {
    url: server.url,
    token,
    faults: server.faults,
    requests: server.requests,
    store,
    close: () => server.close(),
  };
}

/** A list answer: filter, sort, page (`Range`), then `fields`; `Content-Range` always. */
function list(
  req: SimRequest,
  items: ReadonlyArray<object>,
  schema: FieldSchema,
  codes: ListCodes,
): SimResponse {
  const range = parseRange(header(req, 'range'));
  let rows = items as ReadonlyArray<Readonly<Record<string, unknown>>>;
  const filter = req.query.get('filter');
  if (filter !== null) {
    const match = param(() => compileFilter(filter, schema), codes.filter, 'filter');
    rows = rows.filter(match);
  }
  const sort = req.query.get('sort');
  if (sort !== null)
    rows = sortItems(
      rows,
      param(() => parseSort(sort, schema), codes.sort, 'sort'),
    );
  const selection = fieldsOf(req, schema, codes.param);
  const total = rows.length;
  const start = range ? range.from : 0;
  const page = range ? rows.slice(range.from, range.to + 1) : rows;
  const body = selection ? page.map((r) => project(r, selection)) : [...page];
  return {
    status: 200,
    headers: { 'content-range': `items ${start}-${start + page.length - 1}/${total}` },
    body,
  };
}

/** A single-object answer, projected by `fields`. */
function one(req: SimRequest, item: object, schema: FieldSchema, status = 200): SimResponse {
  const selection = fieldsOf(req, schema, 1005);
  return { status, body: selection ? (project(item, selection) as object) : item };
}

function fieldsOf(req: SimRequest, schema: FieldSchema, code: number) {
  const fields = req.query.get('fields');
  if (fields === null) return undefined;
  return param(() => parseFields(fields, schema), code, 'fields');
}

function param<T>(parse: () => T, code: number, name: string): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof QueryParamError) {
      throw new SiemQApiError(422, code, `The ${name} parameter is not valid: ${err.message}`);
    }
    throw err;
  }
}

/** `items=x-y`, zero-based inclusive; 422/36 when it does not parse. */
function parseRange(value: string | undefined): { from: number; to: number } | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*items\s*=\s*(-?\d+)\s*-\s*(-?\d+)\s*$/.exec(value);
  if (!m) {
    throw new SiemQApiError(
      422,
      36,
      'Failed to parse Range header. The syntax must follow this pattern: items=x-y',
    );
  }
  const from = Number(m[1]);
  const to = Number(m[2]);
  if (from < 0 || to < 0) throw new SiemQApiError(422, 36, 'Range header values cannot be negative.');
  if (to < from)
    throw new SiemQApiError(422, 36, 'The end of the Range header must not be before its start.');
  return { from, to };
}

function jsonBody(req: SimRequest): unknown {
  const text = req.body.toString('utf8');
  if (text.trim() === '') throw new SiemQApiError(422, 10, 'A request body is required.', 'Body required.');
  try {
    return JSON.parse(text);
  } catch {
    throw new SiemQApiError(422, 10, 'The request body is not valid JSON.', 'Body required.');
  }
}

function flag(req: SimRequest, name: string): boolean {
  const value = req.query.get(name);
  if (value === null) return false;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new SiemQApiError(
    422,
    11,
    `Cannot convert query parameter ${name} value "${value}" to type Boolean.`,
  );
}

function allow(method: string, methods: readonly string[]): void {
  if (!methods.includes(method)) {
    throw new SiemQApiError(
      405,
      1005,
      `Method ${method} is not allowed here; allowed: ${methods.join(', ')}.`,
    );
  }
}

/** The id in `<base>/<id>`, or undefined when the path is not one; a non-numeric id is a 404. */
function idUnder(path: string, base: string): number | undefined {
  if (!path.startsWith(`${base}/`)) return undefined;
  const rest = path.slice(base.length + 1);
  if (rest.includes('/')) return undefined;
  if (!/^\d+$/.test(rest)) throw new SiemQApiError(404, 1002, `"${rest}" is not a valid id.`);
  return Number(rest);
}

function header(req: SimRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function byVersion(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('.').map(Number);
  const [bm = 0, bn = 0] = b.split('.').map(Number);
  return am - bm || an - bn;
}
