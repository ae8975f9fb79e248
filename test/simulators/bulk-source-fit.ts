import { type BulkIndex, type FieldKind, valueProblem } from './bulk-index-store.ts';
import { childPathOfBytes, mappedKind, type PathNode, pathRoot } from './bulk-mapping-paths.ts';

/** Deepest nesting the scan follows; deeper documents are left to JSON.parse. */
const MAX_DEPTH = 256;

const ST_FIRST_KEY = 0;
const ST_KEY = 1;
const ST_VALUE = 2;
const ST_AFTER = 3;
const ST_FIRST_VALUE = 4;

/**
 * True when the source line `bytes[from, to)` is certain to be written as it is: it is exactly one
 * JSON object (what JSON.parse accepts, checked on the bytes without building anything) and, when
 * `index` is given, every field it holds is already mapped with a kind its value fits — the
 * dynamic-mapping check would pass and add nothing. False means only "not certain": the caller
 * then parses the document and runs the full checks, which give the exact error or the new
 * fields. Every value of a repeated key is checked, so whichever one JSON.parse keeps fits too.
 */
export function sourceFits(
  bytes: Uint8Array,
  from: number,
  to: number,
  index: BulkIndex | undefined,
): boolean {
  let i = skipSpace(bytes, from, to);
  if (bytes[i] !== 0x7b || i >= to) return false;
  const root = index ? pathRoot(index) : undefined;
  if (index && root) {
    const kind = mappedKind(index, root);
    if (kind !== undefined && kind !== 'object') return false;
  }
  // Open containers: whether each is an array, and the path its members (or elements) fall under.
  const arrays: boolean[] = [false];
  const nodes: Array<PathNode | undefined> = [root];
  let target: PathNode | undefined;
  let state = ST_FIRST_KEY;
  i++;
  for (;;) {
    i = skipSpace(bytes, i, to);
    if (i >= to) return false;
    const c = bytes[i]!;
    if (state === ST_VALUE) {
      const kind = index && target ? mappedKind(index, target) : undefined;
      if (c === 0x22) {
        const end = stringEnd(bytes, i, to);
        if (end < 0) return false;
        if (index && !stringFits(kind, bytes, i, end)) return false;
        i = end;
        state = ST_AFTER;
      } else if (c === 0x7b || c === 0x5b) {
        if (arrays.length >= MAX_DEPTH) return false;
        if (c === 0x7b) {
          // An object where the mapping has no path yet, or a concrete one, is the slow path's business.
          if (index && kind !== 'object') return false;
          state = ST_FIRST_KEY;
        } else state = ST_FIRST_VALUE;
        arrays.push(c === 0x5b);
        nodes.push(target);
        i++;
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        i = numberEnd(bytes, i, to);
        if (i < 0 || (index && !fits(kind, 0))) return false;
        state = ST_AFTER;
      } else if (c === 0x74 && word(bytes, i, to, TRUE)) {
        if (index && !fits(kind, true)) return false;
        i += 4;
        state = ST_AFTER;
      } else if (c === 0x66 && word(bytes, i, to, FALSE)) {
        if (index && !fits(kind, false)) return false;
        i += 5;
        state = ST_AFTER;
      } else if (c === 0x6e && word(bytes, i, to, NULL)) {
        i += 4;
        state = ST_AFTER;
      } else return false;
    } else if (state === ST_AFTER) {
      const array = arrays[arrays.length - 1]!;
      if (c === 0x2c) {
        i++;
        state = array ? ST_VALUE : ST_KEY;
        if (array) target = nodes[nodes.length - 1];
      } else if (c === (array ? 0x5d : 0x7d)) {
        i++;
        arrays.pop();
        nodes.pop();
        if (arrays.length === 0) return skipSpace(bytes, i, to) === to;
      } else return false;
    } else if (state === ST_FIRST_VALUE) {
      if (c === 0x5d) {
        i++;
        arrays.pop();
        nodes.pop();
        state = ST_AFTER;
      } else {
        target = nodes[nodes.length - 1];
        state = ST_VALUE;
      }
    } else {
      // ST_KEY or ST_FIRST_KEY
      if (c === 0x7d && state === ST_FIRST_KEY) {
        i++;
        arrays.pop();
        nodes.pop();
        if (arrays.length === 0) return skipSpace(bytes, i, to) === to;
        state = ST_AFTER;
        continue;
      }
      if (c !== 0x22) return false;
      const end = stringEnd(bytes, i, to);
      if (end < 0) return false;
      const parent = nodes[nodes.length - 1];
      if (index && parent) {
        target = childPathOfBytes(parent, bytes, i + 1, end - 1);
        if (target === undefined) return false;
      }
      i = skipSpace(bytes, end, to);
      if (bytes[i] !== 0x3a || i >= to) return false;
      i++;
      state = ST_VALUE;
    }
  }
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/** Set by stringEnd: the string just scanned holds an escape. */
let escaped = false;

function fits(kind: FieldKind | undefined, value: unknown): boolean {
  return kind !== undefined && kind !== 'object' && valueProblem(kind, value) === undefined;
}

/** A string value at a path mapped as `kind`: text takes anything, other kinds look at the value. */
function stringFits(kind: FieldKind | undefined, bytes: Uint8Array, open: number, end: number): boolean {
  if (kind === undefined || kind === 'object') return false;
  if (kind === 'text') return true;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset + open, end - open);
  const value = escaped
    ? (JSON.parse(view.toString('utf8')) as string)
    : view.toString('utf8', 1, view.length - 1);
  return valueProblem(kind, value) === undefined;
}

