import { type EcsDocument, flattenEcs, getEcsField, isPlainObject } from '../ecs/ecs-fields.ts';
import { readEcsTimeValue } from '../ecs/ecs-time.ts';
import {
  LEEF_ECS_MAPPING,
  type MappingRow,
  PREDEFINED_LEEF_KEYS,
  PRIMARY_ROW_BY_FIELD,
  ROWS_BY_LEEF_KEY,
} from './leef-ecs-mapping.ts';

/** Header values and choices for documents that do not carry them. */
export interface LeefDefaults {
  readonly vendor: string;
  readonly product: string;
  readonly productVersion: string;
  readonly eventId: string;
  /** LEEF version when the document does not say (`leef.version`); 2.0 if unset. */
  readonly version?: '1.0' | '2.0';
  /**
   * Renders epoch ms in a Java SimpleDateFormat pattern; when given and the document kept its
   * `leef.devTimeFormat`, devTime is written in that format instead of epoch ms.
   */
  readonly formatDevTime?: (epochMs: number, pattern: string) => string | undefined;
}

/**
 * Writes an ECS document as one LEEF line (no syslog header): LEEF 1.0 with TAB or 2.0 with a
 * literal `^` (protocols §1.1). Mapped fields are written by LEEF_ECS_MAPPING (with the key and
 * exact value leefToEcs recorded, when the field still holds what it gave), `devTime` is
 * `@timestamp` in epoch ms, `leef.attributes` come back as they were, and any other field becomes a
 * custom key named by its dotted path, never a predefined key and never twice. Values lose the
 * delimiter, CR and LF (each becomes a space); header fields lose `|`.
 */
export function ecsToLeef(doc: EcsDocument, defaults: LeefDefaults): string {
  const leef = leefMeta(doc);
  const version =
    leef.version === '1.0' || leef.version === '2.0' ? leef.version : (defaults.version ?? '2.0');
  const delimiter = version === '1.0' ? '\t' : '^';
  // A document made from LEEF (it has `leef`) holds the line's syslog header under log.syslog:
  // no attribute of the event, and ECS → LEEF writes no header.
  const fromLeef = isPlainObject(doc.leef);
  const flat = flattenEcs(
    doc,
    (path) =>
      path === 'leef' ||
      path.startsWith('leef.') ||
      (fromLeef && (path === 'log.syslog' || path.startsWith('log.syslog.'))),
  );
  const consumed = new Set(HEADER_FIELDS);
  const out: Array<[string, string]> = [];
  const emitted = new Set<string>();
  const emit = (key: string, value: string): void => {
    out.push([key, value]);
    emitted.add(key);
  };

  const time = readEcsTimeValue(flat.get('@timestamp'));
  if (time !== null) {
    const pattern = leef.devTimeFormat;
    const rendered = pattern !== undefined ? defaults.formatDevTime?.(Math.floor(time), pattern) : undefined;
    if (rendered !== undefined && pattern !== undefined) {
      emit('devTime', rendered);
      emit('devTimeFormat', pattern);
    } else {
      emit('devTime', String(Math.floor(time)));
    }
  } else if (leef.devTime !== undefined) {
    emit('devTime', leef.devTime);
    if (leef.devTimeFormat !== undefined) emit('devTimeFormat', leef.devTimeFormat);
  }

  const keyForField = new Map<string, string>();
  for (const [key, field] of Object.entries(leef.aliases)) {
    if (typeof field === 'string' && ROWS_BY_LEEF_KEY.get(key)?.ecs[0] === field) keyForField.set(field, key);
  }
  for (const [field, primary] of PRIMARY_ROW_BY_FIELD) {
    const row = ROWS_BY_LEEF_KEY.get(keyForField.get(field) ?? primary.leef)!;
    const values = row.ecs.map((path) => flat.get(path));
    if (values.every((v) => v === undefined)) continue;
    const value = verbatimValue(row, values, leef.verbatim[row.leef]) ?? row.codec.toLeef(values);
    if (value === undefined) continue;
    for (const path of row.ecs) consumed.add(path);
    emit(row.leef, value);
  }

  for (const [key, value] of Object.entries(leef.attributes)) {
    const text = leafText(value);
    if (key !== '' && text !== undefined && !emitted.has(key)) emit(key, text);
  }

  for (const [path, value] of flat) {
    if (consumed.has(path) || path.startsWith('related.')) continue;
    const text = leafText(value);
    if (text === undefined) continue;
    let key = cleanKey(path, delimiter);
    if (key === '') continue;
    if (PREDEFINED_LEEF_KEYS.has(key) || emitted.has(key)) key = `ecs.${key}`;
    for (let n = 2; emitted.has(key); n++) key = `${key.replace(/_\d+$/, '')}_${n}`;
    emit(key, text);
  }

  const header = [
    `LEEF:${version}`,
    headerField(getEcsField(doc, 'observer.vendor'), defaults.vendor),
    headerField(getEcsField(doc, 'observer.product'), defaults.product),
    headerField(getEcsField(doc, 'observer.version'), defaults.productVersion),
    headerField(getEcsField(doc, 'event.code') ?? getEcsField(doc, 'event.action'), defaults.eventId).slice(
      0,
      255,
    ),
  ].join('|');
  const attributes = out.map(([key, value]) => `${cleanKey(key, delimiter)}=${cleanValue(value, delimiter)}`);
  return `${header}|${version === '2.0' ? '^|' : ''}${attributes.join(delimiter)}`;
}

