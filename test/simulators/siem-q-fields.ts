import { compare, type FieldSchema, QueryParamError } from './siem-q-filter.ts';

/**
 * The SIEM Q console's `fields` and `sort` query parameters (protocols-qradar-leef-syslog.md §4.2).
 * `fields=id,status,log_sources(id,name)` keeps only those fields; sub-fields of an object or of
 * each element of an array go in parentheses or brackets (`log_sources[id]`). `sort=+id`,
 * `sort=-start_time,+id` orders by scalar top-level fields (no sign: ascending).
 */

/** A parsed `fields` selection. */
export type FieldSelection = ReadonlyArray<{ readonly name: string; readonly sub?: FieldSelection }>;

/** Parses and checks `fields` against the resource's fields; throws {@link QueryParamError}. */
export function parseFields(text: string, schema: FieldSchema): FieldSelection {
  let i = 0;
  const skip = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const list = (level: FieldSchema | undefined, close: string | undefined): FieldSelection => {
    const out: Array<{ name: string; sub?: FieldSelection }> = [];
    for (;;) {
      skip();
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
      if (!m) {
        throw new QueryParamError(
          i >= text.length
            ? 'fields ends where a field name was expected'
            : `unexpected "${text[i]}" at position ${i} in fields`,
        );
      }
      const name = m[0];
      i += name.length;
      const spec = level?.[name];
      if (level && !spec) throw new QueryParamError(`unknown field "${name}" in fields`);
      skip();
      let sub: FieldSelection | undefined;
      if (text[i] === '(' || text[i] === '[') {
        const closing = text[i] === '(' ? ')' : ']';
        if (level && !spec?.fields) throw new QueryParamError(`"${name}" has no sub-fields`);
        i++;
        sub = list(spec?.fields, closing);
        skip();
      }
      if (out.some((f) => f.name === name))
        throw new QueryParamError(`"${name}" is selected twice in fields`);
      out.push(sub ? { name, sub } : { name });
      skip();
      if (i >= text.length) {
        if (close !== undefined) throw new QueryParamError(`fields misses a closing "${close}"`);
        return out;
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (close !== undefined && text[i] === close) {
        i++;
        return out;
      }
      throw new QueryParamError(`unexpected "${text[i]}" at position ${i} in fields`);
    }
  };
  if (text.trim() === '') throw new QueryParamError('fields is empty');
  return list(schema, undefined);
}

/** Keeps only the selected fields of an object or of each element of an array; other values pass. */
export function project(value: unknown, selection: FieldSelection): unknown {
  if (Array.isArray(value)) return value.map((v) => project(v, selection));
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of selection) {
    if (!(f.name in source)) continue;
    out[f.name] = f.sub ? project(source[f.name], f.sub) : source[f.name];
  }
  return out;
}

/** One sort key. */
export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

/** Parses `sort` (`+id`, `-start_time,+id`); only scalar top-level fields sort; throws {@link QueryParamError}. */
export function parseSort(text: string, schema: FieldSchema): SortKey[] {
  const keys = text.split(',').map((part) => {
    const m = /^\s*([+-]?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(part);
    if (!m) throw new QueryParamError(`sort "${text}" is not valid: use +field or -field`);
    const field = m[2]!;
    const spec = schema[field];
    if (!spec) throw new QueryParamError(`unknown field "${field}" in sort`);
    if (spec.kind === 'object' || spec.kind === 'array')
      throw new QueryParamError(`"${field}" cannot be sorted`);
    return { field, descending: m[1] === '-' };
  });
  return keys;
}

/** A sorted copy (stable; null before any value when ascending). */
export function sortItems<T extends Readonly<Record<string, unknown>>>(
  items: readonly T[],
  keys: readonly SortKey[],
): T[] {
  return [...items].sort((a, b) => {
    for (const key of keys) {
      const x = a[key.field];
      const y = b[key.field];
      let c: number;
      if (x === y) c = 0;
      else if (x === null || x === undefined) c = -1;
      else if (y === null || y === undefined) c = 1;
      else c = compare(x as string | number | boolean, y as string | number | boolean);
      if (c !== 0) return key.descending ? -c : c;
    }
    return 0;
  });
}
