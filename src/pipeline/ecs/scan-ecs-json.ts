import type { EcsTimeField } from './ecs-fields.ts';

/** Where a time field's value token (a JSON string with its quotes, or a number) sits in the text. */
export interface TimeSpan {
  readonly field: EcsTimeField;
  readonly start: number;
  readonly end: number;
}

/** Result of scanning one document: its time fields, or why it is not a JSON object. */
export type EcsScan =
  | { readonly ok: true; readonly spans: TimeSpan[] }
  | { readonly ok: false; readonly error: string };

/** Deepest nesting accepted; far beyond real documents, and keeps every consumer's stack safe. */
export const MAX_JSON_DEPTH = 512;

/**
 * Validates `text` as exactly one JSON object, accepting what JSON.parse accepts, and locates the
 * time fields (`@timestamp`; `event.created|start|end|ingested` nested under `event` or dotted at
 * the top level). A document can then be rebased by rewriting a few characters: no parse and no
 * re-serialization, so numbers, key order and escapes reach the SIEM exactly as they were.
 * One function with local state, because this runs once per event.
 */
export function scanEcsJson(text: string): EcsScan {
  const n = text.length;
  const spans: TimeSpan[] = [];
  // One entry per open container: 0 array, otherwise an object's key context (CTX_*).
  const stack: number[] = [];
  let i = skipWs(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return failure('expected a JSON object', i);
  stack.push(CTX_TOP);
  i++;
  let state = ST_FIRST_KEY;
  let role: Role;
  // Without control characters (an NDJSON line nearly always), a string ends at the next quote
  // unless a backslash comes first: native searches find both, instead of a loop over every
  // character (pass 1 spent most of its time there). `backslash`: the next one at or after the
  // string being read (-1: none left), or SLOW_STRINGS for the character loop.
  let backslash = CONTROL.test(text) ? SLOW_STRINGS : text.indexOf('\\');
  for (;;) {
    let c = text.charCodeAt(i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
    if (state === ST_VALUE) {
      const start = i;
      if (c === 0x22) {
        if (backslash >= 0 && backslash <= i) backslash = text.indexOf('\\', i + 1);
        const end =
          backslash === SLOW_STRINGS ? stringEnd(text, i, n) : quickStringEnd(text, i, n, backslash);
        if (end < 0) return failure(STRING_ERRORS[-end - 1]!, i);
        i = end;
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        i = numberEnd(text, i);
        if (i < 0) return failure('bad number', start);
      } else if (c === 0x7b || c === 0x5b) {
        if (stack.length >= MAX_JSON_DEPTH) return failure(`nested deeper than ${MAX_JSON_DEPTH} levels`, i);
        i++;
        if (c === 0x7b) {
          stack.push(role === 'event' ? CTX_EVENT : CTX_NONE);
          state = ST_FIRST_KEY;
        } else {
          stack.push(0);
          state = ST_FIRST_VALUE;
        }
        role = undefined;
        continue;
      } else if (c === 0x74 && text.startsWith('true', i)) i += 4;
      else if (c === 0x66 && text.startsWith('false', i)) i += 5;
      else if (c === 0x6e && text.startsWith('null', i)) i += 4;
      else return failure('expected a value', i);
      if (role !== undefined && role !== 'event' && c !== 0x74 && c !== 0x66 && c !== 0x6e) {
        spans.push({ field: role, start, end: i });
      }
      role = undefined;
      state = ST_AFTER;
    } else if (state === ST_AFTER) {
      const top = stack[stack.length - 1]!;
      if (c === 0x2c) {
        i++;
        state = top === 0 ? ST_VALUE : ST_KEY;
      } else if (c === (top === 0 ? 0x5d : 0x7d)) {
        i++;
        stack.pop();
        if (stack.length === 0) break;
      } else {
        return failure(top === 0 ? 'expected "," or "]"' : 'expected "," or "}"', i);
      }
    } else if (state === ST_FIRST_VALUE) {
      if (c === 0x5d) {
        i++;
        stack.pop();
        state = ST_AFTER;
      } else {
        state = ST_VALUE;
      }
    } else {
      // ST_KEY or ST_FIRST_KEY
      if (c === 0x7d && state === ST_FIRST_KEY) {
        i++;
        stack.pop();
        if (stack.length === 0) break;
        state = ST_AFTER;
        continue;
      }
      if (c !== 0x22) return failure('expected a property name', i);
      if (backslash >= 0 && backslash <= i) backslash = text.indexOf('\\', i + 1);
      const end = backslash === SLOW_STRINGS ? stringEnd(text, i, n) : quickStringEnd(text, i, n, backslash);
      if (end < 0) return failure(STRING_ERRORS[-end - 1]!, i);
      const ctx = stack[stack.length - 1]!;
      role = ctx === CTX_NONE ? undefined : keyRole(text, i, end, ctx);
      i = skipWs(text, end);
      if (text.charCodeAt(i) !== 0x3a) return failure('expected ":"', i);
      i++;
      state = ST_VALUE;
    }
  }
  i = skipWs(text, i);
  if (i < n) return failure('unexpected text after the object', i);
  return { ok: true, spans };
}

/**
 * Locates the time fields of a document already validated by scanEcsJson (the second pass of a
 * rebase reads the same bytes again). Strings are skipped with native `indexOf`, so this is several
 * times cheaper than validating. On text that is not valid JSON it never throws or loops; it just
 * returns whatever it found.
 */
export function locateEcsTimes(text: string): TimeSpan[] {
  const n = text.length;
  const spans: TimeSpan[] = [];
  const stack: number[] = [];
  let role: Role;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let end = text.indexOf('"', i + 1);
      while (end > 0 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) return spans;
      end++;
      const ctx = stack.length === 0 ? CTX_NONE : stack[stack.length - 1]!;
      if (role !== undefined) {
        if (role !== 'event') spans.push({ field: role, start, end });
        role = undefined;
        i = end;
      } else {
        i = skipWs(text, end);
        // A string followed by ":" is a key.
        if (text.charCodeAt(i) === 0x3a && ctx !== CTX_NONE) role = keyRole(text, start, end, ctx);
      }
      continue;
    }
    if (c === 0x7b) {
      stack.push(role === 'event' ? CTX_EVENT : stack.length === 0 ? CTX_TOP : CTX_NONE);
      role = undefined;
    } else if (c === 0x5b) {
      stack.push(0);
      role = undefined;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const end = numberEnd(text, i);
      if (end < 0) return spans;
      if (role !== undefined && role !== 'event') spans.push({ field: role, start: i, end });
      role = undefined;
      i = end;
      continue;
    } else if (c !== 0x3a && c !== 0x2c && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      role = undefined;
    }
    i++;
  }
  return spans;
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

const TOP_KEYS: ReadonlyArray<readonly [string, EcsTimeField | 'event']> = [
  ['@timestamp', '@timestamp'],
  ['event', 'event'],
  ['event.created', 'event.created'],
  ['event.start', 'event.start'],
  ['event.end', 'event.end'],
  ['event.ingested', 'event.ingested'],
];
const EVENT_KEYS: ReadonlyArray<readonly [string, EcsTimeField]> = [
  ['created', 'event.created'],
  ['start', 'event.start'],
  ['end', 'event.end'],
  ['ingested', 'event.ingested'],
];

const STRING_ERRORS = ['unterminated string', 'control character in string', 'bad escape in string'];

function failure(why: string, at: number): EcsScan {
  return { ok: false, error: `${why} at character ${at + 1}` };
}

function skipWs(text: string, from: number): number {
  let i = from;
  let c = text.charCodeAt(i);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  return i;
}

const SLOW_STRINGS = -2;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROL = /[\u0000-\u001f]/;

/**
 * stringEnd for a text without control characters, `backslash` the next one after `at` or -1:
 * the next quote ends the string when no backslash comes before it.
 */
function quickStringEnd(text: string, at: number, n: number, backslash: number): number {
  const quote = text.indexOf('"', at + 1);
  if (quote >= 0 && (backslash < 0 || backslash > quote)) return quote + 1;
  return stringEnd(text, at, n);
}

/** Index after the string starting at `at`, or -1 unterminated, -2 control character, -3 bad escape. */
function stringEnd(text: string, at: number, n: number): number {
  let i = at + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    // Letters and most text sort above the backslash: one comparison for the common character.
    if (c > 0x5c) {
      i++;
      continue;
    }
    if (i >= n) return -1;
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = text.charCodeAt(i + 1);
      if (e === 0x75) {
        for (let k = i + 2; k < i + 6; k++) {
          const h = text.charCodeAt(k);
          if (!((h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66))) return -3;
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
      } else {
        return -3;
      }
    } else if (c < 0x20) {
      return -2;
    } else {
      i++;
    }
  }
}

