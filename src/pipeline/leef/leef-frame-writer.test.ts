// LeefFrameWriter and the FrameWriter that drives it (pipeline/frames), held to the string reference for
// every header mode × RFC × framing × labIndex: shiftLine, then setAttribute(labIndex), then
// HeaderWriter.apply, then the length limit and frameLf / frameOctetCounted, as the encoder does
// for events (syslog-encode.ts). Pass 1 on bytes (LeefLineReader.eventTime) is held to
// readEventTime on the way. Lines that are not ASCII go the string path inside the encoder; they
// are mixed in on purpose. Every clock is fixed, so a seed replays exactly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefLine, mutatedLine, noisyLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { captureLines } from '../../../test/helpers/frame-capture.ts';
import type { ByteLines } from '../archive/byte-lines.ts';
import { createSyslogEncoding, type SyslogEncoderSettings } from '../frames/syslog-encode.ts';
import { frameLf, frameOctetCounted } from '../syslog/framing.ts';
import { createHeaderWriter, type HeaderModeSettings } from '../syslog/header-mode.ts';
import type { Framing, HeaderMode, SyslogFormat } from '../syslog/syslog-options.ts';
import { compileDateFormat } from '../time/date-format.ts';
import { formatRfc3164Time } from '../time/rfc3164-time.ts';
import { FRAME_NO_HEADER, FRAME_SLOW, FRAME_TOO_LONG, LeefFrameWriter } from './leef-frame-writer.ts';
import { isAsciiLine, LeefLineReader, LineIndexes } from './leef-line-reader.ts';
import {
  createRebaseContext,
  finishFirstPass,
  type RebaseContext,
  readEventTime,
  shiftLine,
} from './leef-rebase.ts';
import { setAttribute } from './set-attribute.ts';

/** The shipment's now, and the shipping time headers of events without a time carry. */
const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const SHIP_NOW = NOW + 61_234;

const MODES: readonly HeaderMode[] = ['preserve_raw', 'synthesize_if_missing', 'force_synthesize'];
const FORMATS: readonly SyslogFormat[] = ['rfc3164', 'rfc5424'];
const FRAMINGS: readonly Framing[] = ['lf', 'octet_counting'];
const LABELS: ReadonlyArray<string | null> = [null, 'noise-web'];

interface Combo {
  mode: HeaderMode;
  format: SyslogFormat;
  framing: Framing;
  labIndex: string | null;
}

/** Every header mode × RFC × framing × with/without labIndex. */
const COMBOS: readonly Combo[] = MODES.flatMap((mode) =>
  FORMATS.flatMap((format) =>
    FRAMINGS.flatMap((framing) => LABELS.map((labIndex) => ({ mode, format, framing, labIndex }))),
  ),
);

// ---------------------------------------------------------------------------------------------
// Generators

const instant = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: Date.UTC(2023, 0, 1), max: Date.UTC(2026, 11, 31) }) },
  { weight: 1, arbitrary: fc.integer({ min: Date.UTC(2002, 0, 1), max: Date.UTC(2286, 10, 20) }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(Date.UTC(2024, 1, 29, 12, 0, 0), Date.UTC(2025, 11, 31, 23, 59, 59)),
  },
);

const PATTERNS = [
  'MMM dd yyyy HH:mm:ss',
  'MMM dd HH:mm:ss',
  "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  'MM/dd/yyyy hh:mm:ss a',
];

/** `devTime=` (and `devTimeFormat=`) pairs: epoch ms and s, patterns with and without year, ISO, junk. */
const devPairs: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Array<[string, string]>>([]) },
  { weight: 3, arbitrary: instant.map((ms): Array<[string, string]> => [['devTime', String(ms)]]) },
  {
    weight: 2,
    arbitrary: instant.map((ms): Array<[string, string]> => [['devTime', String(Math.floor(ms / 1000))]]),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(instant, fc.constantFrom(...PATTERNS)).map(
      ([ms, p]): Array<[string, string]> => [
        ['devTimeFormat', p],
        ['devTime', compileDateFormat(p).format(ms)],
      ],
    ),
  },
  {
    weight: 1,
    arbitrary: instant.map((ms): Array<[string, string]> => [['devTime', new Date(ms).toISOString()]]),
  },
  { weight: 1, arbitrary: fc.constant<Array<[string, string]>>([['devTime', 'soon']]) },
);

