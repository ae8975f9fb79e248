import { isAscii } from 'node:buffer';
import { plainBody, readPlainEnvelope } from './hec-plain-envelope.ts';

/** One event of a HEC `/event` body after validation. */
export interface ParsedHecEvent {
  /** The envelope exactly as sent (one object of the concatenated body). */
  readonly envelopeText: string;
  readonly index: string;
  readonly host: string;
  readonly source: string;
  readonly sourcetype: string;
  /** Epoch seconds with microsecond precision, as Splunk stores `_time`; undefined means receipt time. */
  readonly time: number | undefined;
  /** The `time` value as sent, before normalisation. */
  readonly timeSent: unknown;
  readonly event: unknown;
  readonly fields: Readonly<Record<string, unknown>> | undefined;
  /** True when HEC answers 200 but the event goes nowhere (unknown index in `drop` mode). */
  readonly dropped: boolean;
}

/** Result of a `/event` body: events taken (in order) and the error that stopped processing, if any. */
export interface HecBodyOutcome {
  readonly events: ParsedHecEvent[];
  readonly error?: { readonly code: number; readonly invalidEventNumber?: number };
}

/** What the token and query string contribute to each event. */
export interface HecEventDefaults {
  readonly index: string;
  readonly host: string;
  readonly source: string;
  readonly sourcetype: string;
}

/** Options of {@link parseHecEventBody}. */
export interface HecParseOptions {
  readonly defaults: HecEventDefaults;
  /** `ok`, `incorrect` (code 7) or `drop` (200, silently discarded) for the index an event resolves to. */
  readonly checkIndex: (index: string) => 'ok' | 'incorrect' | 'drop';
  /** Per-event size cap (`maxEventSize`, default 5 MB in Splunk). */
  readonly maxEventBytes: number;
  /** Accept a top-level JSON array of envelopes (reported to work on real Splunk). */
  readonly acceptArray: boolean;
  /** Read envelopes of the usual shape by the fast path (default true; false for tests comparing both). */
  readonly fastPath?: boolean;
}

const ENVELOPE_KEYS = new Set(['time', 'host', 'source', 'sourcetype', 'index', 'event', 'fields']);
const META_KEYS = ['host', 'source', 'sourcetype', 'index'] as const;

/**
 * Validates a HEC `/event` body the way splunkd was observed to: objects are taken in order until
 * the first bad one; events before it are kept, the bad one and the rest are not. Positions are
 * 0-based, except code 7 which splunkd reports one past the offending object. An unknown envelope
 * key silently ends processing (and is "No data" when nothing was taken).
 */
export function parseHecEventBody(body: string | Buffer, options: HecParseOptions): HecBodyOutcome {
  const events: ParsedHecEvent[] = [];
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') return { events, error: { code: 5 } };
  if (options.acceptArray && text.trimStart().startsWith('[')) {
    let values: unknown[];
    try {
      const parsed: unknown = JSON.parse(text);
      values = Array.isArray(parsed) ? parsed : [];
    } catch {
      return { events, error: { code: 6, invalidEventNumber: 0 } };
    }
    for (let n = 0; n < values.length; n++) {
      const value = values[n];
      const outcome = take(events, checkEnvelope(JSON.stringify(value), value, n, options));
      if (outcome) return outcome;
    }
    return { events };
  }
  // Objects are taken one after another: everything before a bad one counts, as when the whole
  // body is split first. Envelopes of the usual shape skip the generic split and parse; they are
  // scanned as bytes, where byte and character positions agree (an ASCII body).
  const bytes = options.fastPath === false ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
  const plain = bytes !== undefined && isAscii(bytes) ? plainBody(bytes, text) : undefined;
  let i = 0;
  for (let n = 0; ; n++) {
    i = skipJsonSpace(text, i);
    if (i >= text.length) return { events };
    let segment: string;
    let value: unknown;
    const envelope = plain ? readPlainEnvelope(plain, i) : undefined;
    if (envelope) {
      segment = text.slice(i, envelope.end);
      value = envelope.value;
      i = envelope.end;
      const outcome = take(events, checkEnvelope(segment, value, n, options, true));
      if (outcome) return outcome;
      continue;
    } else {
      const end = objectEnd(text, i);
      if (end < 0) return { events, error: { code: 6, invalidEventNumber: n } };
      segment = text.slice(i, end);
      i = end;
      try {
        value = JSON.parse(segment);
      } catch {
        return { events, error: { code: 6, invalidEventNumber: n } };
      }
    }
    const outcome = take(events, checkEnvelope(segment, value, n, options));
    if (outcome) return outcome;
  }
}

