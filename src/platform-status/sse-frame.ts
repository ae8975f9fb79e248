/** Fields of one server-sent event (WHATWG HTML, "Server-sent events"). */
export interface SseEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Encodes one event as its wire frame. `id` and `event` must be single lines: a CR or LF in them
 * would let a value inject further fields, so they are refused rather than escaped. Multi-line
 * data becomes several `data:` lines, which clients join back with LF.
 */
export function encodeSseEvent(event: SseEvent): string {
  let frame = '';
  if (event.id !== undefined) {
    assertSingleLine('id', event.id);
    // A NUL in the id makes clients ignore the field (the spec), so refuse it too.
    if (event.id.includes('\0')) throw new Error('SSE id must not contain NUL');
    frame += `id: ${event.id}\n`;
  }
  if (event.event !== undefined) {
    assertSingleLine('event', event.event);
    frame += `event: ${event.event}\n`;
  }
  for (const line of event.data.split(LINE_BREAK)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** A comment frame: clients ignore it; proxies see traffic (keep-alive). */
export function encodeSseComment(text: string): string {
  assertSingleLine('comment', text);
  return `: ${text}\n\n`;
}

/** Sets the client's reconnection delay; dispatches no event. */
export function encodeSseRetry(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0) throw new Error('SSE retry must be a non-negative integer');
  return `retry: ${ms}\n\n`;
}

function assertSingleLine(field: string, value: string): void {
  if (/[\r\n]/.test(value)) throw new Error(`SSE ${field} must not contain CR or LF`);
}
