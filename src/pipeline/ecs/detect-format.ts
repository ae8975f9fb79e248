import { AppError } from '../../errors.ts';
import type { ArchiveEntry } from '../archive/archive-entry.ts';
import { quoteName } from '../archive/entry-path.ts';
import { isPlainObject } from './ecs-fields.ts';
import { JsonDocumentSplitter } from './split-json-documents.ts';

/** Content format of an entry (spec 2.5). */
export type DetectedFormat = 'leef' | 'ecs' | 'unknown';

/** Field sets that make a document ECS-like besides `@timestamp` (spec 2.5). */
export const ECS_LIKE_GROUPS = ['event', 'host', 'source', 'destination', 'log', 'process', 'user'] as const;

/**
 * True for a LEEF line: `LEEF:1.0|` or `LEEF:2.0|` followed by vendor, product, version and event
 * id, at the start of the line or after a syslog header (separated by a space, protocols §1.1).
 */
export function looksLikeLeef(line: string): boolean {
  const at = line.indexOf('LEEF:');
  if (at < 0 || at > MAX_HEADER_PREFIX || (at > 0 && line.charCodeAt(at - 1) !== 0x20)) return false;
  return LEEF_HEADER.test(line.slice(at, at + 2048));
}

/**
 * True for an ECS document (spec 2.5): a JSON object with `@timestamp` plus at least one field of
 * event, host, source, destination, log, process or user (nested or dotted), or a non-empty `message`.
 */
export function isEcsLike(doc: unknown): boolean {
  if (!isPlainObject(doc)) return false;
  const timestamp = doc['@timestamp'];
  if (!(typeof timestamp === 'number' || (typeof timestamp === 'string' && timestamp !== ''))) return false;
  if (typeof doc.message === 'string' && doc.message.trim() !== '') return true;
  for (const key of Object.keys(doc)) {
    const dot = key.indexOf('.');
    const group = dot === -1 ? key : key.slice(0, dot);
    if (!(ECS_LIKE_GROUPS as readonly string[]).includes(group)) continue;
    if (dot !== -1 && dot < key.length - 1) return true;
    const value = doc[key];
    if (isPlainObject(value) && Object.keys(value).length > 0) return true;
  }
  return false;
}

/**
 * Detects the format of an entry from its start: its first JSON document for ECS (read within the
 * entry's document size cap); LEEF when its first non-empty line is LEEF, or, for text that is not
 * JSON, one of its first LEEF_LOOK_LINES non-empty lines is (a banner or plain syslog lines before
 * the LEEF ones: LEEF destinations take every non-empty line, decisions.md §5). What it reads stays
 * available to the reader that follows (ArchiveEntry.head).
 */
export async function detectEntryFormat(entry: ArchiveEntry): Promise<DetectedFormat> {
  let want = FIRST_LOOK;
  for (;;) {
    const head = await entry.head(want);
    const complete = head.length < want;
    const text = new TextDecoder('utf-8').decode(head);
    const first = firstLine(text, complete);
    if (first === undefined) return 'unknown';
    const lead = first.trimStart().charCodeAt(0);
    // A JSON document is judged as JSON first: an ECS document's event.original may hold a LEEF
    // line behind a syslog header, which looksLikeLeef would take for the line itself.
    if (lead !== 0x7b && lead !== 0x5b && looksLikeLeef(first)) return 'leef';
    let leefLook = lead !== 0x7b && lead !== 0x5b;
    if (!leefLook) {
      const doc = firstDocument(text, entry.path, entry.maxLineLength);
      if (doc !== undefined && doc !== null) return isEcsLike(doc) ? 'ecs' : 'unknown';
      // Not JSON after all (`[exported …]`): text, whose LEEF lines may follow.
      leefLook = doc === null;
    }
    if (leefLook) {
      const found = leefAmongFirstLines(text, complete);
      if (found !== 'more') return found ? 'leef' : 'unknown';
      // Fewer than LEEF_LOOK_LINES lines in what was read: read more, up to LEEF_LOOK_BYTES.
      if (want >= LEEF_LOOK_BYTES) return 'unknown';
      want = Math.min(want * 8, LEEF_LOOK_BYTES);
      continue;
    }
    if (complete || want >= entry.maxLineLength) return 'unknown';
    want = Math.min(want * 8, entry.maxLineLength + 1);
  }
}

/** The format of an entry, failing closed: `archive_invalid` naming an entry that is neither (spec 2.5). */
export async function requireEntryFormat(entry: ArchiveEntry): Promise<'leef' | 'ecs'> {
  const format = await detectEntryFormat(entry);
  if (format === 'unknown') {
    throw new AppError(
      'archive_invalid',
      `archive entry ${quoteName(entry.path)} is neither LEEF nor ECS (JSON with @timestamp and an ECS field)`,
      { details: { entry: entry.path } },
    );
  }
  return format;
}

const FIRST_LOOK = 64 * 1024;
// A syslog header in front of LEEF is short; anything longer is not a header.
const MAX_HEADER_PREFIX = 1024;
const LEEF_HEADER = /^LEEF:[12]\.0(?:\|[^|]*){4}\|?/;

/** Non-empty lines looked at for a LEEF line when the first one is neither LEEF nor JSON. */
export const LEEF_LOOK_LINES = 100;
/** Most bytes read from an entry's start to find those lines. */
const LEEF_LOOK_BYTES = 4 * 1024 * 1024;

// Whether one of the first LEEF_LOOK_LINES non-blank lines of `text` is LEEF: true, false, or
// 'more' when `text` ends (not complete) before that many lines were judged.
function leefAmongFirstLines(text: string, complete: boolean): boolean | 'more' {
  let start = 0;
  let seen = 0;
  while (seen < LEEF_LOOK_LINES) {
    const nl = text.indexOf('\n', start);
    // A last line cut off by the end of what was read is not judged: read more.
    if (nl === -1 && !complete) return 'more';
    const line = text.slice(start, nl === -1 ? text.length : nl);
    if (line.trim() !== '') {
      if (looksLikeLeef(line)) return true;
      seen++;
    }
    if (nl === -1) return false;
    start = nl + 1;
  }
  return false;
}

// The first non-blank line; undefined when there is none yet (or at all, once complete).
function firstLine(text: string, complete: boolean): string | undefined {
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const line = text.slice(start, nl === -1 ? text.length : nl);
    if (line.trim() !== '') return nl === -1 && !complete ? line : line;
    if (nl === -1) return undefined;
    start = nl + 1;
  }
}

// The first JSON document: parsed, undefined when not complete yet, null when it is not JSON.
function firstDocument(text: string, path: string, maxLength: number): unknown {
  try {
    const batch = new JsonDocumentSplitter(path, maxLength).push(text);
    const first = batch.texts[0];
    return first === undefined ? undefined : JSON.parse(first);
  } catch {
    return null;
  }
}
