import { describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { prepareShipment } from '../shipment/prepare-shipment.ts';
import { leefLineBatches } from '../shipment/shipment-events.ts';
import { LeefByteEvent, LeefByteEventWriter } from './leef-byte-events.ts';
import { type RebasedLine, rebasedLine } from './leef-line-batch.ts';
import { LeefLineReader } from './leef-line-reader.ts';

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const BASE = Date.UTC(2026, 5, 1);

/** The bench's mix (epoch devTime, devTime with devTimeFormat, RFC 3164 headers), a few non-ASCII lines. */
function lines(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const t = BASE + i * 1_003;
    const attrs = `src=10.0.0.${i & 255}\tusrName=user${i % 97}`;
    if (i % 50 === 7) return `LEEF:1.0|Acme|Firewall|9.1|deny|${attrs}\tmsg=café\tdevTime=${t}`;
    switch (i % 3) {
      case 0:
        return `LEEF:1.0|Acme|Firewall|9.1|deny|${attrs}\tdevTime=${t}`;
      case 1:
        return `LEEF:2.0|Acme|Proxy|2.0|get|^|${attrs.replace('\t', '^')}^devTime=${new Date(t).toISOString()}^devTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSXXX`;
      default:
        return `<134>Jun  1 00:00:00 fw-${i % 5} LEEF:1.0|Acme|Firewall|9.1|allow|${attrs}\tdevTime=${t}`;
    }
  });
}

async function passTwo(text: string[], labIndex: string | null, slack?: number) {
  const shipment = await prepareShipment(
    [
      {
        data: buildZip([{ name: 'a.log', data: Buffer.from(`${text.join('\n')}\n`) }]),
        kind: 'zip',
        label: 'a.zip',
      },
    ],
    { format: 'leef', now: NOW },
  );
  const writer = new LeefByteEventWriter(new LeefLineReader(), slack);
  const stringReader = new LeefLineReader();
  const rebased: RebasedLine = { line: '', time: null };
  const events: OutboundEvent[] = [];
  const expected: Array<{ line: string; time: number | null }> = [];
  for await (const batch of leefLineBatches(shipment, 0, labIndex)) {
    events.push(...writer.batch(batch));
    for (const segment of batch.segments) {
      for (let j = 0; j < segment.starts.length; j++) {
        const { line, time } = rebasedLine(batch, stringReader, segment, j, rebased);
        expected.push({ line, time });
      }
    }
  }
  return { events, expected };
}

describe('LeefByteEventWriter', () => {
  it('holds the ASCII lines it covers as bytes and gives the string path its lines and times', async () => {
    const { events, expected } = await passTwo(lines(3_000), 'soc-lab');
    expect(events.map((e) => ({ line: e.line, time: e.time }))).toEqual(expected);
    const held = events.filter((e) => e instanceof LeefByteEvent);
    // Every ASCII line of this mix is covered; the non-ASCII ones take the string path.
    expect(held.length).toBe(3_000 - 60);
    expect(events.filter((e) => !(e instanceof LeefByteEvent)).every((e) => e.line?.includes('café'))).toBe(
      true,
    );
    expect(expected[0]?.line).toContain('labIndex=soc-lab');
  });

  it('starts a new buffer when the lines outgrow the room it gave the batch', async () => {
    const roomy = await passTwo(lines(2_000), 'a-long-lab-index-value', undefined);
    const cramped = await passTwo(lines(2_000), 'a-long-lab-index-value', -40);
    const buffers = (events: OutboundEvent[]) => new Set(events.map((e) => e.lineBuf).filter(Boolean)).size;
    expect(buffers(cramped.events)).toBeGreaterThan(buffers(roomy.events));
    expect(cramped.events.map((e) => ({ line: e.line, time: e.time }))).toEqual(cramped.expected);
  });
});
