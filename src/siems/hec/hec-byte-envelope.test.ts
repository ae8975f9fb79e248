import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefLine, mutatedLine, noisyLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { LeefByteEvent } from '../../pipeline/leef/leef-byte-events.ts';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import type { EncodedEvent } from '../shared/deliver.ts';
import { requestBody } from '../shared/request-body.ts';
import { HecByteEnvelope, writeJsonEscaped } from './hec-byte-envelope.ts';
import { createHecEncoder, type HecEnvelopeSettings } from './hec-encode.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

/** `lines` held as bytes the way pass 2 holds them: one after another in one buffer, junk around. */
function byteEvents(
  lines: readonly string[],
  times: readonly (number | null)[],
  junk: string,
): OutboundEvent[] {
  const parts: Buffer[] = [Buffer.from(junk)];
  const spans: Array<[number, number]> = [];
  let at = parts[0]!.length;
  for (const line of lines) {
    const bytes = Buffer.from(line, 'utf8');
    parts.push(bytes, Buffer.from(junk));
    spans.push([at, at + bytes.length]);
    at += bytes.length + junk.length;
  }
  const buf = Buffer.concat(parts);
  return spans.map(([s, e], k) => new LeefByteEvent(buf, s, e, times[k] ?? null));
}

/** The encoded events of a shipment, or the error of each refused one. */
function encodeAll(
  settings: HecEnvelopeSettings,
  events: readonly OutboundEvent[],
): Array<EncodedEvent | string> {
  const encode = createHecEncoder(settings);
  return events.map((event, seq) => {
    const out = encode(event, seq);
    return 'error' in out ? out.error : out;
  });
}

/** The request body of the accepted events, and the refusals in order. */
function wire(encoded: ReadonlyArray<EncodedEvent | string>): {
  body: string;
  errors: string[];
  texts: string;
} {
  const accepted = encoded.filter((e): e is EncodedEvent => typeof e !== 'string');
  return {
    body: requestBody(accepted).toString('utf8'),
    errors: encoded.filter((e): e is string => typeof e === 'string'),
    texts: accepted.map((e) => e.text).join(''),
  };
}

