// Runs of formatted devTime values (one pattern, values a few seconds apart, as a device logs them)
// read on bytes by LeefLineReader, held to the string reference (readEventTime, shiftLine) line by
// line. The reader reads a value that differs from the last one only in its seconds and
// milliseconds without decoding it; these runs make it do that often, and mix in what must send
// it back to the full reader: other digits, 60+ seconds, junk, lengths that change, patterns with
// no year, two second fields or none.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ByteLines } from '../archive/byte-lines.ts';
import { ShipmentScratch } from '../shipment/shipment-scratch.ts';
import { compileDateFormat } from '../time/date-format.ts';
import { isAsciiLine, LeefLineReader, LineIndexes } from './leef-line-reader.ts';
import { createRebaseContext, finishFirstPass, readEventTime, shiftLine } from './leef-rebase.ts';

const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const START = Date.UTC(2024, 2, 11, 9, 58, 30);

/** Patterns, and samples whose written style (zone, case, padding) a run copies. */
const PATTERNS: ReadonlyArray<{ pattern: string; samples: readonly string[]; spans: boolean }> = [
  {
    pattern: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
    samples: ['2024-01-02T03:04:05.006+02:00', '2024-01-02T03:04:05.006Z', '2024-01-02T03:04:05.006-05:30'],
    spans: true,
  },
  {
    pattern: 'MMM dd yyyy HH:mm:ss.SSS z',
    samples: ['Jan 02 2024 03:04:05.006 GMT', 'JAN 02 2024 03:04:05.006 PST'],
    spans: true,
  },
  { pattern: 'dd/MMM/yyyy:HH:mm:ss Z', samples: ['02/Jan/2024:03:04:05 -0800'], spans: true },
  {
    pattern: 'MM/dd/yyyy hh:mm:ss a',
    samples: ['01/02/2024 03:04:05 PM', '01/02/2024 03:04:05 am'],
    spans: true,
  },
  { pattern: 'yyyy-MM-dd HH:mm:ss', samples: ['2024-01-02 03:04:05'], spans: true },
  {
    pattern: 'yyyy-MM-dd HH:mm:s.S',
    samples: ['2024-01-02 03:04:5.6', '2024-01-02 03:04:05.006'],
    spans: true,
  },
  { pattern: 'yyyy-MM-dd HH:mm:ss.SSSSSS', samples: ['2024-01-02 03:04:05.000006'], spans: true },
  { pattern: 'ss.SSS yyyy-MM-dd HH:mm', samples: ['05.006 2024-01-02 03:04'], spans: true },
  { pattern: 'MMM dd HH:mm:ss.SSS', samples: ['Jan 02 03:04:05.006'], spans: false },
  { pattern: 'yyyy-MM-dd HH:mm', samples: ['2024-01-02 03:04'], spans: false },
  { pattern: 'yyyy-MM-dd HH:mm:ss ss', samples: ['2024-01-02 03:04:05 05'], spans: false },
  // A bare GMT/UTC zone looks past itself for an offset: before the seconds, no spans.
  { pattern: "yyyy-MM-dd HH:mm z'+'ss", samples: ['2024-01-02 03:04 GMT+05'], spans: false },
  { pattern: "yyyy-MM-dd HH:mm:ss z'-'SSS", samples: ['2024-01-02 03:04:05 UTC-006'], spans: false },
];

/** One value of a run: the next instant (mostly a short step), written in the run's style, maybe damaged. */
const step = fc.record({
  jump: fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 0, max: 4_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 400_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: -90_000_000, max: 90_000_000 }) },
  ),
  damage: fc.oneof(
    { weight: 10, arbitrary: fc.constant(null) },
    {
      weight: 2,
      arbitrary: fc.record({ at: fc.nat(), digit: fc.integer({ min: 0, max: 9 }) }),
    },
    { weight: 1, arbitrary: fc.constantFrom('junk', 'cut', 'long') },
  ),
});

const run = fc.record({
  p: fc.integer({ min: 0, max: PATTERNS.length - 1 }),
  sample: fc.nat(),
  delimiter: fc.constantFrom('^', '\t', '|'),
  steps: fc.array(step, { minLength: 1, maxLength: 60 }),
});

type Run = typeof run extends fc.Arbitrary<infer T> ? T : never;

/** The LEEF lines of a run. */
function linesOf(r: Run): string[] {
  const spec = PATTERNS[r.p]!;
  const format = compileDateFormat(spec.pattern);
  const style = format.read(spec.samples[r.sample % spec.samples.length]!, NOW);
  let ms = START;
  const lines: string[] = [];
  for (const s of r.steps) {
    ms += s.jump;
    let value = format.format(ms, style);
    const d = s.damage;
    if (d === 'junk') value = 'soon';
    else if (d === 'cut') value = value.slice(0, -1);
    else if (d === 'long') value = `${value}7`;
    else if (d !== null) {
      // A digit somewhere (seconds of 60 to 99, month 13, …): a value the full reader must judge.
      const digits = [...value].flatMap((c, i) => (c >= '0' && c <= '9' ? [i] : []));
      const at = digits[d.at % Math.max(1, digits.length)];
      if (at !== undefined) value = value.slice(0, at) + String(d.digit) + value.slice(at + 1);
    }
    const field = r.delimiter === '|' ? '' : r.delimiter === '^' ? '^|' : 'x09|';
    const version = r.delimiter === '|' ? '1.0' : '2.0';
    const attrs = [`devTimeFormat=${spec.pattern}`, `devTime=${value}`, 'src=10.0.0.1'].join(
      r.delimiter === '|' ? '\t' : r.delimiter,
    );
    lines.push(`LEEF:${version}|Lab|FW|1|E|${field}${attrs}`);
  }
  return lines;
}

