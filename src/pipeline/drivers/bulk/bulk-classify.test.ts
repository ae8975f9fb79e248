import { describe, expect, it } from 'vitest';
import { classifyBulkAnswer, esErrorText } from './bulk-classify.ts';

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
        { at: 5, reason: 'document refused: HTTP 404 index_not_found_exception: no such index [x]' },
      ],
      retryReason: 'document rejected: HTTP 429 es_rejected_execution_exception: rejected execution',
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

  it('stops on credentials and on request errors every later request would meet too', () => {
    expect(classifyBulkAnswer(401, 'Unauthorized', {}, 3, NOW)).toEqual({
      kind: 'stop',
      reason: 'HTTP 401 Unauthorized (credentials refused or lacking privileges)',
    });
    expect(
      classifyBulkAnswer(
        404,
        '{"error":{"type":"index_not_found_exception","reason":"no such index [x]"},"status":404}',
        {},
        1,
        NOW,
      ),
    ).toEqual({ kind: 'stop', reason: 'HTTP 404 index_not_found_exception: no such index [x]' });
    expect(
      classifyBulkAnswer(406, '{"error":"Content-Type header [x] is not supported","status":406}', {}, 1, NOW)
        .kind,
    ).toBe('stop');
  });
});