const host = fc.constantFrom('fw01', '10.0.0.1', 'h');

/**
 * Text before `LEEF:`: none, RFC 3164 / 5424 headers (with an octet count), headers lacking a
 * HOSTNAME, other text.
 */
const prefix = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 3,
    arbitrary: fc
      .record({
        pri: fc.option(fc.integer({ min: 0, max: 191 })),
        ms: instant,
        zero: fc.boolean(),
        year: fc.boolean(),
        host,
      })
      .map(
        ({ pri, ms, zero, year, host }) =>
          `${pri === null ? '' : `<${pri}>`}${formatRfc3164Time(ms, zero, year)} ${host} `,
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        pri: fc.integer({ min: 0, max: 191 }),
        ms: instant,
        nil: fc.boolean(),
        host,
        count: fc.boolean(),
      })
      .map(({ pri, ms, nil, host, count }) => {
        const header = `<${pri}>1 ${nil ? '-' : new Date(ms).toISOString()} ${host} app - - `;
        return count ? `${header.length + 40} ${header}` : header;
      }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '<134>Jan  7 11:07:53 ',
      '<13>1 2019-01-18T11:07:53.520Z ',
      'Mar  9 23:59:58 ',
      'garbage ',
      'sshd: ',
      '12 <13>Jan 18 11:07:53 fw ',
    ),
  },
);

/** LEEF 2.0 delimiter fields beyond the shared shapes: CR, LF, space, `=`, non-ASCII, letters, digits. */
const ODD_FIELDS = ['x0D', 'x0A', ' ', 'x20', '=', 'x3D', 'xE9', '-', 'e', 'M', ':', '~', '0', 'x30', '5'];

function delimiterFor(field: string): string {
  return field.length === 1 ? field : String.fromCharCode(Number.parseInt(field.slice(1), 16));
}

const value = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[a-zA-Z0-9 .:/_-]{0,10}$/) },
  { weight: 1, arbitrary: fc.constantFrom('a=b', 'x\ty', 'p|q', 'Jürgen', '\r', 'k\rv') },
);

/** Head, delimiter, attributes and terminator of a LEEF line. */
const body = fc.oneof(
  {
    weight: 3,
    arbitrary: leefLine.map((g) => ({
      head: `LEEF:${g.version}|${g.vendor}|${g.product}|${g.productVersion}|${g.eventId}|${
        g.delimiterField === null ? '' : `${g.delimiterField}|`
      }`,
      delimiter: g.delimiter,
      attributes: g.attributes,
      eol: g.eol.replace(/\n/g, ''),
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        field: fc.constantFrom(...ODD_FIELDS),
        keys: fc.uniqueArray(fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,6}$/), { maxLength: 4 }),
        values: fc.array(value, { minLength: 4, maxLength: 4 }),
        eol: fc.constantFrom('', '', '\r', '\r\r'),
      })
      .map(({ field, keys, values, eol }) => ({
        head: `LEEF:2.0|Acme|FW|1.0|E7|${field}|`,
        delimiter: delimiterFor(field),
        attributes: keys.map((k, i): [string, string] => [k, values[i] ?? '']),
        eol,
      })),
  },
);

/** A LEEF line: prefix, body, devTime somewhere, now and then a labIndex already set. */
const timedLine = fc
  .record({ prefix, body, dev: devPairs, at: fc.nat(), lab: fc.integer({ min: 0, max: 9 }) })
  .map(({ prefix, body, dev, at, lab }) => {
    const attrs = body.attributes.filter(([k]) => k !== 'devTime' && k !== 'devTimeFormat');
    for (const pair of dev) attrs.splice(at % (attrs.length + 1), 0, pair);
    if (lab === 0) attrs.push(['labIndex', 'old']);
    return `${prefix}${body.head}${attrs.map(([k, v]) => `${k}=${v}`).join(body.delimiter)}${body.eol}`;
  });

