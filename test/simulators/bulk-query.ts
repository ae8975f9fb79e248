/**
 * The query DSL subset `_delete_by_query` and `_count` understand here: `match_all`, `match_none`,
 * `term`, `terms`, `ids`, `match` (case-insensitive containment), `exists`, `range` (numbers and
 * ISO dates) and `bool` (`must`, `filter`, `should`, `must_not`). Returns a predicate, or the
 * `parsing_exception` reason for anything else.
 */
export function compileQuery(query: unknown): ((id: string, source: unknown) => boolean) | { error: string } {
  if (typeof query !== 'object' || query === null || Array.isArray(query)) {
    return { error: '[_na] query malformed, must start with start_object' };
  }
  const entries = Object.entries(query);
  if (entries.length !== 1) return { error: '[_na] query malformed, no start_object after query name' };
  const [name, body] = entries[0]!;
  const spec = (body ?? {}) as Record<string, unknown>;
  const single = () => Object.entries(spec)[0] ?? ['', undefined];
  switch (name) {
    case 'match_all':
      return () => true;
    case 'match_none':
      return () => false;
    case 'ids': {
      const values = ((spec.values as unknown[]) ?? []).map(String);
      return (id) => values.includes(id);
    }
    case 'exists': {
      const field = String(spec.field);
      return (_, source) => fieldValues(source, field).length > 0;
    }
    case 'term': {
      const [field, raw] = single();
      const wanted = typeof raw === 'object' && raw !== null ? (raw as { value?: unknown }).value : raw;
      return (_, source) => fieldValues(source, field).some((v) => String(v) === String(wanted));
    }
    case 'terms': {
      const [field, raw] = single();
      const wanted = (Array.isArray(raw) ? raw : []).map(String);
      return (_, source) => fieldValues(source, field).some((v) => wanted.includes(String(v)));
    }
    case 'match': {
      const [field, raw] = single();
      const wanted = String(
        typeof raw === 'object' && raw !== null ? (raw as { query?: unknown }).query : raw,
      ).toLowerCase();
      return (_, source) => fieldValues(source, field).some((v) => String(v).toLowerCase().includes(wanted));
    }
    case 'range': {
      const [field, raw] = single();
      const bounds = (raw ?? {}) as Record<string, unknown>;
      return (_, source) => fieldValues(source, field).some((v) => inRange(v, bounds));
    }
    case 'bool':
      return compileBool(spec);
    default:
      return { error: `unknown query [${name}]` };
  }
}

/** Translates `q=` Lucene query strings of the simplest forms (`*`, `*:*`, `field:value`). */
export function queryFromQ(q: string): unknown {
  if (q === '*' || q === '*:*') return { match_all: {} };
  const colon = q.indexOf(':');
  if (colon > 0) return { term: { [q.slice(0, colon)]: q.slice(colon + 1).replace(/^"(.*)"$/, '$1') } };
  return { match: { _all_text: q } };
}

function compileBool(
  spec: Record<string, unknown>,
): ((id: string, source: unknown) => boolean) | { error: string } {
  const compiled: Record<string, Array<(id: string, source: unknown) => boolean>> = {};
  for (const clause of ['must', 'filter', 'should', 'must_not']) {
    const raw = spec[clause];
    const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    compiled[clause] = [];
    for (const q of list) {
      const fn = compileQuery(q);
      if ('error' in fn) return fn;
      compiled[clause].push(fn);
    }
  }
  const { must = [], filter = [], should = [], must_not: mustNot = [] } = compiled;
  return (id, source) =>
    must.every((f) => f(id, source)) &&
    filter.every((f) => f(id, source)) &&
    mustNot.every((f) => !f(id, source)) &&
    (should.length === 0 || must.length + filter.length > 0 || should.some((f) => f(id, source)));
}

function inRange(value: unknown, bounds: Record<string, unknown>): boolean {
  const toNum = (v: unknown) => (typeof v === 'number' ? v : Date.parse(String(v)) || Number(v));
  const x = toNum(value);
  if (Number.isNaN(x)) return false;
  const check = (key: string, ok: (b: number) => boolean) =>
    bounds[key] === undefined || ok(toNum(bounds[key]));
  return (
    check('gte', (b) => x >= b) &&
    check('gt', (b) => x > b) &&
    check('lte', (b) => x <= b) &&
    check('lt', (b) => x < b)
  );
}

/** Values at a dotted path, descending through arrays (a missing field gives none). */
function fieldValues(source: unknown, path: string): unknown[] {
  if (path === '_all_text') return [JSON.stringify(source)];
  let current: unknown[] = [source];
  for (const part of path.split('.')) {
    const next: unknown[] = [];
    for (const c of current) {
      if (typeof c !== 'object' || c === null) continue;
      const v = (c as Record<string, unknown>)[part];
      if (Array.isArray(v)) next.push(...v);
      else if (v !== undefined) next.push(v);
    }
    current = next;
  }
  return current.filter((v) => v !== null);
}
