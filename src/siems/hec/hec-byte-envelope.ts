// HEC envelopes of LEEF lines held as bytes (pipeline/leef/leef-byte-events.ts). Tuned: each
// envelope is written once as bytes when its event is encoded, the line JSON-escaped as it is
// copied, its `host` read from its bytes and the repeating parts (`{"time":` with the second, the
// host with the constant fields) kept as bytes, so no string is built per event and the body is
// a copy of envelopes (measured in docs/performance.md). It writes exactly the
// bytes of the string path in hec-encode.ts (hec-byte-envelope.test.ts holds them to it); a line
// with a byte above 0x7f, or a blank one, goes that path instead.

import { isLeefAt } from '../../pipeline/leef/leef-bytes.ts';
import { newSyslogHeader, type SyslogHeader } from '../../pipeline/syslog/detect-syslog-header.ts';
import { detectSyslogHeaderBytes } from '../../pipeline/syslog/detect-syslog-header-bytes.ts';
import type { EncodedEvent } from '../shared/deliver.ts';

/**
 * How JSON.stringify writes each byte of ASCII text: 0 copied, 1 a two-character escape (`\"`,
 * `\\`, `\t`…), 5 `\u00XX`; 128 marks a byte above 0x7f, which this path leaves to the string path.
 */
const EXTRA = Uint8Array.from({ length: 256 }, (_, c) => {
  if (c >= 0x80) return 128;
  if (c === 0x22 || c === 0x5c || c === 8 || c === 9 || c === 10 || c === 12 || c === 13) return 1;
  return c < 0x20 ? 5 : 0;
});

/** The letter after the backslash of a two-character escape. */
const SHORT = Uint8Array.from({ length: 256 }, (_, c) =>
  c === 8 ? 0x62 : c === 9 ? 0x74 : c === 10 ? 0x6e : c === 12 ? 0x66 : c === 13 ? 0x72 : c,
);

const HEX = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Writes the text `buf[s, e)` as the inside of its JSON string at `out[o]`, as JSON.stringify
 * escapes it; returns the offset after it, or -1 at the first byte above 0x7f (the text is then
 * not ASCII, and its JSON is left to JSON.stringify). `out` has room for 6 bytes per byte of text;
 * `outView` and `bufView` are DataViews of `out` and `buf`. Four bytes are tested and copied at a
 * time while none needs escaping (2.5x the speed of a loop over bytes on bench lines, most of
 * whose tab delimiters do).
 */
export function writeJsonEscaped(
  out: Buffer,
  outView: DataView,
  o: number,
  buf: Buffer,
  bufView: DataView,
  s: number,
  e: number,
): number {
  let i = s;
  while (i + 4 <= e) {
    const w = bufView.getUint32(i, true);
    const q = w ^ 0x22222222;
    const b = w ^ 0x5c5c5c5c;
    // A byte below 0x20, a quote, a backslash (each exact for "any byte" while all are below
    // 0x80: a borrow only starts at such a byte) or a byte above 0x7f.
    if (
      ((((w - 0x20202020) & ~w) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b) | w) & 0x80808080) ===
      0
    ) {
      outView.setUint32(o, w, true);
      o += 4;
      i += 4;
      continue;
    }
    for (const end = i + 4; i < end; i++) {
      o = writeJsonByte(out, o, buf[i] as number);
      if (o < 0) return -1;
    }
  }
  for (; i < e; i++) {
    o = writeJsonByte(out, o, buf[i] as number);
    if (o < 0) return -1;
  }
  return o;
}

/** Writes the byte `c` of ASCII text as JSON.stringify does inside a string; -1 for a byte above 0x7f. */
function writeJsonByte(out: Buffer, o: number, c: number): number {
  const x = EXTRA[c] as number;
  if (x === 0) out[o++] = c;
  else if (x === 1) {
    out[o++] = 0x5c;
    out[o++] = SHORT[c] as number;
  } else if (x === 5) {
    out[o] = 0x5c;
    out[o + 1] = 0x75;
    out[o + 2] = 0x30;
    out[o + 3] = 0x30;
    out[o + 4] = HEX[c >>> 4] as number;
    out[o + 5] = HEX[c & 15] as number;
    o += 6;
  } else return -1;
  return o;
}

/** Writes milliseconds 0-999 as three digits at `out[o]`; returns the offset after them. */
export function writeMillis(out: Buffer, o: number, millis: number): number {
  const hundreds = (millis / 100) | 0;
  const tens = ((millis - hundreds * 100) / 10) | 0;
  out[o] = 0x30 + hundreds;
  out[o + 1] = 0x30 + tens;
  out[o + 2] = 0x30 + (millis - hundreds * 100 - tens * 10);
  return o + 3;
}

/** Whether the ASCII text `buf[s, e)` is empty or only whitespace (String#trim would leave nothing). */
export function isBlankAscii(buf: Buffer, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    const c = buf[i] as number;
    if (c !== 32 && (c < 9 || c > 13)) return false;
  }
  return true;
}

/**
 * The syslog HOSTNAME of the ASCII line `buf[s, e)` as syslogHost reads it from the string: its
 * span in `header` (hostnameStart < hostnameEnd), or false for a bare `LEEF:` line, no header,
 * an empty HOSTNAME or RFC 5424's `-`.
 */
export function hostSpan(buf: Buffer, s: number, e: number, header: SyslogHeader): boolean {
  if (isLeefAt(buf, s, e)) return false;
  const h = detectSyslogHeaderBytes(buf, s, e, header);
  const hs = h.hostnameStart;
  if (hs < 0) return false;
  const he = h.hostnameEnd;
  return he > hs && !(he - hs === 1 && buf[hs] === 0x2d);
}

