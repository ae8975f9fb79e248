import { describe, expect, it } from 'vitest';
import {
  type HecParseOptions,
  normalizeHecTime,
  parseHecEventBody,
  splitConcatenatedJson,
} from './hec-events.ts';

const options: HecParseOptions = {
  defaults: { index: 'main', host: 'sim:8088', source: 'http:lab', sourcetype: 'httpevent' },
  checkIndex: (index) =>
    index === 'main' || index === 'lab' ? 'ok' : index === 'gone' ? 'drop' : 'incorrect',
  maxEventBytes: 200,
  acceptArray: true,
};

describe('splitConcatenatedJson', () => {
  it('splits objects separated by optional whitespace, braces inside strings included', () => {
    expect(splitConcatenatedJson('{"a":"}{"}\n {"b":[1,{"c":2}]}{"d":"\\"}"}')).toEqual({
      segments: ['{"a":"}{"}', '{"b":[1,{"c":2}]}', '{"d":"\\"}"}'],
    });
  });

  it('reports the position of the first incomplete or non-object value', () => {
    expect(splitConcatenatedJson('{"a":1} {"b":')).toEqual({ segments: ['{"a":1}'], errorAt: 1 });
    expect(splitConcatenatedJson('{"a":1},{"b":2}')).toEqual({ segments: ['{"a":1}'], errorAt: 1 });
  });
});

describe('parseHecEventBody', () => {
  it('applies defaults and keeps the envelope text', () => {
    const out = parseHecEventBody(
      '{"event":"x","time":"12.5"}{"event":{"k":1},"index":"lab","host":"h"}',
      options,
    );
    expect(out.error).toBeUndefined();
    expect(out.events).toEqual([
      {
        envelopeText: '{"event":"x","time":"12.5"}',
        index: 'main',
        host: 'sim:8088',
        source: 'http:lab',
        sourcetype: 'httpevent',
        time: 12.5,
        timeSent: '12.5',
        event: 'x',
        fields: undefined,
        dropped: false,
      },
      {
        envelopeText: '{"event":{"k":1},"index":"lab","host":"h"}',
        index: 'lab',
        host: 'h',
        source: 'http:lab',
        sourcetype: 'httpevent',
        time: undefined,
        timeSent: undefined,
        event: { k: 1 },
        fields: undefined,
        dropped: false,
      },
    ]);
  });

  it.each([
    ['', 5, undefined],
    ['   \n', 5, undefined],
    ['{"event":"a"}{"event":', 6, 1],
    ['{"event":"a"}{"nope"}', 6, 1],
    ['{"event":"a"}{"time":1}', 12, 1],
    ['{"event":"a"}{"event":"  "}', 13, 1],
    ['{"event":"a"}{"event":""}', 13, 1],
    ['{"event":"a"}{"event":null}', 6, 1],
    ['{"event":"a"}{"event":false}', 6, 1],
    ['{"event":"a"}{"event":"b","fields":{"x":{"y":1}}}', 15, 1],
    ['{"event":"a"}{"event":"b","time":"soon"}', 6, 1],
    ['{"event":"a"}{"event":"b","host":5}', 6, 1],
    ['{"event":"a"}[1]', 6, 1],
  ])('refuses %j with code %i at event %s and keeps the events before it', (body, code, at) => {
    const out = parseHecEventBody(body, options);
    expect(out.error).toEqual(at === undefined ? { code } : { code, invalidEventNumber: at });
    expect(out.events.map((e) => e.event)).toEqual(at === undefined ? [] : ['a']);
  });

  it('reports an index outside the allow-list one position after the event (code 7)', () => {
    const out = parseHecEventBody('{"event":"a"}{"event":"b","index":"Main"}{"event":"c"}', options);
    expect(out.error).toEqual({ code: 7, invalidEventNumber: 2 });
    expect(out.events.map((e) => e.event)).toEqual(['a']);
  });

  it('marks events for a dropped index without failing the request', () => {
    const out = parseHecEventBody('{"event":"a","index":"gone"}', options);
    expect(out.error).toBeUndefined();
    expect(out.events[0]?.dropped).toBe(true);
  });

  it('stops silently at an unknown envelope key, and calls a body with nothing taken "No data"', () => {
    expect(parseHecEventBody('{"event":"a"}{"event":"b","extra":1}{"event":"c"}', options)).toMatchObject({
      events: [{ event: 'a' }],
    });
    expect(parseHecEventBody('{"event":"a"}{"event":"b","extra":1}', options).error).toBeUndefined();
    expect(parseHecEventBody('{"event":"b","extra":1}', options)).toEqual({ events: [], error: { code: 5 } });
  });

  it('skips an object with fields and no event', () => {
    const out = parseHecEventBody('{"fields":{"metric_name:x":1}}{"event":"a"}', options);
    expect(out.error).toBeUndefined();
    expect(out.events.map((e) => e.event)).toEqual(['a']);
  });

  it('accepts empty objects, arrays and zero as events', () => {
    const out = parseHecEventBody('{"event":{}}{"event":[]}{"event":0}', options);
    expect(out.events.map((e) => e.event)).toEqual([{}, [], 0]);
  });

  it('refuses an event larger than the per-event cap', () => {
    const out = parseHecEventBody(`{"event":"${'x'.repeat(300)}"}`, options);
    expect(out.error).toEqual({ code: 6, invalidEventNumber: 0 });
  });

  it('accepts a top-level array when enabled', () => {
    expect(parseHecEventBody('[{"event":"a"},{"event":"b"}]', options).events.map((e) => e.event)).toEqual([
      'a',
      'b',
    ]);
    expect(parseHecEventBody('[{"event":"a"}]', { ...options, acceptArray: false }).error).toEqual({
      code: 6,
      invalidEventNumber: 0,
    });
  });
});

describe('normalizeHecTime', () => {
  it.each([
    [undefined, undefined],
    [1433188255, 1433188255],
    [1433188255.5, 1433188255.5],
    ['1433188255.500', 1433188255.5],
    [1433188255123, 1433188255.123],
    [1433188255123456, 1433188255.123456],
    ['1700000000.123456789', 1700000000.123456],
    [JSON.parse('1700000000123456789') as number, 1700000000.123456],
    ['later', null],
    [true, null],
  ])('reads %j as %j', (input, expected) => {
    expect(normalizeHecTime(input)).toBe(expected);
  });
});
