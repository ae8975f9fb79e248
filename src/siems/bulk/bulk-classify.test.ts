import { describe, expect, it } from 'vitest';
import { classifyBulkAnswer, esErrorText, esErrorType } from './bulk-classify.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const item = (status: number, error?: object) => ({ create: { status, ...(error ? { error } : {}) } });
const answer = (items: object[], errors = true) => JSON.stringify({ errors, items });

describe('esErrorText', () => {
  it('reads type and reason (with the cause), a plain error string, or raw text', () => {
    expect(
      esErrorText(
        '{"error":{"root_cause":[],"type":"media_type_header_exception","reason":"Invalid media-type value","caused_by":{"type":"status_exception","reason":"Accept version must be 8"}},"status":400}',
      ),
    ).toBe('media_type_header_exception: Invalid media-type value (Accept version must be 8)');
    expect(esErrorText('{"error":"Content-Type header [text/plain] is not supported","status":406}')).toBe(
      'Content-Type header [text/plain] is not supported',
    );
    expect(esErrorText('Unauthorized')).toBe('Unauthorized');
  });
});

describe('esErrorType', () => {
  it('reads error.type, else the first root cause type, and nothing from a body that is not an ES error', () => {
    expect(esErrorType('{"error":{"root_cause":[],"type":"index_not_found_exception"},"status":404}')).toBe(
      'index_not_found_exception',
    );
    expect(esErrorType('{"error":{"root_cause":[{"type":"security_exception"}]},"status":403}')).toBe(
      'security_exception',
    );
    expect(esErrorType('<html><body>404 Not Found</body></html>')).toBeUndefined();
    expect(esErrorType('{"error":"Content-Type header [x] is not supported","status":406}')).toBeUndefined();
    expect(esErrorType('null')).toBeUndefined();
  });
});

const FLOOD =
  'index [lab] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];';
const FLOOD_ADVICE =
  'index blocked: the disk passed the flood-stage watermark; free disk space on the cluster and clear the read-only-allow-delete block, then ship again';

