import type { IncomingHttpHeaders } from 'node:http';
import { parseRetryAfter } from '../shared/backoff.ts';
import type { FailureCause, SendOutcome } from '../shared/deliver.ts';
import { clip } from '../shared/siem-message.ts';

/** `type: reason` of an Elasticsearch/OpenSearch error body, a 406's plain `error`, or clipped text. */
export function esErrorText(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: unknown };
    const error = json.error;
    if (typeof error === 'string') return clip(error);
    if (typeof error === 'object' && error !== null)
      return clip(errorCause(error as Record<string, unknown>));
  } catch {
    // OpenSearch's security plugin and proxies answer plain text.
  }
  return clip(body, 200);
}

/**
 * `error.type` of an Elasticsearch/OpenSearch error body (or its first `root_cause` type), or
 * undefined when the body is not such an error (a proxy's HTML page, plain text, a 406 string).
 */
export function esErrorType(body: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = (json as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, root_cause: rootCause } = error as { type?: unknown; root_cause?: unknown };
  if (typeof type === 'string') return type;
  const first = Array.isArray(rootCause) ? (rootCause[0] as { type?: unknown } | undefined) : undefined;
  return typeof first?.type === 'string' ? first.type : undefined;
}

/**
 * What to do about a `cluster_block_exception` (protocols-hec-bulk.md 3.4-3.5): the flood-stage
 * block (`TOO_MANY_REQUESTS/12/…`) means the cluster's disk is full, which quick retries do not fix.
 */
function blockAdvice(reason: string): string {
  return /flood[- ]stage|read-only-allow-delete/i.test(reason)
    ? 'index blocked: the disk passed the flood-stage watermark; free disk space on the cluster and clear the read-only-allow-delete block, then ship again'
    : 'index or cluster blocked for writes; clear the block, then ship again';
}

/**
 * A write block answers 429 (flood stage) or 403 (read-only); 503 is kept for retriable blocks
 * (`state not recovered`, no master), which pass by themselves.
 */
function isWriteBlock(status: number, type: string | undefined): boolean {
  return type === 'cluster_block_exception' && status !== 503;
}

/** `type: reason` of one error object, with its `caused_by` reason when there is one. */
function errorCause(error: Record<string, unknown>): string {
  const type = typeof error.type === 'string' ? error.type : 'error';
  const reason = typeof error.reason === 'string' ? error.reason : '';
  const cause = error.caused_by as { reason?: unknown } | undefined;
  const deeper = typeof cause?.reason === 'string' && cause.reason !== reason ? ` (${cause.reason})` : '';
  return `${type}: ${reason}${deeper}`;
}

