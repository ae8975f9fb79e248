import { randomBytes } from 'node:crypto';
import type { EsErrorCause } from './bulk-errors.ts';
import { childPath, type FieldKind, type PathNode, pathRoot } from './bulk-mapping-paths.ts';

/** Dynamic-mapping type of a field, first seen value wins (as in Elasticsearch). */
export type { FieldKind };

/** One stored document. */
export interface BulkDocument {
  readonly id: string;
  /** Parsed `_source`. */
  source: unknown;
  /** The source line exactly as sent (for updates: the merged document as JSON). */
  sourceText: string;
  version: number;
  seqNo: number;
  /** False until a refresh when the simulator runs with `visibility: 'on_refresh'`. */
  searchable: boolean;
}

/**
 * A stored document. A write keeps only the source text: the parsed object is built again from it
 * the first time `source` is read (a query, a test), so a load of writes does not keep millions of
 * small objects alive for the garbage collector to move.
 */
export function newBulkDocument(fields: {
  id: string;
  sourceText: string;
  /** The parsed source when the writer has one that differs from parsing sourceText (none does today). */
  source?: unknown;
  version: number;
  seqNo: number;
  searchable: boolean;
}): BulkDocument {
  const doc = new StoredDocument(
    fields.id,
    fields.sourceText,
    fields.version,
    fields.seqNo,
    fields.searchable,
  );
  if ('source' in fields) doc.source = fields.source;
  return doc;
}

class StoredDocument implements BulkDocument {
  readonly id: string;
  version: number;
  seqNo: number;
  searchable: boolean;
  #sourceText: string;
  #source: unknown;
  #parsed = false;

  constructor(id: string, sourceText: string, version: number, seqNo: number, searchable: boolean) {
    this.id = id;
    this.#sourceText = sourceText;
    this.version = version;
    this.seqNo = seqNo;
    this.searchable = searchable;
  }

  get source(): unknown {
    if (!this.#parsed) {
      this.#source = JSON.parse(this.#sourceText);
      this.#parsed = true;
    }
    return this.#source;
  }

  set source(value: unknown) {
    this.#source = value;
    this.#parsed = true;
  }

  get sourceText(): string {
    return this.#sourceText;
  }

  set sourceText(text: string) {
    this.#sourceText = text;
    this.#parsed = false;
  }
}

/** One index or data stream of the bulk simulator. */
export interface BulkIndex {
  readonly name: string;
  readonly uuid: string;
  readonly kind: 'index' | 'data_stream';
  /** For data streams: the backing index write results name (`.ds-<name>-<date>-000001`). */
  readonly backingIndex: string | undefined;
  readonly docs: Map<string, BulkDocument>;
  readonly mapping: Map<string, FieldKind>;
  /** Settings, mappings and aliases as given to `PUT /<index>`. */
  readonly created: Readonly<Record<string, unknown>>;
  nextSeqNo: number;
}

/** Creates an empty index or data stream. */
export function newBulkIndex(
  name: string,
  kind: 'index' | 'data_stream',
  now: Date,
  created: Readonly<Record<string, unknown>> = {},
): BulkIndex {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '.');
  const index: BulkIndex = {
    name,
    uuid: randomBytes(16).toString('base64url').slice(0, 22),
    kind,
    backingIndex: kind === 'data_stream' ? `.ds-${name}-${day}-000001` : undefined,
    docs: new Map(),
    mapping: new Map(),
    created,
    nextSeqNo: 0,
  };
  seedMapping(index.mapping, (created.mappings as { properties?: unknown } | undefined)?.properties, '');
  return index;
}

