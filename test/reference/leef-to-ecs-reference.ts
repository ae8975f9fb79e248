// The first, straightforward leefToEcs (src/pipeline/convert/leef-to-ecs.ts), kept as the reference
// its allocation-lean successor is held to by a differential property test.

import {
  PRIMARY_ROW_BY_FIELD,
  RELATED_IP_FIELDS,
  ROWS_BY_LEEF_KEY,
} from '../../src/pipeline/convert/leef-ecs-mapping.ts';
import type { LeefRecord } from '../../src/pipeline/convert/leef-record.ts';
import type { EcsDocument } from '../../src/pipeline/ecs/ecs-fields.ts';
import { isPlainObject } from '../../src/pipeline/ecs/ecs-fields.ts';

/** What leefToEcs needs besides the parsed record. */
export interface LeefToEcsOptions {
  /** Event time in epoch ms (devTime, else the syslog header), already rebased; null when unreadable. */
  readonly eventTimeMs: number | null;
  /** The line as it is shipped (rebased), for `event.original`. */
  readonly rawLine?: string;
  /** Lab index to carry as `labels.labIndex`, overriding a `labIndex` attribute. */
  readonly index?: string | number;
}

/**
 * Converts a parsed LEEF event to an ECS document (nested objects) by LEEF_ECS_MAPPING. Nothing is
 * lost: an attribute without a row, or whose value does not fit its ECS type, is kept under
 * `leef.attributes.<key>`; values that would not come back identical (`TCP` → `tcp`) are also kept
 * under `leef.verbatim`, and a secondary key used for a field under `leef.aliases`, so ecsToLeef
 * rebuilds the same attributes. A repeated key: the last occurrence wins.
 */
export function leefToEcsReference(record: LeefRecord, options: LeefToEcsOptions): EcsDocument {
  const doc: EcsDocument = {};
  const t = options.eventTimeMs;
  if (t !== null && Number.isFinite(t) && Math.abs(t) <= MAX_DATE_MS)
    doc['@timestamp'] = new Date(t).toISOString();
  if (record.vendor !== '') setField(doc, 'observer.vendor', record.vendor);
  if (record.product !== '') setField(doc, 'observer.product', record.product);
  if (record.productVersion !== '') setField(doc, 'observer.version', record.productVersion);
  if (record.eventId !== '') setField(doc, 'event.code', record.eventId);

  const leef: Record<string, unknown> = { version: record.version, delimiter: record.delimiter };
  const custom: Record<string, string> = {};
  const aliases: Record<string, string> = {};
  const verbatim: Record<string, string> = {};
  const present = new Set(record.attributes.map(([key]) => key));
  const aliasFor = new Map<string, string>();
  for (const [key, value] of record.attributes) {
    if (key === '') continue;
    if (key === 'devTime' || key === 'devTimeFormat') {
      leef[key] = value;
      continue;
    }
    const row = ROWS_BY_LEEF_KEY.get(key);
    const field = row?.ecs[0];
    let usable = row !== undefined && field !== undefined;
    if (usable && row?.alias === true) {
      const primary = PRIMARY_ROW_BY_FIELD.get(field!);
      const taken = aliasFor.get(field!);
      usable =
        !(primary !== undefined && present.has(primary.leef)) && (taken === undefined || taken === key);
    }
    const values = usable ? row!.codec.toEcs(value) : undefined;
    if (values === undefined) {
      custom[key] = value;
      continue;
    }
    row!.ecs.forEach((path, i) => {
      if (values[i] !== undefined) setField(doc, path, values[i]);
    });
    if (row!.alias === true) {
      aliasFor.set(field!, key);
      aliases[key] = field!;
    }
    if (row!.codec.toLeef(values) !== value) verbatim[key] = value;
  }
  if (options.index !== undefined) setField(doc, 'labels.labIndex', String(options.index));

  const related = [
    ...new Set(RELATED_IP_FIELDS.map((path) => getNested(doc, path)).filter((v) => typeof v === 'string')),
  ];
  if (related.length > 0) setField(doc, 'related.ip', related);
  if (options.rawLine !== undefined) setField(doc, 'event.original', options.rawLine);
  if (Object.keys(aliases).length > 0) leef.aliases = aliases;
  if (Object.keys(verbatim).length > 0) leef.verbatim = verbatim;
  if (Object.keys(custom).length > 0) leef.attributes = custom;
  doc.leef = leef;
  return doc;
}

// new Date() accepts up to ±8.64e15 ms.
const MAX_DATE_MS = 8.64e15;

function setField(doc: EcsDocument, path: string, value: unknown): void {
  const parts = path.split('.');
  let holder: Record<string, unknown> = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const next = holder[part];
    if (isPlainObject(next)) holder = next;
    else {
      const created: Record<string, unknown> = {};
      holder[part] = created;
      holder = created;
    }
  }
  holder[parts[parts.length - 1]!] = value;
}

function getNested(doc: EcsDocument, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (!isPlainObject(value)) return undefined;
    value = value[part];
  }
  return value;
}
