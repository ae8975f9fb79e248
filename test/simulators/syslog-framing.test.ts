import { describe, expect, it } from 'vitest';
import { SyslogDeframer, type SyslogFraming } from './syslog-framing.ts';

/** Feeds `input` one byte at a time, to prove frames survive any chunk boundary. */
function byteByByte(framing: SyslogFraming, input: string, max = 1000) {
  const deframer = new SyslogDeframer(framing, max);
  const frames: Array<[string, string]> = [];
  let error: string | undefined;
  for (const byte of Buffer.from(input)) {
    const out = deframer.push(Buffer.from([byte]));
    frames.push(...out.frames.map((f): [string, string] => [f.framing, f.bytes.toString()]));
    error ??= out.error;
  }
  return { frames, error, rest: deframer.rest().toString() };
}

describe('SyslogDeframer', () => {
  it('splits LF-terminated messages and keeps the unterminated rest', () => {
    expect(byteByByte('lf', '<14>a\n<14>b\r\n\n<14>c')).toEqual({
      frames: [
        ['lf', '<14>a'],
        ['lf', '<14>b\r'],
        ['lf', ''],
      ],
      error: undefined,
      rest: '<14>c',
    });
  });

  it('reads octet-counted frames with embedded newlines, counting bytes not characters', () => {
    expect(byteByByte('octet_counting', '11 <14>a\nb\nc d7 <14>hé5 <14')).toEqual({
      frames: [
        ['octet_counting', '<14>a\nb\nc d'],
        ['octet_counting', '<14>hé'],
      ],
      error: undefined,
      rest: '5 <14',
    });
  });

  it('detects the framing per frame in auto mode', () => {
    expect(byteByByte('auto', '4 <1>x<2>y\n3 abc').frames).toEqual([
      ['octet_counting', '<1>x'],
      ['lf', '<2>y'],
      ['octet_counting', 'abc'],
    ]);
  });

  it.each([
    ['octet_counting', '<14>hello\n', 'expected an octet count, found byte 0x3c'],
    ['octet_counting', '05 hello', 'expected an octet count, found byte 0x30'],
    ['octet_counting', '12a <14>x', 'invalid octet count: byte 0x61 before the space'],
    ['octet_counting', '1234567890 x', 'invalid octet count: more than 9 digits'],
    ['octet_counting', '2000 x', 'octet count 2000 exceeds the 1000-byte message limit'],
    ['lf', 'x'.repeat(1001), 'no LF within 1000 bytes'],
  ] as const)('in %s mode refuses %j', (framing, input, error) => {
    expect(byteByByte(framing, input).error).toBe(error);
  });

  it('stays broken after an error', () => {
    const deframer = new SyslogDeframer('octet_counting', 100);
    expect(deframer.push(Buffer.from('x')).error).toBeDefined();
    expect(deframer.push(Buffer.from('3 abc'))).toEqual({
      frames: [],
      error: 'expected an octet count, found byte 0x78',
    });
  });
});
