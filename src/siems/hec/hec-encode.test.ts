import { describe, expect, it } from 'vitest';
import { ecsByteDocument } from '../../pipeline/ecs/ecs-byte-document.ts';
import { EcsTimeScratch } from '../../pipeline/ecs/ecs-time.ts';
import { scanEcsJson } from '../../pipeline/ecs/scan-ecs-json.ts';
import type { EncodedEvent } from '../shared/deliver.ts';
import { requestBody } from '../shared/request-body.ts';
import { createHecEncoder, ecsHost, hecTime, syslogHost } from './hec-encode.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

/** The text and size of an encoded envelope, checking that the bytes it writes are its text's UTF-8. */
function wire(out: EncodedEvent | { readonly error: string }): { text: string; size: number } {
  if ('error' in out) throw new Error(out.error);
  const { text, size } = out;
  expect(size).toBe(text.length);
  expect(requestBody([out, out]).toString('hex')).toBe(Buffer.from(text + text).toString('hex'));
  return { text, size };
}

describe('hecTime', () => {
  it('writes epoch seconds with exactly three decimals from milliseconds', () => {
    const rows: Array<[number, string]> = [
      [1433188255500, '1433188255.500'],
      [1433188255123, '1433188255.123'],
      [1433188255007, '1433188255.007'],
      [1433188255000, '1433188255.000'],
      [1433188255999.6, '1433188256.000'],
      [0, '0.000'],
      // Before 1970: the sign and the magnitude's digits (-1.5 s, not -2 + 0.5).
      [-1500, '-1.500'],
      [-1, '-0.001'],
      [-999.6, '-1.000'],
      [-0.4, '0.000'],
    ];
    for (const [ms, text] of rows) expect(hecTime(ms), String(ms)).toBe(text);
  });
});

describe('createHecEncoder', () => {
  it('builds the envelope of a LEEF line with index, source and sourcetype, in that key order', () => {
    const encode = createHecEncoder({
      format: 'leef',
      index: 'lab',
      source: 'socdrill',
      sourcetype: 'leef',
      now: NOW,
    });
    const out = encode({ line: 'LEEF:2.0|V|P|1|E|src=1.2.3.4\tdst="x"', time: 1772366400123 }, 0);
    const text =
      '{"time":1772366400.123,"source":"socdrill","sourcetype":"leef","index":"lab","event":"LEEF:2.0|V|P|1|E|src=1.2.3.4\\tdst=\\"x\\""}\n';
    expect(wire(out)).toEqual({ text, size: text.length });
  });

  it('leaves out what is not set, so the token defaults apply, and uses the shipping time for events without one', () => {
    const encode = createHecEncoder({
      format: 'leef',
      index: null,
      source: null,
      sourcetype: null,
      now: NOW,
    });
    expect(wire(encode({ line: 'LEEF:1.0|a|b|c|d|', time: null }, 0))).toEqual({
      text: '{"time":1772366400.000,"event":"LEEF:1.0|a|b|c|d|"}\n',
      size: 52,
    });
  });

  it('sends ECS documents as JSON objects with sourcetype _json and host.name as host', () => {
    const encode = createHecEncoder({
      format: 'ecs',
      index: 'lab',
      source: null,
      sourcetype: null,
      now: NOW,
    });
    const doc = { '@timestamp': '2026-03-01T12:00:00.000Z', host: { name: 'web-1' }, message: 'é' };
    const out = encode({ doc, time: 1772366400000 }, 0);
    const text =
      '{"time":1772366400.000,"host":"web-1","sourcetype":"_json","index":"lab","event":{"@timestamp":"2026-03-01T12:00:00.000Z","host":{"name":"web-1"},"message":"é"}}\n';
    expect(wire(out)).toEqual({ text, size: text.length });
    expect(Buffer.byteLength(text)).toBe(text.length + 1);
  });

  it('embeds a document given as JSON text unchanged', () => {
    const encode = createHecEncoder({ format: 'ecs', index: null, source: null, sourcetype: null, now: NOW });
    const json = '{"@timestamp":"2026-03-01T12:00:00Z","big":12345678901234567890}';
    const text = `{"time":1772366400.000,"sourcetype":"_json","event":${json}}\n`;
    expect(wire(encode({ json, time: 1772366400000 }, 0))).toEqual({ text, size: text.length });
  });

  it('embeds a document held as bytes as its shifted text, with the time its @timestamp denotes', () => {
    const encode = createHecEncoder({ format: 'ecs', index: null, source: null, sourcetype: null, now: NOW });
    const json = '{"@timestamp":"2026-03-01T11:00:00Z","big":12345678901234567890}';
    const scan = scanEcsJson(json);
    if (!scan.ok) throw new Error(scan.error);
    const chunk = Buffer.from(`{}\n${json}\n`, 'latin1');
    const doc = ecsByteDocument(chunk, 3, 3 + json.length, scan.spans, 3_600_000, new EcsTimeScratch());
    const shifted = '{"@timestamp":"2026-03-01T12:00:00Z","big":12345678901234567890}';
    const text = `{"time":1772366400.000,"sourcetype":"_json","event":${shifted}}\n`;
    expect(wire(encode(doc, 0))).toEqual({ text, size: text.length });
  });

  it('refuses events the collector would refuse anyway (blank line, missing document)', () => {
    const leef = createHecEncoder({ format: 'leef', index: null, source: null, sourcetype: null, now: NOW });
    expect(leef({ line: '   ', time: null }, 0)).toEqual({ error: 'event has no LEEF line' });
    expect(leef({ doc: {}, time: null }, 0)).toEqual({ error: 'event has no LEEF line' });
    const ecs = createHecEncoder({ format: 'ecs', index: null, source: null, sourcetype: null, now: NOW });
    expect(ecs({ line: 'x', time: null }, 0)).toEqual({ error: 'event has no ECS document' });
  });

  it('writes each event time as hecTime does, across seconds, signs and repeated hosts', () => {
    const encode = createHecEncoder({
      format: 'leef',
      index: null,
      source: null,
      sourcetype: null,
      now: NOW,
    });
    const times = [
      NOW,
      NOW + 1,
      NOW + 999.5,
      NOW + 1000,
      NOW + 1000,
      NOW - 1,
      -1500,
      -1,
      0,
      0.4,
      -1000,
      -999,
      NOW,
    ];
    const hosts = ['fw-1', 'fw-1', 'fw-2', 'fw-1', 'LEEF', 'fw-"3"'];
    times.forEach((time, n) => {
      const host = hosts[n % hosts.length]!;
      const line = host === 'LEEF' ? 'LEEF:2.0|V|P|1|E|' : `<134>Mar  1 10:00:00 ${host} LEEF:2.0|V|P|1|E|`;
      const hostPart = host === 'LEEF' ? '' : `,"host":${JSON.stringify(host)}`;
      expect(wire(encode({ line, time }, n)).text).toBe(
        `{"time":${hecTime(time)}${hostPart},"event":${JSON.stringify(line)}}\n`,
      );
    });
  });

  it('escapes LEEF lines exactly as JSON.stringify does', () => {
    const encode = createHecEncoder({
      format: 'leef',
      index: 'lab',
      source: null,
      sourcetype: null,
      now: NOW,
    });
    for (const line of [
      'LEEF:1.0|V|P|1|E|a=1\tb=2',
      'LEEF:2.0|V|P|1|E|^msg=say "hi" \\ \u0001 é 😀 \ud800',
    ]) {
      expect(wire(encode({ line, time: 0 }, 0)).text).toBe(
        `{"time":0.000,"index":"lab","event":${JSON.stringify(line)}}\n`,
      );
    }
  });

  it('uses a host function when one is given', () => {
    const encode = createHecEncoder({
      format: 'leef',
      index: null,
      source: null,
      sourcetype: null,
      now: NOW,
      hostOf: (e) => (e.line?.startsWith('<') ? 'fw-1' : undefined),
    });
    expect(wire(encode({ line: '<134>x', time: 0 }, 0)).text).toBe(
      '{"time":0.000,"host":"fw-1","event":"<134>x"}\n',
    );
  });
});

