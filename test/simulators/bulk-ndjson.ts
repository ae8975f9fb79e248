import type { EsErrorCause } from './bulk-errors.ts';

/** The four bulk operations. */
export type BulkOp = 'index' | 'create' | 'update' | 'delete';

/** One action of a `_bulk` body with its source line. */
export interface BulkAction {
  readonly op: BulkOp;
  /** Target after defaulting from the URL (`POST /<index>/_bulk`). */
  readonly index: string;
  readonly id: string | undefined;
  /** Other metadata (`routing`, `pipeline`, `if_seq_no`, …) as sent. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** The source line exactly as sent, without its newline; undefined for `delete`. */
  readonly source: string | undefined;
  /** 1-based line number of the action line. */
  readonly line: number;
  /** Where `source` lies in the body's bytes (without a `\r`), when the caller gave the bytes. */
  readonly sourceStart?: number;
  readonly sourceEnd?: number;
}

/** Parsed body, or the request-level 400 Elasticsearch answers for it. */
export type BulkParse =
  | { readonly ok: true; readonly actions: BulkAction[] }
  | { readonly ok: false; readonly error: EsErrorCause };

const OPS: readonly BulkOp[] = ['create', 'delete', 'index', 'update'];
/**
 * `{"create"|"index":{["_index":"…"][,"_id":"…"]}}` whose strings hold no control character, quote or
 * backslash (so they are their own value); anything else is parsed.
 */
const PLAIN_ACTION =
  /^\{"(create|index)":\{(?:"_index":"([ !#-[\]-\uffff]*)"(?:,"_id":"([ !#-[\]-\uffff]*)")?|"_id":"([ !#-[\]-\uffff]*)")?\}\}$/;
const META_KEYS = new Set([
  '_index',
  '_id',
  'routing',
  'version',
  'version_type',
  'if_seq_no',
  'if_primary_term',
  'pipeline',
  'require_alias',
  'require_data_stream',
  'retry_on_conflict',
  'dynamic_templates',
  'list_executed_pipelines',
  '_source',
]);

/**
 * Parses a `_bulk` NDJSON body: every line, the last included, must end with `\n` (a `\r` before it
 * is tolerated); action lines name one op; all but `delete` are followed by a source line. Source
 * lines are not parsed here: Elasticsearch only finds a broken source when indexing that item.
 * The usual action line of a client is matched without JSON.parse (`fastPath: false` turns that
 * off, for tests comparing both ways).
 */
export function parseBulkBody(
  text: string,
  defaultIndex: string | undefined,
  options: {
    readonly fastPath?: boolean;
    /** The body as received (`text` is its UTF-8 decoding): actions then carry their source's byte range. */
    readonly bytes?: Uint8Array;
  } = {},
): BulkParse {
  const fast = options.fastPath !== false;
  const lineBytes = options.bytes ? new LineBytes(options.bytes) : undefined;
  if (text.length === 0) return fail('parse_exception', 'request body is required');
  if (!text.endsWith('\n')) {
    return fail('illegal_argument_exception', 'The bulk request must be terminated by a newline [\\n]');
  }
  const lines = text.slice(0, -1).split('\n');
  const actions: BulkAction[] = [];
  const missingIndex: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = stripCr(lines[i]!);
    if (raw.trim() === '') continue;
    const line = i + 1;
    const plain = fast ? PLAIN_ACTION.exec(raw) : null;
    if (plain) {
      // The usual action line of a client, read without JSON.parse (its strings hold no escapes).
      const op = plain[1] as BulkOp;
      const index = plain[2] ?? defaultIndex;
      if (i + 1 >= lines.length)
        return fail('action_request_validation_exception', 'Validation Failed: 1: source is missing;');
      i++;
      if (index === undefined) missingIndex.push(line);
      const source = stripCr(lines[i]!);
      actions.push({
        op,
        index: index ?? '',
        id: plain[3] ?? plain[4],
        meta: {},
        source,
        line,
        ...lineBytes?.range(i),
      });
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return fail(
        'x_content_parse_exception',
        `[${line}:1] Unexpected character in action/metadata line [${line}]`,
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return fail(
        'illegal_argument_exception',
        `Malformed action/metadata line [${line}], expected START_OBJECT or END_OBJECT but found [${tokenName(parsed)}]`,
      );
    }
    const keys = Object.keys(parsed);
    const op = keys[0] as BulkOp | undefined;
    if (keys.length !== 1 || !op || !OPS.includes(op)) {
      return fail(
        'illegal_argument_exception',
        `Malformed action/metadata line [${line}], expected one of [create, delete, index, update] but found [${keys[0] ?? ''}]`,
      );
    }
    const meta = (parsed as Record<string, unknown>)[op];
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
      return fail(
        'illegal_argument_exception',
        `Malformed action/metadata line [${line}], expected a simple value for field [${op}] but found [${tokenName(meta)}]`,
      );
    }
    for (const key of Object.keys(meta)) {
      // `_type` is gone since 8.0 and is refused like any unknown parameter.
      if (!META_KEYS.has(key)) {
        return fail(
          'illegal_argument_exception',
          `Action/metadata line [${line}] contains an unknown parameter [${key}]`,
        );
      }
    }
    const m = meta as Record<string, unknown>;
    const index = typeof m._index === 'string' ? m._index : defaultIndex;
    let source: string | undefined;
    if (op !== 'delete') {
      if (i + 1 >= lines.length)
        return fail('action_request_validation_exception', 'Validation Failed: 1: source is missing;');
      i++;
      source = stripCr(lines[i]!);
    }
    if (index === undefined) missingIndex.push(line);
    const { _index, _id, ...rest } = m;
    actions.push({
      op,
      index: index ?? '',
      id: _id === undefined ? undefined : String(_id),
      meta: rest,
      source,
      line,
      ...(source !== undefined ? lineBytes?.range(i) : undefined),
    });
  }
  if (actions.length === 0)
    return fail('action_request_validation_exception', 'Validation Failed: 1: no requests added;');
  if (missingIndex.length > 0) {
    const list = missingIndex.map((_, n) => `${n + 1}: index is missing;`).join('');
    return fail('action_request_validation_exception', `Validation Failed: ${list}`);
  }
  return { ok: true, actions };
}

/**
 * Byte ranges of the body's lines, found at newline bytes in step with the text's lines (a newline
 * byte never occurs inside a multi-byte UTF-8 sequence, so line k of the bytes is line k of the
 * text). Lines are asked for in increasing order, so the whole body is walked once.
 */
class LineBytes {
  readonly #bytes: Uint8Array;
  #line = 0;
  #start = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  /** `{ sourceStart, sourceEnd }` of 0-based line `n`, without a final `\r`. */
  range(n: number): { sourceStart: number; sourceEnd: number } {
    const bytes = this.#bytes;
    while (this.#line < n) {
      this.#start = bytes.indexOf(0x0a, this.#start) + 1;
      this.#line++;
    }
    let end = bytes.indexOf(0x0a, this.#start);
    if (end < 0) end = bytes.length;
    if (end > this.#start && bytes[end - 1] === 0x0d) end--;
    return { sourceStart: this.#start, sourceEnd: end };
  }
}

function fail(type: string, reason: string): BulkParse {
  return { ok: false, error: { type, reason } };
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function tokenName(value: unknown): string {
  if (Array.isArray(value)) return 'START_ARRAY';
  if (typeof value === 'string') return 'VALUE_STRING';
  if (typeof value === 'number') return 'VALUE_NUMBER';
  if (typeof value === 'boolean') return value ? 'VALUE_TRUE' : 'VALUE_FALSE';
  return 'VALUE_NULL';
}
