import type { Framing } from './syslog-options.ts';

// RFC 6587 framing. Frames are strings, not Buffers: a socket writer should concatenate the
// frames of a batch and call `socket.write(batch)` once. V8 concatenates by reference and Node
// encodes the batch to UTF-8 in one native call, which beats allocating and copying a Buffer
// per event (bench/leef.bench.ts measures this path).

/**
 * `msg` + LF for non-transparent framing (RFC 6587 §3.4.2). An LF inside an event would split it
 * in two on the receiver, so line terminators at the end are dropped and every CR, LF or CRLF
 * inside becomes one space (the readable choice: words stay apart, and LEEF values were already
 * told to carry no CR/LF).
 */
export function frameLf(msg: string): string {
  if (msg.indexOf('\n') < 0 && msg.indexOf('\r') < 0) return `${msg}\n`;
  let end = msg.length;
  while (end > 0) {
    const c = msg.charCodeAt(end - 1);
    if (c !== 10 && c !== 13) break;
    end--;
  }
  return `${msg.slice(0, end).replace(/\r\n|[\r\n]/g, ' ')}\n`;
}

/**
 * `MSG-LEN SP msg` for octet-counting framing (RFC 6587 §3.4.1): the message bytes are kept as
 * they are (CR/LF included) and MSG-LEN is their UTF-8 byte count. Callers pass the message
 * without a line terminator from the archive.
 */
export function frameOctetCounted(msg: string): string {
  return `${Buffer.byteLength(msg, 'utf8')} ${msg}`;
}

/** The framer for `framing`. */
export function framerFor(framing: Framing): (msg: string) => string {
  return framing === 'octet_counting' ? frameOctetCounted : frameLf;
}