function byteLines(lines: readonly string[]): ByteLines {
  const buf = Buffer.from(`${lines.join('\n')}\n`, 'latin1');
  const starts: number[] = [];
  const ends: number[] = [];
  let pos = 0;
  for (const l of lines) {
    starts.push(pos);
    ends.push(pos + l.length);
    pos += l.length + 1;
  }
  return { buf, starts: Int32Array.from(starts), ends: Int32Array.from(ends), offset: 0, ascii: true };
}

/**
 * Both passes on bytes against the string reference; answers how many values pass 1 read in full,
 * and how many differ from the line before.
 */
function checkRun(r: Run): { reads: number; lines: number; changes: number } {
  const lines = linesOf(r);
  const segment = byteLines(lines);
  // Pass 1's scratch holds the compiled pattern its reader uses; the reference has its own.
  const scratch = new ShipmentScratch();
  const referenceScratch = new ShipmentScratch();
  const read = vi.spyOn(scratch.devTimes.cache.get(PATTERNS[r.p]!.pattern), 'read');
  const reference = createRebaseContext(NOW);
  const ctx = createRebaseContext(NOW);
  const indexes = new LineIndexes();
  const index = indexes.create(segment, '');
  const pass1 = new LeefLineReader(scratch);
  for (let k = 0; k < lines.length; k++) {
    expect(isAsciiLine(segment, k)).toBe(true);
    const want = readEventTime(lines[k]!, reference, referenceScratch);
    const got = pass1.eventTime(segment.buf, segment.starts[k]!, segment.ends[k]!, ctx, index, k);
    expect(Number.isNaN(got) ? null : got, lines[k]).toBe(want);
  }
  const shiftMs = finishFirstPass(reference, NOW);
  expect(finishFirstPass(ctx, NOW)).toBe(shiftMs);
  const reads = read.mock.calls.length;
  read.mockRestore();
  // Pass 2 twice: with pass 1's index, and without it (a chunk pass 1 did not keep).
  for (const useIndex of [true, false]) {
    const pass2 = new LeefLineReader();
    for (let k = 0; k < lines.length; k++) {
      const s = segment.starts[k]!;
      const e = segment.ends[k]!;
      const want = shiftLine(lines[k]!, shiftMs, reference, referenceScratch);
      pass2.shift(segment.buf, s, e, shiftMs, ctx, useIndex ? index : null, k);
      expect(pass2.shiftedText(segment.buf, s, e), lines[k]).toBe(want);
      expect(pass2.eventMs, lines[k]).toBe(reference.lastEventMs);
    }
  }
  const changes = lines.filter((l, k) => k === 0 || l !== lines[k - 1]).length;
  return { reads, lines: lines.length, changes };
}

describe('formatted devTime runs on the byte path', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('read and shift every value as the string reference does', () => {
    fc.assert(
      fc.property(run, (r) => {
        checkRun(r);
      }),
      { numRuns: 400 },
    );
  });

  it('read a zone that can take the seconds as its offset in full (GMT+45 is GMT, GMT+15 a zone)', () => {
    for (const [pattern, values] of [
      ["yyyy-MM-dd HH:mm z'+'ss", ['2024-01-01 10:00 GMT+45', '2024-01-01 10:00 GMT+15']],
      ['yyyy-MM-dd HH:mm z-ss', ['2024-01-01 10:00 UTC-30', '2024-01-01 10:00 UTC-20']],
      ["yyyy-MM-dd HH:mm:ss z'-'SSS", ['2024-01-01 10:00:05 UTC-500', '2024-01-01 10:00:05 UTC-100']],
      ["yyyy-MM-dd z'+'HH:SSS", ['2024-01-01 GMT+10:750', '2024-01-01 GMT+10:250']],
    ] as const) {
      const lines = values.map((v) => `LEEF:2.0|Lab|FW|1|E|^|devTimeFormat=${pattern}^devTime=${v}`);
      const segment = byteLines(lines);
      const reference = createRebaseContext(NOW);
      const ctx = createRebaseContext(NOW);
      const reader = new LeefLineReader();
      for (let k = 0; k < lines.length; k++) {
        const want = readEventTime(lines[k]!, reference);
        const got = reader.eventTime(segment.buf, segment.starts[k]!, segment.ends[k]!, ctx, null, k);
        expect(Number.isNaN(got) ? null : got, lines[k]).toBe(want);
      }
    }
  });

  it('read a value differing only in seconds and milliseconds without the full reader', () => {
    for (const [p, spec] of PATTERNS.entries()) {
      const steps = Array.from({ length: 40 }, (_, i) => ({ jump: 137 + (i % 3), damage: null }));
      const { reads, lines, changes } = checkRun({ p, sample: 0, delimiter: '^', steps });
      // Runs of 40 values 137-139 ms apart stay within two minutes: a full read per minute, plus
      // one per change of length for unpadded fields.
      if (spec.spans) expect(reads, spec.pattern).toBeLessThan(lines / 4);
      // Without spans only an equal value is answered without reading it.
      else expect(reads, spec.pattern).toBe(changes);
    }
  });
});