function skipSpace(bytes: Uint8Array, from: number, to: number): number {
  let i = from;
  while (i < to) {
    const c = bytes[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** Index after the JSON string opening at `at`, or -1 when it is not one; sets `escaped`. */
function stringEnd(bytes: Uint8Array, at: number, to: number): number {
  escaped = false;
  let i = at + 1;
  while (i < to) {
    const c = bytes[i]!;
    // Letters, digits and UTF-8 sort above the backslash: one comparison for the common byte.
    if (c > 0x5c || (c >= 0x20 && c !== 0x22 && c !== 0x5c)) {
      i++;
      continue;
    }
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1;
    escaped = true;
    const e = bytes[i + 1];
    if (e === 0x75) {
      for (let k = i + 2; k < i + 6; k++) {
        const h = bytes[k];
        if (
          k >= to ||
          h === undefined ||
          !((h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66))
        )
          return -1;
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
  }
  return -1;
}

/** Index after the JSON number starting at `at`, or -1 when it breaks the grammar. */
function numberEnd(bytes: Uint8Array, at: number, to: number): number {
  let i = at;
  if (bytes[i] === 0x2d) i++;
  let c = i < to ? bytes[i]! : -1;
  if (c === 0x30) c = ++i < to ? bytes[i]! : -1;
  else if (c >= 0x31 && c <= 0x39) {
    do c = ++i < to ? bytes[i]! : -1;
    while (c >= 0x30 && c <= 0x39);
  } else return -1;
  if (c === 0x2e) {
    c = ++i < to ? bytes[i]! : -1;
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = ++i < to ? bytes[i]! : -1;
    while (c >= 0x30 && c <= 0x39);
  }
  if (c === 0x65 || c === 0x45) {
    c = ++i < to ? bytes[i]! : -1;
    if (c === 0x2b || c === 0x2d) c = ++i < to ? bytes[i]! : -1;
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do c = ++i < to ? bytes[i]! : -1;
    while (c >= 0x30 && c <= 0x39);
  }
  return i;
}

function word(bytes: Uint8Array, at: number, to: number, expected: readonly number[]): boolean {
  if (at + expected.length > to) return false;
  for (let k = 0; k < expected.length; k++) if (bytes[at + k] !== expected[k]) return false;
  return true;
}
