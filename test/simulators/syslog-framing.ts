/** TCP syslog framing of RFC 6587: LF-terminated, octet-counted, or detected per frame. */
export type SyslogFraming = 'lf' | 'octet_counting' | 'auto';

/** One message cut out of the stream, without its LF trailer or `MSG-LEN SP` prefix. */
export interface SyslogFrame {
  readonly bytes: Buffer;
  readonly framing: 'lf' | 'octet_counting';
}

/** Longest MSG-LEN accepted (9 digits), so a stray digit run cannot announce gigabytes. */
const MAX_LEN_DIGITS = 9;

/**
 * Cuts a byte stream into syslog messages. `auto` decides per frame like rsyslog: a frame that
 * starts with a digit is octet-counted, anything else runs to the next LF. Octet counting
 * (`MSG-LEN SP SYSLOG-MSG`, RFC 6587 §3.4.1) keeps embedded LFs inside the message.
 * After an error the stream is unusable; the caller closes the connection.
 */
export class SyslogDeframer {
  readonly #framing: SyslogFraming;
  readonly #maxMessageBytes: number;
  #buffer: Buffer = Buffer.alloc(0);
  #error: string | undefined;

  constructor(framing: SyslogFraming, maxMessageBytes: number) {
    this.#framing = framing;
    this.#maxMessageBytes = maxMessageBytes;
  }

  /** Adds bytes; returns the frames they complete, and an error once framing is broken. */
  push(chunk: Buffer): { frames: SyslogFrame[]; error?: string } {
    const frames: SyslogFrame[] = [];
    if (this.#error) return { frames, error: this.#error };
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const next = this.#next();
      if (next === undefined) break;
      if ('error' in next) {
        this.#error = next.error;
        return { frames, error: next.error };
      }
      frames.push(next);
    }
    return { frames };
  }

  /** Bytes received after the last complete frame (an unterminated message at close). */
  rest(): Buffer {
    return this.#buffer;
  }

  #next(): SyslogFrame | { error: string } | undefined {
    const buf = this.#buffer;
    if (buf.length === 0) return undefined;
    const first = buf[0]!;
    const octet =
      this.#framing === 'octet_counting' || (this.#framing === 'auto' && first >= 0x30 && first <= 0x39);
    if (!octet) return this.#nextLine();
    if (first < 0x31 || first > 0x39) {
      return { error: `expected an octet count, found byte 0x${first.toString(16).padStart(2, '0')}` };
    }
    const space = buf.indexOf(0x20);
    const digitsEnd = space < 0 ? Math.min(buf.length, MAX_LEN_DIGITS + 1) : space;
    for (let i = 0; i < digitsEnd; i++) {
      const c = buf[i]!;
      if (c < 0x30 || c > 0x39) {
        return { error: `invalid octet count: byte 0x${c.toString(16).padStart(2, '0')} before the space` };
      }
    }
    if (digitsEnd > MAX_LEN_DIGITS) return { error: 'invalid octet count: more than 9 digits' };
    if (space < 0) return undefined;
    const length = Number(buf.subarray(0, space).toString('latin1'));
    if (length > this.#maxMessageBytes) {
      return { error: `octet count ${length} exceeds the ${this.#maxMessageBytes}-byte message limit` };
    }
    const end = space + 1 + length;
    if (buf.length < end) return undefined;
    this.#buffer = buf.subarray(end);
    return { bytes: Buffer.from(buf.subarray(space + 1, end)), framing: 'octet_counting' };
  }

  #nextLine(): SyslogFrame | { error: string } | undefined {
    const buf = this.#buffer;
    const lf = buf.indexOf(0x0a);
    if (lf < 0) {
      if (buf.length > this.#maxMessageBytes) {
        return { error: `no LF within ${this.#maxMessageBytes} bytes` };
      }
      return undefined;
    }
    this.#buffer = buf.subarray(lf + 1);
    return { bytes: Buffer.from(buf.subarray(0, lf)), framing: 'lf' };
  }
}
