/**
 * Applies Elasticsearch's `filter_path` response filter: comma-separated dotted paths where `*`
 * matches one key (or part of one) and `**` any depth; arrays are looked through. Objects and
 * arrays left empty are dropped, so `filter_path=items.*.error` on a clean bulk answers `{}`.
 * Exclusions (`-path`) are not supported.
 */
export function applyFilterPath(value: unknown, filterPath: string): unknown {
  let paths = compiled.get(filterPath);
  if (paths === undefined) {
    paths = filterPath
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .map((p) => p.split('.'));
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(filterPath, paths);
  }
  if (paths.length === 0) return value;
  return filter(value, paths) ?? {};
}

/** Split filters and compiled patterns by their text: a client sends the same few on every request. */
const MAX_CACHED = 256;
const compiled = new Map<string, string[][]>();
const patterns = new Map<string, RegExp>();

function filter(value: unknown, paths: string[][]): unknown {
  if (endsHere(paths)) return value;
  if (Array.isArray(value)) {
    const kept = value.map((v) => filter(v, paths)).filter((v) => v !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const out: Record<string, unknown> = {};
  let any = false;
  for (const key in value) {
    const rest = restFor(paths, key);
    if (rest.length === 0) continue;
    const kept = filter((value as Record<string, unknown>)[key], rest);
    if (kept !== undefined) {
      out[key] = kept;
      any = true;
    }
  }
  return any ? out : undefined;
}

/** What is left of `paths` below `key`; the same key under the same paths gives the same array. */
function restFor(paths: string[][], key: string): string[][] {
  let byKey = rests.get(paths);
  if (byKey === undefined) {
    byKey = new Map();
    rests.set(paths, byKey);
  }
  let rest = byKey.get(key);
  if (rest === undefined) {
    rest = [];
    for (const [head, ...tail] of paths) {
      if (head === '**') {
        rest.push([head, ...tail]);
        if (tail.length > 0 && matches(tail[0]!, key)) rest.push(tail.slice(1));
        else if (tail.length === 0) rest.push([]);
      } else if (head !== undefined && matches(head, key)) rest.push(tail);
    }
    // Answers with ever new keys (names of indexes, ids) must not grow the memo without end.
    if (byKey.size >= MAX_CACHED) byKey.clear();
    byKey.set(key, rest);
  }
  return rest;
}

function endsHere(paths: string[][]): boolean {
  let ends = complete.get(paths);
  if (ends === undefined) {
    ends = paths.some((p) => p.length === 0);
    complete.set(paths, ends);
  }
  return ends;
}

/** Per paths array: what remains below each key, and whether a path ends at this level. */
const rests = new WeakMap<string[][], Map<string, string[][]>>();
const complete = new WeakMap<string[][], boolean>();

function matches(pattern: string, key: string): boolean {
  if (!pattern.includes('*')) return pattern === key;
  let re = patterns.get(pattern);
  if (re === undefined) {
    re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);
    if (patterns.size >= MAX_CACHED) patterns.clear();
    patterns.set(pattern, re);
  }
  return re.test(key);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
