import { randomBytes } from 'node:crypto';
import {
  type BulkFlavor,
  type EsErrorCause,
  esError,
  floodStageBlock,
  indexNotFound,
  parsingExceptionType,
  rejectedExecution,
} from './bulk-errors.ts';
import {
  applyDynamicMapping,
  type BulkDocument,
  type BulkIndex,
  builtinDataStreamTemplate,
  indexNameProblem,
  newBulkDocument,
  newBulkIndex,
} from './bulk-index-store.ts';
import type { BulkAction } from './bulk-ndjson.ts';
import { compileQuery, queryFromQ } from './bulk-query.ts';
import { sourceFits } from './bulk-source-fit.ts';
import type { SimResponse } from './sim-http-server.ts';

/** Which bulk items an injected item-level rejection hits. */
export interface ItemRejection {
  /** Items left to reject (consumed in order across requests). */
  count: number;
  readonly status: number;
  /** `cluster_block_exception`: the disk flood-stage block instead of a thread-pool rejection. */
  readonly errorType?: string;
  readonly where?: (item: { index: string; id: string | undefined; op: string; position: number }) => boolean;
}

/** Everything the bulk operations read and change. */
export interface BulkState {
  readonly flavor: BulkFlavor;
  readonly major: number;
  readonly indexes: Map<string, BulkIndex>;
  readonly autoCreateIndex: boolean;
  readonly visibility: 'immediate' | 'on_refresh';
  readonly mappingConflicts: boolean;
  readonly builtinTemplates: boolean;
  readonly rejectDocument:
    | ((source: unknown, ctx: { index: string; id: string }) => string | undefined)
    | undefined;
  readonly itemRejections: ItemRejection[];
  /** Version conflicts the next `_delete_by_query` runs into (consumed). */
  deleteByQueryConflicts: number;
  readonly tasks: Map<string, Record<string, unknown>>;
  readonly nodeId: string;
  readonly now: () => number;
}

/** How a write asked to be made visible (`refresh` parameter). */
export type RefreshMode = 'none' | 'forced' | 'wait_for';

/** Runs `_bulk` items in order and builds the answer (`took`, `errors`, `items`; HTTP 200 even when items fail). */
export function executeBulk(
  state: BulkState,
  actions: readonly BulkAction[],
  refresh: RefreshMode,
  /** The request body, when actions carry byte ranges of their sources (see parseBulkBody). */
  bytes?: Uint8Array,
): Record<string, unknown> {
  const started = state.now();
  let errors = false;
  const items = actions.map((action, position) => {
    const result = executeItem(state, action, position, refresh, bytes);
    if ('error' in result) errors = true;
    return { [action.op]: result };
  });
  if (refresh !== 'none') {
    // A refresh makes every pending write of the touched indexes searchable, not just this request's.
    for (const name of new Set(actions.map((a) => a.index))) {
      for (const doc of state.indexes.get(name)?.docs.values() ?? []) doc.searchable = true;
    }
  }
  return { took: Math.max(0, state.now() - started), errors, items };
}