/** Item statuses worth another try: the write thread pool was full, or a shard was not there. */
function retriableItem(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Maps a `_bulk` answer for a batch of `size` items to a send outcome (protocols-hec-bulk.md 3.4-3.6):
 * - 200: per item, 2xx is delivered; 409 too — every item is a `create` with this shipment's
 *   deterministic `_id`, so a conflict means an earlier send of the same item got in; 429 and 5xx
 *   items are retried; anything else fails that item with its `type: reason`;
 *   items refused by a write block (`cluster_block_exception`, e.g. the disk flood stage) fail at
 *   once with what to do about it;
 * - `cluster_block_exception` (429 at the disk flood stage, 403 read-only; not 503): stop — every
 *   later request meets the same block until someone frees disk space and clears it;
 * - 413: split; other 429s (thread pool, circuit breaker), 408 and 5xx: retry the whole request;
 * - 401, 403 and other 4xx (bad credentials, no privilege, no such index with auto-create off, a
 *   media type the server refuses): every later request would meet the same answer, so stop.
 */
export function classifyBulkAnswer(
  status: number,
  body: string,
  headers: IncomingHttpHeaders,
  size: number,
  now: number,
  index?: string,
): SendOutcome {
  if (status === 200) return classifyItems(body, size, index);
  const reason = `HTTP ${status} ${esErrorText(body)}`.trim();
  const type = esErrorType(body);
  if (isWriteBlock(status, type))
    return { kind: 'stop', reason: `${reason} (${blockAdvice(reason)})`, cause: { reason: 'unavailable' } };
  if (status === 413) return { kind: 'split', reason };
  if (status === 408 || status === 429 || status >= 500) {
    return { kind: 'retry', reason, afterMs: parseRetryAfter(headers['retry-after'], now) };
  }
  if (type === 'index_not_found_exception') return { kind: 'stop', reason, cause: indexRefused(index) };
  if (status === 401 || status === 403)
    return {
      kind: 'stop',
      reason: `${reason} (credentials refused or lacking privileges)`,
      cause: { reason: 'auth' },
    };
  return { kind: 'stop', reason, cause: { reason: 'config' } };
}

/** `index_refused` for `index` (its name when the shipment knows it). */
function indexRefused(index: string | undefined): FailureCause {
  return index === undefined ? { reason: 'index_refused' } : { reason: 'index_refused', index };
}

function classifyItems(body: string, size: number, index: string | undefined): SendOutcome {
  let json: { errors?: unknown; items?: unknown };
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    return { kind: 'reject', reason: `the _bulk answer is not JSON: ${clip(body, 120)}` };
  }
  const items = json.items;
  if (!Array.isArray(items) || items.length !== size) {
    return {
      kind: 'reject',
      reason: `the _bulk answer lists ${Array.isArray(items) ? items.length : 'no'} items for ${size} sent`,
    };
  }
  if (json.errors === false) return { kind: 'ok' };
  const accepted: number[] = [];
  const retry: number[] = [];
  const failed: Array<{ at: number; reason: string; cause?: FailureCause }> = [];
  let retryReason: string | undefined;
  let blocked: string | undefined;
  for (let i = 0; i < size; i++) {
    const item = items[i] as Record<string, { status?: unknown; error?: unknown }> | undefined;
    const result = item ? (item.create ?? Object.values(item)[0]) : undefined;
    const itemStatus = typeof result?.status === 'number' ? result.status : 0;
    const error = result?.error as { type?: unknown } | undefined;
    if ((itemStatus >= 200 && itemStatus < 300) || itemStatus === 409) accepted.push(i);
    else if (isWriteBlock(itemStatus, typeof error?.type === 'string' ? error.type : undefined)) {
      const detail = itemError(result?.error);
      const reason = `document refused: HTTP ${itemStatus} ${detail} (${blockAdvice(detail)})`;
      failed.push({ at: i, reason, cause: { reason: 'unavailable' } });
      blocked ??= reason;
    } else if (retriableItem(itemStatus)) {
      retry.push(i);
      retryReason ??= `document rejected: HTTP ${itemStatus} ${itemError(result?.error)}`;
    } else {
      // A missing index (auto-create off) or one the credentials may not write to: the SIEM
      // refuses the index, not this document.
      const type = typeof error?.type === 'string' ? error.type : undefined;
      const refusesIndex = type === 'index_not_found_exception' || itemStatus === 403 || itemStatus === 404;
      failed.push({
        at: i,
        reason: `document refused: HTTP ${itemStatus} ${itemError(result?.error)}`,
        ...(refusesIndex ? { cause: indexRefused(index) } : {}),
      });
    }
  }
  // A write block meets every later request too: the shipment stops after this batch's verdicts.
  return {
    kind: 'partial',
    accepted,
    failed,
    retry,
    resend: [],
    ...(retryReason ? { retryReason } : {}),
    ...(blocked ? { stop: blocked, stopCause: { reason: 'unavailable' as const } } : {}),
  };
}

function itemError(error: unknown): string {
  if (typeof error === 'object' && error !== null) return clip(errorCause(error as Record<string, unknown>));
  return 'no error detail';
}
