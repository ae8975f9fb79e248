import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type HecParseOptions, parseHecEventBody } from './hec-events.ts';
import { plainBody, readPlainEnvelope } from './hec-plain-envelope.ts';

/** Characters that break, or nearly break, the fast path's assumptions. */
const tricky = fc.constantFrom(
  '"',
  '\\',
  '\\"',
  '\\\\',
  '\\n',
  '\\u0041',
  '\\x',
  '\t',
  '\u0001',
  ' ',
  '}',
  '{',
  ',',
  ':',
  'é',
  '😀',
);
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }) },
  { weight: 2, arbitrary: tricky },
);
const jsonish = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
const number = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.nat().map((n) => `${Math.floor(n / 1000)}.${String(n % 1000).padStart(3, '0')}`),
  },
  fc.constantFrom(
    '1772359200.123',
    '0',
    '-0',
    '0.5',
    '01',
    '1.',
    '1e3',
    '1.5E-2',
    '-12.25',
    '9007199254740993',
    '12345678901234567890.5',
    '"1.5"',
    'null',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);
/** A string value: usually a well-formed JSON string, sometimes raw text that may be broken. */
const stringToken = fc.oneof(
  { weight: 8, arbitrary: jsonish.map((s) => JSON.stringify(s)) },
  { weight: 2, arbitrary: jsonish.map((s) => `"${s}"`) },
  { weight: 1, arbitrary: fc.constantFrom('7', '{"a":1}', 'null', '""', '"  "') },
);
const META = ['host', 'source', 'sourcetype', 'index'] as const;
/** Envelopes in the sender's shape, with random members left out, repeated, moved or spaced. */
const envelope = fc
  .record({
    time: number,
    meta: fc.subarray([...META]),
    values: fc.array(
      fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^"[\w.:-]{0,12}"$/) }, stringToken),
      { minLength: 4, maxLength: 4 },
    ),
    event: stringToken,
    order: fc.oneof(
      { weight: 6, arbitrary: fc.constant('usual') },
      { weight: 1, arbitrary: fc.constantFrom('event-first', 'extra-key', 'spaced', 'fields', 'repeated') },
    ),
  })
  .map(({ time, meta, values, event, order }) => {
    const members = [`"time":${time}`, ...meta.map((k, n) => `"${k}":${values[n]}`)];
    if (order === 'event-first') members.unshift(`"event":${event}`);
    else members.push(`"event":${event}`);
    if (order === 'extra-key') members.splice(1, 0, '"extra":1');
    if (order === 'fields') members.push('"fields":{"a":"b"}');
    if (order === 'repeated') members.push(`"host":${values[0]}`);
    return `{${members.join(order === 'spaced' ? ', ' : ',')}}`;
  });
/** Mutations at a random place: drop, duplicate or insert a character. */
const mutated = fc
  .tuple(envelope, fc.nat(), fc.constantFrom('drop', 'insert', 'none', 'none', 'none', 'none'), tricky)
  .map(([text, at, how, c]) => {
    const k = at % (text.length + 1);
    if (how === 'drop') return text.slice(0, k) + text.slice(k + 1);
    if (how === 'insert') return text.slice(0, k) + c + text.slice(k);
    return text;
  });

const options: HecParseOptions = {
  defaults: { index: 'main', host: 'sim:8088', source: 'http:lab', sourcetype: 'httpevent' },
  checkIndex: (index) => (index === 'gone' ? 'drop' : index.startsWith('bad') ? 'incorrect' : 'ok'),
  maxEventBytes: 300,
  acceptArray: true,
};

describe('readPlainEnvelope', () => {
  it('reads the sender shape, unescaped slices and escaped event strings alike', () => {
    const text =
      '{"time":1772359200.123,"host":"fw-1","source":"s","sourcetype":"leef","index":"lab","event":"LEEF:2.0|a\\tb \\"q\\""}\n{"time":1,"event":"x"}';
    const bytes = Buffer.from(text);
    const body = plainBody(bytes, text);
    const first = readPlainEnvelope(body, 0);
    expect(first).toEqual({
      value: {
        time: 1772359200.123,
        host: 'fw-1',
        source: 's',
        sourcetype: 'leef',
        index: 'lab',
        event: 'LEEF:2.0|a\tb "q"',
      },
      end: text.indexOf('\n'),
    });
    expect(readPlainEnvelope(body, text.indexOf('\n') + 1)).toEqual({
      value: { time: 1, event: 'x' },
      end: text.length,
    });
  });

  it('leaves other shapes to the generic reader', () => {
    for (const text of [
      '{"event":"x","time":1}',
      '{"time":1, "event":"x"}',
      '{"time":1e3,"event":"x"}',
      '{"time":"1","event":"x"}',
      '{"time":1,"host":"a\\u0062","event":"x"}',
      '{"time":1,"event":{"a":1}}',
      '{"time":1,"event":"x","fields":{}}',
      '{"time":1,"event":"x\u0001"}',
      '{"time":1,"event":"x\\q"}',
      '{"time":1,"event":"x"',
    ]) {
      expect(readPlainEnvelope(plainBody(Buffer.from(text), text), 0), text).toBeUndefined();
    }
  });

  it('gives exactly what JSON.parse gives, or nothing, for any ASCII envelope-like text', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        fc.pre(Buffer.from(text).length === text.length);
        const read = readPlainEnvelope(plainBody(Buffer.from(text), text), 0);
        if (read === undefined) return;
        expect(read.value).toStrictEqual(JSON.parse(text.slice(0, read.end)));
        expect(text.charCodeAt(read.end - 1)).toBe(0x7d);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('parseHecEventBody fast path', () => {
  it('gives the same events and errors as the generic path for any body', () => {
    const body = fc
      .tuple(
        fc.array(mutated, { maxLength: 6 }),
        fc.array(fc.constantFrom('', '\n', ' ', '\r\n\t'), { minLength: 6, maxLength: 6 }),
      )
      .map(([envelopes, gaps]) => envelopes.map((e, n) => e + gaps[n]).join(''));
    fc.assert(
      fc.property(body, (text) => {
        expect(parseHecEventBody(text, options)).toStrictEqual(
          parseHecEventBody(text, { ...options, fastPath: false }),
        );
        const bytes = Buffer.from(text);
        expect(parseHecEventBody(bytes, options)).toStrictEqual(
          parseHecEventBody(bytes, { ...options, fastPath: false }),
        );
      }),
      { numRuns: 3000 },
    );
  });
});
