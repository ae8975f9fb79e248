import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { frameLf } from '../syslog/framing.ts';
import { createHeaderWriter } from '../syslog/header-mode.ts';
import { emitLeef } from './emit-leef.ts';
import { createRebaseContext, readEventTime, rebaseLines } from './leef-rebase.ts';
import { parseLeef } from './parse-leef.ts';
import { setAttribute } from './set-attribute.ts';

const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);
const dir = path.resolve(import.meta.dirname, '../../../test/fixtures/leef');

/** Non-empty lines of a fixture, each with whatever CR its file had (as an archive reader splitting on LF gives). */
function fixture(name: string): string[] {
  return readFileSync(path.join(dir, name), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
}

describe('realistic fixtures', () => {
  it.each([
    [
      'palo-alto.log',
      [
        '2024-03-11T09:15:01.000Z',
        '2024-03-11T09:17:44.000Z',
        '2024-03-11T09:16:40.000Z',
        '2024-03-11T08:08:02.000Z',
      ],
    ],
    [
      'fortinet.log',
      // The last line has no devTime: its RFC 3164 header year is inferred from now.
      [
        '2024-03-11T09:15:02.000Z',
        '2024-03-09T23:59:58.000Z',
        '2024-03-11T09:20:11.250Z',
        '2026-03-11T09:21:00.000Z',
      ],
    ],
    [
      'windows.log',
      [
        '2024-03-11T09:15:02.123Z',
        '2024-03-11T09:15:13.456Z',
        '2024-03-11T09:15:20.000Z',
        '2024-03-11T09:15:33.000Z',
      ],
    ],
    [
      'formats.log',
      [
        '2024-03-11T09:15:02.789Z', // yyyy-MM-dd'T'HH:mm:ss.SSSXXX, +02:00
        '2024-03-11T09:15:02.000Z', // dd/MMM/yyyy:HH:mm:ss Z, -0800
        '2024-03-11T09:15:02.000Z', // EEE MMM dd HH:mm:ss zzz yyyy, PDT
        '2024-03-11T21:15:02.000Z', // MM/dd/yyyy hh:mm:ss a, PM
        '2024-03-11T09:15:02.000Z', // yyyyMMddHHmmss
        '2024-03-11T09:15:02.300Z', // MMM dd yyyy HH:mm:ss.SSS z
        '2024-03-11T09:15:02.123Z', // dd-MMM-yyyy HH:mm:ss.SSS X, upper-case month
        '2024-03-11T08:15:02.000Z', // MMMM d, yyyy h:mm:ss a z, GMT+01:00
        '2024-03-11T09:17:05.456Z', // SSSSSS: 123456 is a millisecond count
        '2024-03-11T09:15:02.123Z', // ISO 8601 without devTimeFormat
        '2024-03-11T09:15:02.000Z', // IBM's default pattern without devTimeFormat
        '2024-03-11T09:15:02.000Z', // RFC 3164 header with a year, not LEEF
        '2026-03-11T09:15:02.000Z', // RFC 3164 header, year inferred from now
        '2024-03-11T09:15:02.000Z', // epoch ms behind an rsyslog file prefix
        null, // devTime=yesterday at noon
      ],
    ],
  ])('reads the event time of every line of %s', (name, expected) => {
    const ctx = createRebaseContext(NOW);
    const times = fixture(name).map((l) => {
      const t = readEventTime(l, ctx);
      return t === null ? null : new Date(t).toISOString();
    });
    expect(times).toEqual(expected);
  });

  it.each(['palo-alto.log', 'fortinet.log', 'windows.log', 'formats.log'])(
    'writes every LEEF line of %s back byte for byte',
    (name) => {
      for (const line of fixture(name)) {
        const p = parseLeef(line);
        if (p !== null) expect(emitLeef(p)).toBe(line);
      }
    },
  );

  it('rebases the Palo Alto sample, leaving the odd Strata devTime alone', () => {
    const r = rebaseLines(fixture('palo-alto.log'), NOW);
    expect(r.shiftMs).toBe(NOW + 2 * 3_600_000 - Date.UTC(2024, 2, 11, 9, 17, 44));
    expect(r.lines[1]).toContain('|devTime=Nov 22 2026 20:00:00 GMT|');
    expect(r.lines[2]).toBe(
      "<14>1 2026-11-22T19:58:56.000Z pa-fw01 logforwarder - panwlogs - LEEF:2.0|Palo Alto Networks|LF|2.0|SYSTEM|x09|devTimeFormat=YYYY-MM-DD'T'HH:mm:ss.SSSZ\tdevTime=2021-09-21T02:00:56.000000Z\tcat=SYSTEM\tsev=3\tEventID=auth-fail\tDescription=failed authentication for user admin from 192.0.2.10",
    );
    expect(r.lines[3]).toBe(
      '299 <14>1 2026-11-22T20:00:19.052+01:00 pa-fw02 - - - LEEF:2.0|Palo Alto Networks|PAN-OS Syslog Integration|11.0.2|trafficDeny|x09|cat=TRAFFIC\tdevTime=1795373418000\tsrc=172.16.5.9\tdst=203.0.113.50\tsrcPort=49211\tdstPort=3389\tproto=tcp\taction=deny\tRuleName=block-rdp\tSourceZone=dmz\tDestinationZone=untrust',
    );
  });

  it('rebases the formats sample, each value in its own format and zone', () => {
    const r = rebaseLines(fixture('formats.log'), NOW);
    expect([r.shiftDays.toFixed(6), r.unreadable]).toEqual(['985.947894', 1]);
    const devTimes = r.lines.map((l) => parseLeef(l)?.attributes.find(([k]) => k === 'devTime')?.[1] ?? null);
    expect(devTimes).toEqual([
      '2026-11-22T10:00:00.789+02:00',
      '22/Nov/2026:00:00:00 -0800',
      'Sun Nov 22 01:00:00 PDT 2026',
      '11/22/2026 08:00:00 PM',
      '20261122080000',
      'Nov 22 2026 08:00:00.300 GMT',
      '22-NOV-2026 08:00:00.123 Z',
      'November 22, 2026 8:00:00 AM GMT+01:00',
      '2026-11-22 08:00:00.123456',
      '2026-11-22T08:00:00.123456Z',
      'Nov 22 2026 08:00:00',
      null,
      null,
      '1795334400000',
      'yesterday at noon',
    ]);
    expect(r.lines[11]).toBe(
      'Nov 22 2026 08:00:00 core-sw01 %SYS-5-CONFIG_I: Configured from console by admin on vty0 (10.9.0.12)',
    );
    // Placed in 2024 next to the dated events, then moved with them.
    expect(r.lines[12]).toBe(
      '<30>Nov 22 08:00:00 lnx-web01 sshd[2211]: Accepted publickey for deploy from 10.9.0.13 port 50022 ssh2',
    );
  });

  it('ships the Windows CRLF sample through rebase, labIndex, header and LF framing', () => {
    const lines = fixture('windows.log');
    const r = rebaseLines(lines, NOW);
    const writer = createHeaderWriter({
      mode: 'synthesize_if_missing',
      format: 'rfc5424',
      sourceIdentity: 'win-lab',
    });
    const frames = r.lines.map((l, i) => {
      const labelled = setAttribute(l, 'labIndex', 'soc-lab');
      return frameLf(writer.apply(labelled, r.eventTimes[i] ?? null, NOW) as string);
    });
    expect(frames[0]).toBe(
      '<134>1 2026-11-22T19:59:29.123Z win-lab - - - LEEF:1.0|Microsoft|Windows Security Event Log|10.0|4624|devTime=1795377569123\tsrc=10.1.2.33\tusrName=jdoe\tdomain=CORP\tLogonType=3\tWorkstationName=WS-0147\tcat=Logon\tsev=2\tlabIndex=soc-lab\n',
    );
    expect(frames[3]).toBe(
      '<13>Nov 22 20:00:00 DC01 LEEF:1.0|Microsoft|Windows Security Event Log|10.0|4720|devTimeFormat=MM/dd/yyyy hh:mm:ss a\tdevTime=11/22/2026 08:00:00 PM\tusrName=admin.tmp\tTargetUserName=backdoor\tdomain=CORP\tcat=User Account Created\tsev=8\tlabIndex=soc-lab\n',
    );
  });

  it('forces the request identity onto the Fortinet sample in RFC 3164', () => {
    const r = rebaseLines(fixture('fortinet.log'), NOW);
    const writer = createHeaderWriter({
      mode: 'force_synthesize',
      format: 'rfc3164',
      sourceIdentity: 'ex42-fw',
    });
    // The newest event is the last line's year-less header (09:21:00, 48.75 s after the newest
    // devTime): it lands at now + 2 h, and the IPS event 48.75 s before it.
    expect(r.eventTimes[3]).toBe(NOW + 2 * 3_600_000);
    expect(writer.apply(r.lines[2] as string, r.eventTimes[2] ?? null, NOW)).toBe(
      "<134>Nov 22 19:59:11 ex42-fw LEEF:2.0|Fortinet|FortiGate|7.2.4|0419016384|^|devTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSXXX^devTime=2026-11-22T20:59:11.250+01:00^cat=utm:ips^sev=9^src=203.0.113.99^dst=192.168.10.40^dstPort=445^proto=6^action=dropped^attack=SMB.Login.Brute.Force",
    );
  });
});
