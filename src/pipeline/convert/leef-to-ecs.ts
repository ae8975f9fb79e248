import type { EcsDocument } from '../ecs/ecs-fields.ts';
import { isPlainObject } from '../ecs/ecs-fields.ts';
import type { SyslogHeader } from '../syslog/detect-syslog-header.ts';
import { type IsoUtcMemo, isoUtc } from '../time/iso-utc.ts';
import {
  type MappingRow,
  PRIMARY_ROW_BY_FIELD,
  RELATED_IP_FIELDS,
  ROWS_BY_LEEF_KEY,
} from './leef-ecs-mapping.ts';
import type { LeefRecord } from './leef-record.ts';
import { syslogHeaderToEcs } from './syslog-header-ecs.ts';

/** What leefToEcs needs besides the parsed record. */
export interface LeefToEcsOptions {
  /** Event time in epoch ms (devTime, else the syslog header), already rebased; null when unreadable. */
  readonly eventTimeMs: number | null;
  /** The line as it is shipped (rebased), for `event.original`. */
  readonly rawLine?: string;
  /** Lab index to carry as `labels.labIndex`, overriding a `labIndex` attribute. */
  readonly index?: string | number;
  /** The text before `LEEF:` on the line (ParsedLeef.prefix): a syslog header there goes to `log.syslog`. */
  readonly prefix?: string;
  /** The shipment pass's memos (a ShipmentScratch); none are kept from call to call without. */
  readonly scratch?: LeefToEcsScratch;
}

/** What leefToEcs keeps from one event to the next of a shipment pass. */
export interface LeefToEcsScratch {
  /** The minute `@timestamp` was last written for. */
  readonly isoUtc: IsoUtcMemo;
  /** A record for detecting the syslog header before `LEEF:`. */
  readonly ecsHeader: SyslogHeader;
}

/**
 * Converts a parsed LEEF event to an ECS document (nested objects) by LEEF_ECS_MAPPING. Nothing is
 * lost: an attribute without a row, or whose value does not fit its ECS type, is kept under
 * `leef.attributes.<key>`; values that would not come back identical (`TCP` → `tcp`) are also kept
 * under `leef.verbatim`, and a secondary key used for a field under `leef.aliases`, so ecsToLeef
 * rebuilds the same attributes. A repeated key: the last occurrence wins.
 *
 * This runs once per event of a LEEF archive sent to an ECS destination, so it allocates little:
 * field paths are split once per row, the bookkeeping for secondary keys is only built for an
 * event that has one, and the `leef.*` objects only when they get a key.
 */
export function leefToEcs(record: LeefRecord, options: LeefToEcsOptions): EcsDocument {
  const doc: EcsDocument = {};
  const t = options.eventTimeMs;
  if (t !== null && Number.isFinite(t) && Math.abs(t) <= MAX_DATE_MS)
    doc['@timestamp'] = isoUtc(t, options.scratch?.isoUtc);
  if (record.vendor !== '') setPath(doc, OBSERVER_VENDOR, record.vendor);
  if (record.product !== '') setPath(doc, OBSERVER_PRODUCT, record.product);
  if (record.productVersion !== '') setPath(doc, OBSERVER_VERSION, record.productVersion);
  if (record.eventId !== '') setPath(doc, EVENT_CODE, record.eventId);

  const leef: Record<string, unknown> = { version: record.version, delimiter: record.delimiter };
  let custom: Record<string, string> | null = null;
  let aliases: Record<string, string> | null = null;
  let verbatim: Record<string, string> | null = null;
  let present: Set<string> | null = null;
  let aliasFor: Map<string, string> | null = null;
  const attributes = record.attributes;
  for (let a = 0; a < attributes.length; a++) {
    const [key, value] = attributes[a]!;
    if (key === '') continue;
    if (key === 'devTime' || key === 'devTimeFormat') {
      leef[key] = value;
      continue;
    }
    const plan = planOf(key);
    let usable = plan !== undefined;
    if (plan !== undefined && plan.row.alias === true) {
      present ??= new Set(attributes.map(([k]) => k));
      const taken = aliasFor?.get(plan.field);
      usable =
        !(plan.primaryKey !== undefined && present.has(plan.primaryKey)) &&
        (taken === undefined || taken === key);
    }
    const values = usable ? (plan as RowPlan).row.codec.toEcs(value) : undefined;
    if (values === undefined) {
      custom ??= {};
      custom[key] = value;
      continue;
    }
    const { row, paths } = plan as RowPlan;
    for (let i = 0; i < paths.length; i++) {
      if (values[i] !== undefined) setPath(doc, paths[i]!, values[i]);
    }
    if (row.alias === true) {
      aliasFor ??= new Map();
      aliasFor.set((plan as RowPlan).field, key);
      aliases ??= {};
      aliases[key] = (plan as RowPlan).field;
    }
    if (row.codec.toLeef(values) !== value) {
      verbatim ??= {};
      verbatim[key] = value;
    }
  }
  if (options.index !== undefined) setPath(doc, LABELS_LAB_INDEX, String(options.index));

  let related: string[] | null = null;
  for (let r = 0; r < RELATED_PATHS.length; r++) {
    const v = getPath(doc, RELATED_PATHS[r]!);
    if (typeof v !== 'string') continue;
    related ??= [];
    if (!related.includes(v)) related.push(v);
  }
  if (related !== null) setPath(doc, RELATED_IP, related);
  if (options.rawLine !== undefined) setPath(doc, EVENT_ORIGINAL, options.rawLine);
  if (options.prefix !== undefined && options.prefix !== '') {
    const syslog = syslogHeaderToEcs(options.prefix, options.scratch?.ecsHeader);
    if (syslog !== null) setPath(doc, LOG_SYSLOG, syslog);
  }
  // Objects that got no key are left out, as Object.keys(...).length > 0 would; a key like
  // `__proto__` (which a plain assignment does not add) leaves its object empty the same way.
  if (aliases !== null && Object.keys(aliases).length > 0) leef.aliases = aliases;
  if (verbatim !== null && Object.keys(verbatim).length > 0) leef.verbatim = verbatim;
  if (custom !== null && Object.keys(custom).length > 0) leef.attributes = custom;
  doc.leef = leef;
  return doc;
}

