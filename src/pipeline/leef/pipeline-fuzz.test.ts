// Fuzzing the LEEF / time / syslog readers with random and mutated lines: nothing may throw, every
// result has the promised shape, and hostile long lines finish (the test timeout is the hang guard;
// all scanners are linear).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefLine, mutatedLine, noisyLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { detectSyslogHeader } from '../syslog/detect-syslog-header.ts';
import { frameLf, frameOctetCounted } from '../syslog/framing.ts';
import { createHeaderWriter } from '../syslog/header-mode.ts';
import { compileDateFormat } from '../time/date-format.ts';
import { readDevTime } from '../time/devtime.ts';
import { readIso } from '../time/iso-time.ts';
import { readRfc3164Time } from '../time/rfc3164-time.ts';
import { emitLeef } from './emit-leef.ts';
import { createRebaseContext, readEventTime, shiftLine } from './leef-rebase.ts';
import { parseLeef } from './parse-leef.ts';
import { setAttribute } from './set-attribute.ts';

const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const anyLine = fc.oneof(
  noisyLine,
  mutatedLine,
  leefLine.map((g) => g.line),
  fc.string({ unit: 'binary', maxLength: 300 }),
);
const anyShift = fc.oneof(
  fc.integer({ min: -20 * 365 * 86_400_000, max: 20 * 365 * 86_400_000 }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -Number.MAX_VALUE, Number.MAX_SAFE_INTEGER, 0.5),
);
const writers = (['preserve_raw', 'synthesize_if_missing', 'force_synthesize'] as const).flatMap((mode) =>
  (['rfc3164', 'rfc5424'] as const).map((format) =>
    createHeaderWriter({ mode, format, sourceIdentity: 'lab-1' }),
  ),
);

describe('pipeline fuzzing', () => {
  it('never throws on random or damaged lines, and keeps its promises', () => {
    fc.assert(
      fc.property(anyLine, anyShift, fc.string({ maxLength: 10 }), (line, shift, value) => {
        const ctx = createRebaseContext(NOW);
        const t = readEventTime(line, ctx);
        expect(t === null || Number.isFinite(t)).toBe(true);
        const shifted = shiftLine(line, shift, ctx);
        expect(typeof shifted).toBe('string');
        if (t === null) expect(shifted).toBe(line);
        const labelled = setAttribute(shifted, 'labIndex', value);
        const p = parseLeef(labelled);
        if (p !== null) expect(emitLeef(p)).toBe(labelled);
        for (const w of writers) {
          const out = w.apply(labelled, ctx.lastEventMs, NOW);
          expect(typeof out).toBe('string');
          const frame = frameLf(out as string);
          expect(frame.indexOf('\n')).toBe(frame.length - 1);
          expect(frameOctetCounted(out as string).length).toBeGreaterThan((out as string).length);
        }
        const h = detectSyslogHeader(line);
        expect(h.end).toBeGreaterThanOrEqual(h.start);
        expect(h.end).toBeLessThanOrEqual(line.length);
      }),
      { numRuns: 6000 },
    );
  });

  it('never throws on random patterns and values', () => {
    const patternUnit = fc.oneof(
      fc.constantFrom(
        'y',
        'M',
        'd',
        'H',
        'h',
        'K',
        'k',
        'm',
        's',
        'S',
        'a',
        'E',
        'z',
        'Z',
        'X',
        'Y',
        'D',
        "'",
        "''",
        ' ',
        ':',
        '-',
        'T',
        '.',
      ),
      fc.string({ maxLength: 2 }),
    );
    const valueUnit = fc.oneof(
      fc.constantFrom(
        '2024',
        '03',
        '1',
        '11',
        '09',
        ':',
        '-',
        ' ',
        'Mar',
        'March',
        'PM',
        'am',
        'GMT',
        '+02:00',
        '-0800',
        'Z',
        'PST',
        'Tue',
        '.',
        '123456',
        'T',
      ),
      fc.string({ maxLength: 2 }),
    );
    fc.assert(
      fc.property(
        fc.array(patternUnit, { maxLength: 14 }).map((a) => a.join('')),
        fc.array(valueUnit, { maxLength: 14 }).map((a) => a.join('')),
        fc.integer({ min: -1e15, max: 1e15 }),
        (pattern, value, ms) => {
          const f = compileDateFormat(pattern);
          const parsed = f.read(value, NOW);
          if (parsed !== null) expect(Number.isFinite(parsed.ms)).toBe(true);
          expect(typeof f.format(ms, parsed)).toBe('string');
          const dev = readDevTime(value, pattern, NOW);
          if (dev !== null) expect(Number.isFinite(dev.ms)).toBe(true);
          const dev2 = readDevTime(value, null, NOW);
          if (dev2 !== null) expect(Number.isFinite(dev2.ms)).toBe(true);
          readIso(value);
          readRfc3164Time(value, NOW);
        },
      ),
      { numRuns: 6000 },
    );
  });

  it('finishes hostile long lines', { timeout: 60_000 }, () => {
    const n = 400_000;
    const lines = [
      `LEEF:1.0|V|P|1|ID|a=1${'\t'.repeat(n)}b=2`,
      `LEEF:1.0|V|P|1|ID|${'\t'.repeat(n)}`,
      `LEEF:1.0|V|P|1|ID|a=1${'\tx'.repeat(n)}`,
      `LEEF:1.0|V|P|1|ID|${'x\t'.repeat(n)}a=1`,
      'LEEF:1'.repeat(n),
      `${'LEEF:1.0|\\|'.repeat(n)}|`,
      `LEEF:1.0|V|P|1|ID|${'xdevTime='.repeat(n)}`,
      `LEEF:2.0|V|P|1|ID|^|${'devTime=^'.repeat(n)}`,
      `<13>Jan 18 11:07:53 ${'h'.repeat(n)} LEEF:1.0|V|P|1|ID|a=1`,
      `<13>1 2019-01-18T11:07:53.520Z ${'h'.repeat(n)} LEEF:1.0|`,
      `${'='.repeat(n)}LEEF:1.0|V|P|1|ID|${'='.repeat(n)}`,
      '\r\n'.repeat(n),
    ];
    const ctx = createRebaseContext(NOW);
    for (const line of lines) {
      readEventTime(line, ctx);
      shiftLine(line, 1000, ctx);
      const labelled = setAttribute(line, 'labIndex', 'x');
      const p = parseLeef(labelled);
      if (p !== null) expect(emitLeef(p)).toBe(labelled);
      for (const w of writers) frameLf(w.apply(line, null, NOW) ?? '');
      detectSyslogHeader(line);
    }
    expect(parseLeef(lines[0] as string)?.attributes).toEqual([
      ['a', `1${'\t'.repeat(n - 1)}`],
      ['b', '2'],
    ]);
  });
});
