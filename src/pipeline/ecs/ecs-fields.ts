/** An ECS document as parsed from JSON. Fields may be nested (`{"event":{"created":…}}`) or dotted. */
export type EcsDocument = Record<string, unknown>;

/** The time fields a rebase moves (decisions.md §5); `@timestamp` is the event time. */
export const ECS_TIME_FIELDS = [
  '@timestamp',
  'event.created',
  'event.start',
  'event.end',
  'event.ingested',
] as const;

/** One of ECS_TIME_FIELDS. */
export type EcsTimeField = (typeof ECS_TIME_FIELDS)[number];

/** True for a JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value at a dotted ECS path, whether the document nests it, writes it dotted, or mixes both
 * (`{"source":{"ip":…}}`, `{"source.ip":…}`, `{"source":{"nat.ip":…}}`). A dotted key wins over
 * nesting at the same level, as it is the more specific spelling.
 */
export function getEcsField(doc: unknown, path: string): unknown {
  if (!isPlainObject(doc)) return undefined;
  if (Object.hasOwn(doc, path)) return doc[path];
  let dot = path.indexOf('.');
  while (dot !== -1) {
    const head = path.slice(0, dot);
    if (Object.hasOwn(doc, head)) {
      const found = getEcsField(doc[head], path.slice(dot + 1));
      if (found !== undefined) return found;
    }
    dot = path.indexOf('.', dot + 1);
  }
  return undefined;
}

/**
 * Leaf values by dotted path, in document order; arrays are leaves. Nested and dotted spellings
 * of one field collapse to one path (the later one wins, like duplicate JSON keys).
 */
export function flattenEcs(doc: EcsDocument, skip?: (path: string) => boolean): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (value: Record<string, unknown>, prefix: string): void => {
    for (const key of Object.keys(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (skip?.(path)) continue;
      const v = value[key];
      if (isPlainObject(v)) walk(v, path);
      else out.set(path, v);
    }
  };
  walk(doc, '');
  return out;
}