function executeItem(
  state: BulkState,
  action: BulkAction,
  position: number,
  refresh: RefreshMode,
  bytes: Uint8Array | undefined,
): Record<string, unknown> {
  const { op } = action;
  let id = action.id;
  const head = (index: BulkIndex | undefined): Record<string, unknown> => {
    // Built key by key in the product's order (the answer is compared as text).
    const h: Record<string, unknown> = { _index: index?.backingIndex ?? action.index };
    if (id !== undefined) h._id = id;
    if (state.flavor === 'elasticsearch' && state.major < 8) h._type = '_doc';
    return h;
  };
  const failure = (index: BulkIndex | undefined, status: number, error: EsErrorCause) => {
    const h = head(index);
    h.status = status;
    h.error = error;
    return h;
  };
  const rejection =
    state.itemRejections.length === 0
      ? undefined
      : state.itemRejections.find(
          (r) => r.count > 0 && (!r.where || r.where({ index: action.index, id, op, position })),
        );
  if (rejection) {
    rejection.count--;
    if (rejection.count === 0) state.itemRejections.splice(state.itemRejections.indexOf(rejection), 1);
    return failure(
      undefined,
      rejection.status,
      rejection.errorType === 'cluster_block_exception'
        ? floodStageBlock(action.index)
        : rejectedExecution(state.flavor, action.source?.length ?? 0),
    );
  }
  const problem = cachedNameProblem(action.index);
  if (problem) {
    return failure(undefined, 400, {
      type: 'invalid_index_name_exception',
      reason: problem,
      index_uuid: '_na_',
      index: action.index,
    });
  }
  let index = state.indexes.get(action.index);
  const template = !index && state.builtinTemplates ? cachedTemplate(action.index) : undefined;
  const isStream = index ? index.kind === 'data_stream' : template !== undefined;
  if (isStream && op !== 'create') {
    return failure(index, 400, {
      type: 'illegal_argument_exception',
      reason: 'only write ops with an op_type of create are allowed in data streams',
    });
  }
  if (!index && (op === 'delete' || op === 'update')) {
    return failure(undefined, 404, {
      type: 'index_not_found_exception',
      reason: `no such index [${action.index}]`,
      'resource.type': 'index_expression',
      'resource.id': action.index,
      index_uuid: '_na_',
      index: action.index,
    });
  }
  if (!index && !state.autoCreateIndex && !isStream) {
    return failure(undefined, 404, {
      type: 'index_not_found_exception',
      reason: `no such index [${action.index}] and [action.auto_create_index] is [false]`,
      index_uuid: '_na_',
      index: action.index,
    });
  }
  const parsingType = parsingExceptionType(state.flavor, state.major);
  // A document that is sure to pass every check below (valid, every field already mapped and
  // fitting) is stored as text without being parsed; any other goes the full way.
  const asIs =
    (op === 'create' || op === 'index') &&
    index !== undefined &&
    !isStream &&
    state.rejectDocument === undefined &&
    bytes !== undefined &&
    action.sourceStart !== undefined &&
    action.sourceEnd !== undefined &&
    sourceFits(bytes, action.sourceStart, action.sourceEnd, state.mappingConflicts ? index : undefined);
  let source: unknown;
  if (op !== 'delete' && !asIs) {
    try {
      source = JSON.parse(action.source ?? '');
    } catch {
      return failure(index, 400, {
        type: parsingType,
        reason: `failed to parse`,
        caused_by: {
          type: 'not_x_content_exception',
          reason:
            'Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes',
        },
      });
    }
    if (typeof source !== 'object' || source === null || Array.isArray(source)) {
      return failure(index, 400, { type: parsingType, reason: 'failed to parse, document is empty' });
    }
  }
  id ??= randomBytes(15).toString('base64url');
  if (op === 'update')
    return update(state, index!, id, source as Record<string, unknown>, head, failure, refresh);
  if (op === 'delete') return remove(index!, id, head, refresh);
  if (isStream && !('@timestamp' in (source as object))) {
    return failure(index, 400, {
      type: parsingType,
      reason: `${state.major >= 8 && state.flavor === 'elasticsearch' ? '[1:1] ' : ''}data stream timestamp field [@timestamp] is missing`,
    });
  }
  const reason = state.rejectDocument?.(source, { index: action.index, id });
  if (reason !== undefined) return failure(index, 400, { type: parsingType, reason });
  if (!index) {
    index = newBulkIndex(action.index, isStream ? 'data_stream' : 'index', new Date(state.now()));
    state.indexes.set(action.index, index);
  }
  const existing = index.docs.get(id);
  if (op === 'create' && existing) {
    return failure(index, 409, {
      type: 'version_conflict_engine_exception',
      reason: `[${id}]: version conflict, document already exists (current version [${existing.version}])`,
      index_uuid: index.uuid,
      shard: '0',
      index: index.backingIndex ?? index.name,
    });
  }
  if (state.mappingConflicts && !asIs) {
    const err = applyDynamicMapping(index, source, {
      id,
      sourceText: action.source ?? '',
      type: parsingType,
      positions: state.flavor === 'elasticsearch' && state.major >= 8,
    });
    if (err) return failure(index, 400, err);
  }
  const doc = store(state, index, id, action.source ?? '', existing, refresh);
  return written(head(index), doc, existing ? 'updated' : 'created', existing ? 200 : 201, refresh);
}

