import { describe, expect, it } from 'vitest';
import { applyFilterPath } from './bulk-filter-path.ts';
import { parseBulkBody } from './bulk-ndjson.ts';

describe('parseBulkBody', () => {
  it('pairs actions with source lines, defaults the index and tolerates CRLF', () => {
    const body =
      '{"create":{"_index":"a","_id":"1"}}\r\n{"x":1}\r\n{"delete":{"_id":"2"}}\n{"index":{}}\n{"y":2}\n';
    expect(parseBulkBody(body, 'dflt')).toEqual({
      ok: true,
      actions: [
        { op: 'create', index: 'a', id: '1', meta: {}, source: '{"x":1}', line: 1 },
        { op: 'delete', index: 'dflt', id: '2', meta: {}, source: undefined, line: 3 },
        { op: 'index', index: 'dflt', id: undefined, meta: {}, source: '{"y":2}', line: 4 },
      ],
    });
  });

  it.each([
    ['', 'parse_exception', 'request body is required'],
    [
      '{"index":{"_index":"a"}}\n{"x":1}',
      'illegal_argument_exception',
      'The bulk request must be terminated by a newline [\\n]',
    ],
    ['\n', 'action_request_validation_exception', 'Validation Failed: 1: no requests added;'],
    [
      '{"upsert":{"_index":"a"}}\n{}\n',
      'illegal_argument_exception',
      'Malformed action/metadata line [1], expected one of [create, delete, index, update] but found [upsert]',
    ],
    [
      '{"index":{"_index":"a","_type":"_doc"}}\n{}\n',
      'illegal_argument_exception',
      'Action/metadata line [1] contains an unknown parameter [_type]',
    ],
    [
      '{"index":{"_index":"a"}}\n',
      'action_request_validation_exception',
      'Validation Failed: 1: source is missing;',
    ],
    [
      '{"index":{}}\n{}\n{"create":{}}\n{}\n',
      'action_request_validation_exception',
      'Validation Failed: 1: index is missing;2: index is missing;',
    ],
  ])('refuses %j with %s', (body, type, reason) => {
    expect(parseBulkBody(body, undefined)).toEqual({ ok: false, error: { type, reason } });
  });
});

describe('applyFilterPath', () => {
  const bulk = {
    took: 3,
    errors: true,
    items: [
      { create: { _id: '1', status: 201 } },
      { create: { _id: '2', status: 409, error: { type: 'version_conflict_engine_exception' } } },
    ],
  };

  it('keeps only the listed paths, looking through arrays', () => {
    expect(applyFilterPath(bulk, 'errors,items.*.error')).toEqual({
      errors: true,
      items: [{ create: { error: { type: 'version_conflict_engine_exception' } } }],
    });
    expect(applyFilterPath(bulk, 'items.*.status')).toEqual({
      items: [{ create: { status: 201 } }, { create: { status: 409 } }],
    });
  });

  it('drops what is left empty', () => {
    expect(applyFilterPath({ errors: false, items: [{ create: { status: 201 } }] }, 'items.*.error')).toEqual(
      {},
    );
  });

  it('matches any depth with **', () => {
    expect(applyFilterPath(bulk, '**.type')).toEqual({
      items: [{ create: { error: { type: 'version_conflict_engine_exception' } } }],
    });
  });
});