/** Keeps a checked envelope; the body's outcome when it ends processing. */
function take(
  events: ParsedHecEvent[],
  checked: ReturnType<typeof checkEnvelope>,
): HecBodyOutcome | undefined {
  if (checked === 'stop') return events.length > 0 ? { events } : { events, error: { code: 5 } };
  if (checked === 'skip') return undefined;
  if ('code' in checked) return { events, error: checked };
  events.push(checked);
  return undefined;
}

/**
 * Splits concatenated JSON objects (`{…}{…}` with optional whitespace between, no commas).
 * `errorAt` is the position of the first object that is not a complete `{…}`.
 */
export function splitConcatenatedJson(text: string): { segments: string[]; errorAt?: number } {
  const segments: string[] = [];
  let i = 0;
  for (;;) {
    i = skipJsonSpace(text, i);
    if (i >= text.length) return { segments };
    const end = objectEnd(text, i);
    if (end < 0) return { segments, errorAt: segments.length };
    segments.push(text.slice(i, end));
    i = end;
  }
}

/**
 * Index just after the `{…}` starting at `start` (brackets counted outside strings), or -1 when
 * no object starts there or it does not end.
 */
function objectEnd(text: string, start: number): number {
  if (text.charCodeAt(start) !== 0x7b) return -1;
  const n = text.length;
  let depth = 0;
  let inString = false;
  for (let i = start; i < n; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function skipJsonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * HEC `time` to epoch seconds. Numbers and numeric strings are accepted; integers are read by
 * magnitude (13 digits as milliseconds and 19 as nanoseconds were observed on Splunk 10; 16 digits
 * as microseconds follows the same rule); sub-microsecond digits are cut. `null` means invalid.
 */
export function normalizeHecTime(value: unknown): number | undefined | null {
  if (value === undefined) return undefined;
  let num: number;
  if (typeof value === 'number') num = value;
  else if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) num = Number(value);
  else return null;
  if (!Number.isFinite(num)) return null;
  const abs = Math.abs(num);
  if (Number.isInteger(num)) {
    if (abs >= 1e17) num /= 1e9;
    else if (abs >= 1e14) num /= 1e6;
    else if (abs >= 1e11) num /= 1e3;
  }
  return Math.trunc(num * 1e6) / 1e6;
}

/**
 * Checks one envelope. `plain`: the value came from readPlainEnvelope, so its shape is already
 * known (an object of envelope keys only, with an `event`, string metadata and no `fields`) and
 * the checks of that shape, which it always passes, are left out; every other check still runs.
 */
function checkEnvelope(
  segment: string,
  value: unknown,
  n: number,
  options: HecParseOptions,
  plain = false,
): ParsedHecEvent | 'skip' | 'stop' | { code: number; invalidEventNumber: number } {
  const fail = (code: number) => ({ code, invalidEventNumber: n });
  const envelope = value as Record<string, unknown>;
  if (!plain) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(6);
    for (const key in envelope) if (!ENVELOPE_KEYS.has(key)) return 'stop';
    if (!('event' in envelope)) return 'fields' in envelope ? 'skip' : fail(12);
  }
  const event = envelope.event;
  if (event === null || event === false) return fail(6);
  if (typeof event === 'string' && event.trim() === '') return fail(13);
  // A UTF-16 unit is at most 3 bytes of UTF-8: most envelopes need no count.
  if (segment.length * 3 > options.maxEventBytes && Buffer.byteLength(segment) > options.maxEventBytes)
    return fail(6);
  const fields = envelope.fields;
  if (fields !== undefined && !flatFields(fields)) return fail(15);
  const time = normalizeHecTime(envelope.time);
  if (time === null) return fail(6);
  if (!plain)
    for (const key of META_KEYS) {
      if (envelope[key] !== undefined && typeof envelope[key] !== 'string') return fail(6);
    }
  const index = (envelope.index as string | undefined) ?? options.defaults.index;
  const verdict = options.checkIndex(index);
  // splunkd names the position after the offending object for code 7 (observed on 10.4).
  if (verdict === 'incorrect') return { code: 7, invalidEventNumber: n + 1 };
  return {
    envelopeText: segment,
    index,
    host: (envelope.host as string | undefined) ?? options.defaults.host,
    source: (envelope.source as string | undefined) ?? options.defaults.source,
    sourcetype: (envelope.sourcetype as string | undefined) ?? options.defaults.sourcetype,
    time,
    timeSent: envelope.time,
    event,
    fields: fields as Record<string, unknown> | undefined,
    dropped: verdict === 'drop',
  };
}

/** Indexed fields must be one flat object of scalars or arrays of scalars. */
function flatFields(fields: unknown): boolean {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return false;
  const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
  return Object.values(fields).every((v) => scalar(v) || (Array.isArray(v) && v.every(scalar)));
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}
