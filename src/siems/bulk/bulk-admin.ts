import type { HttpAnswer, HttpEndpoint } from '../shared/http-endpoint.ts';
import type { NetworkFailure } from '../shared/network-failure.ts';
import type { CheckStep, IndexOutcome } from '../siem-client.ts';
import { esErrorText, esErrorType } from './bulk-classify.ts';

/** What the index and check calls need from the driver. */
export interface BulkAdminContext {
  readonly endpoint: HttpEndpoint;
  readonly headers: Readonly<Record<string, string>>;
  /** A full message naming the SIEM and the endpoint of `path`. */
  readonly describe: (path: string, cause: string) => string;
  /** Read timeout of a delete-by-query, ms (it answers only when done). */
  readonly wipeTimeoutMs: number;
}

/**
 * `HEAD /<index>`, then `PUT /<index>` when it is missing. A name that Elasticsearch's built-in
 * templates reserve for data streams (`logs-*-*`, …) is created as a data stream instead. A
 * concurrent creation (`resource_already_exists_exception`, of the index or of the data stream)
 * counts as success (protocols-hec-bulk.md 3.11).
 */
export async function ensureBulkIndex(
  ctx: BulkAdminContext,
  index: string,
  signal: AbortSignal,
): Promise<IndexOutcome> {
  const path = `/${encodeURIComponent(index)}`;
  const head = await call(ctx, 'HEAD', path, signal);
  if (head.kind === 'network') return failed(ctx, index, path, head.message);
  if (head.status === 200) return { ok: true, index, created: false };
  if (head.status !== 404) return failed(ctx, index, path, `HTTP ${head.status}`);
  const put = await call(ctx, 'PUT', path, signal);
  if (put.kind === 'network') return failed(ctx, index, path, put.message);
  if (put.status === 200) return { ok: true, index, created: true };
  const text = esErrorText(put.text);
  if (esErrorType(put.text) === ALREADY_EXISTS) return { ok: true, index, created: false };
  if (put.status === 400 && /creates data streams only/.test(text)) {
    const streamPath = `/_data_stream/${encodeURIComponent(index)}`;
    const stream = await call(ctx, 'PUT', streamPath, signal);
    if (stream.kind === 'network') return failed(ctx, index, streamPath, stream.message);
    if (stream.status === 200) return { ok: true, index, created: true };
    if (esErrorType(stream.text) === ALREADY_EXISTS) return { ok: true, index, created: false };
    return failed(ctx, index, streamPath, `HTTP ${stream.status} ${esErrorText(stream.text)}`);
  }
  return failed(ctx, index, path, `HTTP ${put.status} ${text}`);
}

/**
 * Deletes every document of the index: `_refresh` first (delete-by-query only sees searchable
 * documents, so a wipe right after shipping would miss the newest ones), then `_delete_by_query`
 * with `match_all`, `conflicts=proceed` and `refresh=true`, reading `deleted`. A missing index has
 * nothing to wipe: ok with 0 deleted — but only when the cluster says so (a 404 with
 * `index_not_found_exception`); any other 404, say a proxy's page, is a failed wipe, and so is a
 * delete-by-query that answers `timed_out: true` (protocols-hec-bulk.md 3.8, decisions.md 5 Wipe).
 */
export async function wipeBulkIndex(
  ctx: BulkAdminContext,
  index: string,
  signal: AbortSignal,
): Promise<IndexOutcome> {
  const name = encodeURIComponent(index);
  const refreshPath = `/${name}/_refresh`;
  const refreshed = await call(ctx, 'POST', refreshPath, signal);
  if (refreshed.kind === 'network') return failed(ctx, index, refreshPath, refreshed.message);
  if (refreshed.status === 404) {
    if (indexNotFound(refreshed.text)) return { ok: true, index, deleted: 0 };
    return failed(ctx, index, refreshPath, notTheCluster404(refreshed.text));
  }
  // Without the privilege to refresh the wipe still runs; it may miss the last second of writes.
  const path = `/${name}/_delete_by_query?conflicts=proceed&refresh=true`;
  let total = 0;
  // Documents changed during the run are kept and counted as conflicts; one more pass takes them.
  for (let pass = 1; ; pass++) {
    const round = await deleteAll(ctx, path, signal);
    if ('error' in round) return failed(ctx, index, path, round.error);
    if (round.missing) return { ok: true, index, deleted: total };
    total += round.deleted;
    if (round.timedOut) {
      return failed(
        ctx,
        index,
        path,
        `the delete-by-query timed out (timed_out: true) after deleting ${total} documents; the rest are still there; wipe again`,
      );
    }
    if (round.conflicts === 0) return { ok: true, index, deleted: total };
    if (pass === 2) {
      return failed(
        ctx,
        index,
        path,
        `${round.conflicts} documents changed while deleting and were kept (${total} deleted); wipe again`,
      );
    }
  }
}

