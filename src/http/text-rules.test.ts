import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { multilinePaths, textProblem, textProblems } from './text-rules.ts';

const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  '\u007f',
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i)),
];

describe('text rules', () => {
  it('refuses every C0 control, DEL and every C1 control in a line, naming the code point and position', () => {
    for (const control of CONTROLS) {
      const problem = textProblem(`ab${control}c`, 'line');
      const code = control.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
      expect(problem, code).toBe(`must not contain control characters (U+${code} at position 2)`);
    }
  });

  it('lets multi-line text hold tab, LF and CR, and nothing else of the controls', () => {
    expect(textProblem('-----BEGIN CERTIFICATE-----\r\n\tMIIB\n', 'multiline')).toBeUndefined();
    for (const control of CONTROLS.filter((c) => !'\t\n\r'.includes(c))) {
      expect(textProblem(`a${control}`, 'multiline'), String(control.charCodeAt(0))).toMatch(
        /control characters/,
      );
    }
    expect(textProblem('a\nb', 'line')).toMatch(/U\+000A at position 1/);
  });

  it('refuses lone surrogates and keeps surrogate pairs (emoji, CJK extension B)', () => {
    expect(textProblem('x\ud800y', 'line')).toBe(
      'must be well-formed Unicode (a lone surrogate at position 1)',
    );
    expect(textProblem('ab\udc00', 'line')).toMatch(/position 2/);
    expect(textProblem('\ud83d\ude00 𠀀 é ü ß', 'line')).toBeUndefined();
  });

  it('accepts any well-formed string without controls, and refuses it once a control is inserted', () => {
    const plain = fc
      .string({ unit: 'grapheme', maxLength: 40 })
      .filter((s) => !CONTROLS.some((c) => s.includes(c)));
    fc.assert(
      fc.property(plain, fc.constantFrom(...CONTROLS), fc.nat(), (text, control, at) => {
        expect(textProblem(text, 'line')).toBeUndefined();
        const i = at % (text.length + 1);
        expect(textProblem(text.slice(0, i) + control + text.slice(i), 'line')).toBeDefined();
      }),
    );
  });

  it('finds multi-line fields through unions, nested objects, arrays and records', () => {
    const schema = Type.Union([
      Type.Object({ ca_pem: Type.Union([Type.String({ 'x-multiline': true }), Type.Null()]) }),
      Type.Object({
        group: Type.Object({ notes: Type.String({ 'x-multiline': true }), name: Type.String() }),
        list: Type.Array(Type.String({ 'x-multiline': true })),
        map: Type.Record(Type.String(), Type.String({ 'x-multiline': true })),
      }),
    ]);
    expect([...multilinePaths(schema)].sort()).toEqual(['ca_pem', 'group.notes', 'list.*', 'map.*']);
  });

  it('names every bad string and key by its path, allowing line breaks only where the schema says', () => {
    const body = {
      name: 'a\u0000',
      ca_pem: 'line 1\nline 2',
      settings: { host: 'h\u0085', 'bad\u0001key': 1 },
      list: ['ok', 'x\ud800'],
      nested: [{ note: 'a\nb' }],
    };
    expect(textProblems(body, new Set(['ca_pem']))).toEqual({
      name: 'must not contain control characters (U+0000 at position 1)',
      'settings.host': 'must not contain control characters (U+0085 at position 1)',
      'settings.bad\\u0001key': 'field name must not contain control characters (U+0001 at position 3)',
      'list.1': 'must be well-formed Unicode (a lone surrogate at position 1)',
      'nested.0.note': 'must not contain control characters (U+000A at position 1)',
    });
    expect(textProblems({ nested: [{ note: 'a\nb' }] }, new Set(['nested.*.note']))).toEqual({});
  });

  it('leaves what is not JSON text alone: numbers, booleans, null, an upload Buffer', () => {
    expect(textProblems({ n: 1, b: true, z: null, raw: Buffer.from([0, 1, 2]) })).toEqual({});
    expect(textProblems(Buffer.from('\u0000'))).toEqual({});
    expect(textProblems(undefined)).toEqual({});
    expect(textProblems('\u0000')).toEqual({ '(root)': expect.stringMatching(/U\+0000/) });
  });
});