/**
 * A header without HOSTNAME whose detection runs into the LEEF text up to a space after devTime:
 * 255 characters is as long as an RFC 5424 HOSTNAME may be, so moving devTime (whose written length
 * varies with unpadded fields) can decide whether the string path sees a header.
 */
const longHostnameLine = fc
  .record({
    prefix: fc.constantFrom('<13>1 2019-01-18T11:07:53.520Z ', '<13>Jan 18 11:07:53 '),
    pad: fc.integer({ min: 130, max: 170 }),
    ms: instant,
    pattern: fc.constantFrom("yyyy-M-d'T'HH:mm:ss", "d.M.yyyy'T'H:m:s"),
  })
  .map(
    ({ prefix, pad, ms, pattern }) =>
      `${prefix}LEEF:2.0|V|P|1|E|^|a=${'x'.repeat(pad)}^devTime=${compileDateFormat(pattern).format(ms)}^devTimeFormat=${pattern}^msg=a b`,
  );

/** Lines as an archive line holds them: no LF, not blank. */
const line = fc
  .oneof(
    { weight: 1, arbitrary: longHostnameLine },
    { weight: 8, arbitrary: timedLine },
    { weight: 1, arbitrary: mutatedLine },
    { weight: 1, arbitrary: noisyLine },
  )
  .map((l) => l.replace(/\n/g, ''))
  .filter((l) => l.trim() !== '');

// ---------------------------------------------------------------------------------------------
// Helpers

/** `lines` in one buffer after some junk, LF-separated, as a splitter gives them. */
function byteLines(lines: readonly string[], junk: string): ByteLines {
  const parts: Buffer[] = [Buffer.from(junk, 'utf8')];
  const starts: number[] = [];
  const ends: number[] = [];
  let pos = parts[0]?.length ?? 0;
  for (const l of lines) {
    const bytes = Buffer.from(l, 'utf8');
    starts.push(pos);
    ends.push(pos + bytes.length);
    parts.push(bytes, Buffer.from('\n'));
    pos += bytes.length + 1;
  }
  const buf = Buffer.concat(parts);
  return {
    buf,
    starts: Int32Array.from(starts),
    ends: Int32Array.from(ends),
    offset: 0,
    ascii: buf.every((b) => b < 0x80),
  };
}

/** What must go on the wire for one event: its frame, or the refusal. */
type Outcome = { frame: string } | { refused: 'noHeader' | 'tooLong' };

/** The string reference for one rebased line. */
function referenceOutcome(
  rebased: { line: string; time: number | null },
  combo: Combo,
  settings: SyslogEncoderSettings,
  writer: ReturnType<typeof createHeaderWriter>,
): Outcome {
  const labelled =
    combo.labIndex === null ? rebased.line : setAttribute(rebased.line, 'labIndex', combo.labIndex);
  const msg = writer.apply(labelled, rebased.time, SHIP_NOW);
  if (msg === null) return { refused: 'noHeader' };
  if (Buffer.byteLength(msg, 'utf8') > settings.maxMessageBytes) return { refused: 'tooLong' };
  return { frame: combo.framing === 'lf' ? frameLf(msg) : frameOctetCounted(msg) };
}

/** Bytes as a string of one character per byte, for exact comparison with readable diffs. */
const bytesOf = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

/** How often the byte path wrote a frame itself, over all runs (a guard against a vacuous pass). */
const tally = { fast: 0, slow: 0, refused: 0 };

/** Runs pass 1 on bytes and on strings, checks they agree, and answers the shift and contexts. */
function firstPass(segment: ByteLines, texts: readonly string[]) {
  const reference = createRebaseContext(NOW);
  const ctx = createRebaseContext(NOW);
  const reader = new LeefLineReader();
  const indexes = new LineIndexes();
  const index = indexes.create(segment, '');
  for (let k = 0; k < texts.length; k++) {
    const want = readEventTime(texts[k] as string, reference);
    if (isAsciiLine(segment, k)) {
      const got = reader.eventTime(
        segment.buf,
        segment.starts[k] as number,
        segment.ends[k] as number,
        ctx,
        index,
        k,
      );
      expect(Number.isNaN(got) ? null : got).toBe(want);
    } else {
      readEventTime(texts[k] as string, ctx);
    }
  }
  const shiftMs = finishFirstPass(reference, NOW);
  expect(finishFirstPass(ctx, NOW)).toBe(shiftMs);
  expect(ctx).toEqual(reference);
  return { shiftMs, reference, ctx, indexes, index };
}

