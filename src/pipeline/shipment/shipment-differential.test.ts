// Differential tests of the byte-level LEEF path (byte-lines.ts, leef-bytes.ts, leef-line-reader.ts,
// leef-line-batch.ts, and the frame writer of pipeline/frames that writes frames from the bytes) against the string
// reference: readEventTime over every line of the shipment with one RebaseContext, finishFirstPass,
// then shiftLine and setAttribute(labIndex) per line; for the frames, the header writer and
// the framing of src/pipeline/syslog on top. Shipments are random zips of random lines, so the
// whole production path runs: archive reading, line splitting, pass 1 with its line indexes, and
// pass 2 with or without retained chunks. The byte splitter is also held to the string splitter
// under arbitrary chunk cuts. Every clock is fixed, so a seed replays exactly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import { leefLine, mutatedLine, noisyLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { capturePieces } from '../../../test/helpers/frame-capture.ts';
import { type ByteLineBatch, lineText, SplitMemo, splitByteLines } from '../archive/byte-lines.ts';
import { splitLines } from '../archive/split-lines.ts';
import { INFLATE_CHUNK_BYTES } from '../archive/zip-archive.ts';
import { shipmentFrames } from '../frames/shipment-frames.ts';
import { createSyslogEncoding, type SyslogEncoderSettings } from '../frames/syslog-encode.ts';
import { type RebasedLine, rebasedLine } from '../leef/leef-line-batch.ts';
import { LeefLineReader } from '../leef/leef-line-reader.ts';
import {
  createRebaseContext,
  finishFirstPass,
  finishYearlessPass,
  readEventTime,
  shiftLine,
  yearlessPassContext,
} from '../leef/leef-rebase.ts';
import { setAttribute } from '../leef/set-attribute.ts';
import { frameLf, frameOctetCounted } from '../syslog/framing.ts';
import { createHeaderWriter } from '../syslog/header-mode.ts';
import type { Framing, HeaderMode, SyslogFormat } from '../syslog/syslog-options.ts';
import { compileDateFormat } from '../time/date-format.ts';
import { formatRfc3164Time } from '../time/rfc3164-time.ts';
import type { OutboundEvent } from './outbound-event.ts';
import { type PreparedShipment, prepareShipment, type ShipmentSource } from './prepare-shipment.ts';
import { leefLineBatches, shipmentEvents } from './shipment-events.ts';

/** The shipment's now and, a little later, the shipping time a driver uses for headers. */
const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const SHIP_NOW = NOW + 61_234;
const DAY = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Generators

/** Event instants: mostly recent, some anywhere 13-digit epoch milliseconds reach, some edges. */
const instant = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: Date.UTC(2023, 0, 1), max: Date.UTC(2026, 11, 31) }) },
  { weight: 2, arbitrary: fc.integer({ min: Date.UTC(2002, 0, 1), max: Date.UTC(2286, 10, 20) }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2025, 11, 31, 23, 59, 59, 500),
      Date.UTC(2026, 0, 1, 0, 0, 0),
      NOW,
      NOW + 2 * 3_600_000,
      NOW + 3 * DAY,
      NOW - 200 * DAY,
    ),
  },
);

/** devTimeFormat patterns: with and without year, zone, fraction, 12-hour clock, names. */
const PATTERNS = [
  'MMM dd yyyy HH:mm:ss',
  'MMM dd yyyy HH:mm:ss.SSS z',
  "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  "yyyy-MM-dd'T'HH:mm:ss",
  'MMM dd HH:mm:ss',
  'MMM d HH:mm:ss',
  'dd/MMM/yyyy:HH:mm:ss Z',
  'EEE MMM dd HH:mm:ss zzz yyyy',
  'yyyyMMddHHmmss',
  'MM/dd/yyyy hh:mm:ss a',
  'yyyy-MM-dd HH:mm:ss,SSS',
  'dd.MM.yy HH:mm',
];
const SUGGESTED = ['MMM dd yyyy HH:mm:ss', 'MMM dd yyyy HH:mm:ss.SSS', 'MMM dd yyyy HH:mm:ss.SSS z'];

