// Two shipments (or two passes of one) interleaved batch by batch give exactly what each gives
// alone, each keeping its memos in its own ShipmentScratch: compiled devTimeFormats, the minute
// isoUtc wrote, the ECS days, the byte path's DataViews and delimiter field.
import { describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import { LeefFrameWriter } from '../leef/leef-frame-writer.ts';
import type { LeefLines } from '../leef/leef-line-batch.ts';
import { LeefLineReader } from '../leef/leef-line-reader.ts';
import { newDateFormat } from '../time/date-format.ts';
import type { OutboundEvent } from './outbound-event.ts';
import { type PreparedShipment, prepareShipment, type ShipmentSource } from './prepare-shipment.ts';
import { leefLineBatches, type ShipmentOutput, shipmentEvents } from './shipment-events.ts';
import { ShipmentScratch } from './shipment-scratch.ts';

const HOUR = 3_600_000;
const zip = (label: string, entries: Array<[string, string]>): ShipmentSource => ({
  data: buildZip(entries.map(([name, data]) => ({ name, data }))),
  kind: 'zip',
  label,
});

/** What differs between the two shipments: their times, now, patterns and delimiter spellings. */
interface Flavour {
  readonly now: number;
  readonly start: number;
  /** A devTimeFormat only this shipment uses. */
  readonly own: string;
  /** A year-less devTimeFormat both use: the same texts read against different references. */
  readonly yearless: string;
  /** LEEF 2.0 delimiter field for `^`. */
  readonly caret: string;
}

const A: Flavour = {
  now: Date.UTC(2026, 2, 1, 12, 0, 0),
  start: Date.UTC(2023, 11, 31, 23, 50, 0),
  own: 'yyyy/MM/dd HH:mm:ss.SSS',
  yearless: 'MMM dd HH:mm:ss',
  caret: 'x5E',
};
const B: Flavour = {
  now: Date.UTC(2027, 6, 4, 8, 30, 0),
  start: Date.UTC(2025, 5, 30, 23, 55, 0),
  own: "dd.MM.yyyy HH:mm:ss 'h'",
  yearless: 'MMM dd HH:mm:ss',
  caret: '0x5e',
};

const LINES_PER_ENTRY = 1_300;

/** LEEF lines of every kind the passes memoize for: epoch, formatted, headers, not ASCII, spelled delimiters. */
function leefEntry(f: Flavour, entry: number): string {
  const own = newDateFormat(f.own);
  const yearless = newDateFormat(f.yearless);
  const iso = newDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
  const lines: string[] = [];
  for (let i = 0; i < LINES_PER_ENTRY; i++) {
    const ms = f.start + (entry * LINES_PER_ENTRY + i) * 1_037;
    const d = new Date(ms);
    const src = `src=10.${entry}.${(i >> 8) & 255}.${i & 255}`;
    switch (i % 7) {
      case 0:
        lines.push(`LEEF:1.0|Acme|FW|1.0|e${i}|${src}\tdevTime=${ms}`);
        break;
      case 1:
        lines.push(`LEEF:1.0|Acme|FW|1.0|e${i}|devTimeFormat=${f.own}\tdevTime=${own.format(ms)}\t${src}`);
        break;
      case 2:
        lines.push(
          `LEEF:2.0|Acme|FW|1.0|e${i}|${f.caret}|${src}^devTimeFormat=${f.yearless}^devTime=${yearless.format(ms)}`,
        );
        break;
      case 3: {
        const header =
          d.toUTCString().slice(8, 11) +
          d
            .toISOString()
            .slice(7, 19)
            .replace(/-(\d\d)T/, ' $1 ');
        lines.push(`<134>${header} fw${entry} sshd[7]: LEEF:1.0|Acme|FW|1.0|e${i}|${src}\tdevTime=${ms}`);
        break;
      }
      case 4:
        lines.push(`<14>1 ${d.toISOString()} fw${entry} - - - LEEF:1.0|Acme|FW|1.0|e${i}|${src}`);
        break;
      case 5:
        // Not ASCII: the string path, with the pass's scratch.
        lines.push(
          `LEEF:1.0|Acmé|FW|1.0|e${i}|usrName=jöe\tdevTimeFormat=${f.own}\tdevTime=${own.format(ms)}`,
        );
        break;
      default:
        lines.push(
          `LEEF:2.0|Acme|FW|1.0|e${i}|${f.caret}|devTime=${iso.format(ms)}^devTimeFormat=${iso.pattern}^${src}`,
        );
    }
  }
  return `${lines.join('\n')}\n`;
}

function leefSource(f: Flavour): ShipmentSource {
  return zip(
    'leef.zip',
    [0, 1, 2].map((k) => [`logs/${k}.log`, leefEntry(f, k)] as [string, string]),
  );
}

/** NDJSON documents with time values in several notations, per day of the flavour. */
function ecsSource(f: Flavour): ShipmentSource {
  const entry = (k: number) =>
    Array.from({ length: 1_200 }, (_, i) => {
      const ms = f.start + (k * 1_200 + i) * 61_003;
      const local = new Date(ms + 2 * HOUR).toISOString().slice(0, 23);
      return JSON.stringify({
        '@timestamp': i % 3 === 0 ? new Date(ms).toISOString() : i % 3 === 1 ? `${local}+02:00` : ms,
        event: { created: new Date(ms - 1500).toISOString().slice(0, 19), code: `e${i}` },
        message: `doc ${k}/${i}`,
      });
    }).join('\n');
  return zip('ecs.zip', [
    ['a.ndjson', entry(0)],
    ['b.ndjson', entry(1)],
  ]);
}

/** A batch as plain event objects, comparable with toEqual. */
function plain(batch: readonly OutboundEvent[]): OutboundEvent[] {
  // An event held as bytes compares by its line (its buffer has room past the batch's lines).
  return Array.from(batch, (e) => (e.lineBuf === undefined ? { ...e } : { line: e.line, time: e.time }));
}

async function alone(
  shipment: PreparedShipment,
  output: ShipmentOutput,
  scratch?: ShipmentScratch,
): Promise<OutboundEvent[][]> {
  const batches: OutboundEvent[][] = [];
  for await (const batch of shipmentEvents(shipment, 0, output, scratch)) batches.push(plain(batch));
  return batches;
}

/** The passes' batches, taking one batch of each in turn; `each` sees every batch as it comes. */
async function interleaved(
  passes: ReadonlyArray<AsyncGenerator<OutboundEvent[]>>,
  each: (pass: number, batch: OutboundEvent[], index: number) => void = () => {},
): Promise<OutboundEvent[][][]> {
  const out = passes.map((): OutboundEvent[][] => []);
  const done = passes.map(() => false);
  while (done.includes(false)) {
    for (const [p, pass] of passes.entries()) {
      if (done[p]) continue;
      const next = await pass.next();
      if (next.done) done[p] = true;
      else {
        each(p, next.value, (out[p] as OutboundEvent[][]).length);
        (out[p] as OutboundEvent[][]).push(plain(next.value));
      }
    }
  }
  return out;
}

/** Syslog frames of LEEF lines held as bytes, written from the bytes as the frame writer does. */
function frames(lines: LeefLines, writer: LeefFrameWriter): string[] {
  const out: string[] = [];
  for (const segment of lines.segments) {
    const index = lines.indexes === null ? null : lines.indexes.find(segment, lines.entry);
    for (let j = 0; j < segment.starts.length; j++) {
      // Negative: a line the writer leaves to the string path, or refuses.
      const n = writer.prepareLine(lines, segment, j, index);
      if (n < 0) out.push(`(not written: ${n})`);
      else {
        const buf = Buffer.alloc(n);
        writer.write(buf, 0);
        out.push(buf.toString('latin1'));
      }
    }
  }
  return out;
}

function frameWriter(f: Flavour, scratch?: ShipmentScratch): LeefFrameWriter {
  return new LeefFrameWriter(new LeefLineReader(scratch), {
    header: { mode: 'synthesize_if_missing', format: 'rfc5424', sourceIdentity: 'lab-fw01' },
    framing: 'octet_counting',
    maxMessageBytes: 65_536,
    now: f.now,
  });
}

describe('ShipmentScratch: shipments interleaved give what each gives alone', () => {
  it('LEEF pass 1 of two shipments at once, then pass 2 to LEEF, ECS and syslog frames, batch by batch', async () => {
    const [sa, sb] = [leefSource(A), leefSource(B)];
    const soloA = await prepareShipment([sa], { format: 'leef', now: A.now });
    const soloB = await prepareShipment([sb], { format: 'leef', now: B.now });
    // Pass 1 of both at once: entries are inflated asynchronously, so their lines interleave.
    const [a, b] = await Promise.all([
      prepareShipment([sa], { format: 'leef', now: A.now }),
      prepareShipment([sb], { format: 'leef', now: B.now }),
    ]);
    for (const [both, solo] of [
      [a, soloA],
      [b, soloB],
    ] as const) {
      expect({ shift: both.shiftMs, events: both.events, unreadable: both.unreadable }).toEqual({
        shift: solo.shiftMs,
        events: solo.events,
        unreadable: solo.unreadable,
      });
    }
    expect(a.unreadable).toBe(0);
    expect(b.unreadable).toBe(0);
    expect(a.shiftMs).not.toBe(b.shiftMs);

    for (const output of [{ kind: 'leef', labIndex: 'soc-lab' }, { kind: 'ecs' }] as const) {
      const expectedA = await alone(soloA, output);
      const expectedB = await alone(soloB, output);
      expect(expectedA.length, output.kind).toBeGreaterThan(2);
      // Two shipments, and a second pass of the first one (a noise run's second target).
      const [gotA, gotB, gotA2] = await interleaved([
        shipmentEvents(a, 0, output),
        shipmentEvents(b, 0, output),
        shipmentEvents(a, 0, output),
      ]);
      expect(gotA, output.kind).toEqual(expectedA);
      expect(gotB, output.kind).toEqual(expectedB);
      expect(gotA2, output.kind).toEqual(expectedA);
    }

    // Syslog frames from the bytes (LeefFrameWriter, with a reader and scratch of its own per pass).
    const soloFrames = async (shipment: PreparedShipment, f: Flavour) => {
      const writer = frameWriter(f);
      const out: string[] = [];
      for await (const lines of leefLineBatches(shipment, 0, 'soc-lab')) out.push(...frames(lines, writer));
      return out;
    };
    const framesA = await soloFrames(soloA, A);
    const framesB = await soloFrames(soloB, B);
    const writers = [frameWriter(A), frameWriter(B)];
    const got: string[][] = [[], []];
    // One batch of lines of each pass in turn.
    const passes = [a, b].map((s) => leefLineBatches(s, 0, 'soc-lab'));
    const done = [false, false];
    while (done.includes(false)) {
      for (const [p, pass] of passes.entries()) {
        if (done[p]) continue;
        const next = await pass.next();
        if (next.done) done[p] = true;
        else (got[p] as string[]).push(...frames(next.value, writers[p] as LeefFrameWriter));
      }
    }
    expect(got[0]).toEqual(framesA);
    expect(got[1]).toEqual(framesB);
    // Every ASCII line became a frame from the bytes.
    expect(framesA.filter((f) => f.startsWith('(refused'))).toEqual([]);
    expect(framesA.filter((f) => !f.startsWith('(')).length).toBeGreaterThan(3 * LINES_PER_ENTRY * (5 / 7));
  });

  it('ECS shipments: both passes of two shipments at once', async () => {
    const [sa, sb] = [ecsSource(A), ecsSource(B)];
    const soloA = await prepareShipment([sa], { format: 'ecs', now: A.now });
    const soloB = await prepareShipment([sb], { format: 'ecs', now: B.now });
    const expectedA = await alone(soloA, { kind: 'ecs' });
    const expectedB = await alone(soloB, { kind: 'ecs' });
    const [a, b] = await Promise.all([
      prepareShipment([sa], { format: 'ecs', now: A.now }),
      prepareShipment([sb], { format: 'ecs', now: B.now }),
    ]);
    expect([a.shiftMs, b.shiftMs]).toEqual([soloA.shiftMs, soloB.shiftMs]);
    const [gotA, gotB] = await interleaved([
      shipmentEvents(a, 0, { kind: 'ecs' }),
      shipmentEvents(b, 0, { kind: 'ecs' }),
    ]);
    expect(expectedA.length).toBeGreaterThan(1);
    expect(gotA).toEqual(expectedA);
    expect(gotB).toEqual(expectedB);
  });

  it('keeps each pass’s memos in the scratch it was given, and only there', async () => {
    const prepareA = new ShipmentScratch();
    const prepareB = new ShipmentScratch();
    const [a, b] = await Promise.all([
      prepareShipment([leefSource(A)], { format: 'leef', now: A.now, scratch: prepareA }),
      prepareShipment([leefSource(B)], { format: 'leef', now: B.now, scratch: prepareB }),
    ]);
    const expectedB = await alone(b, { kind: 'ecs' });
    const scratchA = new ShipmentScratch();
    const scratchB = new ShipmentScratch();
    let poisoned = 0;
    const [gotA, gotB] = await interleaved(
      [shipmentEvents(a, 0, { kind: 'ecs' }, scratchA), shipmentEvents(b, 0, { kind: 'ecs' }, scratchB)],
      (p, _batch, index) => {
        // After A's first batch, spoil the minute A's isoUtc memo holds: A's next documents of that
        // minute show it, B's never do.
        if (p === 0 && index === 0) {
          scratchA.isoUtc.prefix = 'SPOILT:';
          poisoned = scratchA.isoUtc.minute;
        }
      },
    );
    expect(gotB).toEqual(expectedB);
    const spoilt = (gotA as OutboundEvent[][])
      .flat()
      .filter((e) => String(e.doc?.['@timestamp']).startsWith('SPOILT:'));
    expect(spoilt.length).toBeGreaterThan(0);
    expect(spoilt.every((e) => Math.floor((e.time as number) / 60_000) === poisoned)).toBe(true);
    // Each scratch compiled its own shipment's patterns, not the other's, in both passes.
    for (const [own, other] of [
      [prepareA, prepareB],
      [scratchA, scratchB],
    ] as const) {
      expect(own.devTimes.cache.has(A.own)).toBe(true);
      expect(own.devTimes.cache.has(B.own)).toBe(false);
      expect(other.devTimes.cache.has(B.own)).toBe(true);
      expect(other.devTimes.cache.has(A.own)).toBe(false);
    }
    // Pass 1 scanned the LEEF headers (pass 2 takes the layouts from its index).
    expect(prepareA.leefBytes.field.toString('latin1')).toBe(A.caret);
    expect(prepareB.leefBytes.field.toString('latin1')).toBe(B.caret);
    expect([prepareA.leefBytes.fieldDelimiter, prepareB.leefBytes.fieldDelimiter]).toEqual(['^', '^']);
  });
});