/** The frames the frame writer (pipeline/frames) writes for `segment` as LEEF lines held as bytes, and its refusals (sorted: it counts them per reason). */
async function encode(
  segment: ByteLines,
  settings: SyslogEncoderSettings,
  shiftMs: number,
  ctx: RebaseContext,
  labIndex: string | null,
  indexes: LineIndexes | null,
  chunkBytes: number,
) {
  const format = { ...settings, chunkBytes, longFrameBytes: Number.POSITIVE_INFINITY };
  const captured = captureLines(format, settings.now, [
    { segments: [segment], count: segment.starts.length, shiftMs, ctx, labIndex, indexes, entry: '' },
  ]);
  return { frames: captured.bytes.toString('latin1'), refusals: [...captured.refusals].sort() };
}

describe('LeefFrameWriter', () => {
  it('writes the frames of the string reference for every header mode, RFC, framing and labIndex', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('', 'junk\n', 'é\n'),
        fc.constantFrom<Omit<HeaderModeSettings, 'mode' | 'format'>>(
          { sourceIdentity: 'lab-1' },
          { sourceIdentity: 'lab-1' },
          { sourceIdentity: 'ex-fw.example', facility: 4, severity: 2 },
          { sourceIdentity: null },
        ),
        fc.constantFrom(65_536, 65_536, 150, 260),
        fc.boolean(),
        fc.constantFrom(4096, 200),
        async (lines, junk, identity, maxMessageBytes, useIndex, chunkBytes) => {
          const segment = byteLines(lines, junk);
          const texts = lines.map((_, k) => segment.buf.toString('utf8', segment.starts[k], segment.ends[k]));
          const { shiftMs, reference, ctx, indexes, index } = firstPass(segment, texts);
          const rebased = texts.map((t) => {
            const shifted = shiftLine(t, shiftMs, reference);
            return { line: shifted, time: reference.lastEventMs };
          });

          // Outcomes of every combination, compared once at the end (named, for a readable diff).
          const got: unknown[] = [];
          const want: unknown[] = [];
          for (const combo of COMBOS) {
            const name = `${combo.mode} ${combo.format} ${combo.framing} labIndex=${combo.labIndex}`;
            const settings: SyslogEncoderSettings = {
              header: { mode: combo.mode, format: combo.format, ...identity },
              framing: combo.framing,
              maxMessageBytes,
              now: SHIP_NOW,
            };
            const writer = createHeaderWriter(settings.header);
            const expected = rebased.map((r) => referenceOutcome(r, combo, settings, writer));

            // The frame writer alone, line by line (outcomes gathered, compared once).
            const frames = new LeefFrameWriter(new LeefLineReader(), settings);
            for (let k = 0; k < texts.length; k++) {
              if (!isAsciiLine(segment, k)) continue;
              const s = segment.starts[k] as number;
              const e = segment.ends[k] as number;
              const n = frames.prepare(
                segment.buf,
                s,
                e,
                shiftMs,
                ctx,
                combo.labIndex,
                useIndex ? index : null,
                k,
              );
              if (n === FRAME_SLOW) {
                tally.slow++;
                continue;
              }
              const outcome = expected[k] as Outcome;
              want.push({
                name,
                line: k,
                outcome: 'frame' in outcome ? { frame: bytesOf(outcome.frame) } : outcome,
                time: rebased[k]?.time,
              });
              if (n === FRAME_NO_HEADER || n === FRAME_TOO_LONG) {
                tally.refused++;
                got.push({
                  name,
                  line: k,
                  outcome: { refused: n === FRAME_NO_HEADER ? 'noHeader' : 'tooLong' },
                  time: frames.eventMs,
                });
                continue;
              }
              tally.fast++;
              // Written at an offset into a dirty buffer: exactly n bytes, nothing around them touched.
              const out = Buffer.alloc(n + 5, 0x2a);
              const end = frames.write(out, 3);
              got.push({
                name,
                line: k,
                outcome: {
                  frame: end === 3 + n ? out.toString('latin1', 3, 3 + n) : `wrote ${end - 3} of ${n} bytes`,
                },
                time: frames.eventMs,
              });
              if (out.toString('latin1', 0, 3) !== '***' || out.toString('latin1', 3 + n) !== '**') {
                got.push(`${name}: line ${k} wrote outside its frame`);
              }
            }

            // The encoder over the whole batch: the frame writer, and the string path for the rest.
            const { noHeader, tooLong } = createSyslogEncoding(settings);
            const sent = await encode(
              segment,
              settings,
              shiftMs,
              ctx,
              combo.labIndex,
              useIndex ? indexes : null,
              chunkBytes,
            );
            got.push({ name, sent });
            want.push({
              name,
              sent: {
                frames: expected.map((o) => ('frame' in o ? bytesOf(o.frame) : '')).join(''),
                refusals: expected
                  .flatMap((o) =>
                    'refused' in o ? [o.refused === 'noHeader' ? noHeader.error : tooLong.error] : [],
                  )
                  .sort(),
              },
            });
          }
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 2000 },
    );
    // Most ASCII LEEF lines must have been written by the frame writer, not handed to strings.
    expect(tally.fast).toBeGreaterThan(2 * tally.slow);
    // 2,000 generated cases: about 10 s on an idle 2-core host, over 30 s when it is loaded.
  }, 120_000);
});