describe('classifyBulkAnswer', () => {
  it('acknowledges an answer without errors', () => {
    expect(classifyBulkAnswer(200, answer([item(201), item(201)], false), {}, 2, NOW)).toEqual({
      kind: 'ok',
    });
  });

  it('sorts items: created and 409 (already there) delivered, 429 and 5xx retried, others failed with their reason', () => {
    const outcome = classifyBulkAnswer(
      200,
      answer([
        item(201),
        item(409, { type: 'version_conflict_engine_exception', reason: '[x]: version conflict' }),
        item(429, { type: 'es_rejected_execution_exception', reason: 'rejected execution' }),
        item(400, { type: 'document_parsing_exception', reason: '[1:2] failed to parse field [a]' }),
        item(503, { type: 'unavailable_shards_exception', reason: 'primary shard is not active' }),
        item(404, { type: 'index_not_found_exception', reason: 'no such index [x]' }),
      ]),
      {},
      6,
      NOW,
      'lab',
    );
    expect(outcome).toEqual({
      kind: 'partial',
      accepted: [0, 1],
      retry: [2, 4],
      resend: [],
      failed: [
        {
          at: 3,
          reason: 'document refused: HTTP 400 document_parsing_exception: [1:2] failed to parse field [a]',
        },
        {
          at: 5,
          reason: 'document refused: HTTP 404 index_not_found_exception: no such index [x]',
          cause: { reason: 'index_refused', index: 'lab' },
        },
      ],
      retryReason: 'document rejected: HTTP 429 es_rejected_execution_exception: rejected execution',
    });
  });

  it('fails items refused by the disk flood-stage block at once, with their reason, and stops the shipment', () => {
    const outcome = classifyBulkAnswer(
      200,
      answer([
        item(201),
        item(429, { type: 'cluster_block_exception', reason: FLOOD }),
        item(429, { type: 'es_rejected_execution_exception', reason: 'rejected execution' }),
      ]),
      {},
      3,
      NOW,
    );
    expect(outcome).toEqual({
      kind: 'partial',
      accepted: [0],
      retry: [2],
      resend: [],
      failed: [
        {
          at: 1,
          reason: `document refused: HTTP 429 cluster_block_exception: ${FLOOD} (${FLOOD_ADVICE})`,
          cause: { reason: 'unavailable' },
        },
      ],
      retryReason: 'document rejected: HTTP 429 es_rejected_execution_exception: rejected execution',
      stop: `document refused: HTTP 429 cluster_block_exception: ${FLOOD} (${FLOOD_ADVICE})`,
      stopCause: { reason: 'unavailable' },
    });
  });

  it('refuses an answer whose items do not match the request', () => {
    expect(classifyBulkAnswer(200, answer([item(201)]), {}, 2, NOW)).toEqual({
      kind: 'reject',
      reason: 'the _bulk answer lists 1 items for 2 sent',
    });
    expect(classifyBulkAnswer(200, 'not json', {}, 1, NOW)).toMatchObject({ kind: 'reject' });
  });

  it('retries request-level 429, 408 and 5xx with Retry-After, splits 413', () => {
    expect(
      classifyBulkAnswer(
        429,
        '{"error":{"type":"circuit_breaking_exception","reason":"[parent] Data too large"},"status":429}',
        { 'retry-after': '1' },
        3,
        NOW,
      ),
    ).toEqual({
      kind: 'retry',
      reason: 'HTTP 429 circuit_breaking_exception: [parent] Data too large',
      afterMs: 1_000,
    });
    expect(classifyBulkAnswer(502, 'Bad Gateway', {}, 3, NOW)).toMatchObject({
      kind: 'retry',
      reason: 'HTTP 502 Bad Gateway',
    });
    expect(classifyBulkAnswer(413, '', {}, 3, NOW)).toEqual({ kind: 'split', reason: 'HTTP 413' });
  });

  it('stops at once on a request-level flood-stage 429 (disk full), naming the cause and what to do', () => {
    expect(
      classifyBulkAnswer(
        429,
        JSON.stringify({
          error: { root_cause: [], type: 'cluster_block_exception', reason: FLOOD },
          status: 429,
        }),
        { 'retry-after': '1' },
        3,
        NOW,
      ),
    ).toEqual({
      kind: 'stop',
      reason: `HTTP 429 cluster_block_exception: ${FLOOD} (${FLOOD_ADVICE})`,
      cause: { reason: 'unavailable' },
    });
    expect(
      classifyBulkAnswer(
        403,
        '{"error":{"type":"cluster_block_exception","reason":"index [lab] blocked by: [FORBIDDEN/8/index write (api)];"},"status":403}',
        {},
        3,
        NOW,
      ),
    ).toEqual({
      kind: 'stop',
      reason:
        'HTTP 403 cluster_block_exception: index [lab] blocked by: [FORBIDDEN/8/index write (api)]; (index or cluster blocked for writes; clear the block, then ship again)',
      cause: { reason: 'unavailable' },
    });
  });

  it('keeps retrying the ordinary 429s and a 503 block that passes by itself', () => {
    expect(
      classifyBulkAnswer(
        429,
        '{"error":{"type":"es_rejected_execution_exception","reason":"rejected execution"},"status":429}',
        {},
        3,
        NOW,
      ),
    ).toMatchObject({ kind: 'retry' });
    expect(
      classifyBulkAnswer(
        503,
        '{"error":{"type":"cluster_block_exception","reason":"blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];"},"status":503}',
        {},
        3,
        NOW,
      ),
    ).toMatchObject({ kind: 'retry' });
  });

  it('stops on credentials and on request errors every later request would meet too', () => {
    expect(classifyBulkAnswer(401, 'Unauthorized', {}, 3, NOW)).toEqual({
      kind: 'stop',
      reason: 'HTTP 401 Unauthorized (credentials refused or lacking privileges)',
      cause: { reason: 'auth' },
    });
    expect(
      classifyBulkAnswer(
        404,
        '{"error":{"type":"index_not_found_exception","reason":"no such index [x]"},"status":404}',
        {},
        1,
        NOW,
        'x',
      ),
    ).toEqual({
      kind: 'stop',
      reason: 'HTTP 404 index_not_found_exception: no such index [x]',
      cause: { reason: 'index_refused', index: 'x' },
    });
    expect(
      classifyBulkAnswer(406, '{"error":"Content-Type header [x] is not supported","status":406}', {}, 1, NOW)
        .kind,
    ).toBe('stop');
  });
});
