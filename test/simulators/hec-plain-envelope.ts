import { quoteFreeCheck } from './plain-json-bytes.ts';

/** An envelope read by {@link readPlainEnvelope}: the value JSON.parse would give, and where it ends. */
export interface PlainEnvelope {
  readonly value: Record<string, unknown>;
  /** Index just after the envelope's closing brace. */
  readonly end: number;
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const OPEN = ascii('{"time":');
const EVENT = ascii(',"event":"');
// Optional keys between `time` and `event`, in the only order the fast path takes them.
const HOST = ascii(',"host":"');
const SOURCE = ascii(',"source":"');
const SOURCETYPE = ascii(',"sourcetype":"');
const INDEX = ascii(',"index":"');
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** An ASCII body as the fast path reads it: its bytes, its text, and a span check for its strings. */
export interface PlainBody {
  readonly bytes: Uint8Array;
  readonly text: string;
  readonly quoteFree: (from: number, to: number) => boolean;
}

/** The PlainBody of `bytes` (ASCII) and `text` (their decoding). */
export function plainBody(bytes: Uint8Array, text: string): PlainBody {
  return { bytes, text, quoteFree: quoteFreeCheck(bytes) };
}

/**
 * Reads the envelope at `at` when it has the shape senders like Socdrill write, without a generic
 * JSON.parse: `{"time":<number>[,"host":"…"][,"source":"…"][,"sourcetype":"…"][,"index":"…"],"event":"…"}`
 * with no whitespace inside, a plain decimal `time` and metadata strings without escapes. The
 * body is scanned as bytes (ASCII, so byte and character positions agree; see plainBody);
 * strings are slices of `text`, and the event string is decoded by JSON.parse only when it holds
 * escapes. Anything else — other keys, orders, spacing or value types, a malformed token — answers
 * undefined and the caller reads the envelope the generic way. The value given is always the one
 * JSON.parse gives for the same text (a property test checks this).
 */
export function readPlainEnvelope(body: PlainBody, at: number): PlainEnvelope | undefined {
  const { bytes, text } = body;
  if (!matchAt(bytes, at, OPEN)) return undefined;
  const timeStart = at + OPEN.length;
  const timeEnd = decimalEnd(bytes, timeStart);
  if (timeEnd < 0) return undefined;
  const value: Record<string, unknown> = { time: decimalValue(bytes, text, timeStart, timeEnd) };
  let i = timeEnd;
  // Each optional key in its place; named stores keep the objects of one shape.
  let close: number;
  if (matchAt(bytes, i, HOST)) {
    close = metaEnd(bytes, i + HOST.length);
    if (close < 0) return undefined;
    value.host = text.slice(i + HOST.length, close);
    i = close + 1;
  }
  if (matchAt(bytes, i, SOURCE)) {
    close = metaEnd(bytes, i + SOURCE.length);
    if (close < 0) return undefined;
    value.source = text.slice(i + SOURCE.length, close);
    i = close + 1;
  }
  if (matchAt(bytes, i, SOURCETYPE)) {
    close = metaEnd(bytes, i + SOURCETYPE.length);
    if (close < 0) return undefined;
    value.sourcetype = text.slice(i + SOURCETYPE.length, close);
    i = close + 1;
  }
  if (matchAt(bytes, i, INDEX)) {
    close = metaEnd(bytes, i + INDEX.length);
    if (close < 0) return undefined;
    value.index = text.slice(i + INDEX.length, close);
    i = close + 1;
  }
  if (!matchAt(bytes, i, EVENT)) return undefined;
  const open = i + EVENT.length - 1;
  close = stringEnd(bytes, open);
  if (close < 0 || bytes[close + 1] !== 0x7d) return undefined;
  // No quote inside: the string ends at the first one.
  if (body.quoteFree(open + 1, close)) value.event = text.slice(open + 1, close);
  else {
    try {
      value.event = JSON.parse(text.slice(open, close + 1)) as string;
    } catch {
      return undefined;
    }
  }
  return { value, end: close + 2 };
}

/** True when `pattern` stands in `bytes` at `at`. */
function matchAt(bytes: Uint8Array, at: number, pattern: Uint8Array): boolean {
  if (at + pattern.length > bytes.length) return false;
  for (let k = 0; k < pattern.length; k++) if (bytes[at + k] !== pattern[k]) return false;
  return true;
}

/** End of a JSON number `-?(0|[1-9]\d*)(\.\d+)?` at `at`, or -1 (exponents are left to JSON.parse). */
function decimalEnd(bytes: Uint8Array, at: number): number {
  let i = at;
  if (bytes[i] === 0x2d) i++;
  let c = bytes[i]!;
  if (c === 0x30) c = bytes[++i]!;
  else if (c >= 0x31 && c <= 0x39) {
    do c = bytes[++i]!;
    while (c >= 0x30 && c <= 0x39);
  } else return -1;
  if (c === 0x2e) {
    c = bytes[++i]!;
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = bytes[++i]!;
    while (c >= 0x30 && c <= 0x39);
  }
  return c === 0x65 || c === 0x45 ? -1 : i;
}

/**
 * The number of a decimal token. Its digits as an integer N over 10^k is exact while N is below
 * 2^53, and one IEEE division then rounds it exactly as JSON.parse rounds the decimal text.
 */
function decimalValue(bytes: Uint8Array, text: string, from: number, to: number): number {
  const negative = bytes[from] === 0x2d;
  let n = 0;
  let fraction = -1;
  for (let i = negative ? from + 1 : from; i < to; i++) {
    const c = bytes[i]!;
    if (c === 0x2e) fraction = 0;
    else {
      n = n * 10 + (c - 0x30);
      if (fraction >= 0) fraction++;
    }
  }
  if (n > Number.MAX_SAFE_INTEGER || fraction > 22) return Number(text.slice(from, to));
  const magnitude = fraction > 0 ? n / POW10[fraction]! : n;
  return negative ? -magnitude : magnitude;
}

/** The quote closing a metadata string whose text starts at `from`, or -1 when it holds an escape or a control character. */
function metaEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x22) return i;
    if (c < 0x20 || c === 0x5c) return -1;
  }
  return -1;
}

/** Index of the quote closing the string that opens at `open` (its content not validated), or -1. */
function stringEnd(bytes: Uint8Array, open: number): number {
  let close = bytes.indexOf(0x22, open + 1);
  while (close > 0 && escaped(bytes, close)) close = bytes.indexOf(0x22, close + 1);
  return close;
}

/** True when the quote at `at` is preceded by an odd number of backslashes. */
function escaped(bytes: Uint8Array, at: number): boolean {
  let k = at - 1;
  while (bytes[k] === 0x5c) k--;
  return (at - 1 - k) % 2 === 1;
}