describe('LeefFrameWriter with framing none', () => {
  it('writes the line the string path gives (shiftLine, setAttribute), nothing stripped or added', () => {
    let fast = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            line,
            // Octet-count prefixes, CRs inside and at the end: framing none keeps what the line has.
            line.map((l) => `${l.length} ${l}`),
            line.map((l) => `${l}\r\r`),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        fc.constantFrom('', 'junk\n'),
        fc.constantFrom(null, 'noise-web', 'café', 'a b', 'x|y', 'labIndex=1', '\t'),
        fc.boolean(),
        (lines, junk, labIndex, useIndex) => {
          const segment = byteLines(lines, junk);
          const texts = lines.map((_, k) => segment.buf.toString('utf8', segment.starts[k], segment.ends[k]));
          const { shiftMs, reference, ctx, index } = firstPass(segment, texts);
          const frames = new LeefFrameWriter(new LeefLineReader(), {
            header: { mode: 'preserve_raw', format: 'rfc3164', sourceIdentity: null },
            framing: 'none',
            maxMessageBytes: Number.POSITIVE_INFINITY,
            now: SHIP_NOW,
          });
          for (let k = 0; k < texts.length; k++) {
            const shifted = shiftLine(texts[k] as string, shiftMs, reference);
            const time = reference.lastEventMs;
            if (!isAsciiLine(segment, k)) continue;
            const want = labIndex === null ? shifted : setAttribute(shifted, 'labIndex', labIndex);
            const n = frames.prepare(
              segment.buf,
              segment.starts[k] as number,
              segment.ends[k] as number,
              shiftMs,
              ctx,
              labIndex,
              useIndex ? index : null,
              k,
            );
            if (n === FRAME_SLOW) continue;
            expect(n).toBeGreaterThanOrEqual(0);
            fast++;
            const out = Buffer.alloc(n + 4, 0x2a);
            expect(frames.write(out, 2)).toBe(2 + n);
            expect(out.toString('latin1')).toBe(`**${bytesOf(want)}**`);
            expect(frames.eventMs ?? null).toBe(Number.isNaN(time) ? null : time);
          }
        },
      ),
      { numRuns: 1500 },
    );
    expect(fast).toBeGreaterThan(1500);
  });
});

