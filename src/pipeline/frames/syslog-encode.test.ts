import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefLine, mutatedLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { framerFor } from '../syslog/framing.ts';
import { createHeaderWriter, type HeaderModeSettings } from '../syslog/header-mode.ts';
import type { Framing, HeaderMode, SyslogFormat } from '../syslog/syslog-options.ts';
import { ChunkBuilder } from './chunk-builder.ts';
import { createSyslogEncoder, type SyslogEncoderSettings } from './syslog-encode.ts';

const T = Date.UTC(2026, 2, 7, 9, 5, 3, 42); // 2026-03-07T09:05:03.042Z
const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const LEEF = 'LEEF:2.0|Lab|FW|1|allow|^|src=10.0.0.1^labIndex=lab';

/** The header and framing settings of a syslog destination, as a test destination gives them. */
interface TestDestination {
  header_mode: HeaderMode;
  syslog_format: SyslogFormat;
  source_identity: string | null;
  facility: number;
  severity: number;
  framing: Framing;
}

function destination(over: Partial<TestDestination> = {}): TestDestination {
  return {
    source_identity: 'lab-fw01',
    header_mode: 'synthesize_if_missing',
    syslog_format: 'rfc3164',
    framing: 'lf',
    facility: 16,
    severity: 6,
    ...over,
  };
}

function headerOf(dest: TestDestination): HeaderModeSettings {
  return {
    mode: dest.header_mode,
    format: dest.syslog_format,
    sourceIdentity: dest.source_identity,
    facility: dest.facility,
    severity: dest.severity,
  };
}

function encoder(over: Partial<SyslogEncoderSettings> = {}, dest = destination()) {
  return createSyslogEncoder({
    header: headerOf(dest),
    framing: dest.framing,
    maxMessageBytes: 65_536,
    now: NOW,
    ...over,
  });
}