// Fields the header carries, or that only describe the document itself.
const HEADER_FIELDS = [
  '@timestamp',
  'event.original',
  'event.code',
  'observer.vendor',
  'observer.product',
  'observer.version',
  'ecs.version',
];

interface LeefMeta {
  readonly version: unknown;
  readonly devTime: string | undefined;
  readonly devTimeFormat: string | undefined;
  readonly aliases: Record<string, unknown>;
  readonly verbatim: Record<string, unknown>;
  readonly attributes: Record<string, unknown>;
}

function leefMeta(doc: EcsDocument): LeefMeta {
  const object = (path: string): Record<string, unknown> => {
    const v = getEcsField(doc, path);
    return isPlainObject(v) ? v : {};
  };
  const string = (path: string): string | undefined => {
    const v = getEcsField(doc, path);
    return typeof v === 'string' ? v : undefined;
  };
  return {
    version: getEcsField(doc, 'leef.version'),
    devTime: string('leef.devTime'),
    devTimeFormat: string('leef.devTimeFormat'),
    aliases: object('leef.aliases'),
    verbatim: object('leef.verbatim'),
    attributes: object('leef.attributes'),
  };
}

// The value leefToEcs saw, when the fields still hold exactly what that value gives.
function verbatimValue(row: MappingRow, values: readonly unknown[], raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const expected = row.codec.toEcs(raw);
  if (expected === undefined) return undefined;
  return row.ecs.every((_, i) => sameValue(expected[i], values[i])) ? raw : undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  return a === b;
}

function leafText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return value.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
      ? value.join(',')
      : JSON.stringify(value);
  }
  return undefined;
}

function headerField(value: unknown, fallback: string): string {
  const text = typeof value === 'string' && value.trim() !== '' ? value : fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: header fields must not hold controls
  return text.replace(/[|\u0000-\u001f\u007f]/g, ' ');
}

function cleanValue(value: string, delimiter: string): string {
  let out = value.replace(/[\r\n]/g, ' ');
  if (out.includes(delimiter)) out = out.replaceAll(delimiter, ' ');
  return out;
}

// Keys split on the first "=" and on the delimiter: neither may appear, nor spaces or controls.
function cleanKey(key: string, delimiter: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: keys must not hold controls
  let out = key.replace(/[=|\s\u0000-\u001f\u007f]/g, '_');
  if (out.includes(delimiter)) out = out.replaceAll(delimiter, '_');
  return out;
}

/** Every ECS field the table writes, for tests and documentation. */
export const MAPPED_ECS_FIELDS: readonly string[] = [...new Set(LEEF_ECS_MAPPING.flatMap((row) => row.ecs))];
