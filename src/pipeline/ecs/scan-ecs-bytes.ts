import type { EcsTimeField } from './ecs-fields.ts';
import { MAX_JSON_DEPTH, type TimeSpan } from './scan-ecs-json.ts';

/**
 * scanEcsJson for an ASCII line still in its inflated bytes, for the first pass of a rebase: the
 * same grammar and the same time spans, read from a Uint8Array, which V8 indexes more cheaply than
 * a string (300,000 documents: 0.45-0.5 s against 1.1-1.3 s for building their strings and
 * scanning those; docs/performance.md). It only ever says yes for certain: anything it does not
 * handle — a byte above 0x7f, a key spelled with escapes, nesting deeper than MAX_JSON_DEPTH — or
 * any error answers null, and the caller scans the line's text with scanEcsJson, which accepts or
 * words the error. One scanner per pass: it keeps its container stack between documents.
 */
export class EcsByteScanner {
  // One entry per open container: 0 array, otherwise an object's key context (CTX_*).
  readonly #stack = new Uint8Array(MAX_JSON_DEPTH);

  /**
   * The time spans of `buf[start, end)` (offsets from `start`, as scanEcsJson gives them for the
   * line's text), or null when the line is not certainly one valid JSON object (see above).
   */
  scan(buf: Uint8Array, start: number, end: number): TimeSpan[] | null {
    const stack = this.#stack;
    const spans: TimeSpan[] = [];
    let depth = 0;
    let i = skipWs(buf, start, end);
    if (i >= end || buf[i] !== 0x7b) return null;
    stack[depth++] = CTX_TOP;
    i++;
    let state = ST_FIRST_KEY;
    let role: Role;
    for (;;) {
      i = skipWs(buf, i, end);
      if (i >= end) return null;
      const c = buf[i]!;
      if (state === ST_VALUE) {
        const at = i;
        if (c === 0x22) {
          i = stringEnd(buf, i, end);
          if (i < 0) return null;
        } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          i = numberEnd(buf, i, end);
          if (i < 0) return null;
        } else if (c === 0x7b || c === 0x5b) {
          if (depth >= MAX_JSON_DEPTH) return null;
          i++;
          if (c === 0x7b) {
            stack[depth++] = role === 'event' ? CTX_EVENT : CTX_NONE;
            state = ST_FIRST_KEY;
          } else {
            stack[depth++] = 0;
            state = ST_FIRST_VALUE;
          }
          role = undefined;
          continue;
        } else {
          const literal = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : undefined;
          if (literal === undefined || !hasAt(buf, i, end, literal)) return null;
          i += literal.length;
          role = undefined;
          state = ST_AFTER;
          continue;
        }
        if (role !== undefined && role !== 'event')
          spans.push({ field: role, start: at - start, end: i - start });
        role = undefined;
        state = ST_AFTER;
      } else if (state === ST_AFTER) {
        const top = stack[depth - 1]!;
        if (c === 0x2c) {
          i++;
          state = top === 0 ? ST_VALUE : ST_KEY;
        } else if (c === (top === 0 ? 0x5d : 0x7d)) {
          i++;
          if (--depth === 0) break;
        } else return null;
      } else if (state === ST_FIRST_VALUE) {
        if (c === 0x5d) {
          i++;
          depth--;
          state = ST_AFTER;
        } else state = ST_VALUE;
      } else {
        // ST_KEY or ST_FIRST_KEY
        if (c === 0x7d && state === ST_FIRST_KEY) {
          i++;
          if (--depth === 0) break;
          state = ST_AFTER;
          continue;
        }
        if (c !== 0x22) return null;
        const keyEnd = stringEnd(buf, i, end);
        if (keyEnd < 0) return null;
        const ctx = stack[depth - 1]!;
        if (ctx !== CTX_NONE) {
          role = keyRole(buf, i, keyEnd, ctx);
          if (role === ESCAPED) return null;
        } else role = undefined;
        i = skipWs(buf, keyEnd, end);
        if (i >= end || buf[i] !== 0x3a) return null;
        i++;
        state = ST_VALUE;
      }
    }
    return skipWs(buf, i, end) === end ? spans : null;
  }
}

type Role = EcsTimeField | 'event' | undefined;

const CTX_NONE = 1;
const CTX_TOP = 2;
const CTX_EVENT = 3;
const ST_VALUE = 0;
const ST_AFTER = 1;
const ST_KEY = 2;
const ST_FIRST_KEY = 3;
const ST_FIRST_VALUE = 4;
/** keyRole's answer for a key spelled with escapes: left to the text scanner. */
const ESCAPED = 'escaped' as unknown as Role;