/** Why `name` cannot be an index name, in Elasticsearch's words, or undefined. */
export function indexNameProblem(name: string): string | undefined {
  if (name !== name.toLowerCase()) return `Invalid index name [${name}], must be lowercase`;
  if (/[\\/*?"<>| ,]/.test(name)) {
    return `Invalid index name [${name}], must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?]`;
  }
  if (name.includes('#')) return `Invalid index name [${name}], must not contain '#'`;
  if (/^[-_+]/.test(name)) return `Invalid index name [${name}], must not start with '_', '-', or '+'`;
  if (name === '.' || name === '..') return `Invalid index name [${name}], must not be '.' or '..'`;
  const bytes = Buffer.byteLength(name);
  if (bytes > 255) return `Invalid index name [${name}], index name is too long, (${bytes} > 255)`;
  return undefined;
}

/** Elasticsearch's built-in data-stream templates (priority 100) and the names they claim. */
const BUILTIN_TEMPLATES: ReadonlyArray<readonly [template: string, pattern: RegExp]> = [
  ['logs', /^logs-.*-.*$/],
  ['metrics', /^metrics-.*-.*$/],
  ['synthetics', /^synthetics-.*-.*$/],
  ['traces', /^traces-.*-.*$/],
];

/** Name of the built-in template that makes `name` a data stream, if any. */
export function builtinDataStreamTemplate(name: string): string | undefined {
  return BUILTIN_TEMPLATES.find(([, pattern]) => pattern.test(name))?.[0];
}

/**
 * Checks a document against the index's dynamic mapping and, when it fits, adds its new fields.
 * Returns the item error otherwise: an object where a concrete value was mapped (or the reverse),
 * or a value a mapped number, boolean or date field cannot parse.
 */
export function applyDynamicMapping(
  index: BulkIndex,
  source: unknown,
  ctx: { id: string; sourceText: string; type: string; positions: boolean },
): EsErrorCause | undefined {
  const added = new Map<string, FieldKind>();
  const kindOf = (path: string) => index.mapping.get(path) ?? added.get(path);
  const prefix = (path: string) => {
    if (!ctx.positions) return '';
    const leaf = path.split('.').pop() ?? path;
    const at = ctx.sourceText.indexOf(`"${leaf}"`);
    return `[1:${at < 0 ? 1 : at + leaf.length + 4}] `;
  };
  const check = (value: unknown, node: PathNode): EsErrorCause | undefined => {
    if (value === null) return undefined;
    const path = node.path;
    if (Array.isArray(value)) {
      for (const v of value) {
        const err = check(v, node);
        if (err) return err;
      }
      return undefined;
    }
    const existing = kindOf(path);
    if (typeof value === 'object') {
      if (existing && existing !== 'object') {
        return parseFailure(ctx, prefix(path), path, existing, preview(value), {
          type: 'illegal_state_exception',
          reason: `Can't get text on a START_OBJECT at 1:${ctx.sourceText.indexOf('{', 1) + 1}`,
        });
      }
      if (!existing && path !== '') added.set(path, 'object');
      for (const k in value) {
        const err = check((value as Record<string, unknown>)[k], childPath(node, k));
        if (err) return err;
      }
      return undefined;
    }
    if (existing === 'object') {
      return {
        type: ctx.type,
        reason: `${prefix(path)}object mapping for [${path}] tried to parse field [${path}] as object, but found a concrete value`,
      };
    }
    if (!existing) {
      added.set(path, inferKind(value));
      return undefined;
    }
    const causedBy = valueProblem(existing, value);
    return causedBy ? parseFailure(ctx, prefix(path), path, existing, String(value), causedBy) : undefined;
  };
  const err = check(source, pathRoot(index));
  if (!err) for (const [path, kind] of added) index.mapping.set(path, kind);
  return err;
}

function parseFailure(
  ctx: { id: string; type: string },
  prefix: string,
  path: string,
  kind: FieldKind,
  shown: string,
  causedBy: EsErrorCause,
): EsErrorCause {
  return {
    type: ctx.type,
    reason: `${prefix}failed to parse field [${path}] of type [${kind}] in document with id '${ctx.id}'. Preview of field's value: '${shown}'`,
    caused_by: causedBy,
  };
}

function inferKind(value: unknown): FieldKind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'long' : 'float';
  // date_detection: strings in strict_date_optional_time form become date fields.
  if (typeof value === 'string' && isIsoDate(value)) return 'date';
  return 'text';
}

/** Why a value cannot go into a field mapped as `kind`, or undefined when it fits. */
export function valueProblem(kind: FieldKind, value: unknown): EsErrorCause | undefined {
  if (kind === 'text') return undefined;
  const text = String(value);
  if (kind === 'long' || kind === 'float') {
    if (typeof value === 'number' || (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)))
      return undefined;
    return { type: 'illegal_argument_exception', reason: `For input string: "${text}"` };
  }
  if (kind === 'boolean') {
    if (value === true || value === false || value === 'true' || value === 'false' || value === '')
      return undefined;
    return {
      type: 'illegal_argument_exception',
      reason: `Failed to parse value [${text}] as only [true] or [false] are allowed.`,
    };
  }
  if (typeof value === 'number' || (typeof value === 'string' && isIsoDate(value))) return undefined;
  return {
    type: 'illegal_argument_exception',
    reason: `failed to parse date field [${text}] with format [strict_date_optional_time||epoch_millis]`,
  };
}

function isIsoDate(s: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}(T\d{2}(:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) &&
    !Number.isNaN(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s))
  );
}

function preview(value: object): string {
  if (Array.isArray(value)) return `[${value.map(String).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? preview(v) : String(v)}`)
    .join(', ')}}`;
}

const MAPPING_TYPES: Readonly<Record<string, FieldKind>> = {
  text: 'text',
  keyword: 'text',
  match_only_text: 'text',
  wildcard: 'text',
  ip: 'text',
  long: 'long',
  integer: 'long',
  short: 'long',
  byte: 'long',
  unsigned_long: 'long',
  float: 'float',
  double: 'float',
  half_float: 'float',
  scaled_float: 'float',
  boolean: 'boolean',
  date: 'date',
  date_nanos: 'date',
  object: 'object',
  nested: 'object',
  flattened: 'text',
};

function seedMapping(mapping: Map<string, FieldKind>, properties: unknown, prefix: string): void {
  if (typeof properties !== 'object' || properties === null) return;
  for (const [name, def] of Object.entries(properties)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const d = def as { type?: string; properties?: unknown };
    if (d.properties) {
      mapping.set(path, 'object');
      seedMapping(mapping, d.properties, path);
    } else if (d.type && MAPPING_TYPES[d.type]) mapping.set(path, MAPPING_TYPES[d.type]!);
  }
}