async function deleteAll(
  ctx: BulkAdminContext,
  path: string,
  signal: AbortSignal,
): Promise<{ deleted: number; conflicts: number; missing: boolean; timedOut: boolean } | { error: string }> {
  const answer = await ctx.endpoint.request({
    method: 'POST',
    path,
    headers: { ...ctx.headers, 'content-type': 'application/json' },
    body: '{"query":{"match_all":{}}}',
    signal,
    readMs: ctx.wipeTimeoutMs,
  });
  if (answer.kind === 'network') return { error: answer.message };
  if (answer.status === 404) {
    if (indexNotFound(answer.text)) return { deleted: 0, conflicts: 0, missing: true, timedOut: false };
    return { error: notTheCluster404(answer.text) };
  }
  if (answer.status !== 200) return { error: `HTTP ${answer.status} ${esErrorText(answer.text)}` };
  let result: { deleted?: unknown; failures?: unknown; version_conflicts?: unknown; timed_out?: unknown };
  try {
    result = JSON.parse(answer.text) as typeof result;
  } catch {
    return { error: 'the delete-by-query answer is not JSON' };
  }
  const deleted = typeof result.deleted === 'number' ? result.deleted : 0;
  const failures = Array.isArray(result.failures) ? result.failures : [];
  if (failures.length > 0) {
    const first = failures[0] as { cause?: { type?: unknown; reason?: unknown } };
    const cause = first.cause ? `${String(first.cause.type)}: ${String(first.cause.reason)}` : 'unknown';
    return { error: `${failures.length} documents could not be deleted (${deleted} were): ${cause}` };
  }
  const conflicts = typeof result.version_conflicts === 'number' ? result.version_conflicts : 0;
  return { deleted, conflicts, missing: false, timedOut: result.timed_out === true };
}

const ALREADY_EXISTS = 'resource_already_exists_exception';

/** A 404 from the cluster itself about the index (not a proxy's or a wrong path's 404). */
function indexNotFound(body: string): boolean {
  return esErrorType(body) === 'index_not_found_exception';
}

function notTheCluster404(body: string): string {
  return `HTTP 404 without index_not_found_exception, so not the cluster saying the index is missing (a proxy or a wrong URL path?): ${esErrorText(body)}`;
}

/**
 * Live check without retries: `GET /` (credentials, and which product and version answers), then
 * `HEAD` on the default index. 401 on `GET /` ends the check (the credentials are refused); 403 means
 * they were accepted but may not read cluster info (Elasticsearch wants the `monitor` cluster
 * privilege), which a least-privilege shipping key lacks, so the index step still runs.
 */
export async function checkBulk(
  ctx: BulkAdminContext,
  index: string | null,
  signal: AbortSignal,
): Promise<CheckStep[]> {
  const steps: CheckStep[] = [];
  const root = await call(ctx, 'GET', '/', signal);
  const rootLabel = ctx.endpoint.label('/');
  if (root.kind === 'network')
    steps.push({ name: 'cluster', ok: false, message: root.message, endpoint: rootLabel });
  else if (root.status !== 200) {
    const auth =
      root.status === 401
        ? ' (credentials refused)'
        : root.status === 403
          ? ' (credentials accepted, but without the privilege to read cluster info, the `monitor` cluster privilege on Elasticsearch; the index step below shows whether shipping can work)'
          : '';
    steps.push({
      name: 'cluster',
      ok: false,
      message: `HTTP ${root.status} ${esErrorText(root.text)}${auth}`,
      endpoint: rootLabel,
    });
  } else steps.push({ name: 'cluster', ok: true, message: describeProduct(root.text), endpoint: rootLabel });
  const rootForbidden = root.kind === 'answer' && root.status === 403;
  if (index === null || (steps[0]?.ok !== true && !rootForbidden)) return steps;
  const path = `/${encodeURIComponent(index)}`;
  const head = await call(ctx, 'HEAD', path, signal);
  const label = ctx.endpoint.label(path);
  if (head.kind === 'network')
    steps.push({ name: 'index', ok: false, message: head.message, endpoint: label });
  else if (head.status === 200)
    steps.push({ name: 'index', ok: true, message: `index "${index}" exists`, endpoint: label });
  else if (head.status === 404) {
    steps.push({
      name: 'index',
      ok: true,
      message: `index "${index}" does not exist yet; the first shipment creates it if the cluster allows automatic index creation (action.auto_create_index), otherwise create it beforehand`,
      endpoint: label,
    });
  } else steps.push({ name: 'index', ok: false, message: `HTTP ${head.status}`, endpoint: label });
  return steps;
}

/** "Elasticsearch 8.15.0" / "OpenSearch 2.17.1" from `GET /`, with a note on versions before 8 / 2. */
export function describeProduct(body: string): string {
  let info: {
    version?: { number?: unknown; distribution?: unknown };
    cluster_name?: unknown;
    tagline?: unknown;
  };
  try {
    info = JSON.parse(body) as typeof info;
  } catch {
    return 'the cluster answered, but not with JSON';
  }
  const number = typeof info.version?.number === 'string' ? info.version.number : 'unknown version';
  const opensearch = info.version?.distribution === 'opensearch';
  const product = opensearch ? 'OpenSearch' : 'Elasticsearch';
  const major = Number.parseInt(number, 10);
  const old =
    Number.isFinite(major) && major < (opensearch ? 2 : 8)
      ? ` (older than the supported ${opensearch ? 'OpenSearch 2' : 'Elasticsearch 8'})`
      : '';
  const cluster = typeof info.cluster_name === 'string' ? `, cluster "${info.cluster_name}"` : '';
  return `${product} ${number}${cluster}${old}`;
}

function call(
  ctx: BulkAdminContext,
  method: 'GET' | 'HEAD' | 'POST' | 'PUT',
  path: string,
  signal: AbortSignal,
): Promise<HttpAnswer | NetworkFailure> {
  return ctx.endpoint.request({ method, path, headers: { ...ctx.headers }, signal });
}

function failed(ctx: BulkAdminContext, index: string, path: string, cause: string): IndexOutcome {
  return { ok: false, index, error: ctx.describe(path, cause) };
}
