import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileDateFormat, DateFormatCache, newDateFormat } from './date-format.ts';

const SHIFT = 40 * 86_400_000 + 5 * 3_600_000 + 1234; // 40 d 5 h 1.234 s

describe('compileDateFormat', () => {
  // pattern, value, instant it denotes, value moved by SHIFT
  it.each([
    ['MMM dd yyyy HH:mm:ss', 'Jun 06 2015 16:07:36', '2015-06-06T16:07:36.000Z', 'Jul 16 2015 21:07:37'],
    [
      'MMM dd yyyy HH:mm:ss.SSS',
      'Jun 06 2015 16:07:36.300',
      '2015-06-06T16:07:36.300Z',
      'Jul 16 2015 21:07:37.534',
    ],
    [
      'MMM dd yyyy HH:mm:ss.SSS z',
      'Jun 06 2015 02:07:36.300 GMT',
      '2015-06-06T02:07:36.300Z',
      'Jul 16 2015 07:07:37.534 GMT',
    ],
    [
      'MMM dd yyyy HH:mm:ss z',
      'JUN 06 2015 02:07:36 PST',
      '2015-06-06T10:07:36.000Z',
      'JUL 16 2015 07:07:37 PST',
    ],
    [
      'MMM dd yyyy HH:mm:ss z',
      'jun 06 2015 02:07:36 CEST',
      '2015-06-06T00:07:36.000Z',
      'jul 16 2015 07:07:37 CEST',
    ],
    [
      "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
      '2024-02-29T23:59:59.999+02:00',
      '2024-02-29T21:59:59.999Z',
      '2024-04-10T05:00:01.233+02:00',
    ],
    [
      "yyyy-MM-dd'T'HH:mm:ssXX",
      '2024-01-02T03:04:05-0530',
      '2024-01-02T08:34:05.000Z',
      '2024-02-11T08:04:06-0530',
    ],
    ["yyyy-MM-dd'T'HH:mm:ssX", '2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z', '2024-02-11T08:04:06Z'],
    [
      "yyyy-MM-dd'T'HH:mm:ssX",
      '2024-01-02T03:04:05+01',
      '2024-01-02T02:04:05.000Z',
      '2024-02-11T08:04:06+01',
    ],
    ['yyyyMMddHHmmss', '20240102030405', '2024-01-02T03:04:05.000Z', '20240211080406'],
    ['yyMMddHHmmss', '240102030405', '2024-01-02T03:04:05.000Z', '240211080406'],
    ['MM/dd/yyyy hh:mm:ss a', '01/02/2024 12:30:00 am', '2024-01-02T00:30:00.000Z', '02/11/2024 05:30:01 am'],
    ['MM/dd/yyyy hh:mm:ss a', '01/02/2024 09:30:00 PM', '2024-01-02T21:30:00.000Z', '02/12/2024 02:30:01 AM'],
    ['MM/dd/yyyy KK:mm a', '01/02/2024 00:30 PM', '2024-01-02T12:30:00.000Z', '02/11/2024 05:30 PM'],
    ['MM/dd/yyyy kk:mm', '01/02/2024 24:30', '2024-01-02T00:30:00.000Z', '02/11/2024 05:30'],
    [
      'EEE MMM dd HH:mm:ss zzz yyyy',
      'Tue Jan 02 03:04:05 GMT+05:30 2024',
      '2024-01-01T21:34:05.000Z',
      'Sun Feb 11 08:04:06 GMT+05:30 2024',
    ],
    [
      'EEEE, MMMM d, yyyy h:mm:ss a',
      'Tuesday, January 2, 2024 3:04:05 AM',
      '2024-01-02T03:04:05.000Z',
      'Sunday, February 11, 2024 8:04:06 AM',
    ],
    [
      'dd/MMM/yyyy:HH:mm:ss Z',
      '02/Jan/2024:03:04:05 -0800',
      '2024-01-02T11:04:05.000Z',
      '11/Feb/2024:08:04:06 -0800',
    ],
    [
      'dd/MMM/yyyy:HH:mm:ss Z',
      '02/Jan/2024:03:04:05 UTC',
      '2024-01-02T03:04:05.000Z',
      '11/Feb/2024:08:04:06 UTC',
    ],
    [
      'yyyy-MM-dd HH:mm:ss,SSS',
      '2024-01-02 03:04:05,006',
      '2024-01-02T03:04:05.006Z',
      '2024-02-11 08:04:06,240',
    ],
    [
      "d MMM yyyy HH:mm 'o''clock'",
      "2 Jan 2024 03:04 o'clock",
      '2024-01-02T03:04:00.000Z',
      "11 Feb 2024 08:04 o'clock",
    ],
  ])('reads %s value %j and writes it moved in the same style', (pattern, value, iso, moved) => {
    const f = compileDateFormat(pattern);
    expect(f.problem).toBeUndefined();
    const parsed = f.read(value);
    expect(parsed).not.toBeNull();
    if (parsed === null) return;
    expect(new Date(parsed.ms).toISOString()).toBe(iso);
    expect(f.format(parsed.ms, parsed)).toBe(value);
    expect(f.format(parsed.ms + SHIFT, parsed)).toBe(moved);
  });

  it('reads S as a millisecond count and writes back the digits as written', () => {
    const f = compileDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSSSS");
    const parsed = f.read('2021-09-21T02:00:56.123456');
    // 123,456 ms: two minutes and 3.456 s after 02:00:56, as SimpleDateFormat (and QRadar) read it.
    expect(new Date(parsed?.ms ?? 0).toISOString()).toBe('2021-09-21T02:02:59.456Z');
    expect(parsed && f.format(parsed.ms + 1000, parsed)).toBe('2021-09-21T02:00:57.123456');
    expect(parsed && f.format(parsed.ms + 544, parsed)).toBe('2021-09-21T02:00:57.123000');
  });

  it('keeps space padding, as in "Jun  6"', () => {
    const f = compileDateFormat('MMM d HH:mm:ss yyyy');
    const parsed = f.read('Jun  6 16:07:36 2015');
    expect(parsed && f.format(parsed.ms, parsed)).toBe('Jun  6 16:07:36 2015');
    expect(parsed && f.format(parsed.ms + 10 * 86_400_000, parsed)).toBe('Jun 16 16:07:36 2015');
  });

  it('keeps unpadded numbers and a two-digit year read with y', () => {
    const f = compileDateFormat('dd.MM.y HH:mm');
    const parsed = f.read('6.1.24 03:04');
    expect(parsed && new Date(parsed.ms).toISOString()).toBe('2024-01-06T03:04:00.000Z');
    expect(parsed && f.format(parsed.ms + 86_400_000, parsed)).toBe('7.1.24 03:04');
  });

  it('ignores text after the pattern, as SimpleDateFormat does, and keeps it', () => {
    const f = compileDateFormat("yyyy-MM-dd'T'HH:mm:ss");
    const parsed = f.read('2021-09-21T02:00:56.000000Z');
    expect(parsed?.trailing).toBe('.000000Z');
    expect(parsed && f.format(parsed.ms + 60_000, parsed)).toBe('2021-09-21T02:01:56.000000Z');
  });

  it('takes the year of a year-less pattern from the reference', () => {
    const f = compileDateFormat('MMM dd HH:mm:ss');
    expect(new Date(f.parse('Dec 31 23:00:00', Date.UTC(2026, 0, 5)) ?? 0).toISOString()).toBe(
      '2025-12-31T23:00:00.000Z',
    );
    expect(new Date(f.parse('Dec 31 23:00:00') ?? 0).toISOString()).toBe('1970-12-31T23:00:00.000Z');
  });

  it.each([
    ['MMM dd yyyy HH:mm:ss', 'Jun 31 2015 16:07:36'],
    ['MMM dd yyyy HH:mm:ss', 'Feb 29 2023 16:07:36'],
    ['MMM dd yyyy HH:mm:ss', 'Jun 06 2015 24:07:36'],
    ['MM/dd/yyyy', '13/01/2024'],
    ['yyyyMMddHHmmss', '202401020304'],
    ['MMM dd yyyy HH:mm:ss z', 'Jun 06 2015 02:07:36 XYZ'],
    ["yyyy-MM-dd'T'HH:mm:ss.SSSZ", '2021-09-21T02:00:56.000Z'],
    ['MMM dd yyyy', ''],
    ['MMM dd yyyy', 'Jun'],
  ])('refuses %s for %j instead of rolling it over', (pattern, value) => {
    expect(compileDateFormat(pattern).read(value)).toBeNull();
  });

  it.each([
    ["YYYY-MM-DD'T'HH:mm:ss.SSSZ", "pattern letter 'Y' is not supported for rebasing"],
    ['yyyy-MM-dd Q', "pattern letter 'Q' is unknown"],
    ["yyyy-MM-dd 'T", 'unterminated quote'],
    ['HH:mm:ss', 'pattern has no month and day'],
    ['XXXX MM dd', "pattern letter 'X' repeated more than 3 times"],
  ])('reports %j as unusable', (pattern, problem) => {
    const f = compileDateFormat(pattern);
    expect(f.problem).toBe(problem);
    expect(f.parse('2021-09-21T02:00:56.000000Z')).toBeNull();
    expect(f.format(0)).toBe('');
  });

  it('compiles a pattern once per cache, and each cache (one per shipment pass) has its own', () => {
    const cache = new DateFormatCache();
    const other = new DateFormatCache();
    expect(compileDateFormat('dd MMM yyyy', cache)).toBe(compileDateFormat('dd MMM yyyy', cache));
    expect(compileDateFormat('dd MMM yyyy', other)).not.toBe(compileDateFormat('dd MMM yyyy', cache));
    expect(compileDateFormat('dd MMM yyyy')).not.toBe(compileDateFormat('dd MMM yyyy'));
  });

  it('writes UTC the way Java does when no zone was read', () => {
    const ms = Date.UTC(2024, 0, 2, 3, 4, 5, 6);
    expect(compileDateFormat('yyyy-MM-dd HH:mm:ss.SSS z').format(ms)).toBe('2024-01-02 03:04:05.006 UTC');
    expect(compileDateFormat('yyyy-MM-dd HH:mm:ss.SSS Z').format(ms)).toBe('2024-01-02 03:04:05.006 +0000');
    expect(compileDateFormat('yyyy-MM-dd HH:mm:ss.SSSXXX').format(ms)).toBe('2024-01-02 03:04:05.006Z');
  });

  const roundTrip = [
    ["yyyy-MM-dd'T'HH:mm:ss.SSSXXX", '2024-01-02T03:04:05.006-07:00'],
    ['EEE, dd MMM yyyy HH:mm:ss.SSS Z', 'Tue, 02 Jan 2024 03:04:05.006 +0930'],
    ['MMMM d yyyy hh:mm:ss.SSS a z', 'January 2 2024 03:04:05.006 AM GMT-03:00'],
    ['yyyyMMddHHmmssSSS', '20240102030405006'],
  ] as const;

  it.each(roundTrip)('writes any instant with %s so that it reads back exactly', (pattern, sample) => {
    const f = compileDateFormat(pattern);
    const style = f.read(sample);
    expect(style).not.toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2199, 11, 31) }), (ms) => {
        if (style === null) return;
        const text = f.format(ms, style);
        const back = f.read(text);
        expect(back?.ms).toBe(ms);
        expect(back && f.format(back.ms, back)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('writing runs of values', () => {
  // Patterns, and samples whose written style (zone, case, padding, trailing text) a run copies.
  const PATTERNS: ReadonlyArray<[pattern: string, samples: readonly string[]]> = [
    ["yyyy-MM-dd'T'HH:mm:ss.SSSXXX", ['2024-01-02T03:04:05.006+02:00', '2024-01-02T03:04:05.006Z']],
    ['MMM dd yyyy HH:mm:ss.SSS z', ['Jan 02 2024 03:04:05.006 GMT', 'JAN 02 2024 03:04:05.006 PST']],
    ['dd/MMM/yyyy:HH:mm:ss Z', ['02/Jan/2024:03:04:05 -0800']],
    ['MM/dd/yyyy hh:mm:ss a', ['01/02/2024 03:04:05 PM', '1/2/2024 3:04:05 am']],
    ['yyyy-MM-dd HH:mm:s.S', ['2024-01-02 03:04:5.6', '2024-01-02 03:04:05.006']],
    ['yyyy-MM-dd HH:mm:ss.SS', ['2024-01-02 03:04:05.06']],
    ['yyyy-MM-dd HH:mm:ss.SSSSSS', ['2024-01-02 03:04:05.000006', '2024-01-02 03:04:05.1234567']],
    ['ss.SSS yyyy-MM-dd HH:mm', ['05.006 2024-01-02 03:04']],
    ['MMM dd HH:mm:ss.SSS', ['Jan 02 03:04:05.006', 'Jan  2 03:04:05.006 trailing text']],
    ['EEE MMM d HH:mm:ss yyyy', ['Tue Jan 2 03:04:05 2024', 'Tue Jan  2 03:04:05 2024']],
    ['yyyyMMdd HHmmssSSS', ['20240102 030405006']],
    ['yyyy-MM-dd HH:mm', ['2024-01-02 03:04']],
    ['yyyy-MM-dd HH:mm:ss ss', ['2024-01-02 03:04:05 05']],
  ];

  it('writes every value as a formatter that never saw the ones before (property)', () => {
    const steps = fc.array(
      fc.record({
        jump: fc.oneof(
          { weight: 10, arbitrary: fc.integer({ min: 0, max: 3_000 }) },
          { weight: 2, arbitrary: fc.integer({ min: 0, max: 200_000 }) },
          { weight: 1, arbitrary: fc.integer({ min: -90_000_000, max: 90_000_000 }) },
        ),
        // follow() hands over a new style object per value, with its own carry.
        variant: fc.constantFrom('same', 'copy', 'carry'),
      }),
      { minLength: 1, maxLength: 40 },
    );
    fc.assert(
      fc.property(
        fc.nat(PATTERNS.length - 1),
        fc.nat(),
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
        steps,
        (p, sampleIndex, start, run) => {
          const [pattern, samples] = PATTERNS[p]!;
          const sample = samples[sampleIndex % samples.length]!;
          // A formatter of its own per run: its memory starts empty and grows along the run.
          const warm = newDateFormat(pattern);
          const style = warm.read(sample, start);
          expect(style, sample).not.toBeNull();
          if (style === null) return;
          let ms = start;
          for (const { jump, variant } of run) {
            ms += jump;
            const st =
              variant === 'same'
                ? style
                : {
                    ...style,
                    ms,
                    carryMs: variant === 'carry' ? 1000 * (Math.abs(jump) % 3) : style.carryMs,
                  };
            expect(warm.format(ms, st), `${pattern} at ${ms}`).toBe(newDateFormat(pattern).format(ms, st));
          }
        },
      ),
      { numRuns: 1_500 },
    );
  });
});