function update(
  state: BulkState,
  index: BulkIndex,
  id: string,
  body: Record<string, unknown>,
  head: (index: BulkIndex | undefined) => Record<string, unknown>,
  failure: (index: BulkIndex | undefined, status: number, error: EsErrorCause) => Record<string, unknown>,
  refresh: RefreshMode,
): Record<string, unknown> {
  if ('script' in body) {
    return failure(index, 400, {
      type: 'illegal_argument_exception',
      reason: 'scripts are not run by the simulator',
    });
  }
  const existing = index.docs.get(id);
  if (!existing) {
    const upsert = body.doc_as_upsert === true ? body.doc : body.upsert;
    if (upsert === undefined) {
      return failure(index, 404, {
        type: 'document_missing_exception',
        reason: `[${id}]: document missing`,
        index_uuid: index.uuid,
        shard: '0',
        index: index.name,
      });
    }
    const doc = store(state, index, id, JSON.stringify(upsert), undefined, refresh, { value: upsert });
    return written(head(index), doc, 'created', 201, refresh);
  }
  const merged = deepMerge(existing.source, body.doc ?? {});
  if (JSON.stringify(merged) === JSON.stringify(existing.source)) {
    return {
      ...head(index),
      _version: existing.version,
      result: 'noop',
      _shards: shards(0),
      _seq_no: existing.seqNo,
      _primary_term: 1,
      status: 200,
    };
  }
  const doc = store(state, index, id, JSON.stringify(merged), existing, refresh, { value: merged });
  return written(head(index), doc, 'updated', 200, refresh);
}

function remove(
  index: BulkIndex,
  id: string,
  head: (index: BulkIndex | undefined) => Record<string, unknown>,
  refresh: RefreshMode,
): Record<string, unknown> {
  const existing = index.docs.get(id);
  const seqNo = index.nextSeqNo++;
  if (existing) index.docs.delete(id);
  return {
    ...head(index),
    _version: existing ? existing.version + 1 : 1,
    result: existing ? 'deleted' : 'not_found',
    _shards: shards(1),
    _seq_no: seqNo,
    _primary_term: 1,
    status: existing ? 200 : 404,
    ...(refresh === 'forced' ? { forced_refresh: true } : {}),
  };
}

/**
 * Stores a document. `source` is given for updates (the merged object); a write from the body
 * keeps only its text, which parses to the same source when it is read (see newBulkDocument).
 */
function store(
  state: BulkState,
  index: BulkIndex,
  id: string,
  sourceText: string,
  existing: BulkDocument | undefined,
  refresh: RefreshMode,
  source?: { value: unknown },
): BulkDocument {
  const doc = newBulkDocument({
    id,
    sourceText,
    ...(source ? { source: source.value } : {}),
    version: existing ? existing.version + 1 : 1,
    seqNo: index.nextSeqNo++,
    searchable: state.visibility === 'immediate' || refresh !== 'none',
  });
  index.docs.set(id, doc);
  return doc;
}

function written(
  head: Record<string, unknown>,
  doc: BulkDocument,
  result: string,
  status: number,
  refresh: RefreshMode,
): Record<string, unknown> {
  // `head` is a fresh object: completed in place, keys in the product's order.
  head._id = doc.id;
  head._version = doc.version;
  head.result = result;
  head._shards = shards(1);
  head._seq_no = doc.seqNo;
  head._primary_term = 1;
  head.status = status;
  if (refresh === 'forced') head.forced_refresh = true;
  return head;
}

/** Index names repeat on every item: their verdicts are remembered (both checks are pure). */
const nameProblems = new Map<string, string | undefined>();
const nameTemplates = new Map<string, string | undefined>();

function cachedNameProblem(name: string): string | undefined {
  if (!nameProblems.has(name)) {
    if (nameProblems.size >= 1024) nameProblems.clear();
    nameProblems.set(name, indexNameProblem(name));
  }
  return nameProblems.get(name);
}

function cachedTemplate(name: string): string | undefined {
  if (!nameTemplates.has(name)) {
    if (nameTemplates.size >= 1024) nameTemplates.clear();
    nameTemplates.set(name, builtinDataStreamTemplate(name));
  }
  return nameTemplates.get(name);
}

function shards(successful: number) {
  return { total: 2, successful, failed: 0 };
}

function deepMerge(base: unknown, patch: unknown): unknown {
  if (
    typeof base !== 'object' ||
    base === null ||
    typeof patch !== 'object' ||
    patch === null ||
    Array.isArray(patch)
  ) {
    return patch;
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch)) out[k] = deepMerge(out[k], v);
  return out;
}

/** Parameters of `_delete_by_query` that change its outcome. */
export interface DeleteByQueryParams {
  readonly targets: string;
  readonly body: unknown;
  readonly q: string | null;
  readonly conflicts: string | null;
  readonly refresh: boolean;
  readonly ignoreUnavailable: boolean;
  readonly allowNoIndices: boolean;
  readonly maxDocs: number | undefined;
  readonly waitForCompletion: boolean;
}

/**
 * `_delete_by_query` over searchable documents only (a point-in-time view, so unrefreshed writes
 * survive). Injected version conflicts are counted with `conflicts=proceed`; with the default
 * `abort` they are listed in `failures` and the answer is 409.
 */