// new Date() accepts up to ±8.64e15 ms.
const MAX_DATE_MS = 8.64e15;

/** A mapping row with its field paths split once. */
interface RowPlan {
  readonly row: MappingRow;
  readonly paths: ReadonlyArray<readonly string[]>;
  /** The row's first field. */
  readonly field: string;
  /** For a secondary key: the LEEF key of the primary row of its field. */
  readonly primaryKey: string | undefined;
}

const PLANS: ReadonlyMap<string, RowPlan> = new Map(
  [...ROWS_BY_LEEF_KEY].map(([key, row]) => [
    key,
    {
      row,
      paths: row.ecs.map((path) => path.split('.')),
      field: row.ecs[0] as string,
      primaryKey: row.alias === true ? PRIMARY_ROW_BY_FIELD.get(row.ecs[0] as string)?.leef : undefined,
    },
  ]),
);

/**
 * PLANS by a key's length and first and last characters: every attribute of every event is looked
 * up, and a Map first hashes the whole key, a new string each time (≈ 0.3 µs per event). Built
 * once at load and never changed (the tables of this module are constants, not per-shipment state).
 */
const PLAN_BUCKETS: ReadonlyArray<ReadonlyArray<readonly [string, RowPlan]> | undefined> = bucketsOf(PLANS);

function bucketsOf(plans: ReadonlyMap<string, RowPlan>): Array<Array<[string, RowPlan]> | undefined> {
  const buckets: Array<Array<[string, RowPlan]> | undefined> = [];
  for (const [key, plan] of plans) {
    const b = bucketOf(key);
    buckets[b] = [...(buckets[b] ?? []), [key, plan]];
  }
  return buckets;
}

function bucketOf(key: string): number {
  const n = key.length;
  return n === 0 ? 0 : (n * 31 + key.charCodeAt(0) * 7 + key.charCodeAt(n - 1)) & 1023;
}

/** PLANS.get(key). */
function planOf(key: string): RowPlan | undefined {
  const bucket = PLAN_BUCKETS[bucketOf(key)];
  if (bucket === undefined) return undefined;
  for (let i = 0; i < bucket.length; i++) {
    const entry = bucket[i] as readonly [string, RowPlan];
    if (entry[0] === key) return entry[1];
  }
  return undefined;
}

const RELATED_PATHS = RELATED_IP_FIELDS.map((path) => path.split('.'));
const OBSERVER_VENDOR = ['observer', 'vendor'];
const OBSERVER_PRODUCT = ['observer', 'product'];
const OBSERVER_VERSION = ['observer', 'version'];
const EVENT_CODE = ['event', 'code'];
const LABELS_LAB_INDEX = ['labels', 'labIndex'];
const RELATED_IP = ['related', 'ip'];
const EVENT_ORIGINAL = ['event', 'original'];
const LOG_SYSLOG = ['log', 'syslog'];

function setPath(doc: EcsDocument, parts: readonly string[], value: unknown): void {
  let holder: Record<string, unknown> = doc;
  const last = parts.length - 1;
  for (let i = 0; i < last; i++) {
    const part = parts[i]!;
    const next = holder[part];
    if (isPlainObject(next)) holder = next;
    else {
      const created: Record<string, unknown> = {};
      holder[part] = created;
      holder = created;
    }
  }
  holder[parts[last]!] = value;
}

function getPath(doc: EcsDocument, parts: readonly string[]): unknown {
  let value: unknown = doc;
  for (let i = 0; i < parts.length; i++) {
    if (!isPlainObject(value)) return undefined;
    value = value[parts[i]!];
  }
  return value;
}