const tricky = fc.constantFrom(
  '"',
  '\\',
  '\t',
  '\r',
  '\n',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  'é',
  '€',
  '😀',
  ' ',
);
const line = fc.oneof(
  { weight: 4, arbitrary: leefLine.map((g) => g.line) },
  { weight: 2, arbitrary: mutatedLine },
  { weight: 2, arbitrary: noisyLine },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('<134>Mar  1 10:00:00 ', '<13>1 2026-03-01T10:00:00Z ', 'Mar  9 23:59:58 ', ''),
        fc.string({ unit: fc.constantFrom('a', 'b', 'fw', '-', '1', '.'), maxLength: 6 }),
        fc.string({ unit: fc.oneof(tricky, fc.constantFrom('a', '=', '|', ' ')), maxLength: 30 }),
      )
      .map(([header, host, rest]) => `${header}${host} LEEF:1.0|V|P|1|E|${rest}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\t \r',
      'LEEF:',
      '-',
      '<134>Mar  1 10:00:00 - LEEF:2.0|V|P|1|E|^a=1',
    ),
  },
);
const time = fc.oneof(
  fc.integer({ min: -5_000_000, max: 5_000_000 }),
  fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
  fc.constantFrom(null, Number.NaN, -1, -999, -1000, -1001, 0.5, 1_700_000_000_000.7),
);
const settings: fc.Arbitrary<HecEnvelopeSettings> = fc.record({
  format: fc.constant('leef' as const),
  index: fc.constantFrom(null, 'lab', 'läb'),
  source: fc.constantFrom(null, 'socdrill', 'a "quoted" source'),
  sourcetype: fc.constantFrom(null, 'leef'),
  now: fc.constant(NOW),
});

describe('HEC envelopes of LEEF lines held as bytes', () => {
  it('write the request body, texts and refusals the string path gives for the same lines', () => {
    fc.assert(
      fc.property(
        settings,
        fc.array(fc.tuple(line, time), { maxLength: 60 }),
        fc.constantFrom('', '\n', 'xx"\\\t'),
        (s, rows, junk) => {
          // As bytes hold them: a lone surrogate has no UTF-8 and comes back as U+FFFD.
          const lines = rows.map(([l]) => Buffer.from(l, 'utf8').toString('utf8'));
          const times = rows.map(([, t]) => t);
          const strings = wire(
            encodeAll(
              s,
              lines.map((l, k) => ({ line: l, time: times[k] ?? null })),
            ),
          );
          const bytes = wire(encodeAll(s, byteEvents(lines, times, junk)));
          expect(bytes).toEqual(strings);
          expect(bytes.texts).toBe(bytes.body);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('take most lines of the bench mix on the byte path, and more hosts than it remembers', () => {
    const lines = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? `<134>Mar  1 10:00:${String(i % 60).padStart(2, '0')} host-${(i / 2) % 40} LEEF:1.0|V|P|1|E|src=10.0.0.${i}\tdevTime=${i}`
        : `LEEF:2.0|V|P|1|E|^|a=${i}^msg=say "hi"`,
    );
    const times = lines.map((_, i) => NOW + i * 37);
    const s: HecEnvelopeSettings = { format: 'leef', index: 'lab', source: null, sourcetype: null, now: NOW };
    const encoded = encodeAll(s, byteEvents(lines, times, '\n'));
    expect(encoded.every((e) => e instanceof HecByteEnvelope)).toBe(true);
    expect(wire(encoded)).toEqual(
      wire(
        encodeAll(
          s,
          lines.map((line, i) => ({ line, time: times[i]! })),
        ),
      ),
    );
    expect(wire(encoded).body).toContain('"host":"host-39"');
  });

  it('are copied whole into bodies across the chunks they are written in', () => {
    // About 2 MB of envelopes: several of the writer's chunks, each body a run of them.
    const lines = Array.from({ length: 12_000 }, (_, i) => `LEEF:1.0|V|P|1|E|n=${i}\t${'x'.repeat(150)}`);
    const times = lines.map((_, i) => NOW + i);
    const s: HecEnvelopeSettings = { format: 'leef', index: null, source: null, sourcetype: null, now: NOW };
    const bytes = encodeAll(s, byteEvents(lines, times, '')) as EncodedEvent[];
    const strings = encodeAll(
      s,
      lines.map((line, i) => ({ line, time: times[i]! })),
    ) as EncodedEvent[];
    const chunks = new Set(bytes.map((e) => (e as HecByteEnvelope).bytes));
    expect(chunks.size).toBeGreaterThan(4);
    for (const [from, to] of [
      [0, 12_000],
      [1000, 9000],
      [3, 4],
    ] as const) {
      expect(requestBody(bytes.slice(from, to)).equals(requestBody(strings.slice(from, to)))).toBe(true);
    }
    // Mixed with envelopes of the string path, as non-ASCII lines make them.
    const mixed = bytes.map((e, i) => (i % 97 === 0 ? strings[i]! : e));
    expect(requestBody(mixed).equals(requestBody(strings))).toBe(true);
  });
});

describe('HEC envelopes of LEEF lines held as bytes, at their edges', () => {
  const s: HecEnvelopeSettings = { format: 'leef', index: 'lab', source: null, sourcetype: null, now: NOW };

  it('give each line its own host when more hosts come and go than the writer remembers', () => {
    // 30 hosts in a shuffled order (a fixed sequence): the 16 remembered are replaced over and over.
    let x = 12345;
    const next = () => {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      return x;
    };
    const lines = Array.from(
      { length: 3_000 },
      (_, i) => `<134>Mar  1 10:00:00 host-${next() % 30} LEEF:1.0|V|P|1|E|n=${i}`,
    );
    const times = lines.map((_, i) => NOW + i);
    const bytes = encodeAll(s, byteEvents(lines, times, '\n'));
    expect(bytes.every((e) => e instanceof HecByteEnvelope)).toBe(true);
    expect(wire(bytes)).toEqual(
      wire(
        encodeAll(
          s,
          lines.map((line, i) => ({ line, time: times[i]! })),
        ),
      ),
    );
  });

  it('write lines that escape to six times their length across the chunks they are written in', () => {
    const controls = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).join('');
    const lines = Array.from(
      { length: 3_000 },
      (_, i) => `LEEF:1.0|V|P|1|E|n=${i}\tmsg=${controls.repeat(1 + (i % 4))}"\\${'\u0001'.repeat(i % 300)}`,
    );
    const times = lines.map((_, i) => NOW + i * 7);
    const bytes = encodeAll(s, byteEvents(lines, times, '')) as EncodedEvent[];
    expect(new Set(bytes.map((e) => (e as HecByteEnvelope).bytes)).size).toBeGreaterThan(10);
    expect(wire(bytes)).toEqual(
      wire(
        encodeAll(
          s,
          lines.map((line, i) => ({ line, time: times[i]! })),
        ),
      ),
    );
  });

  it('count bytes as their size, at least the characters the string path counts', () => {
    const settings: HecEnvelopeSettings = { ...s, index: 'läb', source: 'quelle-ü' };
    const lines = ['LEEF:1.0|V|P|1|E|a=1', '<134>Mar  1 10:00:00 fw-1 LEEF:1.0|V|P|1|E|b=2'];
    const bytes = encodeAll(settings, byteEvents(lines, [NOW, NOW], '')) as EncodedEvent[];
    const strings = encodeAll(
      settings,
      lines.map((line) => ({ line, time: NOW })),
    ) as EncodedEvent[];
    for (const [k, e] of bytes.entries()) {
      expect(e.size).toBe(Buffer.byteLength(e.text));
      expect(e.size).toBeGreaterThan(strings[k]!.size);
      expect(e.text).toBe(strings[k]!.text);
    }
  });
});

describe('writeJsonEscaped', () => {
  it('escapes every ASCII byte as JSON.stringify does, at every alignment and length', () => {
    const out = Buffer.alloc(4096);
    const outView = new DataView(out.buffer, out.byteOffset, out.length);
    for (let c = 0; c < 128; c++) {
      for (let lead = 0; lead < 9; lead++) {
        for (let trail = 0; trail < 6; trail++) {
          const text = `${'a'.repeat(lead)}${String.fromCharCode(c)}${'b'.repeat(trail)}`;
          for (let offset = 0; offset < 4; offset++) {
            const buf = Buffer.from(`${'#'.repeat(offset)}${text}`, 'latin1');
            const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
            const end = writeJsonEscaped(out, outView, 3, buf, view, offset, buf.length);
            expect(out.toString('latin1', 3, end)).toBe(JSON.stringify(text).slice(1, -1));
          }
        }
      }
    }
  });

  it('answers -1 for text with a byte above 0x7f, wherever it stands', () => {
    const out = Buffer.alloc(256);
    const outView = new DataView(out.buffer, out.byteOffset, out.length);
    for (let at = 0; at < 12; at++) {
      const buf = Buffer.from(`${'a'.repeat(at)}é${'b'.repeat(11 - at)}`, 'utf8');
      const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
      expect(writeJsonEscaped(out, outView, 0, buf, view, 0, buf.length)).toBe(-1);
    }
  });
});
