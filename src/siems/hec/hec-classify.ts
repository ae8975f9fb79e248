import type { IncomingHttpHeaders } from 'node:http';
import { parseRetryAfter } from '../shared/backoff.ts';
import type { SendOutcome } from '../shared/deliver.ts';
import { clip } from '../shared/siem-message.ts';

/** The collector's `{"text","code","invalid-event-number"?}` answer, as far as it could be read. */
export interface HecReply {
  readonly text?: string;
  readonly code?: number;
  readonly invalidEventNumber?: number;
}

/** Reads a collector answer body; a proxy's HTML or an empty body gives an empty reply. */
export function parseHecReply(body: string): HecReply {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    if (typeof json !== 'object' || json === null) return {};
    const n = json['invalid-event-number'];
    return {
      ...(typeof json.text === 'string' ? { text: json.text } : {}),
      ...(typeof json.code === 'number' ? { code: json.code } : {}),
      ...(typeof n === 'number' && Number.isInteger(n) ? { invalidEventNumber: n } : {}),
    };
  } catch {
    return body.trim() === '' ? {} : { text: clip(body, 120) };
  }
}

/** Codes of a single bad event: that event is dropped, the ones before it were taken (1.7, 1.10). */
const DATA_ERRORS = new Set([5, 6, 12, 13, 15]);
/** Codes of a setting that will not change by itself: stop and tell the operator (1.10). */
const CONFIG_ERRORS = new Set([10, 11, 14, 16]);

/**
 * Maps a collector answer to a send outcome (protocols-hec-bulk.md 1.6 and 1.10), for a batch of
 * `size` events aimed at `index`:
 * - 200: acknowledged;
 * - 400 codes 5/6/12/13/15 with `invalid-event-number` n: events before n were taken (observed
 *   splunkd behaviour, 0-based), event n is refused, the rest is sent again;
 * - 400 code 7: the index is refused; splunkd names the position after the offending event, so the
 *   events before it were taken; since every event of a shipment has the same index, the shipment
 *   stops;
 * - 400 codes 10/11/14/16, 401, 403: configuration errors, the shipment stops;
 * - 413: split the batch;
 * - 404: a wrong collector URL unless `retryNotFound` (Splunk Cloud answers 404 during
 *   maintenance, reliability-notes §8 item 4: retryable only when configured so), so it stops;
 * - 501: the server does not implement the request, which no retry changes: stop;
 * - 408, 429 and other 5xx: retry; a 503 naming an event position took the events before it;
 * - anything else: the batch is refused.
 */
export function classifyHecAnswer(
  status: number,
  body: string,
  headers: IncomingHttpHeaders,
  size: number,
  index: string | null,
  now: number,
  retryNotFound = false,
): SendOutcome {
  if (status >= 200 && status < 300) return { kind: 'ok' };
  const reply = parseHecReply(body);
  const reason = describeReply(status, reply);
  const n = reply.invalidEventNumber;
  if (status === 400 && reply.code !== undefined && DATA_ERRORS.has(reply.code)) {
    if (n === undefined || n < 0 || n >= size) return { kind: 'reject', reason };
    return {
      kind: 'partial',
      accepted: range(0, n),
      failed: [{ at: n, reason: `event refused: ${reason}` }],
      resend: range(n + 1, size),
      retry: [],
    };
  }
  if (status === 400 && reply.code === 7) {
    const target = index === null ? "the token's default index" : `index "${index}"`;
    return {
      kind: 'stop',
      reason: `${reason}: the collector refuses ${target} (not in the token's allowed indexes, or it does not exist)`,
      cause: index === null ? { reason: 'index_refused' } : { reason: 'index_refused', index },
      acceptedPrefix: n === undefined ? 0 : n - 1,
    };
  }
  if (status === 400 && reply.code !== undefined && CONFIG_ERRORS.has(reply.code))
    return { kind: 'stop', reason, cause: { reason: 'config' } };
  if (status === 401 || status === 403)
    return { kind: 'stop', reason: `${reason}: the HEC token was refused`, cause: { reason: 'auth' } };
  if (status === 413) return { kind: 'split', reason };
  if (status === 404 && !retryNotFound) {
    return {
      kind: 'stop',
      reason: `${reason}: no HTTP Event Collector at this URL (check the URL and port; set HEC_RETRY_NOT_FOUND=true to retry 404s, which Splunk Cloud answers during maintenance)`,
      cause: { reason: 'config' },
    };
  }
  if (status === 501)
    return {
      kind: 'stop',
      reason: `${reason}: the server does not implement this request`,
      cause: { reason: 'config' },
    };
  if (status === 404 || status === 408 || status === 429 || status >= 500) {
    return {
      kind: 'retry',
      reason,
      afterMs: parseRetryAfter(headers['retry-after'], now),
      ...(status === 503 && n !== undefined ? { acceptedPrefix: n } : {}),
    };
  }
  return { kind: 'reject', reason };
}

function describeReply(status: number, reply: HecReply): string {
  const code = reply.code !== undefined ? ` (code ${reply.code})` : '';
  return `HTTP ${status}${reply.text ? ` ${reply.text}` : ''}${code}`;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}