const TRUE = bytesOf('true');
const FALSE = bytesOf('false');
const NULL = bytesOf('null');

const TOP_KEYS: ReadonlyArray<readonly [Uint8Array, EcsTimeField | 'event']> = [
  [bytesOf('@timestamp'), '@timestamp'],
  [bytesOf('event'), 'event'],
  [bytesOf('event.created'), 'event.created'],
  [bytesOf('event.start'), 'event.start'],
  [bytesOf('event.end'), 'event.end'],
  [bytesOf('event.ingested'), 'event.ingested'],
];
const EVENT_KEYS: ReadonlyArray<readonly [Uint8Array, EcsTimeField]> = [
  [bytesOf('created'), 'event.created'],
  [bytesOf('start'), 'event.start'],
  [bytesOf('end'), 'event.end'],
  [bytesOf('ingested'), 'event.ingested'],
];

function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (ch) => ch.charCodeAt(0));
}

function skipWs(buf: Uint8Array, from: number, end: number): number {
  let i = from;
  while (i < end) {
    const c = buf[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
    i++;
  }
  return i;
}

function hasAt(buf: Uint8Array, at: number, end: number, word: Uint8Array): boolean {
  if (at + word.length > end) return false;
  for (let k = 0; k < word.length; k++) if (buf[at + k] !== word[k]) return false;
  return true;
}

/**
 * Index after the JSON string starting at `at` (its quote), or -1 for anything the text scanner
 * must judge: the end of the line first, a control character, a bad escape, a byte above 0x7f.
 */
function stringEnd(buf: Uint8Array, at: number, end: number): number {
  let i = at + 1;
  while (i < end) {
    const c = buf[i]!;
    // Letters and most text sort between the backslash and DEL: one comparison for the usual byte.
    if (c > 0x5c && c < 0x7f) {
      i++;
      continue;
    }
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = buf[i + 1];
      if (e === 0x75) {
        if (i + 6 > end) return -1;
        for (let k = i + 2; k < i + 6; k++) {
          const h = buf[k]!;
          if (!((h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66))) return -1;
        }
        i += 6;
      } else if (
        e === 0x22 ||
        e === 0x5c ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      ) {
        i += 2;
      } else return -1;
    } else if (c < 0x20 || c > 0x7e) {
      // DEL (0x7f) is allowed in JSON strings; bytes above it are UTF-8 the text scanner decodes.
      if (c !== 0x7f) return -1;
      i++;
    } else i++;
  }
  return -1;
}

/** Index after the JSON number starting at `at`, or -1 when it breaks the grammar. */
function numberEnd(buf: Uint8Array, at: number, end: number): number {
  let i = at;
  if (buf[i] === 0x2d) i++;
  let c = i < end ? buf[i]! : -1;
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) {
    do c = ++i < end ? buf[i]! : -1;
    while (c >= 0x30 && c <= 0x39);
  } else return -1;
  if (i < end && buf[i] === 0x2e) {
    c = ++i < end ? buf[i]! : -1;
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = ++i < end ? buf[i]! : -1;
    while (c >= 0x30 && c <= 0x39);
  }
  c = i < end ? buf[i]! : -1;
  if (c === 0x65 || c === 0x45) {
    c = ++i < end ? buf[i]! : -1;
    if (c === 0x2b || c === 0x2d) c = ++i < end ? buf[i]! : -1;
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = ++i < end ? buf[i]! : -1;
    while (c >= 0x30 && c <= 0x39);
  }
  return i;
}

/** The time field (or `event` object) a key names in context `ctx`; `start`/`end` span its quotes. */
function keyRole(buf: Uint8Array, start: number, end: number, ctx: number): Role {
  const first = buf[start + 1]!;
  // Most keys are not time fields: the first byte rules them out before any comparison.
  if (
    ctx === CTX_TOP
      ? first !== 0x40 && first !== 0x65 && first !== 0x5c
      : first !== 0x63 && first !== 0x73 && first !== 0x65 && first !== 0x69 && first !== 0x5c
  ) {
    return undefined;
  }
  for (let k = start + 1; k < end - 1; k++) if (buf[k] === 0x5c) return ESCAPED;
  const keys = ctx === CTX_TOP ? TOP_KEYS : EVENT_KEYS;
  const length = end - start - 2;
  for (let k = 0; k < keys.length; k++) {
    const [name, role] = keys[k]!;
    if (name.length === length && hasAt(buf, start + 1, end - 1, name)) return role;
  }
  return undefined;
}
