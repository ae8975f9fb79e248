import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefLine, mutatedLine, noisyLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { detectSyslogHeader } from './detect-syslog-header.ts';
import { applyHeaderMode, createHeaderWriter } from './header-mode.ts';

const T = Date.UTC(2024, 2, 7, 9, 5, 3, 42); // 2024-03-07T09:05:03.042Z
const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const LEEF = 'LEEF:2.0|V|P|1|ID|^|a=1';

describe('createHeaderWriter', () => {
  const cases: Array<[string, Parameters<typeof createHeaderWriter>[0], string, number | null, string]> = [
    [
      'synthesizes a 3164 header for a bare line (day space-padded, UTC, PRI 134)',
      { mode: 'synthesize_if_missing', format: 'rfc3164', sourceIdentity: 'lab-fw01' },
      LEEF,
      T,
      `<134>Mar  7 09:05:03 lab-fw01 ${LEEF}`,
    ],
    [
      'synthesizes a 5424 header with three fraction digits and Z',
      { mode: 'synthesize_if_missing', format: 'rfc5424', sourceIdentity: 'lab-fw01' },
      LEEF,
      T,
      `<134>1 2024-03-07T09:05:03.042Z lab-fw01 - - - ${LEEF}`,
    ],
    [
      'uses the shipping time when the event has none',
      { mode: 'force_synthesize', format: 'rfc5424', sourceIdentity: 'h' },
      LEEF,
      null,
      `<134>1 2026-11-22T18:00:00.000Z h - - - ${LEEF}`,
    ],
    [
      'uses facility and severity',
      { mode: 'force_synthesize', format: 'rfc3164', sourceIdentity: 'h', facility: 4, severity: 5 },
      LEEF,
      T,
      `<37>Mar  7 09:05:03 h ${LEEF}`,
    ],
    [
      'keeps an existing 3164 header when synthesizing only if missing',
      { mode: 'synthesize_if_missing', format: 'rfc5424', sourceIdentity: 'h' },
      `<13>Jan 18 11:07:53 orig ${LEEF}`,
      T,
      `<13>Jan 18 11:07:53 orig ${LEEF}`,
    ],
    [
      'keeps an existing 5424 header but drops a leftover octet prefix',
      { mode: 'synthesize_if_missing', format: 'rfc3164', sourceIdentity: 'h' },
      `42 <13>1 2019-01-18T11:07:53.520Z orig ${LEEF}`,
      T,
      `<13>1 2019-01-18T11:07:53.520Z orig ${LEEF}`,
    ],
    [
      'replaces a nonstandard prefix, which is treated as missing',
      { mode: 'synthesize_if_missing', format: 'rfc3164', sourceIdentity: 'h' },
      `2024-01-02T03:04:05.123456+00:00 host tag: ${LEEF}`,
      T,
      `<134>Mar  7 09:05:03 h ${LEEF}`,
    ],
    [
      'replaces any header, octet prefix and TAG when forced',
      { mode: 'force_synthesize', format: 'rfc3164', sourceIdentity: 'exercise-7' },
      `42 <14>1 2021-09-21T02:00:56Z host logforwarder - panwlogs - ${LEEF}`,
      T,
      `<134>Mar  7 09:05:03 exercise-7 ${LEEF}`,
    ],
    [
      'keeps the TAG and message of a non-LEEF line when forced',
      { mode: 'force_synthesize', format: 'rfc3164', sourceIdentity: 'h' },
      '<30>Mar 11 09:15:02 lnx sshd[22]: Accepted publickey',
      T,
      '<134>Mar  7 09:05:03 h sshd[22]: Accepted publickey',
    ],
    [
      'prepends to a non-LEEF line without a header',
      { mode: 'synthesize_if_missing', format: 'rfc3164', sourceIdentity: 'h' },
      'free text',
      T,
      '<134>Mar  7 09:05:03 h free text',
    ],
    [
      'sends the line as it is in preserve_raw',
      { mode: 'preserve_raw', format: 'rfc3164', sourceIdentity: null },
      `2024-01-02T03:04:05Z host tag: ${LEEF}`,
      T,
      `2024-01-02T03:04:05Z host tag: ${LEEF}`,
    ],
    [
      'drops only a leftover octet prefix in preserve_raw',
      { mode: 'preserve_raw', format: 'rfc3164', sourceIdentity: null },
      `42 <13>1 2019-01-18T11:07:53.520Z orig ${LEEF}`,
      T,
      `<13>1 2019-01-18T11:07:53.520Z orig ${LEEF}`,
    ],
  ];

  it.each(cases)('%s', (_name, settings, line, eventTimeMs, expected) => {
    const writer = createHeaderWriter(settings);
    expect(writer.problem).toBeUndefined();
    expect(writer.apply(line, eventTimeMs, NOW)).toBe(expected);
  });

  it.each([
    [{ sourceIdentity: null }, 'a source identity is needed to synthesize syslog headers'],
    [{ sourceIdentity: 'two words' }, 'source identity must be printable ASCII without spaces'],
    [{ sourceIdentity: '' }, 'source identity must not be empty'],
    [{ sourceIdentity: 'h', facility: 24, severity: 0 }, 'facility must be 0-23 and severity 0-7'],
    [{ sourceIdentity: 'h', facility: 1, severity: 8 }, 'facility must be 0-23 and severity 0-7'],
  ])('refuses to synthesize with %j', (settings, problem) => {
    const writer = createHeaderWriter({ mode: 'force_synthesize', format: 'rfc3164', ...settings });
    expect(writer.problem).toBe(problem);
    expect(writer.apply(LEEF, T, NOW)).toBeNull();
    expect(
      applyHeaderMode(LEEF, {
        mode: 'force_synthesize',
        format: 'rfc3164',
        ...settings,
        eventTimeMs: T,
        nowMs: NOW,
      }),
    ).toEqual({
      ok: false,
      problem,
    });
  });

  it('still keeps existing headers without a usable identity', () => {
    const writer = createHeaderWriter({
      mode: 'synthesize_if_missing',
      format: 'rfc3164',
      sourceIdentity: null,
    });
    expect(writer.apply(`<13>Jan 18 11:07:53 orig ${LEEF}`, T, NOW)).toBe(`<13>Jan 18 11:07:53 orig ${LEEF}`);
  });

  it('gives every line a header the detector recognizes, with the identity as HOSTNAME', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          leefLine.map((g) => g.line.replace(/[\r\n]+$/, '')),
          mutatedLine,
          noisyLine,
        ),
        fc.constantFrom('rfc3164' as const, 'rfc5424' as const),
        fc.constantFrom('synthesize_if_missing' as const, 'force_synthesize' as const),
        fc.option(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })),
        (line, format, mode, eventTimeMs) => {
          const out = createHeaderWriter({ mode, format, sourceIdentity: 'lab-host-1' }).apply(
            line,
            eventTimeMs,
            NOW,
          );
          expect(out).not.toBeNull();
          const h = detectSyslogHeader(out as string);
          expect(h.kind === 'rfc3164' || h.kind === 'rfc5424').toBe(true);
          if (mode === 'force_synthesize') {
            expect(h.kind).toBe(format);
            expect((out as string).slice(h.hostnameStart, h.hostnameEnd)).toBe('lab-host-1');
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
