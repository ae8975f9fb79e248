import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leefLine, mutatedLine, noisyLine } from '../../../test/fixtures/leef/leef-arbitraries.ts';
import { emitLeef } from './emit-leef.ts';
import { parseLeef } from './parse-leef.ts';

describe('parseLeef', () => {
  it('reads a LEEF 1.0 line with TABs', () => {
    const line = 'LEEF:1.0|Microsoft|Windows|10.0|4624|devTime=1710148502123\tsrc=10.1.2.33\tusrName=jdoe';
    expect(parseLeef(line)).toEqual({
      version: '1.0',
      vendor: 'Microsoft',
      product: 'Windows',
      productVersion: '10.0',
      eventId: '4624',
      delimiter: '\t',
      attributes: [
        ['devTime', '1710148502123'],
        ['src', '10.1.2.33'],
        ['usrName', 'jdoe'],
      ],
      prefix: '',
      delimiterField: null,
      pipeQuirk: false,
      lead: '',
      trail: '',
      eol: '',
    });
  });

  it.each([
    ['literal caret', 'LEEF:2.0|V|P|1.0|ID|^|a=1^b=2', '^', '^'],
    ['hex caret', 'LEEF:2.0|V|P|1.0|ID|x5E|a=1^b=2', 'x5E', '^'],
    ['0x hex caret', 'LEEF:2.0|V|P|1.0|ID|0x5e|a=1^b=2', '0x5e', '^'],
    ['hex tab', 'LEEF:2.0|V|P|1.0|ID|x09|a=1\tb=2', 'x09', '\t'],
    ['four hex digits', 'LEEF:2.0|V|P|1.0|ID|x0009|a=1\tb=2', 'x0009', '\t'],
    ['hex pipe', 'LEEF:2.0|V|P|1.0|ID|x7C|a=1|b=2', 'x7C', '|'],
    ['literal pipe', 'LEEF:2.0|V|P|1.0|ID|||a=1|b=2', '|', '|'],
    ['empty field (TAB)', 'LEEF:2.0|V|P|1.0|ID||a=1\tb=2', '', '\t'],
    ['no field at all (TAB)', 'LEEF:2.0|V|P|1.0|ID|a=1\tb=2', null, '\t'],
  ])('reads the LEEF 2.0 delimiter field: %s', (_name, line, field, delimiter) => {
    const p = parseLeef(line);
    expect(p?.delimiterField).toBe(field);
    expect(p?.delimiter).toBe(delimiter);
    expect(p?.attributes).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(p && emitLeef(p)).toBe(line);
  });

  it('reads the PAN-OS quirk: LEEF 1.0 with | between attributes', () => {
    const line =
      'LEEF:1.0|Palo Alto Networks|PAN-OS Syslog Integration|10.1.6|trafficAllow|cat=TRAFFIC|devTime=Mar 11 2024 09:15:01 GMT|src=10.20.30.40';
    const p = parseLeef(line);
    expect(p?.pipeQuirk).toBe(true);
    expect(p?.delimiter).toBe('|');
    expect(p?.attributes).toEqual([
      ['cat', 'TRAFFIC'],
      ['devTime', 'Mar 11 2024 09:15:01 GMT'],
      ['src', '10.20.30.40'],
    ]);
  });

  it('keeps a syslog header, octet prefix and TAG before LEEF: as the prefix', () => {
    const prefix = '87 <30>Mar 11 09:15:02 lnx app[22]: ';
    const p = parseLeef(`${prefix}LEEF:1.0|V|P|1|ID|a=1`);
    expect(p?.prefix).toBe(prefix);
    expect(p?.eventId).toBe('ID');
  });

  it('splits on the first = and keeps a delimiter-free chunk with the value before it', () => {
    const p = parseLeef('LEEF:1.0|V|P|1|ID|url=/a?b=c\tmsg=hello\tworld\tsrc=1.2.3.4');
    expect(p?.attributes).toEqual([
      ['url', '/a?b=c'],
      ['msg', 'hello\tworld'],
      ['src', '1.2.3.4'],
    ]);
  });

  it('keeps leading junk, trailing delimiters and the CR of a CRLF file apart', () => {
    const line = 'LEEF:1.0|V|P|1|ID|\tjunk\ta=1\tb=\t\t\r\n';
    const p = parseLeef(line);
    expect(p && [p.lead, p.attributes, p.trail, p.eol]).toEqual([
      '\tjunk\t',
      [
        ['a', '1'],
        ['b', ''],
      ],
      '\t\t',
      '\r\n',
    ]);
    expect(p && emitLeef(p)).toBe(line);
  });

  it('keeps an escaped pipe inside a header field', () => {
    const p = parseLeef('LEEF:1.0|Ven\\|dor|P|1|ID|a=1');
    expect(p?.vendor).toBe('Ven\\|dor');
    expect(p?.product).toBe('P');
  });

  it('keeps a LEEF 2.0 line whose delimiter is = as one lead, without inventing pairs', () => {
    const line = '<13>1 2019-01-18T11:07:53.520Z h LEEF:2.0|V|P|1|ID|=|labIndex= ';
    const p = parseLeef(line);
    expect(p?.delimiter).toBe('=');
    expect(p?.attributes).toEqual([]);
    expect(p?.lead).toBe('labIndex= ');
    expect(p && emitLeef(p)).toBe(line);
  });

  it.each([
    '',
    'hello world',
    'LEEF:1.0|V|P|1',
    'LEEF:|V|P|1|ID|a=1',
    'LEEF:x.0|V|P|1|ID|a=1',
    'LEEF:1.0|V|P|1|ID\r\n',
  ])('answers null for %j', (line) => {
    expect(parseLeef(line)).toBeNull();
  });

  it('reads every generated line exactly and writes it back byte for byte', () => {
    fc.assert(
      fc.property(leefLine, (g) => {
        const p = parseLeef(g.line);
        expect(p).not.toBeNull();
        if (p === null) return;
        expect({
          version: p.version,
          vendor: p.vendor,
          product: p.product,
          productVersion: p.productVersion,
          eventId: p.eventId,
          delimiterField: p.delimiterField,
          delimiter: p.delimiter,
          pipeQuirk: p.pipeQuirk,
          attributes: p.attributes,
          prefix: p.prefix,
          eol: p.eol,
        }).toEqual({
          version: g.version,
          vendor: g.vendor,
          product: g.product,
          productVersion: g.productVersion,
          eventId: g.eventId,
          delimiterField: g.delimiterField,
          delimiter: g.delimiter,
          pipeQuirk: g.pipeQuirk,
          attributes: g.attributes,
          prefix: g.prefix,
          eol: g.eol,
        });
        expect(emitLeef(p)).toBe(g.line);
      }),
      { numRuns: 3000 },
    );
  });

  it('writes back any line it can read, however damaged, byte for byte', () => {
    fc.assert(
      fc.property(fc.oneof(noisyLine, mutatedLine, fc.string({ maxLength: 200 })), (line) => {
        const p = parseLeef(line);
        if (p !== null) expect(emitLeef(p)).toBe(line);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('emitLeef', () => {
  it('writes a new LEEF 2.0 event with a literal printable delimiter', () => {
    expect(
      emitLeef({
        version: '2.0',
        vendor: 'Socdrill',
        product: 'Lab',
        productVersion: '1',
        eventId: 'login',
        delimiter: '^',
        attributes: [
          ['src', '10.0.0.1'],
          ['usrName', 'bob'],
        ],
      }),
    ).toBe('LEEF:2.0|Socdrill|Lab|1|login|^|src=10.0.0.1^usrName=bob');
  });

  it('writes a new LEEF 2.0 event with a TAB delimiter as x09, and LEEF 1.0 without field 6', () => {
    const base = { vendor: 'V', product: 'P', productVersion: '1', eventId: 'E', delimiter: '\t' };
    expect(emitLeef({ ...base, version: '2.0', attributes: [['a', '1']] })).toBe('LEEF:2.0|V|P|1|E|x09|a=1');
    expect(
      emitLeef({
        ...base,
        version: '1.0',
        attributes: [
          ['a', '1'],
          ['b', '2'],
        ],
      }),
    ).toBe('LEEF:1.0|V|P|1|E|a=1\tb=2');
  });
});
