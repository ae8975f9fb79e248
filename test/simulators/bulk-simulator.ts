import { randomBytes } from 'node:crypto';
import {
  clusterHealth,
  decodeBulkBody,
  describeIndex,
  methodNotAllowed,
  noHandler,
  rootInfo,
} from './bulk-answers.ts';
import {
  type BulkFlavor,
  bulkFaultResponse,
  esError,
  indexNotFound,
  privilegeFailure,
} from './bulk-errors.ts';
import { authenticateBulk, checkBulkMediaTypes, principalOf, shapeBulkAnswer } from './bulk-http-rules.ts';
import {
  type BulkDocument,
  type BulkIndex,
  builtinDataStreamTemplate,
  indexNameProblem,
  newBulkIndex,
} from './bulk-index-store.ts';
import { parseBulkBody } from './bulk-ndjson.ts';
import {
  type BulkState,
  deleteByQuery,
  executeBulk,
  type ItemRejection,
  type RefreshMode,
  resolveTargets,
} from './bulk-operations.ts';
import { compileQuery, queryFromQ } from './bulk-query.ts';
import type { HttpFaults } from './http-faults.ts';
import {
  type RecordedRequest,
  type SimRequest,
  type SimResponse,
  type SimTls,
  startSimHttpServer,
} from './sim-http-server.ts';

/** Options of {@link startBulkSimulator}; only `flavor` is required. */
export interface BulkSimulatorOptions {
  readonly flavor: BulkFlavor;
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly tls?: SimTls;
  /** Version reported by `GET /` (default 8.15.0 / 2.17.1); its major picks error spellings. */
  readonly version?: string;
  /** Require authentication (default true). */
  readonly security?: boolean;
  /** Basic-auth users. Default: `elastic` (or `admin` for OpenSearch) with a random password. */
  readonly users?: ReadonlyArray<{ readonly username: string; readonly password: string }>;
  /** Encoded API keys (`base64(id:key)`), Elasticsearch only. Default: one random key. */
  readonly apiKeys?: readonly string[];
  readonly bearerTokens?: readonly string[];
  /** `action.auto_create_index` (default true). */
  readonly autoCreateIndex?: boolean;
  /** `immediate` (default): writes are searchable at once; `on_refresh`: only after a refresh. */
  readonly visibility?: 'immediate' | 'on_refresh';
  /** Dynamic-mapping type conflicts fail items with 400 (default true). */
  readonly mappingConflicts?: boolean;
  /** Built-in `logs-*-*`, `metrics-*-*`, … data-stream templates (default: on for Elasticsearch only). */
  readonly builtinDataStreamTemplates?: boolean;
  /** Returns a reason to fail a document with a 400 mapping error (e.g. to test rejected items). */
  readonly rejectDocument?: (source: unknown, ctx: { index: string; id: string }) => string | undefined;
  /** `http.max_content_length` (default 100 MB): larger bodies get 413. */
  readonly maxContentLength?: number;
  readonly now?: () => number;
}

/** What the bulk simulator keeps for tests. */
export interface BulkStore {
  /** Indexes and data streams by name. */
  readonly indexes: Map<string, BulkIndex>;
  readonly requests: RecordedRequest[];
  /** Documents of an index in write order. */
  docs(index: string): BulkDocument[];
  /** Parsed `_source` of each document of an index, in write order. */
  sources(index: string): unknown[];
  /** Forgets indexes and recorded requests. */
  clear(): void;
}

/** A running Elasticsearch- or OpenSearch-like simulator. */
export interface BulkSimulator {
  readonly url: string;
  readonly port: number;
  readonly flavor: BulkFlavor;
  readonly version: string;
  /** First Basic-auth user. */
  readonly username: string;
  readonly password: string;
  /** First encoded API key (Elasticsearch flavor), for `Authorization: ApiKey <key>`. */
  readonly apiKey: string | undefined;
  readonly store: BulkStore;
  readonly faults: HttpFaults;
  /**
   * Fails the next `count` bulk items (matching `where`, if given) with a 429 rejection, or with the
   * disk flood-stage block when `errorType` is `cluster_block_exception`.
   */
  rejectItems(
    count: number,
    options?: { status?: number; errorType?: string; where?: ItemRejection['where'] },
  ): void;
  /** Version conflicts the next `_delete_by_query` runs into. */
  deleteByQueryConflicts: number;
  /** Makes every write searchable (like `POST /_refresh`). */
  refresh(): void;
  createIndex(name: string): void;
  close(): Promise<void>;
}

