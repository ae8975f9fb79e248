import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ecsDecoyDocument } from '../../../test/fixtures/ecs/ecs-decoy-document.ts';
import { locateEcsTimes, MAX_JSON_DEPTH, scanEcsJson, type TimeSpan } from './scan-ecs-json.ts';

function spansOf(text: string): Array<[string, string]> {
  const scan = scanEcsJson(text);
  if (!scan.ok) throw new Error(scan.error);
  return scan.spans.map((s) => [s.field, text.slice(s.start, s.end)]);
}

describe('scanEcsJson', () => {
  it('finds @timestamp and the event times, nested or dotted, with their exact tokens', () => {
    const text =
      '{"@timestamp":"2024-05-01T12:00:00Z","event":{"kind":"event","created": 1714567890123 ,"start":"s"},' +
      '"event.end":"2024-05-01T12:00:01Z","event.ingested":-5e3,"message":"x"}';
    expect(spansOf(text)).toEqual([
      ['@timestamp', '"2024-05-01T12:00:00Z"'],
      ['event.created', '1714567890123'],
      ['event.start', '"s"'],
      ['event.end', '"2024-05-01T12:00:01Z"'],
      ['event.ingested', '-5e3'],
    ]);
  });

  it('ignores the same names elsewhere: nested deeper, in arrays, as values, or holding non-scalars', () => {
    const text =
      '{"file":{"created":"2024-01-01T00:00:00Z"},"x":{"event":{"created":"2024"}},"list":[{"@timestamp":"t"}],' +
      '"m":"@timestamp","event":{"start":null,"end":{"a":1},"ingested":["2024"]},"@timestamp":true}';
    expect(spansOf(text)).toEqual([]);
  });

  it('recognizes keys written with escapes and keeps repeated keys in order', () => {
    expect(spansOf('{"\\u0040timestamp":"a","@timestamp":"b","ev\\u0065nt":{"cre\\u0061ted":"c"}}')).toEqual([
      ['@timestamp', '"a"'],
      ['@timestamp', '"b"'],
      ['event.created', '"c"'],
    ]);
  });

  it.each([
    ['[]', 'expected a JSON object'],
    ['"text"', 'expected a JSON object'],
    ['{"a":1,}', 'expected a property name'],
    ['{a:1}', 'expected a property name'],
    ["{'a':1}", 'expected a property name'],
    ['{"a":01}', 'expected "," or "}"'],
    ['{"a":1.}', 'bad number'],
    ['{"a":-}', 'bad number'],
    ['{"a":NaN}', 'expected a value'],
    ['{"a":"\t"}', 'control character in string'],
    ['{"a":"\\x"}', 'bad escape in string'],
    ['{"a":"\\u12G4"}', 'bad escape in string'],
    ['{"a":"open}', 'unterminated string'],
    ['{"a":1} x', 'unexpected text after the object'],
    ['{"a":[1 2]}', 'expected "," or "]"'],
    ['{"a":tru}', 'expected a value'],
    ['', 'expected a JSON object'],
  ])('refuses %j (%s)', (text, why) => {
    const scan = scanEcsJson(text);
    expect(scan.ok).toBe(false);
    expect(scan.ok ? '' : scan.error).toContain(why);
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels and accepts exactly that`, () => {
    const nest = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    expect(scanEcsJson(nest(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(scanEcsJson(nest(MAX_JSON_DEPTH + 1))).toMatchObject({ ok: false });
  });

  const acceptsLikeJsonParse = (text: string) => {
    let parsed: unknown;
    let parses = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      parses = false;
    }
    const isObject = parses && typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    expect(scanEcsJson(text).ok).toBe(isObject);
  };

  it('accepts exactly what JSON.parse accepts as an object, on generated JSON', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), (value, pretty) => {
        acceptsLikeJsonParse(JSON.stringify(value, null, pretty ? 2 : undefined));
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts exactly what JSON.parse accepts as an object, on mutated JSON', () => {
    const mutation = fc.tuple(
      fc.nat(),
      fc.constantFrom('delete', 'insert', 'replace'),
      fc.constantFrom(...'{}[]":,\\ \t\n0123456789-+.eEtrufalsn\u0000\u001fx"'.split('')),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.array(mutation, { maxLength: 4 }),
        (value, ms) => {
          let text = JSON.stringify(value);
          for (const [at, kind, ch] of ms) {
            const i = text.length === 0 ? 0 : at % text.length;
            text =
              kind === 'delete'
                ? text.slice(0, i) + text.slice(i + 1)
                : kind === 'insert'
                  ? text.slice(0, i) + ch + text.slice(i)
                  : text.slice(0, i) + ch + text.slice(i + 1);
          }
          acceptsLikeJsonParse(text);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('locateEcsTimes', () => {
  it('finds what the validating scan finds, on documents full of decoys', () => {
    fc.assert(
      fc.property(ecsDecoyDocument(3), (text) => {
        const scan = scanEcsJson(text);
        expect(scan.ok).toBe(true);
        const simplify = (spans: readonly TimeSpan[]) => spans.map((s) => [s.field, s.start, s.end]);
        expect(simplify(locateEcsTimes(text))).toEqual(simplify(scan.ok ? scan.spans : []));
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws or loops on text that is not JSON', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'{}[]":,\\ abc0-9@event'.split('')) }), (text) => {
        expect(Array.isArray(locateEcsTimes(text))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