/**
 * The `middle` of recent hosts (see HecByteEnvelope) by the host's bytes: hosts repeat in runs and
 * in small sets (a firewall pair, a handful of servers), so a few entries compared byte by byte
 * spare building a string per event. One per encoder.
 */
export class HostMiddles {
  readonly #hosts: Buffer[] = [];
  readonly #middles: Buffer[] = [];
  #next = 0;
  readonly #make: (host: string) => Buffer;

  /** `make`: the middle of a host (called once per host while it stays among the recent ones). */
  constructor(make: (host: string) => Buffer) {
    this.#make = make;
  }

  /** The middle of the host `buf[s, e)` (ASCII). */
  get(buf: Buffer, s: number, e: number): Buffer {
    const hosts = this.#hosts;
    const n = e - s;
    for (let k = 0; k < hosts.length; k++) {
      const h = hosts[k] as Buffer;
      if (h.length !== n) continue;
      let i = 0;
      while (i < n && h[i] === buf[s + i]) i++;
      if (i === n) return this.#middles[k] as Buffer;
    }
    const host = Buffer.from(buf.subarray(s, e));
    const middle = this.#make(host.toString('latin1'));
    const at = hosts.length < RECENT_HOSTS ? hosts.length : this.#next;
    this.#next = (at + 1) % RECENT_HOSTS;
    hosts[at] = host;
    this.#middles[at] = middle;
    return middle;
  }
}

const RECENT_HOSTS = 16;

/** Bytes of the chunks envelopes are written into (a longer envelope gets a chunk of its own). */
const STORE_BYTES = 256 * 1024;

/**
 * Writes the envelopes of one encoder (one shipment) as bytes, one after another into chunks of
 * its own: each envelope is written once, whole, when its event is encoded, and copied into the
 * request body. A chunk lives as long as an envelope in it (until its batch is sent); none is
 * reused.
 */
export class HecEnvelopeWriter {
  readonly #constant: Buffer;
  readonly #middles: HostMiddles;
  readonly #header = newSyslogHeader();
  #store: Buffer = Buffer.alloc(0);
  #storeView: DataView = new DataView(this.#store.buffer);
  #pos = 0;
  // The DataView of the buffer lines last came from (one per batch of lines).
  #lineBuf: Buffer = Buffer.alloc(0);
  #lineView: DataView = new DataView(this.#lineBuf.buffer);

  /**
   * `constant`: the fields after `host` up to `"event":` (UTF-8); `middleOf`: `host` and those
   * fields for a host.
   */
  constructor(constant: Buffer, middleOf: (host: string) => Buffer) {
    this.#constant = constant;
    this.#middles = new HostMiddles(middleOf);
  }

  /**
   * The envelope of the line `buf[s, e)` with `head` (`{"time":` and the seconds with their point)
   * and `millis`, or null when the line is not ASCII or is blank (the string path then answers).
   */
  write(head: Buffer, millis: number, buf: Buffer, s: number, e: number): HecByteEnvelope | null {
    if (isBlankAscii(buf, s, e)) return null;
    const header = this.#header;
    const middle = hostSpan(buf, s, e, header)
      ? this.#middles.get(buf, header.hostnameStart, header.hostnameEnd)
      : this.#constant;
    const most = head.length + 3 + middle.length + 6 * (e - s) + 4;
    if (this.#pos + most > this.#store.length) {
      this.#store = Buffer.allocUnsafeSlow(Math.max(STORE_BYTES, most));
      this.#storeView = new DataView(this.#store.buffer, this.#store.byteOffset, this.#store.length);
      this.#pos = 0;
    }
    if (buf !== this.#lineBuf) {
      this.#lineBuf = buf;
      this.#lineView = new DataView(buf.buffer, buf.byteOffset, buf.length);
    }
    const out = this.#store;
    const start = this.#pos;
    out.set(head, start);
    let o = writeMillis(out, start + head.length, millis);
    out.set(middle, o);
    o += middle.length;
    out[o++] = 0x22;
    o = writeJsonEscaped(out, this.#storeView, o, buf, this.#lineView, s, e);
    // Not ASCII: nothing is kept of what was written.
    if (o < 0) return null;
    out[o] = 0x22;
    out[o + 1] = 0x7d;
    out[o + 2] = 0x0a;
    o += 3;
    this.#pos = o;
    return new HecByteEnvelope(out, start, o);
  }
}

/**
 * One envelope written as bytes (HecEnvelopeWriter): `{"time":…,"host"?…,"event":"<line>"}` and a
 * newline, `bytes[bytesStart, bytesEnd)`. `size` counts bytes, which is at least the UTF-16 units the batch
 * limits count (BatchLimits.maxBytes).
 */
export class HecByteEnvelope implements EncodedEvent {
  readonly bytes: Buffer;
  readonly bytesStart: number;
  readonly bytesEnd: number;
  readonly size: number;

  constructor(bytes: Buffer, start: number, end: number) {
    this.bytes = bytes;
    this.bytesStart = start;
    this.bytesEnd = end;
    this.size = end - start;
  }

  get text(): string {
    return this.bytes.toString('utf8', this.bytesStart, this.bytesEnd);
  }

  writeTo(out: Buffer, offset: number): number {
    return offset + this.bytes.copy(out, offset, this.bytesStart, this.bytesEnd);
  }
}
