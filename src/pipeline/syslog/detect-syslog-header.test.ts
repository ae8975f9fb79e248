import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefPrefix, mutatedLine, noisyLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { detectSyslogHeader } from './detect-syslog-header.ts';

// The reference expressions of protocols-qradar-leef-syslog.md §3.5, verbatim.
const OCTET_PREFIX = /^[1-9]\d{0,5} (?=<\d{1,3}>)/;
const RFC5424 =
  /^<(\d{1,3})>([1-9]\d{0,2}) (-|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})) (\S{1,255}) /;
const RFC3164 =
  /^(?:<(\d{1,3})>)?(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ 0-3]\d) (?:(\d{4}) )?(\d{2}:\d{2}:\d{2}) (\S+) /;
const STARTS_WITH_LEEF = /^LEEF:[12]\.0\|/;

function byRegex(line: string) {
  const prefix = OCTET_PREFIX.exec(line);
  const start = prefix ? prefix[0].length : 0;
  const rest = line.slice(start);
  if (STARTS_WITH_LEEF.test(rest)) return { kind: 'leef-bare', start, end: start };
  const m5 = RFC5424.exec(rest);
  if (m5) return { kind: 'rfc5424', start, end: start + m5[0].length, pri: Number(m5[1]), host: m5[4] };
  const m3 = RFC3164.exec(rest);
  if (m3)
    return {
      kind: 'rfc3164',
      start,
      end: start + m3[0].length,
      pri: m3[1] ? Number(m3[1]) : -1,
      host: m3[6],
    };
  return { kind: 'nonstandard', start, end: start };
}

function byScanner(line: string) {
  const h = detectSyslogHeader(line);
  const base = { kind: h.kind, start: h.start, end: h.end };
  if (h.kind !== 'rfc5424' && h.kind !== 'rfc3164') return base;
  return { ...base, pri: h.pri, host: line.slice(h.hostnameStart, h.hostnameEnd) };
}

describe('detectSyslogHeader', () => {
  it.each([
    ['LEEF:2.0|V|P|1|ID|^|a=1', 'leef-bare', -1, ''],
    ['<13>1 2019-01-18T11:07:53.520Z 192.168.1.1 LEEF:1.0|V|P|1|ID|a=1', 'rfc5424', 13, '192.168.1.1'],
    ['<133>1 2019-01-18T11:07:53.520+07:00 myhostname LEEF:1.0|', 'rfc5424', 133, 'myhostname'],
    ['<14>1 2021-09-21T02:00:56.123456Z host logforwarder - panwlogs - LEEF:2.0|', 'rfc5424', 14, 'host'],
    ['<14>1 - host - - - msg', 'rfc5424', 14, 'host'],
    ['<13>Jan 18 11:07:53 192.168.1.1 LEEF:1.0|', 'rfc3164', 13, '192.168.1.1'],
    ['Jan 18 11:07:53 myhostname LEEF:1.0|', 'rfc3164', -1, 'myhostname'],
    ['<13>Aug  7 11:07:53 h LEEF:1.0|', 'rfc3164', 13, 'h'],
    ['<13>Jan 18 2024 11:07:53 h LEEF:1.0|', 'rfc3164', 13, 'h'],
    ['2024-01-02T03:04:05.123456+00:00 host tag: LEEF:1.0|', 'nonstandard', -1, ''],
    ['<13>Jan 7 11:07:53 h LEEF:1.0|', 'nonstandard', -1, ''],
    ['<1234>1 - host - - - msg', 'nonstandard', -1, ''],
    ['', 'nonstandard', -1, ''],
  ])('classifies %j', (line, kind, pri, host) => {
    const h = detectSyslogHeader(line);
    expect(h.kind).toBe(kind);
    expect(h.pri).toBe(pri);
    expect(h.hostnameStart < 0 ? '' : line.slice(h.hostnameStart, h.hostnameEnd)).toBe(host);
  });

  it('finds a leftover octet-count prefix and the timestamp', () => {
    const line = '87 <14>1 2021-09-21T02:00:56Z host - - - LEEF:1.0|';
    const h = detectSyslogHeader(line);
    expect([h.kind, h.start, line.slice(h.timestampStart, h.timestampEnd), line.slice(h.end)]).toEqual([
      'rfc5424',
      3,
      '2021-09-21T02:00:56Z',
      '- - - LEEF:1.0|',
    ]);
  });

  it('reports the NILVALUE timestamp as absent', () => {
    const h = detectSyslogHeader('<14>1 - host - - - msg');
    expect([h.timestampStart, h.timestampEnd]).toEqual([-1, -1]);
  });

  it('agrees with the reference regular expressions on any input', () => {
    const line = fc.oneof(
      noisyLine,
      mutatedLine,
      fc.tuple(leefPrefix, noisyLine).map(([p, s]) => p + s),
      fc
        .tuple(fc.constantFrom('', '12 ', '0 ', '1234567 '), leefPrefix, fc.string({ maxLength: 20 }))
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(line, (l) => {
        expect(byScanner(l)).toEqual(byRegex(l));
      }),
      { numRuns: 10_000 },
    );
  });
});