describe('ecsHost', () => {
  it('reads host.name, then host.hostname, and ignores anything else', () => {
    expect(ecsHost({ doc: { host: { name: 'a', hostname: 'b' } }, time: null })).toBe('a');
    expect(ecsHost({ doc: { host: { hostname: 'b' } }, time: null })).toBe('b');
    expect(ecsHost({ doc: { host: 'flat' }, time: null })).toBeUndefined();
    expect(ecsHost({ doc: { host: { name: 7 } }, time: null })).toBeUndefined();
    expect(ecsHost({ time: null })).toBeUndefined();
  });
});

describe('syslogHost', () => {
  it('reads the HOSTNAME of an RFC 3164 or RFC 5424 header, and nothing from a bare LEEF line', () => {
    const line = (l: string) => ({ line: l, time: null });
    expect(syslogHost(line('<134>Mar  1 10:00:00 fw-1.lab LEEF:2.0|V|P|1|E|'))).toBe('fw-1.lab');
    expect(syslogHost(line('<134>1 2026-03-01T10:00:00.000Z ids-2 app - - - LEEF:2.0|V|P|1|E|'))).toBe(
      'ids-2',
    );
    expect(syslogHost(line('<134>1 2026-03-01T10:00:00.000Z - app - - - LEEF:2.0|V|P|1|E|'))).toBeUndefined();
    expect(syslogHost(line('LEEF:2.0|V|P|1|E|src=1.2.3.4'))).toBeUndefined();
    expect(syslogHost(line('garbage before LEEF:2.0|V|P|1|E|'))).toBeUndefined();
    expect(syslogHost({ doc: {}, time: null })).toBeUndefined();
  });

  it('is the host of LEEF envelopes unless the caller gives another function', () => {
    const encode = createHecEncoder({
      format: 'leef',
      index: null,
      source: null,
      sourcetype: null,
      now: NOW,
    });
    expect(wire(encode({ line: '<134>Mar  1 10:00:00 fw-1 LEEF:1.0|a|b|c|d|', time: 0 }, 0)).text).toBe(
      '{"time":0.000,"host":"fw-1","event":"<134>Mar  1 10:00:00 fw-1 LEEF:1.0|a|b|c|d|"}\n',
    );
  });
});