describe('createSyslogEncoder', () => {
  it('synthesizes an RFC 3164 header from the event time and ends the frame with LF', () => {
    expect(encoder()({ line: LEEF, time: T })).toBe(`<134>Mar  7 09:05:03 lab-fw01 ${LEEF}\n`);
  });

  it('uses the shipping time for an event without a time', () => {
    const encode = encoder({}, destination({ syslog_format: 'rfc5424' }));
    expect(encode({ line: LEEF, time: null })).toBe(
      `<134>1 2026-11-22T18:00:00.000Z lab-fw01 - - - ${LEEF}\n`,
    );
  });

  it('keeps an existing header in synthesize_if_missing mode', () => {
    const line = `<13>Jan 18 11:07:53 orig ${LEEF}`;
    expect(encoder()({ line, time: T })).toBe(`${line}\n`);
  });

  it('counts octets in UTF-8 bytes and keeps embedded line breaks with octet counting', () => {
    const dest = destination({ framing: 'octet_counting', header_mode: 'preserve_raw' });
    const line = `${LEEF}^msg=é\nzwei`;
    const bytes = Buffer.byteLength(line, 'utf8');
    expect(bytes).toBe(line.length + 1);
    expect(encoder({}, dest)({ line, time: T })).toBe(`${bytes} ${line}`);
  });

  it('turns embedded CR and LF into spaces with LF framing, so one event stays one message', () => {
    const dest = destination({ header_mode: 'preserve_raw' });
    expect(encoder({}, dest)({ line: `${LEEF}^a=1\r\nb\rc\n`, time: T })).toBe(`${LEEF}^a=1 b c\n`);
  });

  it('refuses an event whose message is longer than the limit, counting UTF-8 bytes', () => {
    const encode = encoder({ maxMessageBytes: 90 }, destination({ header_mode: 'preserve_raw' }));
    const fits = `${LEEF}^m=${'x'.repeat(90 - LEEF.length - 3)}`;
    expect(Buffer.byteLength(fits)).toBe(90);
    expect(encode({ line: fits, time: T })).toBe(`${fits}\n`);
    // Same length in characters, one byte more in UTF-8.
    const over = `${LEEF}^m=é${'x'.repeat(90 - LEEF.length - 4)}`;
    expect(over.length).toBe(90);
    expect(encode({ line: over, time: T })).toEqual({
      cause: 'too_long',
      error: 'the message is longer than 90 bytes and is not sent (the receiver would cut it in pieces)',
    });
  });

  it('refuses events without a line, empty lines, and lines that need a header it cannot make', () => {
    const encode = encoder({}, destination({ source_identity: null }));
    expect(encode({ doc: { a: 1 }, time: T })).toEqual({
      cause: 'no_line',
      error: 'the event has no LEEF line (syslog frames carry LEEF only)',
    });
    expect(encode({ line: '', time: T })).toEqual({ cause: 'empty', error: 'the event is an empty line' });
    expect(encode({ line: LEEF, time: T })).toEqual({
      cause: 'no_header',
      error:
        'cannot synthesize a syslog header (synthesize_if_missing): a source identity is needed to synthesize syslog headers',
    });
    // A line that has a header needs no identity.
    expect(encode({ line: `<13>Jan 18 11:07:53 orig ${LEEF}`, time: T })).toBe(
      `<13>Jan 18 11:07:53 orig ${LEEF}\n`,
    );
  });
  it('gives exactly what the header writer and the framer give, fast path or not', () => {
    const modes: HeaderMode[] = ['preserve_raw', 'synthesize_if_missing', 'force_synthesize'];
    fc.assert(
      fc.property(
        fc.oneof(
          leefLine.map((g) => g.line),
          mutatedLine,
          leefLine.map((g) => `LEEF:${g.line}`),
        ),
        fc.constantFrom(...modes),
        fc.constantFrom('rfc3164' as const, 'rfc5424' as const),
        fc.constantFrom('lf' as const, 'octet_counting' as const),
        fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: null }),
        fc.option(fc.constantFrom('lab-fw01', 'bad name'), { nil: null }),
        (line, mode, format, framing, time, identity) => {
          const dest = destination({
            header_mode: mode,
            syslog_format: format,
            framing,
            source_identity: identity,
          });
          const got = encoder({}, dest)({ line, time });
          const msg = createHeaderWriter(headerOf(dest)).apply(line, time, NOW);
          if (line.length === 0) expect(got).toEqual({ cause: 'empty', error: 'the event is an empty line' });
          else if (msg === null) expect(typeof got).toBe('object');
          else expect(got).toBe(framerFor(framing)(msg));
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

describe('ChunkBuilder', () => {
  it('gathers frames as UTF-8 bytes and starts afresh after take', () => {
    const builder = new ChunkBuilder(64);
    builder.append('a=é\n');
    builder.append('b\n');
    const chunk = builder.take();
    expect(chunk.data.toString('utf8')).toBe('a=é\nb\n');
    expect(chunk.data.length).toBe(7);
    expect(chunk.events).toBe(2);
    expect(builder.events).toBe(0);
    expect(builder.take().data.length).toBe(0);
  });

  it('copies a small chunk out instead of pinning the whole buffer, and hands a full one over', () => {
    const capacity = 256 * 1024; // beyond Node's buffer pool: its own ArrayBuffer
    const builder = new ChunkBuilder(capacity);
    builder.append('abc\n');
    const small = builder.take();
    expect(small.data.toString()).toBe('abc\n');
    expect(small.data.buffer.byteLength).toBeLessThan(capacity);
    // The buffer was reused; more than half full, it now goes along with the chunk.
    builder.append('a'.repeat(80_000));
    builder.append(`${'b'.repeat(59_999)}\n`);
    const full = builder.take();
    expect(full.data.length).toBe(140_000);
    expect(full.data.buffer.byteLength).toBe(capacity);
    builder.append('x\n');
    expect(builder.take().data.toString()).toBe('x\n');
    expect(small.data.toString()).toBe('abc\n');
    expect(full.data.subarray(0, 3).toString()).toBe('aaa');
  });

  it('reports a frame that may not fit, and takes an oversized frame alone in a buffer of its own', () => {
    const builder = new ChunkBuilder(12);
    expect(builder.fits('abcd')).toBe(true);
    expect(builder.fits('abcde')).toBe(false);
    builder.append('abcde€\n');
    expect(builder.take().data.toString('utf8')).toBe('abcde€\n');
    builder.append('ab');
    expect(() => builder.append('abcdefgh')).toThrow(/take the chunk/);
  });
});
