import { isIpAddress } from './ip-address.ts';

/**
 * How one LEEF value maps to the values of its ECS fields and back. `toEcs` returns undefined when
 * the value does not fit the ECS type (the attribute is then kept as a custom one, never lost);
 * `toLeef` returns undefined when the ECS values give nothing to write.
 */
export interface Codec {
  readonly name: string;
  toEcs(value: string): ReadonlyArray<unknown> | undefined;
  toLeef(values: ReadonlyArray<unknown>): string | undefined;
}

/** One row of the LEEF ⇄ ECS table (protocols §2.2/§2.3). */
export interface MappingRow {
  readonly leef: string;
  /** ECS fields the value fills; the first is the one the row is about. */
  readonly ecs: readonly string[];
  readonly codec: Codec;
  /** A second LEEF key for the same field: used only when the first key is absent from the event. */
  readonly alias?: boolean;
  readonly note?: string;
}

const text: Codec = {
  name: 'text',
  toEcs: (v) => [v],
  toLeef: ([v]) => scalar(v),
};

const ip: Codec = {
  name: 'IP address',
  toEcs: (v) => (isIpAddress(v) ? [v] : undefined),
  toLeef: ([v]) => (typeof v === 'string' && v !== '' ? v : undefined),
};

const port: Codec = {
  name: 'port 0-65535',
  toEcs: (v) => (/^\d{1,5}$/.test(v) && Number(v) <= 65535 ? [Number(v)] : undefined),
  toLeef: ([v]) => {
    const n = integerOf(v);
    return n !== undefined && n >= 0 && n <= 65535 ? String(n) : undefined;
  },
};

const count: Codec = {
  name: 'count',
  toEcs: (v) => (/^\d{1,15}$/.test(v) ? [Number(v)] : undefined),
  toLeef: ([v]) => {
    const n = integerOf(v);
    return n !== undefined && n >= 0 ? String(n) : undefined;
  },
};

const severity: Codec = {
  name: 'severity, written clamped to 1-10',
  toEcs: (v) => (/^-?\d{1,9}$/.test(v) ? [Number(v)] : undefined),
  toLeef: ([v]) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    return Number.isFinite(n) ? String(Math.min(10, Math.max(1, Math.round(n)))) : undefined;
  },
};

const MAC = /^[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}$/;
const mac: Codec = {
  name: 'MAC: LEEF colons, ECS RFC 7042 (upper-case, hyphens)',
  toEcs: (v) => (MAC.test(v) ? [v.toUpperCase().replaceAll(':', '-')] : undefined),
  toLeef: ([v]) => (typeof v === 'string' && MAC.test(v) ? v.toUpperCase().replaceAll('-', ':') : undefined),
};

/** IANA protocol numbers for the transports ECS names in `network.transport`. */
export const IANA_PROTOCOLS: ReadonlyMap<string, number> = new Map([
  ['icmp', 1],
  ['igmp', 2],
  ['tcp', 6],
  ['udp', 17],
  ['gre', 47],
  ['esp', 50],
  ['ah', 51],
  ['ipv6-icmp', 58],
  ['ospf', 89],
  ['sctp', 132],
]);
const IANA_NAMES = new Map([...IANA_PROTOCOLS].map(([name, n]) => [n, name]));

const proto: Codec = {
  name: 'IANA number or keyword: network.transport (lower-case) and network.iana_number',
  toEcs: (v) => {
    if (/^\d{1,3}$/.test(v)) {
      const n = Number(v);
      return n <= 255 ? [IANA_NAMES.get(n), String(n)] : undefined;
    }
    if (!/^[A-Za-z][A-Za-z0-9._+-]{0,31}$/.test(v)) return undefined;
    const name = v.toLowerCase();
    const n = IANA_PROTOCOLS.get(name);
    return [name, n === undefined ? undefined : String(n)];
  },
  toLeef: ([transport, iana]) => scalar(transport) ?? scalar(iana),
};

