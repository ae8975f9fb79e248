import { describe, expect, it } from 'vitest';
import { parseFields, parseSort, project, sortItems } from './siem-q-fields.ts';
import { compileFilter, type FieldSchema, QueryParamError } from './siem-q-filter.ts';
import { SIEM_Q_SCHEMAS } from './siem-q-store.ts';

const schema = SIEM_Q_SCHEMAS.offenses satisfies FieldSchema;

const offenses = [
  {
    id: 1,
    status: 'OPEN',
    start_time: 100,
    close_time: null,
    description: 'a "quoted" one',
    log_sources: [{ id: 7 }],
  },
  {
    id: 2,
    status: 'HIDDEN',
    start_time: 200,
    close_time: null,
    description: 'back\\slash',
    log_sources: [{ id: 8 }],
  },
  {
    id: 3,
    status: 'CLOSED',
    start_time: 300,
    close_time: 350,
    description: 'x',
    log_sources: [{ id: 7 }, { id: 9 }],
  },
  { id: 4, status: 'OPEN', start_time: 400, close_time: null, description: 'y', log_sources: [] },
];

function ids(filter: string): number[] {
  const match = compileFilter(filter, schema);
  return offenses.filter(match).map((o) => o.id);
}

describe('SIEM Q filter: selects what the console would', () => {
  it.each([
    ['status="OPEN"', [1, 4]],
    ['status!="OPEN"', [2, 3]],
    ['status<>"OPEN"', [2, 3]],
    ['id=3', [3]],
    ['id > 2', [3, 4]],
    ['id>=2 and id<=3', [2, 3]],
    ['start_time < 200', [1]],
    ['(status="OPEN" or status="HIDDEN") and start_time >= 200', [2, 4]],
    ['status="OPEN" or status="HIDDEN" and start_time >= 200', [1, 2, 4]],
    ['not status="CLOSED"', [1, 2, 4]],
    ['id in (1, 3, 99)', [1, 3]],
    ['id not in (1,3)', [2, 4]],
    ['status in ("OPEN","CLOSED")', [1, 3, 4]],
    ['start_time between 200 and 300', [2, 3]],
    ['start_time not between 200 and 300', [1, 4]],
    ['close_time is null', [1, 2, 4]],
    ['close_time is not null', [3]],
    ['close_time > 0', [3]],
    ['description="a \\"quoted\\" one"', [1]],
    ['description="back\\\\slash"', [2]],
    ['log_sources contains id=7', [1, 3]],
    ['log_sources contains id=7 and status="OPEN"', [1]],
    ['log_sources contains (id=8 or id=9)', [2, 3]],
    ['id=1 OR id=2 AnD NOT id=2', [1]],
  ])('%s → %j', (filter, expected) => {
    expect(ids(filter)).toEqual(expected);
  });

  it.each([
    ['', 'empty'],
    ['status=', 'expected a value'],
    ['status="OPEN', 'unterminated string'],
    ['(id=1', 'expected ")"'],
    ['id=1)', 'unexpected ")"'],
    ['nope=1', 'unknown field "nope"'],
    ['id="1"', 'is a number'],
    ['status=OPEN', 'expected a value'],
    ['status > "OPEN"', 'cannot be filtered with >'],
    ['status between "A" and "Z"', 'cannot be filtered with between'],
    ['log_sources=1', 'cannot be compared'],
    ['id contains 1', 'needs an array field'],
    ['id in ()', 'expected a value'],
    ["status='OPEN'", 'unexpected "\'"'],
    ['id = 1 and', 'expected a field name'],
  ])('refuses %j (%s)', (filter, message) => {
    expect(() => compileFilter(filter, schema)).toThrow(QueryParamError);
    expect(() => compileFilter(filter, schema)).toThrow(message);
  });
});

describe('SIEM Q fields and sort', () => {
  it('projects top-level and nested fields, with parentheses or brackets', () => {
    const offense = {
      id: 3,
      status: 'CLOSED',
      magnitude: 4,
      log_sources: [{ id: 7, name: 'a', type_id: 1, type_name: 'T' }],
    };
    expect(project(offense, parseFields('id, status, log_sources(id,name)', schema))).toEqual({
      id: 3,
      status: 'CLOSED',
      log_sources: [{ id: 7, name: 'a' }],
    });
    expect(project([offense], parseFields('log_sources[id]', schema))).toEqual([
      { log_sources: [{ id: 7 }] },
    ]);
  });

  it.each([
    ['id,nope', 'unknown field "nope"'],
    ['log_sources(id,nope)', 'unknown field "nope"'],
    ['id(x)', 'has no sub-fields'],
    ['log_sources(id', 'misses a closing ")"'],
    ['id,,status', 'unexpected ","'],
    ['id,id', 'selected twice'],
  ])('refuses fields %j', (fields, message) => {
    expect(() => parseFields(fields, schema)).toThrow(message);
  });

  it('sorts by signed keys, nulls first ascending, and refuses unsortable fields', () => {
    expect(sortItems(offenses, parseSort('-start_time', schema)).map((o) => o.id)).toEqual([4, 3, 2, 1]);
    expect(sortItems(offenses, parseSort('+status,-id', schema)).map((o) => o.id)).toEqual([3, 2, 4, 1]);
    expect(sortItems(offenses, parseSort('close_time', schema)).map((o) => o.id)).toEqual([1, 2, 4, 3]);
    expect(() => parseSort('+log_sources', schema)).toThrow('cannot be sorted');
    expect(() => parseSort('+nope', schema)).toThrow('unknown field');
    expect(() => parseSort('id desc', schema)).toThrow('not valid');
  });
});