/** A devTime value and its devTimeFormat (null: none). */
type DevTime = { value: string; format: string | null };

const devTime: fc.Arbitrary<DevTime> = fc.oneof(
  { weight: 4, arbitrary: instant.map((ms) => ({ value: String(ms), format: null })) },
  {
    weight: 2,
    arbitrary: instant.map((ms) => ({ value: String(Math.floor(ms / 1000)), format: null })),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(instant, fc.constantFrom(...PATTERNS))
      .map(([ms, p]) => ({ value: compileDateFormat(p).format(ms), format: p })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(instant, fc.constantFrom(...SUGGESTED))
      .map(([ms, p]) => ({ value: compileDateFormat(p).format(ms), format: null })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(instant, fc.constantFrom('Z', '+02:00', '-0530', ''), fc.constantFrom(0, 1, 3, 6))
      .map(([ms, zone, digits]) => ({ value: isoText(ms, zone, digits), format: null })),
  },
  {
    weight: 1,
    // Unreadable, or epoch digits next to a pattern they do not match (read as epoch).
    arbitrary: fc.record({
      value: fc.constantFrom('soon', '', '1710148502.5', '17101485021234', '171014850', '1710148502123'),
      format: fc.constantFrom(null, 'MMM dd yyyy HH:mm:ss', 'no pattern [', ''),
    }),
  },
);

/** An ISO 8601 text of `ms` with `zone` ('' for none) and `digits` fraction digits. */
function isoText(ms: number, zone: string, digits: number): string {
  const offset = zone === '+02:00' ? 2 * 3_600_000 : zone === '-0530' ? -5.5 * 3_600_000 : 0;
  const text = new Date(ms + offset).toISOString();
  const fraction = digits === 0 ? '' : `.${`${text.slice(20, 23)}456789`.slice(0, digits)}`;
  return `${text.slice(0, 19)}${fraction}${zone}`;
}

const host = fc.constantFrom('fw01', '192.168.1.1', 'host-a', 'h', 'LEEF-gw');

/** RFC 3164 header (PRI optional, day space- or zero-padded, year optional, a TAG sometimes). */
const rfc3164Header = fc
  .record({
    pri: fc.option(fc.integer({ min: 0, max: 191 })),
    ms: instant,
    zero: fc.boolean(),
    year: fc.boolean(),
    host,
    tag: fc.constantFrom('', '', 'sshd[22]: ', 'tag: '),
  })
  .map(
    ({ pri, ms, zero, year, host, tag }) =>
      `${pri === null ? '' : `<${pri}>`}${formatRfc3164Time(ms, zero, year)} ${host} ${tag}`,
  );

/** RFC 5424 header (timestamp with various fractions and zones, or the NILVALUE). */
const rfc5424Header = fc
  .record({
    pri: fc.integer({ min: 0, max: 191 }),
    ms: instant,
    zone: fc.constantFrom('Z', '+02:00', '-0530'),
    digits: fc.constantFrom(0, 1, 3, 6, 9),
    nil: fc.integer({ min: 0, max: 9 }),
    rest: fc.constantFrom('- - - ', 'app 1234 ID47 - ', 'logforwarder - panwlogs - '),
    host,
  })
  .map(({ pri, ms, zone, digits, nil, rest, host }) => {
    // RFC 5424 writes the offset with a colon.
    const ts = nil === 0 ? '-' : isoText(ms, zone, digits).replace(/-0530$/, '-05:30');
    return `<${pri}>1 ${ts} ${host} ${rest}`;
  });

/** What stands before `LEEF:`: nothing, a header (sometimes behind an octet count), or other text. */
const prefix = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: rfc3164Header },
  { weight: 2, arbitrary: rfc5424Header },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 99_999 }), fc.oneof(rfc5424Header, rfc3164Header))
      .filter(([, h]) => h.startsWith('<'))
      .map(([n, h]) => `${n} ${h}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '2024-01-02T03:04:05.123456+00:00 host tag: ',
      'garbage ',
      '<13>Feb 30 11:07:53 fw ',
      '<13>1 2019-13-18T11:07:53Z fw ',
      '<134>Jan  7 11:07:53 ',
    ),
  },
);

/** LEEF 2.0 delimiter fields beyond the generated shapes: `=`, spelled-out, non-ASCII, CR, space, digits. */
const ODD_FIELDS = [
  '=',
  'x3D',
  '0x3d',
  ':',
  ',',
  '~',
  'x7E',
  ' ',
  'x20',
  'xE9',
  'x2603',
  'x0D',
  '\\',
  'x0',
  '0',
  '7',
  'c',
];

/** A delimiter field value (only to join attributes with: the line is read as it comes out). */
function delimiterFor(field: string): string {
  if (field.length === 1) return field;
  const hex = field.startsWith('0x') ? field.slice(2) : field.slice(1);
  return String.fromCharCode(Number.parseInt(hex, 16));
}

/** Values of attributes: plain, empty, holding `=`, or not ASCII. */
const attrValue = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-zA-Z0-9 .:/_-]{0,12}$/) },
  { weight: 1, arbitrary: fc.constantFrom('a=b', '=', 'x^y', 'p|q', 'tab\there', '') },
  { weight: 1, arbitrary: fc.constantFrom('Jürgen', 'café ☃', '😀', 'Ω=1', '\u00a0') },
);

type Shape = {
  head: string;
  delimiter: string;
  attributes: Array<[string, string]>;
  eol: string;
};

/** A LEEF line's parts: from the shared generator, or LEEF 2.0 with an odd delimiter. */
const shape: fc.Arbitrary<Shape> = fc.oneof(
  {
    weight: 3,
    arbitrary: leefLine.map((g) => ({
      head: `LEEF:${g.version}|${g.vendor}|${g.product}|${g.productVersion}|${g.eventId}|${
        g.delimiterField === null ? '' : `${g.delimiterField}|`
      }`,
      delimiter: g.delimiter,
      attributes: g.attributes,
      eol: g.eol === '\n' ? '' : g.eol,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        field: fc.constantFrom(...ODD_FIELDS),
        keys: fc.uniqueArray(fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,8}$/), { maxLength: 5 }),
        values: fc.array(attrValue, { minLength: 5, maxLength: 5 }),
      })
      .map(({ field, keys, values }) => ({
        head: `LEEF:2.0|Acme|FW|1.0|E7|${field}|`,
        delimiter: delimiterFor(field),
        attributes: keys.map((k, i): [string, string] => [k, values[i] ?? '']),
        eol: '',
      })),
  },
);

/** A LEEF line with a syslog prefix, maybe devTime (and its format), maybe a labIndex already. */
const timedLine = fc
  .record({
    prefix,
    shape,
    dev: fc.option(devTime, { freq: 4 }),
    devAt: fc.nat(),
    fmtAt: fc.nat(),
    // Now and then the line carries a labIndex already (setAttribute replaces it).
    lab: fc.oneof(
      { weight: 7, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom('old', '') },
    ),
    extra: fc.option(fc.tuple(fc.constantFrom('usrName', 'msg'), attrValue), { freq: 3 }),
  })
  .map(({ prefix, shape, dev, devAt, fmtAt, lab, extra }) => {
    const attrs = shape.attributes.filter(([k]) => k !== 'devTime' && k !== 'devTimeFormat');
    const insert = (at: number, pair: [string, string]) => attrs.splice(at % (attrs.length + 1), 0, pair);
    if (extra !== null) insert(devAt + 1, extra);
    if (dev !== null) {
      insert(devAt, ['devTime', dev.value]);
      if (dev.format !== null) insert(fmtAt, ['devTimeFormat', dev.format]);
    }
    if (lab !== null) insert(fmtAt + 2, ['labIndex', lab]);
    return `${prefix}${shape.head}${attrs.map(([k, v]) => `${k}=${v}`).join(shape.delimiter)}${shape.eol}`;
  });

/** A line the first-entry check accepts: the prefix ends with a space or is empty, `LEEF:` intact. */
const firstLine = timedLine.filter((l) => /^(?:|.*? )LEEF:[12]\.0\|/.test(l.split('\n')[0] ?? ''));

/** Any line an archive may hold. */
const anyLine = fc.oneof(
  { weight: 10, arbitrary: timedLine },
  { weight: 2, arbitrary: mutatedLine },
  { weight: 2, arbitrary: noisyLine },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.oneof(rfc3164Header, rfc5424Header), attrValue).map(([h, m]) => h + m),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

/** Line endings, with extra CRs, blank lines and whitespace-only lines among them. */
const eol = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r\n', '\r\r\n', '\n\n', '\n \t\n', '\r\n\r\n');

/** An archive entry, kept as text so that a counterexample reads as text. */
interface EntrySpec {
  name: string;
  text: string;
  /** Starts with a UTF-8 byte order mark. */
  bom: boolean;
  /** Ends with a line holding invalid UTF-8 (Latin-1 bytes). */
  invalid: boolean;
  /** 8 deflated, 0 stored. */
  method: number;
}

/** The bytes of an entry. */
function entryData(e: EntrySpec): Buffer {
  const parts = [Buffer.from(e.text, 'utf8')];
  if (e.bom) parts.unshift(Buffer.from([0xef, 0xbb, 0xbf]));
  if (e.invalid) parts.push(Buffer.from('\nLEEF:1.0|V|P|1|E|a=\xe9\xff', 'latin1'));
  return Buffer.concat(parts);
}

/** One archive entry: a LEEF first line, then any lines, BOM and last terminator optional. */
const entry = fc.record({
  first: firstLine,
  rest: fc.array(fc.tuple(eol, anyLine), { maxLength: 24 }),
  last: fc.constantFrom('', '\n', '\r\n', '\r', '\r\r', '\n\n'),
  bom: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  invalid: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
  ext: fc.constantFrom('log', 'txt'),
  method: fc.constantFrom(8, 8, 0),
});

/** Sources of a shipment: 1-2 archives of 1-2 entries each. */
const sources = fc
  .array(fc.array(entry, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 })
  .map((archives) =>
    archives.map((entries): EntrySpec[] =>
      entries.map((e, j) => ({
        name: `logs/e${j}.${e.ext}`,
        text: `${e.first}${e.rest.map(([eol, l]) => eol + l).join('')}${e.last}`,
        bom: e.bom,
        invalid: e.invalid,
        method: e.method,
      })),
    ),
  );

/** Pass 2 keeps everything, nothing, or only the tail of what pass 1 inflated. */
const retainBytes = fc.constantFrom<number | undefined>(undefined, 0, 1, 37, 200, 1 << 20);

const labIndex = fc.option(fc.constantFrom('noise-web', 'a|b', 'x^y', 'lab 1', 'x\ty', 'é-lab', ''), {
  freq: 2,
});

const HEADER_MODES: readonly HeaderMode[] = ['preserve_raw', 'synthesize_if_missing', 'force_synthesize'];
const FORMATS: readonly SyslogFormat[] = ['rfc3164', 'rfc5424'];
const FRAMINGS: readonly Framing[] = ['lf', 'octet_counting'];

/** Settings of the claimed consumer (the syslog_tcp encoder). */
const encoderSettings: fc.Arbitrary<SyslogEncoderSettings & { chunkBytes: number }> = fc.record({
  header: fc.record({
    mode: fc.constantFrom(...HEADER_MODES),
    format: fc.constantFrom(...FORMATS),
    sourceIdentity: fc.constantFrom<string | null>('lab-1', 'lab-1', 'bad host', null),
  }),
  framing: fc.constantFrom(...FRAMINGS),
  maxMessageBytes: fc.constantFrom(65_536, 65_536, 140, 220),
  now: fc.constant(SHIP_NOW),
  chunkBytes: fc.constantFrom(8192, 300),
});

// ---------------------------------------------------------------------------------------------
// Reference

/** The non-empty lines of an entry as the string splitter defines them (decoded line by line). */
function referenceLines(data: Buffer): string[] {
  const out: string[] = [];
  let start = 0;
  let number = 0;
  while (start < data.length) {
    let nl = data.indexOf(0x0a, start);
    if (nl < 0) nl = data.length;
    number++;
    let s = start;
    let e = nl;
    start = nl + 1;
    if (e > s && data[e - 1] === 0x0d) e--;
    if (number === 1 && e - s >= 3 && data[s] === 0xef && data[s + 1] === 0xbb && data[s + 2] === 0xbf)
      s += 3;
    if (e === s) continue;
    const line = data.toString('utf8', s, e);
    if (line.charCodeAt(0) <= 32 && line.charCodeAt(line.length - 1) <= 32 && line.trim() === '') continue;
    out.push(line);
  }
  return out;
}

interface Expected {
  shiftMs: number;
  unreadable: number;
  /** Per source: the lines as pass 2 must give them, and their event times. */
  events: OutboundEvent[][];
}

/** Both passes of the string reference over the entries of every source, in shipment order. */
function reference(archives: EntrySpec[][], lab: string | null): Expected {
  const lines = archives.map((entries) =>
    [...entries].sort((a, b) => (a.name < b.name ? -1 : 1)).flatMap((e) => referenceLines(entryData(e))),
  );
  const ctx = createRebaseContext(NOW);
  for (const source of lines) for (const line of source) readEventTime(line, ctx);
  let shiftMs = finishFirstPass(ctx, NOW);
  const again = yearlessPassContext(ctx);
  if (again !== null) {
    for (const source of lines) for (const line of source) readEventTime(line, again);
    shiftMs = finishYearlessPass(ctx, again, NOW);
  }
  const events = lines.map((source) =>
    source.map((line) => {
      const shifted = shiftLine(line, shiftMs, ctx);
      const time = ctx.lastEventMs;
      return { line: lab === null ? shifted : setAttribute(shifted, 'labIndex', lab), time };
    }),
  );
  return { shiftMs, unreadable: ctx.unreadable, events };
}

/** What the syslog_tcp driver must send for `events`: frames in order, and the refusals (sorted: a frame pass counts them per reason). */
function referenceFrames(events: readonly OutboundEvent[], settings: SyslogEncoderSettings) {
  const writer = createHeaderWriter(settings.header);
  const { noHeader, tooLong } = createSyslogEncoding(settings);
  const frame = settings.framing === 'lf' ? frameLf : frameOctetCounted;
  let frames = '';
  const refusals: string[] = [];
  for (const event of events) {
    const msg = writer.apply(event.line as string, event.time, settings.now);
    if (msg === null) refusals.push(noHeader.error);
    else if (Buffer.byteLength(msg, 'utf8') > settings.maxMessageBytes) refusals.push(tooLong.error);
    else frames += frame(msg);
  }
  return { frames, refusals: refusals.sort() };
}

// ---------------------------------------------------------------------------------------------
// The pipeline

function zipOf(entries: readonly EntrySpec[], i: number): ShipmentSource {
  // Entries are written in reverse, with a file that is not read: the reader sorts and selects.
  const specs = [...entries].reverse().map((e) => ({ name: e.name, data: entryData(e), method: e.method }));
  specs.splice(1, 0, { name: 'README.md', data: Buffer.from('not shipped'), method: 8 });
  return { data: buildZip(specs), kind: 'zip', label: `noise/${i}.zip` };
}

/** Pass 2 read as events, the way HEC and the ECS conversion read it. */
async function readEvents(shipment: PreparedShipment, source: number, lab: string | null) {
  const out: OutboundEvent[] = [];
  for await (const batch of shipmentEvents(shipment, source, { kind: 'leef', labIndex: lab })) {
    for (const e of batch) out.push({ line: e.line, time: e.time });
  }
  return out;
}

/** Pass 2's lines held as bytes (leefLineBatches), each rebuilt from the bytes as the frame writer's slow path does. */
async function readLines(shipment: PreparedShipment, source: number, lab: string | null) {
  const out: OutboundEvent[] = [];
  const reader = new LeefLineReader();
  const rebased: RebasedLine = { line: '', time: null };
  for await (const lines of leefLineBatches(shipment, source, lab)) {
    for (const segment of lines.segments) {
      const index = lines.indexes === null ? null : lines.indexes.find(segment, lines.entry);
      for (let j = 0; j < segment.starts.length; j++) {
        const { line, time } = rebasedLine(lines, reader, segment, j, rebased, index);
        out.push({ line, time });
      }
    }
  }
  return out;
}

/** Pass 2 as syslog frames (shipmentFrames: the frame writer, LeefFrameWriter for what it covers). */
async function readFrames(
  shipment: PreparedShipment,
  source: number,
  lab: string | null,
  settings: SyslogEncoderSettings & { chunkBytes: number },
) {
  const format = { ...settings, longFrameBytes: Number.POSITIVE_INFINITY };
  const captured = await capturePieces(
    shipmentFrames(shipment, source, format, { labIndex: lab, now: settings.now }),
  );
  return { frames: captured.bytes.toString('utf8'), refusals: [...captured.refusals].sort() };
}

/** Who reads pass 2: events, lines as bytes, both side by side, or syslog frames. */
type Consumer = 'events' | 'lines' | 'both' | 'frames';
const consumer = fc.constantFrom<Consumer>('events', 'lines', 'both', 'frames', 'frames');

/** Prepares the shipment, checks pass 1, and runs pass 2 of every source through `who`. */
async function checkShipment(
  archives: EntrySpec[][],
  retain: number | undefined,
  lab: string | null,
  who: Consumer,
  settings: SyslogEncoderSettings & { chunkBytes: number },
) {
  const expected = reference(archives, lab);
  const shipment = await prepareShipment(
    archives.map((entries, i) => zipOf(entries, i)),
    { format: 'leef', now: NOW, limits: retain === undefined ? {} : { retainBytes: retain } },
  );
  expect(shipment.shiftMs).toBe(expected.shiftMs);
  expect(shipment.unreadable).toBe(expected.unreadable);
  expect(shipment.eventsPerSource).toEqual(expected.events.map((e) => e.length));

  for (let i = 0; i < archives.length; i++) {
    const want = expected.events[i] as OutboundEvent[];
    if (who === 'events') expect(await readEvents(shipment, i, lab)).toEqual(want);
    else if (who === 'lines') expect(await readLines(shipment, i, lab)).toEqual(want);
    else if (who === 'both') {
      // Two consumers at once, as a noise run with several targets reads one shipment.
      const [events, lines] = await Promise.all([readEvents(shipment, i, lab), readLines(shipment, i, lab)]);
      expect(events).toEqual(want);
      expect(lines).toEqual(want);
    } else {
      const sent = await readFrames(shipment, i, lab, settings);
      expect(sent).toEqual(referenceFrames(want, settings));
    }
  }
}

describe('LEEF shipments on the byte path', () => {
  it('give the lines, times, frames and shift of the string reference', async () => {
    await fc.assert(
      fc.asyncProperty(
        sources,
        retainBytes,
        labIndex,
        consumer,
        encoderSettings,
        async (archives, retain, lab, who, settings) => {
          await checkShipment(archives, retain, lab, who, settings);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('give them for an entry larger than one inflated chunk, whose lines straddle chunks', async () => {
    // INFLATE_CHUNK_BYTES chunks: the repeated lines cross a chunk boundary somewhere, and a
    // small retain budget makes pass 2 inflate the head again and replay the kept tail.
    const big = fc
      .record({
        first: firstLine,
        rest: fc.array(fc.tuple(eol, anyLine), { minLength: 1, maxLength: 12 }),
        method: fc.constantFrom(8, 0),
        skew: fc.integer({ min: 0, max: 97 }),
      })
      .map(({ first, rest, method, skew }) => {
        const block = rest.map(([e, l]) => e + l).join('');
        return { first, block, skew, method };
      });
    /** The entry: the first line, spaces to move the chunk boundary, the block repeated past 1.2 chunks. */
    const bigEntry = ({
      first,
      block,
      skew,
      method,
    }: {
      first: string;
      block: string;
      skew: number;
      method: number;
    }) => {
      const repeats = Math.ceil((1.2 * INFLATE_CHUNK_BYTES) / Math.max(1, Buffer.byteLength(block)));
      const text = `${first}${' '.repeat(skew)}${block.repeat(repeats)}\n`;
      return [[{ name: 'big.log', text, bom: false, invalid: false, method }]];
    };
    await fc.assert(
      fc.asyncProperty(
        big,
        fc.constantFrom<number | undefined>(undefined, 0, 100_000),
        labIndex,
        consumer,
        encoderSettings,
        async (spec, retain, lab, who, settings) => {
          await checkShipment(bigEntry(spec), retain, lab, who, settings);
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe('splitting chunks into lines as bytes', () => {
  it('gives the lines of the string splitter, however the bytes are cut', async () => {
    const content = fc
      .record({
        // A byte order mark is dropped at the start of an entry only.
        lines: fc.array(fc.tuple(fc.oneof(anyLine, fc.constant('\ufeffLEEF:1.0|V|P|1|E|a=1')), eol), {
          maxLength: 12,
        }),
        bom: fc.integer({ min: 0, max: 4 }),
        tail: fc.constantFrom('', 'LEEF:1.0|V|P|1|E|a=1', '\r', ' \t', 'é'),
      })
      .map(({ lines, bom, tail }) => {
        const data = Buffer.from(lines.map(([l, e]) => l + e).join('') + tail, 'utf8');
        return bom === 0 ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), data]) : data;
      });
    const cut = fc.array(fc.nat(), { maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(content, cut, fc.constantFrom(1 << 20, 40), async (data, cuts, maxLine) => {
        const at = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
        const chunks = [...at, data.length].map((end, i) => data.subarray(i === 0 ? 0 : at[i - 1], end));
        async function* stream() {
          yield* chunks;
        }
        const viaStrings = await collect(async () => {
          const out: string[] = [];
          for await (const line of splitLines(stream(), 'a.log', maxLine)) out.push(line);
          return out;
        });
        const viaBytes = await collect(async () => {
          const out: string[] = [];
          for await (const batch of splitByteLines(stream(), 'a.log', maxLine)) {
            let n = 0;
            for (const segment of batch.segments) {
              for (let k = 0; k < segment.starts.length; k++) out.push(lineText(segment, k));
              n += segment.starts.length;
            }
            expect(batch.count).toBe(n);
          }
          return out;
        });
        expect(viaBytes).toEqual(viaStrings);
        if (maxLine > data.length) expect(viaBytes).toEqual({ ok: referenceLines(data) });
      }),
      { numRuns: 3000 },
    );
  });
});

describe('splitting chunks again from a SplitMemo', () => {
  it('gives the lines, offsets and line numbers of a fresh split, with the same cuts or others', async () => {
    const content = fc
      .record({
        lines: fc.array(fc.tuple(fc.oneof(anyLine, fc.constant('\ufeffLEEF:1.0|V|P|1|E|a=1')), eol), {
          maxLength: 12,
        }),
        bom: fc.integer({ min: 0, max: 4 }),
        tail: fc.constantFrom('', 'LEEF:1.0|V|P|1|E|a=1', '\r', ' \t', 'é'),
      })
      .map(({ lines, bom, tail }) => {
        const data = Buffer.from(lines.map(([l, e]) => l + e).join('') + tail, 'utf8');
        return bom === 0 ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), data]) : data;
      });
    const cuts = fc.array(fc.nat(), { maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(
        content,
        cuts,
        cuts,
        fc.constantFrom(1 << 20, 40),
        async (data, first, second, maxLine) => {
          const chunksAt = (points: number[]) => {
            const at = [...new Set(points.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
            // Copies: a later pass inflates the same bytes into other buffers.
            return [...at, data.length].map((end, i) =>
              Buffer.from(data.subarray(i === 0 ? 0 : at[i - 1], end)),
            );
          };
          const read = async (chunks: Buffer[], memo: SplitMemo | null) =>
            collect(async () => {
              const out: string[] = [];
              async function* stream() {
                yield* chunks;
              }
              const splits = memo === null ? null : memo.entry('0/a.log');
              for await (const batch of splitByteLines(stream(), 'a.log', maxLine, splits))
                out.push(...describeBatch(batch));
              return out;
            });
          const memo = new SplitMemo();
          const fresh = await read(chunksAt(first), null);
          // Pass 1 records, pass 2 replays over other buffers; then a pass cut elsewhere, which finds
          // only the chunks that happen to match.
          expect(await read(chunksAt(first), memo)).toEqual(fresh);
          const finds = countFinds(memo);
          expect(await read(chunksAt(first), memo)).toEqual(fresh);
          if ('ok' in fresh && fresh.ok.length > 0 && data.includes(0x0a))
            expect(finds.hits).toBeGreaterThan(0);
          expect(await read(chunksAt(second), memo)).toEqual(await read(chunksAt(second), null));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('splits chunks past its budget afresh', async () => {
    const data = Buffer.from('LEEF:1.0|V|P|1|E|a=1\n'.repeat(40));
    const chunks = [data.subarray(0, 300), data.subarray(300, 600), data.subarray(600)];
    async function* stream() {
      yield* chunks.map((c) => Buffer.from(c));
    }
    const memo = new SplitMemo(320);
    const lines = async () => {
      let n = 0;
      for await (const batch of splitByteLines(stream(), 'a.log', 1 << 20, memo.entry('0/a.log')))
        n += batch.count;
      return n;
    };
    expect(await lines()).toBe(40);
    const finds = countFinds(memo);
    expect(await lines()).toBe(40);
    // The first chunk's record (overhead and 14 lines' ranges) fits in 320 bytes; the second does
    // not, and from there the memo keeps nothing.
    expect(finds.hits).toBe(1);
  });
});

describe('a SplitMemo and the line length cap', () => {
  it('does not replay chunks recorded under another cap: a line too long for this one is refused', async () => {
    const data = Buffer.from(`short\n${'x'.repeat(100)}\nshort\n`);
    async function* stream() {
      yield Buffer.from(data);
    }
    const memo = new SplitMemo();
    const count = async (cap: number) => {
      let n = 0;
      for await (const batch of splitByteLines(stream(), 'a.log', cap, memo.entry('0/a.log')))
        n += batch.count;
      return n;
    };
    expect(await count(1 << 20)).toBe(3);
    await expect(count(50)).rejects.toThrow('line 2 of archive entry "a.log" is longer than 50 bytes');
    expect(await count(1 << 20)).toBe(3);
  });
});

/** Each line of a batch with its segment's entry offset and ASCII flag. */
function describeBatch(batch: ByteLineBatch): string[] {
  const out: string[] = [];
  for (const segment of batch.segments) {
    for (let k = 0; k < segment.starts.length; k++) {
      out.push(`${segment.offset}+${segment.starts[k]}${segment.ascii ? 'a' : 'u'} ${lineText(segment, k)}`);
    }
  }
  return out;
}

/** Counts the records a memo hands out from now on. */
function countFinds(memo: SplitMemo): { hits: number } {
  const counts = { hits: 0 };
  const entry = memo.entry.bind(memo);
  memo.entry = (key) => {
    const splits = entry(key);
    return {
      keep: splits.keep,
      find: (offset, buf, pending) => {
        const found = splits.find(offset, buf, pending);
        if (found !== null) counts.hits++;
        return found;
      },
    };
  };
  return counts;
}

/** The value of `run`, or the message it threw. */
async function collect(run: () => Promise<string[]>): Promise<{ ok: string[] } | { error: string }> {
  try {
    return { ok: await run() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