/** Index after the JSON number starting at `at`, or -1 when it breaks the grammar. */
function numberEnd(text: string, at: number): number {
  let i = at;
  if (text.charCodeAt(i) === 0x2d) i++;
  let c = text.charCodeAt(i);
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) {
    do c = text.charCodeAt(++i);
    while (c >= 0x30 && c <= 0x39);
  } else return -1;
  if (text.charCodeAt(i) === 0x2e) {
    c = text.charCodeAt(++i);
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = text.charCodeAt(++i);
    while (c >= 0x30 && c <= 0x39);
  }
  c = text.charCodeAt(i);
  if (c === 0x65 || c === 0x45) {
    c = text.charCodeAt(++i);
    if (c === 0x2b || c === 0x2d) c = text.charCodeAt(++i);
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = text.charCodeAt(++i);
    while (c >= 0x30 && c <= 0x39);
  }
  return i;
}

/** True when the quote at `at` is preceded by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let k = at - 1;
  while (text.charCodeAt(k) === 0x5c) k--;
  return (at - 1 - k) % 2 === 1;
}

/** The time field (or `event` object) a key names in context `ctx`; `start`/`end` span its quotes. */
function keyRole(text: string, start: number, end: number, ctx: number): Role {
  const keys = ctx === CTX_TOP ? TOP_KEYS : EVENT_KEYS;
  const first = text.charCodeAt(start + 1);
  if (first !== 0x5c) {
    // Most keys are not time fields: the first character rules them out before any comparison.
    if (
      ctx === CTX_TOP
        ? first !== 0x40 && first !== 0x65
        : first !== 0x63 && first !== 0x73 && first !== 0x65 && first !== 0x69
    ) {
      return undefined;
    }
    const length = end - start - 2;
    for (let k = 0; k < keys.length; k++) {
      const [name, role] = keys[k]!;
      if (name.length === length && text.startsWith(name, start + 1)) return role;
    }
  }
  // A key spelled with escapes (rare): decode it before comparing.
  for (let k = start + 1; k < end - 1; k++) {
    if (text.charCodeAt(k) === 0x5c) {
      const key = JSON.parse(text.slice(start, end)) as string;
      for (const [name, role] of keys) if (name === key) return role;
      return undefined;
    }
  }
  return undefined;
}
