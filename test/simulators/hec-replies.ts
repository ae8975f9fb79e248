import type { SimResponse } from './sim-http-server.ts';

/** HEC reply codes: HTTP status and text (protocols-hec-bulk.md §1.6). */
export const HEC_REPLIES: Readonly<Record<number, readonly [status: number, text: string]>> = {
  0: [200, 'Success'],
  1: [403, 'Token disabled'],
  2: [401, 'Token is required'],
  3: [401, 'Invalid authorization'],
  4: [403, 'Invalid token'],
  5: [400, 'No data'],
  6: [400, 'Invalid data format'],
  7: [400, 'Incorrect index'],
  8: [500, 'Internal server error'],
  9: [503, 'Server is busy'],
  10: [400, 'Data channel is missing'],
  11: [400, 'Invalid data channel'],
  12: [400, 'Event field is required'],
  13: [400, 'Event field cannot be blank'],
  14: [400, 'ACK is disabled'],
  15: [400, 'Error in handling indexed fields'],
  16: [400, 'Query string authorization is not enabled'],
  17: [200, 'HEC is healthy'],
  18: [503, 'HEC is unhealthy, queues are full'],
  19: [503, 'HEC is unhealthy, ack service unavailable'],
  20: [503, 'HEC is unhealthy, queues are full, ack service unavailable'],
  21: [400, 'Invalid token'],
  22: [400, 'Token disabled'],
};

/** The `{"text","code"[,"invalid-event-number"][,"ackId"]}` answer for a reply code. */
export function hecReply(
  code: number,
  extra: { invalidEventNumber?: number; ackId?: number } = {},
): SimResponse {
  const [status, text] = HEC_REPLIES[code] ?? [500, 'Internal server error'];
  const body: Record<string, unknown> = { text, code };
  if (extra.invalidEventNumber !== undefined) body['invalid-event-number'] = extra.invalidEventNumber;
  if (extra.ackId !== undefined) body.ackId = extra.ackId;
  return { status, body };
}

/** splunkd's answer for an unknown path; a wrong method gets the same body with 405. */
export function hecNotFound(status = 404, allow?: string): SimResponse {
  return {
    status,
    body: { text: 'The requested URL was not found on this server.', code: 404 },
    ...(allow ? { headers: { allow } } : {}),
  };
}

/** `Content-Encoding` other than gzip: splunkd answers 415 with an HTML page. */
export function hecUnsupportedEncoding(encoding: string): SimResponse {
  return {
    status: 415,
    headers: { 'content-type': 'text/html; charset=UTF-8' },
    body:
      '<!doctype html><html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8">' +
      '<title>415 Unsupported Media Type</title></head><body><h1>Unsupported Media Type</h1>' +
      `<p>Content-Encoding ${escapeHtml(encoding)} is not supported.</p></body></html>`,
  };
}

/** Body larger than `max_content_length` (the exact body of the real 413 is not confirmed). */
export function hecTooLarge(length: number, max: number): SimResponse {
  return { status: 413, body: { text: `Content-Length of ${length} too large (maximum is ${max})` } };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