/**
 * Starts a simulator of the Elasticsearch / OpenSearch APIs the lab uses (`GET /`, `_bulk`, index
 * create/exists/delete, `_delete_by_query`, `_refresh`, `_count`, data streams, `_tasks`), written
 * from the public documentation. It is a simulator, not a cluster: see README.md for its limits.
 */
export async function startBulkSimulator(options: BulkSimulatorOptions): Promise<BulkSimulator> {
  const flavor = options.flavor;
  const es = flavor === 'elasticsearch';
  const version = options.version ?? (es ? '8.15.0' : '2.17.1');
  const major = Number(version.split('.')[0]);
  const now = options.now ?? Date.now;
  const users = options.users ?? [
    { username: es ? 'elastic' : 'admin', password: randomBytes(12).toString('base64url') },
  ];
  const apiKeys = es
    ? (options.apiKeys ?? [
        Buffer.from(
          `${randomBytes(15).toString('base64url')}:${randomBytes(16).toString('base64url')}`,
        ).toString('base64'),
      ])
    : [];
  const bearerTokens = options.bearerTokens ?? [];
  const security = options.security ?? true;
  const clusterUuid = randomBytes(16).toString('base64url').slice(0, 22);
  const state: BulkState = {
    flavor,
    major,
    indexes: new Map(),
    autoCreateIndex: options.autoCreateIndex ?? true,
    visibility: options.visibility ?? 'immediate',
    mappingConflicts: options.mappingConflicts ?? true,
    builtinTemplates: options.builtinDataStreamTemplates ?? es,
    rejectDocument: options.rejectDocument,
    itemRejections: [],
    deleteByQueryConflicts: 0,
    tasks: new Map(),
    nodeId: randomBytes(16).toString('base64url').slice(0, 22),
    now,
  };
  const maxContentLength = options.maxContentLength ?? 100 * 1024 * 1024;

  const server = await startSimHttpServer({
    host: options.host,
    port: options.port,
    tls: options.tls,
    maxBodyBytes: maxContentLength,
    tooLarge: () => ({ status: 413, body: '' }),
    faultResponse: (fault, req) => {
      if (fault.body !== undefined) return { status: fault.status, body: fault.body, headers: fault.headers };
      // An injected 401 is the product's refusal of the credentials this request carried.
      if (fault.status === 401) {
        const refused = authenticateBulk(
          { flavor, security: true, users: [], apiKeys: [], bearerTokens: [] },
          req,
        );
        if (refused) return refused;
      }
      if (fault.status === 403) {
        return privilegeFailure(
          flavor,
          req.method,
          req.path,
          principalOf(req, users[0]?.username ?? 'elastic'),
        );
      }
      return bulkFaultResponse(flavor, fault.status, fault.errorType);
    },
    commonHeaders: (status) => ({
      'x-socdrill-simulator': `bulk-${flavor}`,
      // Elasticsearch sends its product header on everything it answers itself after authentication.
      ...(es && ![401, 403, 502, 504].includes(status) ? { 'x-elastic-product': 'Elasticsearch' } : {}),
    }),
    handle: (req) => shapeBulkAnswer(flavor, req, route(req)),
  });

  function route(req: SimRequest): SimResponse {
    const media = checkBulkMediaTypes(flavor, major, req);
    if (media) return media;
    const auth = authenticateBulk({ flavor, security, users, apiKeys, bearerTokens }, req);
    if (auth) return auth;
    const segments = req.path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => safeDecode(s));
    const [first, second, third] = segments;
    const m = req.method;
    if (segments.length === 0) {
      if (m === 'GET' || m === 'HEAD') return { status: 200, body: rootInfo(flavor, version, clusterUuid) };
      return methodNotAllowed(req, ['GET', 'HEAD']);
    }
    if (first === '_bulk' && segments.length === 1) return bulk(req, undefined);
    if (second === '_bulk' && segments.length === 2) return bulk(req, first);
    if (first === '_cluster' && second === 'health' && m === 'GET')
      return { status: 200, body: clusterHealth(state.indexes.size) };
    if (first === '_refresh' && segments.length === 1) return refreshIndexes(req, '_all');
    if (second === '_refresh' && segments.length === 2) return refreshIndexes(req, first!);
    if (second === '_count' && segments.length === 2) return count(req, first!);
    if (second === '_delete_by_query' && segments.length === 2) {
      if (m !== 'POST') return methodNotAllowed(req, ['POST']);
      return deleteByQueryRoute(req, first!);
    }
    if (first === '_tasks' && segments.length === 2 && m === 'GET') {
      const task = state.tasks.get(second!);
      return task
        ? { status: 200, body: task }
        : esError(404, {
            type: 'resource_not_found_exception',
            reason: `task [${second}] isn't running and hasn't stored its results`,
          });
    }
    if (first === '_data_stream' && segments.length === 2) return dataStream(req, second!);
    if (segments.length === 1 && third === undefined) return indexApi(req, first!);
    return noHandler(req);
  }

  function bulk(req: SimRequest, target: string | undefined): SimResponse {
    if (req.method !== 'POST' && req.method !== 'PUT') return methodNotAllowed(req, ['POST', 'PUT']);
    const body = decodeBulkBody(req);
    if ('status' in body) return body;
    const parsed = parseBulkBody(body.text, target, { bytes: body.bytes });
    if (!parsed.ok) return esError(400, parsed.error);
    return {
      status: 200,
      body: executeBulk(state, parsed.actions, refreshMode(req.query.get('refresh')), body.bytes),
    };
  }

  function deleteByQueryRoute(req: SimRequest, targets: string): SimResponse {
    const body = decodeBulkBody(req);
    if ('status' in body) return body;
    let json: unknown;
    if (body.text.trim() !== '') {
      try {
        json = JSON.parse(body.text);
      } catch {
        return esError(400, {
          type: 'x_content_parse_exception',
          reason: '[1:1] Unexpected character in request body',
        });
      }
    }
    const q = req.query;
    return deleteByQuery(state, {
      targets,
      body: json,
      q: q.get('q'),
      conflicts: q.get('conflicts'),
      refresh: flag(q, 'refresh'),
      ignoreUnavailable: flag(q, 'ignore_unavailable'),
      allowNoIndices: q.get('allow_no_indices') !== 'false',
      maxDocs: q.has('max_docs') ? Number(q.get('max_docs')) : undefined,
      waitForCompletion: q.get('wait_for_completion') !== 'false',
    });
  }

  function refreshIndexes(req: SimRequest, targets: string): SimResponse {
    if (req.method !== 'POST' && req.method !== 'GET') return methodNotAllowed(req, ['GET', 'POST']);
    const resolved = resolveTargets(state, targets, false, true);
    if ('missing' in resolved) return indexNotFound(resolved.missing);
    for (const index of resolved.indexes) for (const d of index.docs.values()) d.searchable = true;
    const n = resolved.indexes.length;
    return { status: 200, body: { _shards: { total: n * 2, successful: n, failed: 0 } } };
  }

  function count(req: SimRequest, targets: string): SimResponse {
    if (req.method !== 'POST' && req.method !== 'GET') return methodNotAllowed(req, ['GET', 'POST']);
    const resolved = resolveTargets(state, targets, false, true);
    if ('missing' in resolved) return indexNotFound(resolved.missing);
    const body = decodeBulkBody(req);
    if ('status' in body) return body;
    const q = req.query.get('q');
    let query: unknown;
    try {
      query =
        q !== null
          ? queryFromQ(q)
          : body.text.trim()
            ? (JSON.parse(body.text) as { query?: unknown }).query
            : undefined;
    } catch {
      return esError(400, {
        type: 'x_content_parse_exception',
        reason: '[1:1] Unexpected character in request body',
      });
    }
    const predicate = compileQuery(query ?? { match_all: {} });
    if ('error' in predicate)
      return esError(400, { type: 'parsing_exception', reason: predicate.error, line: 1, col: 1 });
    let n = 0;
    for (const index of resolved.indexes) {
      for (const d of index.docs.values()) if (d.searchable && predicate(d.id, d.source)) n++;
    }
    const shards = resolved.indexes.length;
    return {
      status: 200,
      body: { count: n, _shards: { total: shards, successful: shards, skipped: 0, failed: 0 } },
    };
  }

  function indexApi(req: SimRequest, name: string): SimResponse {
    const index = state.indexes.get(name);
    switch (req.method) {
      case 'HEAD':
        return { status: index ? 200 : 404 };
      case 'GET':
        return index ? { status: 200, body: { [name]: describeIndex(index) } } : indexNotFound(name);
      case 'DELETE':
        if (!index) return indexNotFound(name);
        state.indexes.delete(name);
        return { status: 200, body: { acknowledged: true } };
      case 'PUT':
        return createIndexRoute(req, name);
      default:
        return methodNotAllowed(req, ['DELETE', 'GET', 'HEAD', 'PUT']);
    }
  }

  function createIndexRoute(req: SimRequest, name: string): SimResponse {
    const problem = indexNameProblem(name);
    if (problem) {
      return esError(400, {
        type: 'invalid_index_name_exception',
        reason: problem,
        index_uuid: '_na_',
        index: name,
      });
    }
    const existing = state.indexes.get(name);
    if (existing) {
      return esError(400, {
        type: 'resource_already_exists_exception',
        reason: `index [${existing.backingIndex ?? name}/${existing.uuid}] already exists`,
        index_uuid: existing.uuid,
        index: existing.backingIndex ?? name,
      });
    }
    const template = state.builtinTemplates ? builtinDataStreamTemplate(name) : undefined;
    if (template) {
      return esError(400, {
        type: 'illegal_argument_exception',
        reason: `cannot create index with name [${name}], because it matches with template [${template}] that creates data streams only, use create data stream api instead`,
      });
    }
    const body = decodeBulkBody(req);
    if ('status' in body) return body;
    let created: Record<string, unknown> = {};
    if (body.text.trim() !== '') {
      try {
        created = JSON.parse(body.text) as Record<string, unknown>;
      } catch {
        return esError(400, { type: 'parse_exception', reason: 'Failed to parse content to map' });
      }
    }
    state.indexes.set(name, newBulkIndex(name, 'index', new Date(now()), created));
    return { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: name } };
  }

  function dataStream(req: SimRequest, name: string): SimResponse {
    const existing = state.indexes.get(name);
    if (req.method === 'PUT') {
      if (existing) {
        return esError(400, {
          type: 'resource_already_exists_exception',
          reason: `data_stream [${name}] already exists`,
        });
      }
      if (!(state.builtinTemplates && builtinDataStreamTemplate(name))) {
        return esError(400, {
          type: 'illegal_argument_exception',
          reason: `no matching index template found for data stream [${name}]`,
        });
      }
      state.indexes.set(name, newBulkIndex(name, 'data_stream', new Date(now())));
      return { status: 200, body: { acknowledged: true } };
    }
    if (existing?.kind !== 'data_stream') return indexNotFound(name);
    if (req.method === 'DELETE') {
      state.indexes.delete(name);
      return { status: 200, body: { acknowledged: true } };
    }
    if (req.method === 'GET') {
      return {
        status: 200,
        body: {
          data_streams: [
            {
              name,
              timestamp_field: { name: '@timestamp' },
              indices: [{ index_name: existing.backingIndex, index_uuid: existing.uuid }],
              generation: 1,
              status: 'GREEN',
              template: builtinDataStreamTemplate(name) ?? '',
              hidden: false,
              system: false,
            },
          ],
        },
      };
    }
    return methodNotAllowed(req, ['DELETE', 'GET', 'PUT']);
  }

  return {
    url: server.url,
    port: server.port,
    flavor,
    version,
    username: users[0]?.username ?? '',
    password: users[0]?.password ?? '',
    apiKey: apiKeys[0],
    store: {
      indexes: state.indexes,
      requests: server.requests,
      docs: (index) => [...(state.indexes.get(index)?.docs.values() ?? [])],
      sources: (index) => [...(state.indexes.get(index)?.docs.values() ?? [])].map((d) => d.source),
      clear() {
        state.indexes.clear();
        server.requests.length = 0;
      },
    },
    faults: server.faults,
    rejectItems(n, opts = {}) {
      state.itemRejections.push({
        count: n,
        status: opts.status ?? 429,
        errorType: opts.errorType,
        where: opts.where,
      });
    },
    get deleteByQueryConflicts() {
      return state.deleteByQueryConflicts;
    },
    set deleteByQueryConflicts(n: number) {
      state.deleteByQueryConflicts = n;
    },
    refresh() {
      for (const index of state.indexes.values()) for (const d of index.docs.values()) d.searchable = true;
    },
    createIndex(name) {
      state.indexes.set(name, newBulkIndex(name, 'index', new Date(now())));
    },
    close: () => server.close(),
  };
}

function refreshMode(value: string | null): RefreshMode {
  if (value === null || value === 'false') return 'none';
  return value === 'wait_for' ? 'wait_for' : 'forced';
}

function flag(q: URLSearchParams, name: string): boolean {
  return q.has(name) && q.get(name) !== 'false';
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
