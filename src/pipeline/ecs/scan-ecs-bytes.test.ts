import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ecsDecoyDocument } from '../../../test/fixtures/ecs/ecs-decoy-document.ts';
import { EcsByteScanner } from './scan-ecs-bytes.ts';
import { MAX_JSON_DEPTH, scanEcsJson, type TimeSpan } from './scan-ecs-json.ts';

const simplify = (spans: readonly TimeSpan[]) => spans.map((s) => [s.field, s.start, s.end]);

/** The byte scanner's answer for `text` placed between `before` and `after` in one buffer. */
function scanIn(text: string, before = '', after = '', scanner = new EcsByteScanner()) {
  const buf = Buffer.from(before + text + after);
  const start = Buffer.byteLength(before);
  return scanner.scan(buf, start, start + Buffer.byteLength(text));
}

/** Holds the byte scanner to the text scanner: a yes of its own is always the text scanner's yes. */
function agreesWhenSure(text: string, before = '', after = ''): boolean {
  const spans = scanIn(text, before, after);
  if (spans === null) return false;
  const scan = scanEcsJson(text);
  expect(scan.ok).toBe(true);
  expect(simplify(spans)).toEqual(simplify(scan.ok ? scan.spans : []));
  return true;
}

describe('EcsByteScanner', () => {
  it('finds the time spans the text scanner finds, with the same offsets', () => {
    const text =
      '{"@timestamp":"2024-05-01T12:34:56.789Z","event":{"created":1714566896789,"kind":"x","start":"s"},' +
      '"event.ingested":"2024-05-01T12:34:57Z","event.end":null,"nested":{"@timestamp":"no"},"list":[true,false,-0.5e-3]}';
    expect(agreesWhenSure(text)).toBe(true);
    expect(scanIn(text)?.map((s) => [s.field, text.slice(s.start, s.end)])).toEqual([
      ['@timestamp', '"2024-05-01T12:34:56.789Z"'],
      ['event.created', '1714566896789'],
      ['event.start', '"s"'],
      ['event.ingested', '"2024-05-01T12:34:57Z"'],
    ]);
  });

  it('is sure of generated documents full of decoys, and then right', () => {
    let sure = 0;
    fc.assert(
      fc.property(ecsDecoyDocument(3), (text) => {
        if (agreesWhenSure(text)) sure++;
      }),
      { numRuns: 3000 },
    );
    // Only documents with escaped time keys, which many generated ones have, go to the text scanner.
    expect(sure).toBeGreaterThan(600);
  });

  it('reads only its own bytes: the same answer amid other lines, quotes and digits', () => {
    const junk = fc.string({
      unit: fc.constantFrom(...'{}[]":,\\ 0123456789e.-\t\r\n'.split('')),
      maxLength: 8,
    });
    fc.assert(
      fc.property(ecsDecoyDocument(2), junk, junk, (text, before, after) => {
        const alone = scanIn(text);
        const amid = scanIn(text, before, after);
        expect(amid === null ? null : simplify(amid)).toEqual(alone === null ? null : simplify(alone));
      }),
      { numRuns: 2000 },
    );
    // A document cut short must not be completed by the bytes after it.
    expect(scanIn('{"a":"b', '', '"}')).toBeNull();
    expect(scanIn('{"a":1', '', '2}')).toBeNull();
    expect(scanIn('{"a":tr', '', 'ue}')).toBeNull();
    expect(scanIn('{"a":"\\u12', '', '34"}')).toBeNull();
  });

  it('never says yes where the text scanner says no, on mutated JSON', () => {
    const mutation = fc.tuple(
      fc.nat(),
      fc.constantFrom('delete', 'insert', 'replace'),
      fc.constantFrom(...'{}[]":,\\ \t\n0123456789-+.eEtrufalsnu\u0000\u001f\u007fx"é'.split('')),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          ecsDecoyDocument(2),
          fc.dictionary(fc.string(), fc.jsonValue()).map((v) => JSON.stringify(v)),
        ),
        fc.array(mutation, { maxLength: 4 }),
        (original, ms) => {
          let text = original;
          for (const [at, kind, ch] of ms) {
            const i = text.length === 0 ? 0 : at % text.length;
            text =
              kind === 'delete'
                ? text.slice(0, i) + text.slice(i + 1)
                : kind === 'insert'
                  ? text.slice(0, i) + ch + text.slice(i)
                  : text.slice(0, i) + ch + text.slice(i + 1);
          }
          agreesWhenSure(text);
        },
      ),
      { numRuns: 6000 },
    );
  });

  it.each([
    ['a byte above 0x7f', '{"message":"café"}'],
    ['an escaped time key', '{"\\u0040timestamp":"2024-05-01T00:00:00Z"}'],
    ['an escape inside a time key', '{"event":{"cr\\u0065ated":1}}'],
    ['an event time key starting with an escape', '{"event":{"\\u0063reated":1}}'],
    ['an error', '{"a":1,}'],
    ['a control character in a string', '{"a":"\t"}'],
    ['text after the object', '{"a":1} x'],
  ])('leaves %s to the text scanner', (_, text) => {
    expect(scanIn(text)).toBeNull();
  });

  it('is sure of escapes elsewhere, DEL and surrounding whitespace', () => {
    expect(agreesWhenSure(' \t{"m\\u00e9":"a\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00FF","x":"\u007f"} \r')).toBe(
      true,
    );
    expect(agreesWhenSure('{}')).toBe(true);
    expect(agreesWhenSure('{"a":[],"b":{},"c":[[]]}')).toBe(true);
  });

  it(`handles nesting up to ${MAX_JSON_DEPTH} levels and leaves deeper to the text scanner, scanner after scanner`, () => {
    const nest = (levels: number) =>
      `${'{"event":'.repeat(levels - 1)}{"created":1}${'}'.repeat(levels - 1)}`;
    const scanner = new EcsByteScanner();
    expect(scanIn(nest(MAX_JSON_DEPTH), '', '', scanner)).toEqual([]);
    expect(scanIn(nest(MAX_JSON_DEPTH + 1), '', '', scanner)).toBeNull();
    // The stack is the scanner's: a document after a deep one starts from an empty one.
    const two = nest(2);
    expect(scanIn(two, '', '', scanner)).toEqual([
      { field: 'event.created', start: two.indexOf('1'), end: two.indexOf('1') + 1 },
    ]);
  });
});