describe('LeefFrameWriter on cases the property test shrank to', () => {
  /** The frames and refusals of the frame writer for `lines`, after pass 1 on their bytes. */
  async function send(
    lines: readonly string[],
    header: HeaderModeSettings,
    framing: Framing,
    labIndex: string | null,
    maxMessageBytes = 65_536,
  ) {
    const segment = byteLines(lines, '');
    const ctx = createRebaseContext(NOW);
    const reader = new LeefLineReader();
    const indexes = new LineIndexes();
    const index = indexes.create(segment, '');
    for (let k = 0; k < lines.length; k++) {
      reader.eventTime(segment.buf, segment.starts[k] as number, segment.ends[k] as number, ctx, index, k);
    }
    const shiftMs = finishFirstPass(ctx, NOW);
    const settings = { header, framing, maxMessageBytes, now: SHIP_NOW };
    const sent = await encode(segment, settings, shiftMs, ctx, labIndex, indexes, 4096);
    return { frames: Buffer.from(sent.frames, 'latin1').toString('utf8'), refusals: sent.refusals };
  }

  const raw: HeaderModeSettings = { mode: 'preserve_raw', format: 'rfc3164', sourceIdentity: 'lab-1' };
  const ifMissing: HeaderModeSettings = { ...raw, mode: 'synthesize_if_missing' };
  // One line per shipment: its newest event lands at now + 2 h.
  const moved = NOW + 2 * 3_600_000;

  it('sends the CRs a line still ends with under octet counting, and counts them against the limit', async () => {
    const line = 'LEEF:1.0|V|P|1|E|a=1\r';
    expect(await send([line], raw, 'octet_counting', null)).toEqual({ frames: `21 ${line}`, refusals: [] });
    expect(await send([line], raw, 'lf', null)).toEqual({ frames: 'LEEF:1.0|V|P|1|E|a=1\n', refusals: [] });
    expect((await send([line], raw, 'lf', null, 20)).refusals).toHaveLength(1);
  });

  it('turns the CR a CR delimiter puts before labIndex into a space under LF framing', async () => {
    expect(await send(['LEEF:2.0|Acme|FW|1.0|E7|x0D|devTime=1672531200'], raw, 'lf', 'noise-web')).toEqual({
      frames: `LEEF:2.0|Acme|FW|1.0|E7|x0D|devTime=${moved / 1000} labIndex=noise-web\n`,
      refusals: [],
    });
  });

  it('looks for a header after labIndex is set: a space in the label ends a HOSTNAME that had no end', async () => {
    // `-` is the delimiter, so the label's value becomes `noise web`; the string path then reads
    // `LEEF:…-labIndex=noise` as the HOSTNAME of the header and keeps it.
    const line = '<134>Jan  7 11:07:53 LEEF:2.0|Acme|FW|1.0|E7|-|devTime=1672531200000';
    expect(await send([line], ifMissing, 'lf', 'noise-web')).toEqual({
      frames: `<134>Jan  7 11:07:53 LEEF:2.0|Acme|FW|1.0|E7|-|devTime=${moved}-labIndex=noise web\n`,
      refusals: [],
    });
  });

  it('sets labIndex on the moved line: a devTime now ending in a digit delimiter lends it trailing delimiters', async () => {
    expect(await send(['LEEF:2.0|Acme|FW|1.0|E7|0|devTime=1672531200123'], raw, 'lf', 'noise-web')).toEqual({
      frames: 'LEEF:2.0|Acme|FW|1.0|E7|0|devTime=179537760labIndex=noise-web00000\n',
      refusals: [],
    });
    expect(moved).toBe(1_795_377_600_000);
  });

  it('looks for a header on the moved line: a longer devTime pushes a HOSTNAME past 255 characters', async () => {
    const hostname = (pad: number) =>
      `LEEF:2.0|V|P|1|E|^|a=${'x'.repeat(pad)}^devTime=2023-1-1T00:00:00^devTimeFormat=yyyy-M-d'T'HH:mm:ss^msg=a`;
    const pad = 255 - hostname(0).length;
    const line = `<13>1 2019-01-18T11:07:53.520Z ${hostname(pad)} b`;
    // As it came, the header's HOSTNAME is 255 characters; moved to 2026-11-22T20:00:00 it is 257.
    const movedLeef = hostname(pad).replace('2023-1-1T00:00:00', '2026-11-22T20:00:00');
    expect(await send([line], ifMissing, 'lf', null)).toEqual({
      frames: `<134>Nov 22 20:00:00 lab-1 ${movedLeef} b\n`,
      refusals: [],
    });
  });
});
