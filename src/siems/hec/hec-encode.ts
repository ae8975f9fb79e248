import type { PayloadFormat } from '../../destinations/destination-types.ts';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import {
  detectSyslogHeader,
  detectSyslogHeaderInto,
  newSyslogHeader,
  type SyslogHeader,
} from '../../pipeline/syslog/detect-syslog-header.ts';
import type { EncodedEvent } from '../shared/deliver.ts';
import type { EncodeEvent } from '../shared/ship-loop.ts';
import { HecEnvelopeWriter, writeMillis } from './hec-byte-envelope.ts';
import { JsonScanBuffer, jsonString, needsNoEscape } from './json-string.ts';

/** Envelope fields that are the same for every event of a shipment. */
export interface HecEnvelopeSettings {
  readonly format: PayloadFormat;
  /** null: the token's default index. */
  readonly index: string | null;
  readonly source: string | null;
  /** null: `_json` for ECS documents, the token's default for LEEF lines. */
  readonly sourcetype: string | null;
  /** Shipping time (epoch ms) for events without a readable time. */
  readonly now: number;
  /** The `host` of one event, or undefined to leave it to the collector (default: syslog HOSTNAME / ECS host.name). */
  readonly hostOf?: (event: OutboundEvent) => string | undefined;
}

/**
 * Epoch milliseconds as HEC `time`: seconds with exactly three decimals, written from integers so
 * no binary-fraction noise reaches the JSON (1433188255500 → `1433188255.500`).
 */
export function hecTime(ms: number): string {
  const rounded = Math.round(ms);
  // Before 1970 the digits are those of the magnitude, with the sign in front (-1500 → `-1.500`).
  const sign = rounded < 0 ? '-' : '';
  const magnitude = Math.abs(rounded);
  const seconds = Math.floor(magnitude / 1000);
  const millis = magnitude - seconds * 1000;
  return `${sign}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}`;
}

/**
 * Builds the `/services/collector/event` envelope encoder of a shipment: one JSON object per event,
 * `{"time","host"?,"source"?,"sourcetype"?,"index"?,"event"}`, LEEF lines as a string `event`, ECS
 * documents as an object. This runs for every event, so nothing is formatted or joined per event:
 * the envelope is kept as its parts (see HecEnvelope), the parts that repeat from one event to the
 * next (`{"time":` with the second, the `host` with the constant fields) are built once per change,
 * and a LEEF line that needs no escaping (most) is kept as it is, to be quoted when written.
 */
export function createHecEncoder(settings: HecEnvelopeSettings): EncodeEvent {
  const sourcetype = settings.sourcetype ?? (settings.format === 'ecs' ? '_json' : null);
  const constant =
    (settings.source !== null ? `,"source":${JSON.stringify(settings.source)}` : '') +
    (sourcetype !== null ? `,"sourcetype":${JSON.stringify(sourcetype)}` : '') +
    (settings.index !== null ? `,"index":${JSON.stringify(settings.index)}` : '') +
    ',"event":';
  const hostOf = settings.hostOf ?? (settings.format === 'ecs' ? ecsHost : createSyslogHostReader());
  const leef = settings.format === 'leef';
  // The encoder's own buffer for checking texts (one encoder per shipment).
  const scan = new JsonScanBuffer();
  let lastSeconds = Number.NaN;
  let head = '';
  let lastHost: string | undefined;
  let middle = constant;
  // LEEF lines held as bytes (hec-byte-envelope.ts), unless the caller reads hosts its own way.
  const bytePath = leef && settings.hostOf === undefined;
  const envelopes = new HecEnvelopeWriter(Buffer.from(constant, 'utf8'), (host) =>
    Buffer.from(`,"host":${jsonString(host, scan)}${constant}`, 'utf8'),
  );
  let headBytes = Buffer.alloc(0);
  let headBytesOf = '';

  /** Sets `head` for the event time `rounded` (epoch ms); returns its milliseconds. */
  const timeOf = (rounded: number): number => {
    // Seconds and milliseconds of the magnitude; a time before 1970 gets its sign in the head
    // (`-1.500`, not `-2.500`), and a key of its own so it never shares a positive head.
    const magnitude = rounded < 0 ? -rounded : rounded;
    const seconds = Math.floor(magnitude / 1000);
    const key = rounded < 0 ? -1 - seconds : seconds;
    if (key !== lastSeconds) {
      lastSeconds = key;
      head = rounded < 0 ? `{"time":-${seconds}.` : `{"time":${seconds}.`;
    }
    return magnitude - seconds * 1000;
  };

  return (event) => {
    const rounded = Math.round(
      typeof event.time === 'number' && Number.isFinite(event.time) ? event.time : settings.now,
    );
    const buf = bytePath ? event.lineBuf : undefined;
    if (buf !== undefined) {
      const millis = timeOf(rounded);
      if (head !== headBytesOf) {
        headBytesOf = head;
        headBytes = Buffer.from(head, 'latin1');
      }
      const envelope = envelopes.write(
        headBytes,
        millis,
        buf,
        event.lineStart as number,
        event.lineEnd as number,
      );
      if (envelope !== null) return envelope;
    }
    let payload: string;
    let quote = false;
    // Read once: a document held as bytes builds its text on every read.
    const json = leef ? undefined : event.json;
    if (leef) {
      if (typeof event.line !== 'string' || event.line.trim() === '')
        return { error: 'event has no LEEF line' };
      payload = event.line;
      quote = needsNoEscape(payload, scan);
      if (!quote) payload = JSON.stringify(payload);
    } else if (typeof json === 'string') {
      // Rebased archive documents arrive as one line of validated JSON text.
      payload = json;
    } else {
      if (typeof event.doc !== 'object' || event.doc === null) return { error: 'event has no ECS document' };
      payload = JSON.stringify(event.doc);
    }
    const millis = timeOf(rounded);
    const host = hostOf(event);
    if (host !== lastHost) {
      lastHost = host;
      middle = (host ? `,"host":${jsonString(host, scan)}` : '') + constant;
    }
    return new HecEnvelope(head, millis, middle, payload, quote);
  };
}