export function deleteByQuery(state: BulkState, params: DeleteByQueryParams): SimResponse {
  const started = state.now();
  if (params.conflicts !== null && params.conflicts !== 'proceed' && params.conflicts !== 'abort') {
    return esError(400, {
      type: 'illegal_argument_exception',
      reason: `conflicts may only be "proceed" or "abort" but was [${params.conflicts}]`,
    });
  }
  const resolved = resolveTargets(state, params.targets, params.ignoreUnavailable, params.allowNoIndices);
  if ('missing' in resolved) return indexNotFound(resolved.missing);
  const query =
    params.q !== null ? queryFromQ(params.q) : (params.body as { query?: unknown } | undefined)?.query;
  if (query === undefined) {
    return esError(400, {
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: query is missing;',
    });
  }
  const predicate = compileQuery(query);
  if ('error' in predicate)
    return esError(400, { type: 'parsing_exception', reason: predicate.error, line: 1, col: 1 });
  const matched: Array<[BulkIndex, BulkDocument]> = [];
  for (const index of resolved.indexes) {
    for (const doc of index.docs.values()) {
      if (doc.searchable && predicate(doc.id, doc.source)) matched.push([index, doc]);
    }
  }
  const limited = params.maxDocs === undefined ? matched : matched.slice(0, params.maxDocs);
  const conflicting = limited.slice(0, state.deleteByQueryConflicts);
  state.deleteByQueryConflicts = Math.max(0, state.deleteByQueryConflicts - conflicting.length);
  const abort = params.conflicts !== 'proceed' && conflicting.length > 0;
  let deleted = 0;
  for (const [index, doc] of limited.slice(conflicting.length)) {
    index.docs.delete(doc.id);
    deleted++;
  }
  if (params.refresh)
    for (const index of resolved.indexes) for (const d of index.docs.values()) d.searchable = true;
  const response = {
    took: Math.max(0, state.now() - started),
    timed_out: false,
    total: limited.length,
    deleted,
    batches: Math.ceil(limited.length / 1000),
    version_conflicts: conflicting.length,
    noops: 0,
    retries: { bulk: 0, search: 0 },
    throttled_millis: 0,
    requests_per_second: -1,
    throttled_until_millis: 0,
    failures: abort
      ? conflicting.map(([index, doc]) => ({
          index: index.backingIndex ?? index.name,
          id: doc.id,
          cause: {
            type: 'version_conflict_engine_exception',
            reason: `[${doc.id}]: version conflict, required seqNo [${doc.seqNo}], primary term [1]. current document has seqNo [${doc.seqNo + 1}] and primary term [1]`,
            index_uuid: index.uuid,
            shard: '0',
            index: index.backingIndex ?? index.name,
          },
          status: 409,
        }))
      : [],
  };
  if (!params.waitForCompletion) {
    const taskId = `${state.nodeId}:${state.tasks.size + 1}`;
    state.tasks.set(taskId, {
      completed: true,
      task: {
        node: state.nodeId,
        id: state.tasks.size + 1,
        type: 'transport',
        action: 'indices:data/write/delete/byquery',
        description: `delete-by-query [${resolved.indexes.map((i) => i.name).join(', ')}]`,
        start_time_in_millis: started,
        running_time_in_nanos: 1_000_000,
        cancellable: true,
        cancelled: false,
        headers: {},
      },
      response,
    });
    return { status: 200, body: { task: taskId } };
  }
  return { status: abort ? 409 : 200, body: response };
}

/** Concrete names and wildcards (comma-separated) to existing indexes and data streams. */
export function resolveTargets(
  state: BulkState,
  expression: string,
  ignoreUnavailable: boolean,
  allowNoIndices: boolean,
): { indexes: BulkIndex[] } | { missing: string } {
  const found = new Map<string, BulkIndex>();
  for (const part of expression.split(',')) {
    if (part === '_all' || part.includes('*')) {
      const pattern = part === '_all' ? '*' : part;
      const re = new RegExp(`^${pattern.split('*').map(escapeRe).join('.*')}$`);
      const hits = [...state.indexes.values()].filter(
        (i) => re.test(i.name) && (!i.name.startsWith('.') || part.startsWith('.')),
      );
      if (hits.length === 0 && !allowNoIndices) return { missing: part };
      for (const h of hits) found.set(h.name, h);
    } else {
      const index = state.indexes.get(part);
      if (index) found.set(part, index);
      else if (!ignoreUnavailable) return { missing: part };
    }
  }
  return { indexes: [...found.values()] };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
