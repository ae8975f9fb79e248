import { describe, expect, it } from 'vitest';
import {
  applyDynamicMapping,
  builtinDataStreamTemplate,
  indexNameProblem,
  newBulkIndex,
} from './bulk-index-store.ts';

const ctx = (id: string, sourceText: string) => ({
  id,
  sourceText,
  type: 'document_parsing_exception',
  positions: false,
});

describe('applyDynamicMapping', () => {
  it('maps fields on first sight and accepts compatible later values', () => {
    const index = newBulkIndex('lab', 'index', new Date(0));
    expect(
      applyDynamicMapping(
        index,
        { n: 1, f: 1.5, b: true, t: 'x', d: '2026-01-01T00:00:00Z', o: { k: 'v' } },
        ctx('1', ''),
      ),
    ).toBeUndefined();
    expect([...index.mapping]).toEqual([
      ['n', 'long'],
      ['f', 'float'],
      ['b', 'boolean'],
      ['t', 'text'],
      ['d', 'date'],
      ['o', 'object'],
      ['o.k', 'text'],
    ]);
    expect(
      applyDynamicMapping(index, { n: '42', t: 7, d: 1700000000000, b: 'false' }, ctx('2', '')),
    ).toBeUndefined();
  });

  it('refuses a concrete value where an object is mapped (the ECS host conflict)', () => {
    const index = newBulkIndex('lab', 'index', new Date(0));
    applyDynamicMapping(index, { host: { name: 'ws1' } }, ctx('1', ''));
    expect(
      applyDynamicMapping(index, { host: 'ws1' }, { ...ctx('2', '{"host":"ws1"}'), positions: true }),
    ).toEqual({
      type: 'document_parsing_exception',
      reason:
        '[1:9] object mapping for [host] tried to parse field [host] as object, but found a concrete value',
    });
  });

  it('refuses an object where a concrete field is mapped, and values a typed field cannot parse', () => {
    const index = newBulkIndex('lab', 'index', new Date(0));
    applyDynamicMapping(index, { host: 'ws1', n: 1, d: '2026-01-01', b: true }, ctx('1', ''));
    expect(
      applyDynamicMapping(index, { host: { name: 'ws1' } }, ctx('2', '{"host":{"name":"ws1"}}')),
    ).toMatchObject({
      reason:
        "failed to parse field [host] of type [text] in document with id '2'. Preview of field's value: '{name=ws1}'",
    });
    expect(applyDynamicMapping(index, { n: 'abc' }, ctx('3', ''))).toEqual({
      type: 'document_parsing_exception',
      reason:
        "failed to parse field [n] of type [long] in document with id '3'. Preview of field's value: 'abc'",
      caused_by: { type: 'illegal_argument_exception', reason: 'For input string: "abc"' },
    });
    expect(applyDynamicMapping(index, { d: 'yesterday' }, ctx('4', ''))?.caused_by).toEqual({
      type: 'illegal_argument_exception',
      reason: 'failed to parse date field [yesterday] with format [strict_date_optional_time||epoch_millis]',
    });
    expect(applyDynamicMapping(index, { b: 'yes' }, ctx('5', ''))?.caused_by).toEqual({
      type: 'illegal_argument_exception',
      reason: 'Failed to parse value [yes] as only [true] or [false] are allowed.',
    });
  });

  it('adds no mapping from a refused document', () => {
    const index = newBulkIndex('lab', 'index', new Date(0));
    applyDynamicMapping(index, { n: 1 }, ctx('1', ''));
    applyDynamicMapping(index, { fresh: 'x', n: 'abc' }, ctx('2', ''));
    expect(index.mapping.has('fresh')).toBe(false);
  });

  it('takes explicit mappings given at index creation', () => {
    const index = newBulkIndex('lab', 'index', new Date(0), {
      mappings: {
        properties: { '@timestamp': { type: 'date' }, source: { properties: { ip: { type: 'ip' } } } },
      },
    });
    expect([...index.mapping]).toEqual([
      ['@timestamp', 'date'],
      ['source', 'object'],
      ['source.ip', 'text'],
    ]);
  });
});

describe('indexNameProblem', () => {
  it.each([
    ['lab-01', undefined],
    ['Lab', 'Invalid index name [Lab], must be lowercase'],
    [
      'a b',
      'Invalid index name [a b], must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?]',
    ],
    ['_lab', "Invalid index name [_lab], must not start with '_', '-', or '+'"],
    ['..', "Invalid index name [..], must not be '.' or '..'"],
    ['a#b', "Invalid index name [a#b], must not contain '#'"],
  ])('%j → %j', (name, problem) => {
    expect(indexNameProblem(name)).toBe(problem);
  });
});

describe('builtinDataStreamTemplate', () => {
  it('claims names of the built-in logs-*-* style patterns only', () => {
    expect(builtinDataStreamTemplate('logs-lab-default')).toBe('logs');
    expect(builtinDataStreamTemplate('metrics-a-b')).toBe('metrics');
    expect(builtinDataStreamTemplate('logs-lab')).toBeUndefined();
    expect(builtinDataStreamTemplate('lab-logs-a')).toBeUndefined();
  });
});