/**
 * One encoded envelope as its parts: `head` (`{"time":` and the seconds with their point), the
 * milliseconds, `middle` (`host` and the constant fields up to `"event":`), the payload (quoted
 * when written if `quote`) and `}` with the newline that ends the envelope inside the request body
 * (whitespace between objects is allowed). `head` and `middle` are shared by the events that have
 * them in common, so an envelope costs one small object; its bytes are written straight into the
 * request body, and its text is only joined when asked for.
 */
class HecEnvelope implements EncodedEvent {
  readonly head: string;
  readonly millis: number;
  readonly middle: string;
  readonly payload: string;
  readonly quote: boolean;
  readonly size: number;

  constructor(head: string, millis: number, middle: string, payload: string, quote: boolean) {
    this.head = head;
    this.millis = millis;
    this.middle = middle;
    this.payload = payload;
    this.quote = quote;
    this.size = head.length + 3 + middle.length + payload.length + (quote ? 2 : 0) + 2;
  }

  get text(): string {
    const payload = this.quote ? `"${this.payload}"` : this.payload;
    return `${this.head}${MILLIS[this.millis]!}${this.middle}${payload}}\n`;
  }

  writeTo(buffer: Buffer, offset: number): number {
    const out = buffer as Utf8Writer;
    let o = writeMillis(out, offset + out.utf8Write(this.head, offset), this.millis);
    o += out.utf8Write(this.middle, o);
    if (this.quote) {
      out[o++] = 0x22;
      o += out.utf8Write(this.payload, o);
      out[o++] = 0x22;
    } else o += out.utf8Write(this.payload, o);
    out[o] = 0x7d;
    out[o + 1] = 0x0a;
    return o + 2;
  }
}

/**
 * Node's UTF-8 writer behind `buffer.write(text, offset)`, called directly: the public method first
 * sorts out its optional arguments, which costs as much as writing a short part.
 */
interface Utf8Writer extends Buffer {
  utf8Write(text: string, offset: number): number;
}

const MILLIS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * HOSTNAME of the syslog header a LEEF line came with (RFC 3164 or 5424), so Splunk's `host` is the
 * device that logged the event rather than the collector; undefined for a bare `LEEF:` line or the
 * 5424 NILVALUE. The header scanner is cheap and a bare line is recognised by its first character.
 */
export function syslogHost(event: OutboundEvent): string | undefined {
  return hostOfLine(event.line, detectSyslogHeader);
}

/** syslogHost for one shipment, reusing one header record from line to line. */
function createSyslogHostReader(): (event: OutboundEvent) => string | undefined {
  const header = newSyslogHeader();
  const detect = (line: string) => detectSyslogHeaderInto(line, header);
  return (event) => hostOfLine(event.line, detect);
}

function hostOfLine(line: string | undefined, detect: (line: string) => SyslogHeader): string | undefined {
  if (line === undefined || line.startsWith('LEEF:')) return undefined;
  const header = detect(line);
  if (header.hostnameStart < 0) return undefined;
  const host = line.slice(header.hostnameStart, header.hostnameEnd);
  return host === '-' || host === '' ? undefined : host;
}

/** `host.name` (else `host.hostname`) of an ECS document given as an object (not for JSON text events). */
export function ecsHost(event: OutboundEvent): string | undefined {
  const host = event.doc?.host;
  if (typeof host !== 'object' || host === null) return undefined;
  const { name, hostname } = host as { name?: unknown; hostname?: unknown };
  if (typeof name === 'string' && name !== '') return name;
  return typeof hostname === 'string' && hostname !== '' ? hostname : undefined;
}