const list: Codec = {
  name: 'list (comma-joined in LEEF)',
  toEcs: (v) => [[v]],
  toLeef: ([v]) => {
    if (Array.isArray(v)) {
      const parts = v.map(scalar);
      return parts.length > 0 && parts.every((p) => p !== undefined) ? parts.join(',') : undefined;
    }
    return scalar(v);
  },
};

/**
 * The LEEF attribute ⇄ ECS field table. Both directions derive from it: leefToEcs maps each
 * attribute by its row, ecsToLeef writes each row back from its ECS fields. Header fields, devTime,
 * the raw line and keys not listed are handled by the converters (see HEADER_MAPPING and
 * docs/leef-ecs-mapping.md).
 */
export const LEEF_ECS_MAPPING: readonly MappingRow[] = [
  { leef: 'src', ecs: ['source.ip'], codec: ip, note: 'also added to related.ip' },
  { leef: 'dst', ecs: ['destination.ip'], codec: ip, note: 'also added to related.ip' },
  { leef: 'srcPort', ecs: ['source.port'], codec: port },
  { leef: 'dstPort', ecs: ['destination.port'], codec: port },
  {
    leef: 'srcPreNAT',
    ecs: ['source.ip'],
    codec: ip,
    alias: true,
    note: 'pre-NAT is the primary address in ECS',
  },
  { leef: 'dstPreNAT', ecs: ['destination.ip'], codec: ip, alias: true },
  { leef: 'srcPreNATPort', ecs: ['source.port'], codec: port, alias: true },
  { leef: 'dstPreNATPort', ecs: ['destination.port'], codec: port, alias: true },
  { leef: 'srcPostNAT', ecs: ['source.nat.ip'], codec: ip },
  { leef: 'dstPostNAT', ecs: ['destination.nat.ip'], codec: ip },
  { leef: 'srcPostNATPort', ecs: ['source.nat.port'], codec: port },
  { leef: 'dstPostNATPort', ecs: ['destination.nat.port'], codec: port },
  { leef: 'usrName', ecs: ['user.name'], codec: text },
  { leef: 'accountName', ecs: ['user.name'], codec: text, alias: true },
  { leef: 'domain', ecs: ['user.domain'], codec: text },
  { leef: 'role', ecs: ['user.roles'], codec: list },
  { leef: 'groupID', ecs: ['group.id'], codec: text },
  { leef: 'srcMAC', ecs: ['source.mac'], codec: mac },
  { leef: 'dstMAC', ecs: ['destination.mac'], codec: mac },
  { leef: 'proto', ecs: ['network.transport', 'network.iana_number'], codec: proto },
  { leef: 'sev', ecs: ['event.severity'], codec: severity, note: "the source's own scale, kept as is" },
  {
    leef: 'cat',
    ecs: ['event.action'],
    codec: text,
    note: 'not event.category, which takes only ECS values',
  },
  { leef: 'act', ecs: ['event.action'], codec: text, alias: true },
  { leef: 'action', ecs: ['event.action'], codec: text, alias: true },
  { leef: 'msg', ecs: ['message'], codec: text },
  { leef: 'identSrc', ecs: ['host.ip'], codec: ip, note: 'also added to related.ip' },
  { leef: 'identHostName', ecs: ['host.hostname'], codec: text },
  { leef: 'identNetBios', ecs: ['host.name'], codec: text },
  { leef: 'identGrpName', ecs: ['group.name'], codec: text },
  { leef: 'identMAC', ecs: ['host.mac'], codec: mac },
  { leef: 'srcBytes', ecs: ['source.bytes'], codec: count },
  { leef: 'dstBytes', ecs: ['destination.bytes'], codec: count },
  { leef: 'srcPackets', ecs: ['source.packets'], codec: count },
  { leef: 'dstPackets', ecs: ['destination.packets'], codec: count },
  { leef: 'totalPackets', ecs: ['network.packets'], codec: count },
  { leef: 'url', ecs: ['url.original'], codec: text },
  { leef: 'policy', ecs: ['rule.name'], codec: text },
  { leef: 'dvc', ecs: ['observer.ip'], codec: ip, note: 'also added to related.ip' },
  { leef: 'dvchost', ecs: ['observer.hostname'], codec: text },
  { leef: 'labIndex', ecs: ['labels.labIndex'], codec: text, note: 'the lab index (custom LEEF key)' },
];

