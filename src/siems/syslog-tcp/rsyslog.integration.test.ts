import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syslogDestination } from '../../../test/fixtures/syslog-destination.ts';
import { findRsyslogd, type Rsyslogd, startRsyslogd } from '../../../test/helpers/rsyslogd.ts';
import { systemClock } from '../../clock.ts';
import { createLogger } from '../../logger.ts';
import { eventFrames } from '../../pipeline/frames/shipment-frames.ts';
import type { OutboundEvent } from '../../pipeline/shipment/outbound-event.ts';
import type { Framing, SyslogFormat } from '../../pipeline/syslog/syslog-options.ts';
import { createSyslogDriver } from './syslog-driver.ts';
import { syslogFrameFormat } from './syslog-frame-format.ts';
import type { SyslogDestination } from './syslog-tcp-settings.ts';

const binary = findRsyslogd();

/** rsyslog escapes control characters on receipt as `#` and three octal digits. */
const rsyslogEscaped = (text: string) =>
  Array.from(text, (c) => (c < ' ' ? `#${c.charCodeAt(0).toString(8).padStart(3, '0')}` : c)).join('');

/** `%timereported:::date-rfc3339%`: seconds and +00:00 for RFC 3164 (rsyslogd runs with TZ=UTC), ms and Z for 5424. */
function reportedTime(ms: number, format: SyslogFormat): string {
  const iso = new Date(ms).toISOString();
  return format === 'rfc3164' ? `${iso.slice(0, 19)}+00:00` : iso;
}

/**
 * The LEEF payload as the template prints it. rsyslog's RFC 3164 parser takes `LEEF:` as the TAG
 * (it ends at the colon) and the rest as MSG; with RFC 5424 the TAG is the nil APP-NAME and the
 * whole LEEF line is MSG. Either way TAG + MSG is the payload we sent.
 */
function printedPayload(leef: string, format: SyslogFormat): string {
  return format === 'rfc3164' ? `LEEF: ${rsyslogEscaped(leef.slice(5))}` : `- ${rsyslogEscaped(leef)}`;
}

function destination(port: number, format: SyslogFormat, framing: Framing): SyslogDestination {
  return syslogDestination({
    id: 'rsyslog',
    name: 'rsyslog-lab',
    port,
    source_identity: 'unused-default',
    syslog_format: format,
    framing,
  });
}

/** Event `i`: LEEF 2.0 and 1.0 (TAB-delimited), bare or behind an old header, some non-ASCII. */
function leefLine(i: number, extra: string): string {
  if (i % 2 === 0)
    return `LEEF:2.0|Lab|Firewall|1.0|allow|^|seq=${i}^src=10.0.0.${i % 250}^usrName=jürgen${extra}`;
  return `LEEF:1.0|Lab|Proxy|2.1|get|seq=${i}\tdst=192.168.1.${i % 250}\turl=/a?b=c${extra}`;
}

describe.skipIf(!binary)('syslog_tcp driver against a real rsyslogd', () => {
  let rsyslogd: Rsyslogd;
  const t0 = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;

  beforeAll(async () => {
    rsyslogd = await startRsyslogd(binary as string);
  });
  afterAll(async () => {
    await rsyslogd?.close();
  });

  const cases: Array<[SyslogFormat, Framing]> = [
    ['rfc3164', 'lf'],
    ['rfc3164', 'octet_counting'],
    ['rfc5424', 'lf'],
    ['rfc5424', 'octet_counting'],
  ];

  it.each(cases)(
    '%s headers with %s framing arrive as one message per event, payload intact',
    async (format, framing) => {
      const host = `lab-${format}-${framing === 'lf' ? 'lf' : 'octet'}`;
      const total = 300;
      // With octet counting an embedded line break stays in the event; with LF framing it becomes a space.
      const extra = framing === 'octet_counting' ? '^note=first\nsecond' : '^note=first second';
      const sent = framing === 'octet_counting' ? extra : '^note=first\r\nsecond';
      const time = (i: number) => t0 + i * 1_000 + 123;
      const batches = async function* (): AsyncGenerator<OutboundEvent[]> {
        for (let n = 0; n < total; n += 100) {
          const batch: OutboundEvent[] = [];
          for (let i = n; i < n + 100; i++) {
            const leef = leefLine(i, i % 10 === 0 ? sent : '');
            // Every third line still carries the header it was archived with; it is replaced.
            batch.push({
              line: i % 3 === 0 ? `<13>Jan 18 11:07:53 archived-host ${leef}` : leef,
              time: time(i),
            });
          }
          yield batch;
        }
      };
      const driver = createSyslogDriver(destination(rsyslogd.port, format, framing), {
        log: createLogger('silent'),
        clock: systemClock,
      });
      // Frames as the shipping path writes them: the kind's frame format with the identity.
      const frames = syslogFrameFormat(destination(rsyslogd.port, format, framing), host);
      const result = await driver.send(eventFrames(batches(), frames, Date.now()));
      expect(result).toMatchObject({ shipped: total, failed: 0, retried: 0, errors: [] });

      const lines = await rsyslogd.linesOf(host, total);
      expect(lines).toEqual(
        Array.from(
          { length: total },
          (_, i) =>
            `${reportedTime(time(i), format)} ${host} ${printedPayload(leefLine(i, i % 10 === 0 ? extra : ''), format)}`,
        ),
      );
    },
  );
});
