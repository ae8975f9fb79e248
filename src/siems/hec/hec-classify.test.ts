import { describe, expect, it } from 'vitest';
import { classifyHecAnswer, parseHecReply } from './hec-classify.ts';

const reply = (text: string, code: number, n?: number) =>
  JSON.stringify({ text, code, ...(n === undefined ? {} : { 'invalid-event-number': n }) });
const classify = (status: number, body: string, size = 5, headers = {}) =>
  classifyHecAnswer(status, body, headers, size, 'lab', Date.parse('2026-03-01T12:00:00Z'));

describe('parseHecReply', () => {
  it('reads text, code and invalid-event-number, and tolerates non-JSON bodies', () => {
    expect(parseHecReply('{"text":"Invalid data format","code":6,"invalid-event-number":3}')).toEqual({
      text: 'Invalid data format',
      code: 6,
      invalidEventNumber: 3,
    });
    expect(parseHecReply('<html>Bad Gateway</html>')).toEqual({ text: '<html>Bad Gateway</html>' });
    expect(parseHecReply('')).toEqual({});
  });
});

describe('classifyHecAnswer', () => {
  it('acknowledges a 200', () => {
    expect(classify(200, reply('Success', 0))).toEqual({ kind: 'ok' });
  });

  it('drops the event at invalid-event-number, keeps those before it as taken and resends the rest', () => {
    expect(classify(400, reply('Invalid data format', 6, 2))).toEqual({
      kind: 'partial',
      accepted: [0, 1],
      failed: [{ at: 2, reason: 'event refused: HTTP 400 Invalid data format (code 6)' }],
      resend: [3, 4],
      retry: [],
    });
    for (const code of [5, 12, 13, 15]) expect(classify(400, reply('x', code, 0)).kind).toBe('partial');
  });

  it('refuses the whole batch when a data error names no usable position', () => {
    expect(classify(400, reply('No data', 5))).toEqual({
      kind: 'reject',
      reason: 'HTTP 400 No data (code 5)',
    });
    expect(classify(400, reply('Invalid data format', 6, 9))).toMatchObject({ kind: 'reject' });
  });

  it('stops on Incorrect index and names the index; splunkd points one past the offending event', () => {
    expect(classify(400, reply('Incorrect index', 7, 1))).toEqual({
      kind: 'stop',
      reason:
        'HTTP 400 Incorrect index (code 7): the collector refuses index "lab" (not in the token\'s allowed indexes, or it does not exist)',
      cause: { reason: 'index_refused', index: 'lab' },
      acceptedPrefix: 0,
    });
    expect(classify(400, reply('Incorrect index', 7, 4))).toMatchObject({ acceptedPrefix: 3 });
  });

  it('stops on token and channel problems', () => {
    expect(classify(403, reply('Invalid token', 4))).toEqual({
      kind: 'stop',
      reason: 'HTTP 403 Invalid token (code 4): the HEC token was refused',
      cause: { reason: 'auth' },
    });
    expect(classify(401, reply('Token is required', 2))).toMatchObject({
      kind: 'stop',
      cause: { reason: 'auth' },
    });
    expect(classify(403, reply('Token disabled', 1))).toMatchObject({
      kind: 'stop',
      cause: { reason: 'auth' },
    });
    for (const code of [10, 11, 14, 16])
      expect(classify(400, reply('x', code)), `code ${code}`).toMatchObject({
        kind: 'stop',
        cause: { reason: 'config' },
      });
  });

  it('retries busy, internal errors, gateways and 429, honouring Retry-After', () => {
    expect(classify(503, reply('Server is busy', 9))).toEqual({
      kind: 'retry',
      reason: 'HTTP 503 Server is busy (code 9)',
      afterMs: undefined,
    });
    expect(classify(503, reply('Server is busy', 9, 2))).toMatchObject({ kind: 'retry', acceptedPrefix: 2 });
    expect(classify(429, '', 5, { 'retry-after': '2' })).toEqual({
      kind: 'retry',
      reason: 'HTTP 429',
      afterMs: 2_000,
    });
    for (const status of [408, 500, 502, 504])
      expect(classify(status, 'x').kind, String(status)).toBe('retry');
  });

  it('stops on a 404 unless told to retry it (Splunk Cloud maintenance), and never retries a 501', () => {
    const notFound = classifyHecAnswer(404, 'Not Found', {}, 5, 'lab', 0);
    expect(notFound.kind).toBe('stop');
    expect(notFound.kind === 'stop' && notFound.reason).toMatch(
      /^HTTP 404 Not Found: no HTTP Event Collector at this URL .*HEC_RETRY_NOT_FOUND=true/,
    );
    expect(classifyHecAnswer(404, 'Not Found', {}, 5, 'lab', 0, true).kind).toBe('retry');
    expect(classifyHecAnswer(501, '', {}, 5, 'lab', 0, true)).toEqual({
      kind: 'stop',
      reason: 'HTTP 501: the server does not implement this request',
      cause: { reason: 'config' },
    });
  });

  it('splits on 413 and refuses other answers', () => {
    expect(classify(413, '{"text":"Content-Length of 9 too large (maximum is 5)"}')).toEqual({
      kind: 'split',
      reason: 'HTTP 413 Content-Length of 9 too large (maximum is 5)',
    });
    expect(classify(415, '<html>Unsupported</html>')).toEqual({
      kind: 'reject',
      reason: 'HTTP 415 <html>Unsupported</html>',
    });
  });
});
