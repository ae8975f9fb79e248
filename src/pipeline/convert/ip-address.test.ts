import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIpAddress, isPlainIPv4 } from './ip-address.ts';

const octet = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map(String),
  fc
    .tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 1, max: 3 }))
    .map(([n, width]) => String(n).padStart(width, '0')),
  fc.constantFrom('', '-1', '1a', ' 1', '256', '00', '0x1'),
);
const candidates = fc.oneof(
  fc.array(octet, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.')),
  fc.ipV4(),
  fc.ipV6(),
  fc.string({ maxLength: 16, unit: fc.constantFrom('0', '1', '2', '5', '9', '.', ':', 'a', ' ') }),
  fc.string({ maxLength: 20 }),
);

describe('isIpAddress', () => {
  it('answers as isIP does, and the scan accepts only what isIP calls IPv4', () => {
    fc.assert(
      fc.property(candidates, (value) => {
        const v4 = isIP(value) === 4;
        expect(isIpAddress(value)).toBe(isIP(value) !== 0);
        if (isPlainIPv4(value)) expect(v4).toBe(true);
        else expect(v4).toBe(false);
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads the usual forms and refuses near misses', () => {
    for (const ok of ['0.0.0.0', '10.0.0.1', '255.255.255.255', '192.168.1.10'])
      expect(isPlainIPv4(ok)).toBe(true);
    for (const bad of [
      '01.2.3.4',
      '1.2.3',
      '1.2.3.4.',
      '.1.2.3',
      '256.1.1.1',
      '1..2.3',
      '1.2.3.4 ',
      '1.2.3.04',
    ])
      expect(isPlainIPv4(bad), bad).toBe(false);
    expect(isIpAddress('::1')).toBe(true);
    expect(isIpAddress('fe80::1%eth0')).toBe(true);
  });
});
