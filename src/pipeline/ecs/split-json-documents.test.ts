import { describe, expect, it } from 'vitest';
import { JsonDocumentSplitter } from './split-json-documents.ts';

function split(text: string, chunk = 3, max = 1000): Array<[number, string]> {
  const splitter = new JsonDocumentSplitter('a.json', max);
  const out: Array<[number, string]> = [];
  for (let i = 0; i < text.length; i += chunk) {
    const batch = splitter.push(text.slice(i, i + chunk));
    batch.texts.forEach((t, k) => {
      out.push([batch.numbers[k]!, t]);
    });
  }
  splitter.end();
  return out;
}

describe('JsonDocumentSplitter', () => {
  it('splits a pretty-printed array into compact one-line documents with their lines', () => {
    const text = '[\n  {\n    "a": 1,\n    "b": "x y"\n  },\n  {"c": [1, {"d": "}]"}]}\n]\n';
    for (const chunk of [1, 2, 5, 100]) {
      expect(split(text, chunk)).toEqual([
        [2, '{"a":1,"b":"x y"}'],
        [6, '{"c":[1,{"d":"}]"}]}'],
      ]);
    }
  });

  it('reads one object, and objects one after another', () => {
    expect(split(' {"a":"\\"{"} ')).toEqual([[1, '{"a":"\\"{"}']]);
    expect(split('{"a":1}\n{"b":2}{"c":3}\n')).toEqual([
      [1, '{"a":1}'],
      [2, '{"b":2}'],
      [2, '{"c":3}'],
    ]);
  });

  it('reads an empty array and an empty entry as no documents', () => {
    expect(split('[ ]')).toEqual([]);
    expect(split('  \n')).toEqual([]);
  });

  it.each([
    [
      '[{"a":1}, 2]',
      'line 1 of archive entry "a.json": the JSON element 2 of the array is not a JSON object',
    ],
    ['[{"a":1}\n{"b":2}]', 'line 2 of archive entry "a.json": the JSON has unexpected "{"'],
    ['[{"a":1}] x', 'has unexpected "x"'],
    ['{"a":1}]', 'has unexpected "]"'],
    ['"just a string"', 'does not start with a JSON object or array'],
    ['[{"a":1},', 'ends inside the array'],
    ['\n\n{"a":[1,', 'line 3 of archive entry "a.json": the JSON ends inside a JSON document'],
  ])('refuses %j', (text, message) => {
    expect(() => split(text)).toThrow(expect.objectContaining({ code: 'archive_invalid' }));
    expect(() => split(text)).toThrow(message);
  });

  it('refuses a document longer than the cap with payload_too_large', () => {
    expect(() => split(`[{"a":"${'x'.repeat(50)}"}]`, 4, 20)).toThrow(
      expect.objectContaining({
        code: 'payload_too_large',
        details: { entry: 'a.json', line: 1, limit: 20 },
      }),
    );
  });
});
