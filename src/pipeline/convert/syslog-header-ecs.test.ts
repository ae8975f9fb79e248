import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLeef } from '../leef/parse-leef.ts';
import { ecsToLeef } from './ecs-to-leef.ts';
import { leefToEcs } from './leef-to-ecs.ts';
import { syslogHeaderToEcs } from './syslog-header-ecs.ts';

describe(syslogHeaderToEcs.name, () => {
  it('reads an RFC 3164 header: priority, facility, severity, HOSTNAME', () => {
    expect(syslogHeaderToEcs('<134>Nov 22 18:00:00 lab-fw01 ')).toEqual({
      priority: 134,
      facility: { code: 16, name: 'local0' },
      severity: { code: 6, name: 'Informational' },
      hostname: 'lab-fw01',
    });
  });

  it('reads the APP-NAME and PROCID of an RFC 3164 TAG, and a header without PRI', () => {
    expect(syslogHeaderToEcs('<13>Jan  8 11:07:53 10.0.0.1 sshd[4242]: ')).toMatchObject({
      priority: 13,
      facility: { code: 1, name: 'user' },
      severity: { code: 5, name: 'Notice' },
      hostname: '10.0.0.1',
      appname: 'sshd',
      procid: '4242',
    });
    expect(syslogHeaderToEcs('Jan 18 11:07:53 myhostname firewall: ')).toEqual({
      hostname: 'myhostname',
      appname: 'firewall',
    });
    // Not a TAG: left out rather than guessed.
    expect(syslogHeaderToEcs('<13>Jan 18 11:07:53 host some words ')).toEqual({
      priority: 13,
      facility: { code: 1, name: 'user' },
      severity: { code: 5, name: 'Notice' },
      hostname: 'host',
    });
  });

  it('reads an RFC 5424 header: VERSION, and APP-NAME, PROCID, MSGID unless `-`', () => {
    expect(syslogHeaderToEcs('<165>1 2024-01-02T03:04:05.006Z fw1 ids 42 ID47 - ')).toEqual({
      priority: 165,
      facility: { code: 20, name: 'local4' },
      severity: { code: 5, name: 'Notice' },
      hostname: 'fw1',
      version: '1',
      appname: 'ids',
      procid: '42',
      msgid: 'ID47',
    });
    // The header Socdrill synthesizes, and QRadar's examples that end at HOSTNAME.
    expect(syslogHeaderToEcs('<134>1 2026-11-22T18:00:00.000Z lab-fw01 - - - ')).toEqual({
      priority: 134,
      facility: { code: 16, name: 'local0' },
      severity: { code: 6, name: 'Informational' },
      hostname: 'lab-fw01',
      version: '1',
    });
    expect(syslogHeaderToEcs('<13>1 2019-01-18T11:07:53.520+07:00 192.168.1.1 ')).toMatchObject({
      hostname: '192.168.1.1',
      version: '1',
    });
    expect(syslogHeaderToEcs('<0>12 - - - 7 - - ')).toEqual({
      priority: 0,
      facility: { code: 0, name: 'kern' },
      severity: { code: 0, name: 'Emergency' },
      version: '12',
      procid: '7',
    });
    expect(syslogHeaderToEcs('57 <14>1 2024-01-02T03:04:05Z host app - - [x@1 a="b"] ')).toMatchObject({
      priority: 14,
      hostname: 'host',
      appname: 'app',
    });
  });

  it('reads APP-NAME, PROCID and MSGID only when STRUCTURED-DATA follows them, with single spaces', () => {
    const base = { priority: 13, facility: { code: 1, name: 'user' }, severity: { code: 5, name: 'Notice' } };
    const ts = '2024-01-02T03:04:05Z';
    expect(syslogHeaderToEcs(`<13>1 ${ts} host Some vendor text `)).toEqual({
      ...base,
      hostname: 'host',
      version: '1',
    });
    expect(syslogHeaderToEcs(`<13>1 ${ts} host app 42 ID7 `)).toEqual({
      ...base,
      hostname: 'host',
      version: '1',
    });
    expect(syslogHeaderToEcs(`<13>1 ${ts} host app  42 ID7 - `)).toEqual({
      ...base,
      hostname: 'host',
      version: '1',
    });
    expect(syslogHeaderToEcs(`<13>1 ${ts} host app 42 ID7 [a@1 b="c d"] `)).toEqual({
      ...base,
      hostname: 'host',
      version: '1',
      appname: 'app',
      procid: '42',
      msgid: 'ID7',
    });
  });

  it('names facilities 13-15 as rsyslog does and leaves out a PRI above 191', () => {
    const names = [104, 112, 120].map((pri) => syslogHeaderToEcs(`<${pri}>Jan  8 11:07:53 h `)?.facility);
    expect(names).toEqual([
      { code: 13, name: 'audit' },
      { code: 14, name: 'alert' },
      { code: 15, name: 'clock' },
    ]);
    expect(syslogHeaderToEcs('<191>Jan  8 11:07:53 h ')).toMatchObject({
      facility: { code: 23, name: 'local7' },
    });
    expect(syslogHeaderToEcs('<192>Jan  8 11:07:53 h ')).toEqual({ hostname: 'h' });
  });

  it('answers null when the prefix is no header', () => {
    for (const prefix of ['', '123 ', '2024-01-02T03:04:05.123456+00:00 host tag: ', 'garbage ', '<999>']) {
      expect(syslogHeaderToEcs(prefix), prefix).toBeNull();
    }
  });

  it('never throws on any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .tuple(
              fc.constantFrom('<13>', '<134>1 ', '1 <14>1 ', ''),
              fc.constantFrom('Jan  8 11:07:53 ', '2024-01-02T03:04:05Z ', '- '),
              fc.string(),
            )
            .map((p) => p.join('')),
        ),
        (prefix) => {
          const out = syslogHeaderToEcs(prefix);
          expect(out === null || typeof out === 'object').toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('the syslog header in LEEF to ECS and back', () => {
  it('goes to log.syslog, and ECS to LEEF gives back the LEEF event without it', () => {
    const leef = 'LEEF:2.0|Lab|FW|1.0|4625|^|devTime=1700000000000^src=10.0.0.1^usrName=alice';
    const line = `<134>Nov 22 18:00:00 lab-fw01 app[7]: ${leef}`;
    const parsed = parseLeef(line);
    if (parsed === null) throw new Error('not LEEF');
    const doc = leefToEcs(parsed, { eventTimeMs: 1_700_000_000_000, rawLine: line, prefix: parsed.prefix });
    expect(doc.log).toEqual({
      syslog: {
        priority: 134,
        facility: { code: 16, name: 'local0' },
        severity: { code: 6, name: 'Informational' },
        hostname: 'lab-fw01',
        appname: 'app',
        procid: '7',
      },
    });
    const defaults = { vendor: 'v', product: 'p', productVersion: '1', eventId: 'e' };
    expect(ecsToLeef(doc, defaults)).toBe(leef);
    // A document that did not come from LEEF keeps its log.syslog fields as custom keys.
    expect(
      ecsToLeef({ '@timestamp': '2024-01-02T03:04:05.000Z', log: { syslog: { hostname: 'h' } } }, defaults),
    ).toContain('log.syslog.hostname=h');
  });
});
