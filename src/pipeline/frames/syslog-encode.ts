import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { framerFor } from '../syslog/framing.ts';
import { createHeaderWriter, type HeaderModeSettings } from '../syslog/header-mode.ts';
import type { Framing } from '../syslog/syslog-options.ts';

/**
 * Largest syslog message (header + LEEF, framing excluded) sent by default, in UTF-8 bytes. A
 * receiver cuts longer messages (rsyslog at its maxMessageSize, QRadar at its payload limit), and
 * with LF framing the cut-off tail arrives as a second, bogus event; refusing such an event keeps
 * "one message per event" and names the problem.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 65_536;

/**
 * Why an event cannot be framed: it has no line, an empty one, a header to synthesize the
 * settings cannot (no source identity), or a message over the longest allowed.
 */
export type RefusalCause = 'no_line' | 'empty' | 'no_header' | 'too_long';

/** Why an event was not encoded (counted failed with this reason). */
export interface EncodeRefusal {
  readonly cause: RefusalCause;
  readonly error: string;
}

/** One event to its frame (header applied, framed), or why it cannot be sent. */
export type SyslogEncoder = (event: OutboundEvent) => string | EncodeRefusal;

/** What an encoder needs for one shipment. */
export interface SyslogEncoderSettings {
  readonly header: HeaderModeSettings;
  readonly framing: Framing;
  /** See DEFAULT_MAX_MESSAGE_BYTES. */
  readonly maxMessageBytes: number;
  /** Shipping time (epoch ms): the header time of events without a readable time. */
  readonly now: number;
}

const NO_LINE: EncodeRefusal = {
  cause: 'no_line',
  error: 'the event has no LEEF line (syslog frames carry LEEF only)',
};
const EMPTY: EncodeRefusal = { cause: 'empty', error: 'the event is an empty line' };

/**
 * An encoder for one shipment: header mode (createHeaderWriter), then RFC 6587 framing
 * (framerFor: LF framing turns embedded CR/LF into spaces, octet counting keeps them). Refusals
 * are shared objects, so a failing archive does not allocate per event.
 */
export function createSyslogEncoder(settings: SyslogEncoderSettings): SyslogEncoder {
  return createSyslogEncoding(settings).encode;
}

/** An encoder and its refusals, for a caller that also writes frames another way (see LeefFrameWriter). */
export interface SyslogEncoding {
  readonly encode: SyslogEncoder;
  /** A header must be synthesized and the settings cannot. */
  readonly noHeader: EncodeRefusal;
  /** The message is longer than maxMessageBytes. */
  readonly tooLong: EncodeRefusal;
}

/** createSyslogEncoder with its refusal objects. */
export function createSyslogEncoding(settings: SyslogEncoderSettings): SyslogEncoding {
  const writer = createHeaderWriter(settings.header);
  const frame = framerFor(settings.framing);
  const max = settings.maxMessageBytes;
  const now = settings.now;
  const noHeader: EncodeRefusal = {
    cause: 'no_header',
    error: `cannot synthesize a syslog header (${settings.header.mode}): ${writer.problem ?? 'unknown problem'}`,
  };
  const tooLong: EncodeRefusal = {
    cause: 'too_long',
    error: `the message is longer than ${max} bytes and is not sent (the receiver would cut it in pieces)`,
  };
  // A UTF-16 code unit is at most 3 UTF-8 bytes: shorter strings need no byte count.
  const surelyShort = Math.floor(max / 3);
  const synthesizes = writer.mode !== 'preserve_raw';
  const encode: SyslogEncoder = (event) => {
    const line = event.line;
    if (typeof line !== 'string') return NO_LINE;
    if (line.length === 0) return EMPTY;
    // Fast path for the common bare line. When a line starts with `LEEF:` and holds no second
    // `LEEF:`, apply() returns headerFor() + line whether or not the LEEF header is well formed
    // (only a later `LEEF:` would make it cut the line); this skips apply's scan of the LEEF header
    // and its header detection. A property test holds both paths equal.
    const msg =
      synthesizes && line.startsWith('LEEF:') && line.indexOf('LEEF:', 5) < 0
        ? prefixed(writer.headerFor(event.time, now), line)
        : writer.apply(line, event.time, now);
    if (msg === null) return noHeader;
    if (msg.length > surelyShort && Buffer.byteLength(msg, 'utf8') > max) return tooLong;
    return frame(msg);
  };
  return { encode, noHeader, tooLong };
}

function prefixed(header: string | null, line: string): string | null {
  return header === null ? null : header + line;
}
