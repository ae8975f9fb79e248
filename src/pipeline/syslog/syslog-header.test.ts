import { describe, expect, it } from 'vitest';
import { formatRfc3164Header, formatRfc5424Header, formatRfc5424Time, syslogPri } from './syslog-header.ts';

describe('syslog header synthesis', () => {
  it('computes PRI as facility × 8 + severity', () => {
    expect([
      syslogPri(16, 6),
      syslogPri(0, 0),
      syslogPri(23, 7),
      syslogPri(24, 0),
      syslogPri(1.5, 0),
    ]).toEqual([134, 0, 191, -1, -1]);
  });

  it('writes RFC 5424 times with exactly three fraction digits and Z', () => {
    expect(formatRfc5424Time(Date.UTC(2024, 0, 2, 3, 4, 5, 6))).toBe('2024-01-02T03:04:05.006Z');
    expect(formatRfc5424Time(Date.UTC(2024, 0, 2, 3, 4, 5))).toBe('2024-01-02T03:04:05.000Z');
  });

  it('writes both header forms', () => {
    const ms = Date.UTC(2024, 7, 7, 1, 2, 3, 456);
    expect(formatRfc3164Header(134, ms, 'h1')).toBe('<134>Aug  7 01:02:03 h1 ');
    expect(formatRfc5424Header(13, ms, '10.0.0.1')).toBe('<13>1 2024-08-07T01:02:03.456Z 10.0.0.1 - - - ');
  });
});
