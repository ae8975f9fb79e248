import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDynamicMapping, type BulkIndex, newBulkIndex } from './bulk-index-store.ts';
import { parseBulkBody } from './bulk-ndjson.ts';
import { type BulkState, executeBulk } from './bulk-operations.ts';
import { sourceFits } from './bulk-source-fit.ts';

const isObject = (text: string) => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
};
const fitsText = (text: string, index?: BulkIndex) => {
  const bytes = Buffer.from(text);
  return sourceFits(bytes, 0, bytes.length, index);
};

/** ECS-like documents: a few recurring fields with values of changing types, sometimes odd spellings. */
const scalar = fc.oneof(
  fc.constantFrom(
    '2026-03-01T10:00:00.000Z',
    '2026-03-01',
    'not a date',
    '12',
    '1.5',
    'true',
    '',
    'é',
    'a\\"b',
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const key = fc.constantFrom(
  '@timestamp',
  'message',
  'n',
  'flag',
  'host',
  'name',
  'ip',
  'event.kind',
  '1',
  'é',
  'a"b',
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { weight: 4, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
    { weight: 2, arbitrary: fc.dictionary(key, tie('value'), { maxKeys: 4 }) },
  ),
})).value;
const doc = fc.dictionary(key, value, { maxKeys: 6 });
/** The document as JSON text, sometimes respaced, given a repeated key, or broken. */
const docText = fc
  .tuple(
    doc,
    fc.constantFrom('plain', 'plain', 'plain', 'spaced', 'repeat', 'cut', 'extra', 'escape'),
    fc.nat(),
  )
  .map(([d, how, at]) => {
    const text = JSON.stringify(d);
    if (how === 'spaced') return JSON.stringify(d, null, 1).replaceAll('\n', ' ');
    if (how === 'repeat' && text.length > 2)
      return `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"n":"x"}`;
    if (how === 'cut') return text.slice(0, at % text.length);
    if (how === 'extra') return `${text} x`;
    if (how === 'escape') return text.replace('"', '"\\u0040');
    return text;
  });

describe('sourceFits', () => {
  it('without a mapping, accepts exactly the texts JSON.parse reads as an object', () => {
    for (const text of ['{}', ' {"a":[1,{"b":null}],"c":"\\u00e9\\n"} ', '{"a":-0.5e+3}']) {
      expect(fitsText(text), text).toBe(true);
    }
    for (const text of [
      '[]',
      '"x"',
      '{"a":01}',
      '{"a":1,}',
      '{"a":"\t"}',
      '{"a":"\\x"}',
      '{"a":1} {}',
      '{"a" 1}',
      '',
    ]) {
      expect(fitsText(text), text).toBe(false);
    }
    fc.assert(
      fc.property(docText, (text) => {
        expect(fitsText(text)).toBe(isObject(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('with a mapping, accepts only documents the mapping check passes without adding a field', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 4 }), docText, (seeds, text) => {
        const index = newBulkIndex('lab', 'index', new Date(0));
        for (const seed of seeds)
          applyDynamicMapping(index, JSON.parse(JSON.stringify(seed)), ctx(JSON.stringify(seed)));
        if (!fitsText(text, index)) return;
        accepted++;
        const before = [...index.mapping];
        expect(isObject(text)).toBe(true);
        expect(applyDynamicMapping(index, JSON.parse(text), ctx(text))).toBeUndefined();
        expect([...index.mapping]).toEqual(before);
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });
});

describe('bulk fast paths', () => {
  it('give the same answers and store the same documents and mapping as the slow paths', () => {
    const action = fc.oneof(
      fc.constantFrom('{"create":{"_index":"lab","_id":"1"}}', '{"create":{"_index":"lab","_id":"2"}}'),
      fc.constantFrom(
        '{"index":{"_index":"lab","_id":"1"}}',
        '{"index":{"_id":"3"}}',
        '{"create":{"_index":"Lab"}}',
      ),
      fc.constantFrom(
        '{"create":{"_index":"lab","_id":"1","routing":"r"}}',
        '{"create" : {"_index":"lab","_id":"4"}}',
      ),
      fc.constantFrom('{"delete":{"_index":"lab","_id":"1"}}', '{"create":{"_index":"lab","_id":"a\\"b"}}'),
    );
    const item = fc
      .tuple(action, docText)
      .map(([a, d]) => (a.includes('"delete"') ? `${a}\n` : `${a}\n${d}\n`));
    const bodies = fc.array(
      fc.array(item, { minLength: 1, maxLength: 6 }).map((items) => items.join('')),
      {
        minLength: 1,
        maxLength: 4,
      },
    );
    fc.assert(
      fc.property(bodies, fc.boolean(), (texts, mappingConflicts) => {
        const fast = state(mappingConflicts);
        const slow = state(mappingConflicts);
        for (const text of texts) {
          const bytes = Buffer.from(text);
          const a = parseBulkBody(text, 'lab', { bytes });
          const b = parseBulkBody(text, 'lab', { fastPath: false });
          expect(a.ok).toBe(b.ok);
          if (!a.ok || !b.ok) {
            expect(a).toEqual(b);
            continue;
          }
          expect(a.actions.map(({ sourceStart, sourceEnd, ...rest }) => rest)).toEqual(b.actions);
          expect(executeBulk(fast, a.actions, 'none', bytes)).toStrictEqual(
            executeBulk(slow, b.actions, 'none'),
          );
        }
        expect(snapshot(fast)).toStrictEqual(snapshot(slow));
      }),
      { numRuns: 1500 },
    );
  });
});

function ctx(sourceText: string) {
  return { id: '1', sourceText, type: 'document_parsing_exception', positions: true };
}

/** A state whose uuids and clock are fixed, so two runs can be compared field by field. */
function state(mappingConflicts: boolean): BulkState {
  return {
    flavor: 'elasticsearch',
    major: 8,
    indexes: new Map([['lab', { ...newBulkIndex('lab', 'index', new Date(0)), uuid: 'u' }]]),
    autoCreateIndex: false,
    visibility: 'immediate',
    mappingConflicts,
    builtinTemplates: true,
    rejectDocument: undefined,
    itemRejections: [],
    deleteByQueryConflicts: 0,
    tasks: new Map(),
    nodeId: 'n',
    now: () => 0,
  };
}

function snapshot(s: BulkState) {
  return [...s.indexes.values()].map((index) => ({
    mapping: [...index.mapping],
    docs: [...index.docs.values()].map((d) => [d.id, d.sourceText, d.source, d.version, d.seqNo]),
  }));
}
