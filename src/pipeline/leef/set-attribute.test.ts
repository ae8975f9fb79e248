import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefLine, mutatedLine, noisyLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { sanitizeLeefValue } from './emit-leef.ts';
import { parseLeef } from './parse-leef.ts';
import { setAttribute } from './set-attribute.ts';

describe('setAttribute', () => {
  it.each([
    ['LEEF 1.0 TAB', 'LEEF:1.0|V|P|1|ID|a=1\tb=2', 'LEEF:1.0|V|P|1|ID|a=1\tb=2\tlabIndex=lab-7'],
    ['LEEF 2.0 caret', 'LEEF:2.0|V|P|1|ID|^|a=1^b=2', 'LEEF:2.0|V|P|1|ID|^|a=1^b=2^labIndex=lab-7'],
    ['LEEF 2.0 x09', 'LEEF:2.0|V|P|1|ID|x09|a=1\tb=2', 'LEEF:2.0|V|P|1|ID|x09|a=1\tb=2\tlabIndex=lab-7'],
    ['PAN-OS pipes', 'LEEF:1.0|V|P|1|ID|a=1|b=2', 'LEEF:1.0|V|P|1|ID|a=1|b=2|labIndex=lab-7'],
    ['no attributes yet', 'LEEF:2.0|V|P|1|ID|^|', 'LEEF:2.0|V|P|1|ID|^|labIndex=lab-7'],
    [
      'with a header',
      '<13>Jan 18 11:07:53 host LEEF:1.0|V|P|1|ID|a=1',
      '<13>Jan 18 11:07:53 host LEEF:1.0|V|P|1|ID|a=1\tlabIndex=lab-7',
    ],
    ['before a CRLF', 'LEEF:1.0|V|P|1|ID|a=1\r\n', 'LEEF:1.0|V|P|1|ID|a=1\tlabIndex=lab-7\r\n'],
    ['before trailing delimiters', 'LEEF:1.0|V|P|1|ID|a=1\t', 'LEEF:1.0|V|P|1|ID|a=1\tlabIndex=lab-7\t'],
  ])('appends with the line’s own delimiter: %s', (_name, line, expected) => {
    expect(setAttribute(line, 'labIndex', 'lab-7')).toBe(expected);
  });

  it.each([
    ['first', 'LEEF:1.0|V|P|1|ID|labIndex=old\ta=1', 'LEEF:1.0|V|P|1|ID|labIndex=new\ta=1'],
    ['last', 'LEEF:2.0|V|P|1|ID|^|a=1^labIndex=old', 'LEEF:2.0|V|P|1|ID|^|a=1^labIndex=new'],
    [
      'twice',
      'LEEF:1.0|V|P|1|ID|labIndex=x\ta=1\tlabIndex=y',
      'LEEF:1.0|V|P|1|ID|labIndex=new\ta=1\tlabIndex=new',
    ],
    ['empty', 'LEEF:1.0|V|P|1|ID|labIndex=\ta=1', 'LEEF:1.0|V|P|1|ID|labIndex=new\ta=1'],
  ])('replaces an existing value instead of adding a duplicate key (%s)', (_name, line, expected) => {
    expect(setAttribute(line, 'labIndex', 'new')).toBe(expected);
  });

  it('does not take a key that only ends with the name for it', () => {
    expect(setAttribute('LEEF:1.0|V|P|1|ID|xlabIndex=1', 'labIndex', '2')).toBe(
      'LEEF:1.0|V|P|1|ID|xlabIndex=1\tlabIndex=2',
    );
  });

  it('sanitizes the value: no delimiter, CR or LF', () => {
    expect(setAttribute('LEEF:2.0|V|P|1|ID|^|a=1', 'note', 'x^y\r\nz')).toBe(
      'LEEF:2.0|V|P|1|ID|^|a=1^note=x y z',
    );
    expect(sanitizeLeefValue('a b', ' ')).toBe('a_b');
  });

  it.each([
    ['not LEEF', 'hello', 'labIndex'],
    ['empty key', 'LEEF:1.0|V|P|1|ID|a=1', ''],
    ['key with =', 'LEEF:1.0|V|P|1|ID|a=1', 'a=b'],
    ['key with the delimiter', 'LEEF:2.0|V|P|1|ID|#|a=1', 'a#b'],
  ])('leaves the line unchanged: %s', (_name, line, key) => {
    expect(setAttribute(line, key, 'v')).toBe(line);
  });

  it('sets the value and changes nothing else on any generated line', () => {
    fc.assert(
      fc.property(leefLine, fc.string({ maxLength: 12 }), (g, value) => {
        const out = setAttribute(g.line, 'labIndex', value);
        const p = parseLeef(out);
        expect(p).not.toBeNull();
        if (p === null) return;
        let safe = sanitizeLeefValue(value, g.delimiter);
        if (g.delimiterField === null && g.delimiter !== '|') safe = safe.replaceAll('|', ' ');
        const had = g.attributes.some(([k]) => k === 'labIndex');
        const expected = had
          ? g.attributes.map(([k, v]): [string, string] => [k, k === 'labIndex' ? safe : v])
          : [...g.attributes, ['labIndex', safe]];
        expect(p.attributes).toEqual(expected);
        expect([p.prefix, p.delimiter, p.delimiterField, p.eol, p.eventId]).toEqual([
          g.prefix,
          g.delimiter,
          g.delimiterField,
          g.eol,
          g.eventId,
        ]);
        expect(setAttribute(out, 'labIndex', value)).toBe(out);
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws and keeps non-LEEF text as it is', () => {
    fc.assert(
      fc.property(fc.oneof(noisyLine, mutatedLine), fc.string({ maxLength: 8 }), (line, value) => {
        const out = setAttribute(line, 'labIndex', value);
        if (parseLeef(line) === null) expect(out).toBe(line);
        else expect(parseLeef(out)).not.toBeNull();
      }),
      { numRuns: 3000 },
    );
  });
});