/** The parts of a LEEF event outside the attribute table, for the documentation. */
export const HEADER_MAPPING: ReadonlyArray<{
  readonly leef: string;
  readonly ecs: string;
  readonly note: string;
}> = [
  { leef: 'whole line', ecs: 'event.original', note: 'as given by the caller (the rebased line)' },
  { leef: 'header Vendor', ecs: 'observer.vendor', note: 'back: else the default vendor' },
  { leef: 'header Product', ecs: 'observer.product', note: 'back: else the default product' },
  { leef: 'header Version', ecs: 'observer.version', note: 'back: else the default version' },
  {
    leef: 'header EventID',
    ecs: 'event.code',
    note: 'back: else event.action, else the default; at most 255 characters',
  },
  {
    leef: 'LEEF version, delimiter',
    ecs: 'leef.version, leef.delimiter',
    note: 'back: 1.0 with TAB, 2.0 with `^`',
  },
  {
    leef: 'event time (devTime, else syslog header)',
    ecs: '@timestamp',
    note: 'ISO 8601 UTC with milliseconds',
  },
  {
    leef: 'devTime, devTimeFormat (raw)',
    ecs: 'leef.devTime, leef.devTimeFormat',
    note: 'back: devTime = @timestamp in epoch ms, or rendered with devTimeFormat when a formatter is given',
  },
  {
    leef: 'syslog header before `LEEF:` (RFC 3164, RFC 5424)',
    ecs: 'log.syslog.*',
    note: 'priority, facility.code/name, severity.code/name, hostname; RFC 5424 also version and the appname, procid, msgid that are not `-` (when STRUCTURED-DATA follows them); RFC 3164 appname and procid from a TAG `name[pid]:`. Not written back: ECS → LEEF writes no syslog header',
  },
  {
    leef: 'any other key',
    ecs: 'leef.attributes.<key>',
    note: 'back: the same key; unmapped ECS fields become custom keys named by their dotted path',
  },
];

/** LEEF keys IBM predefines (protocols §1.3): custom keys written from ECS must not take these names. */
export const PREDEFINED_LEEF_KEYS: ReadonlySet<string> = new Set([
  'cat',
  'devTime',
  'devTimeFormat',
  'proto',
  'sev',
  'src',
  'dst',
  'srcPort',
  'dstPort',
  'srcPreNAT',
  'dstPreNAT',
  'srcPostNAT',
  'dstPostNAT',
  'srcPreNATPort',
  'dstPreNATPort',
  'srcPostNATPort',
  'dstPostNATPort',
  'usrName',
  'srcMAC',
  'dstMAC',
  'identSrc',
  'identHostName',
  'identNetBios',
  'identGrpName',
  'identMAC',
  'vSrc',
  'vSrcName',
  'accountName',
  'srcBytes',
  'dstBytes',
  'srcPackets',
  'dstPackets',
  'totalPackets',
  'role',
  'realm',
  'policy',
  'resource',
  'url',
  'groupID',
  'domain',
  'isLoginEvent',
  'isLogoutEvent',
  'identSecondlp',
  'calLanguage',
  'calCountryOrRegion',
]);

/** Rows by LEEF key. */
export const ROWS_BY_LEEF_KEY: ReadonlyMap<string, MappingRow> = new Map(
  LEEF_ECS_MAPPING.map((row) => [row.leef, row]),
);

/** The non-alias row of each ECS field a row is about. */
export const PRIMARY_ROW_BY_FIELD: ReadonlyMap<string, MappingRow> = new Map(
  LEEF_ECS_MAPPING.filter((row) => row.alias !== true).map((row) => [row.ecs[0]!, row]),
);

/** ECS fields that take an IP address, collected into related.ip. */
export const RELATED_IP_FIELDS: readonly string[] = LEEF_ECS_MAPPING.filter(
  (row) => row.codec === ip && row.alias !== true,
).map((row) => row.ecs[0]!);

function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

function integerOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return undefined;
}
