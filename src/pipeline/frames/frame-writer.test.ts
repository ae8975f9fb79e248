import { describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import type { OutboundEvent } from '../shipment/outbound-event.ts';
import { prepareShipment } from '../shipment/prepare-shipment.ts';
import type { FrameChunk, FrameFormat, FramePiece } from './frame-format.ts';
import { eventFrames, shipmentFrames } from './shipment-frames.ts';

const NOW = Date.UTC(2026, 10, 27, 9, 0, 0);
const T = Date.UTC(2026, 10, 27, 6, 0, 0);

function format(over: Partial<FrameFormat> = {}): FrameFormat {
  return {
    header: { mode: 'synthesize_if_missing', format: 'rfc3164', sourceIdentity: 'lab-fw01' },
    framing: 'lf',
    maxMessageBytes: 200,
    chunkBytes: 64 * 1024,
    longFrameBytes: Number.POSITIVE_INFINITY,
    ...over,
  };
}

async function piecesOf(pieces: AsyncIterable<FramePiece>): Promise<FramePiece[]> {
  const out: FramePiece[] = [];
  for await (const piece of pieces) out.push(piece);
  return out;
}

async function* batches<T>(...lists: T[][]): AsyncGenerator<T[]> {
  for (const list of lists) yield list;
}

const event = (line: string | null, time: number | null = T): OutboundEvent =>
  ({ line, time }) as OutboundEvent;
const chunks = (pieces: FramePiece[]) => pieces.filter((p): p is FrameChunk => p.kind === 'frames');
const text = (pieces: FramePiece[]) => Buffer.concat(chunks(pieces).map((c) => c.data)).toString('utf8');

describe('frame writer: chunks and refusals of a frame pass', () => {
  it('cuts chunks at frame boundaries, never over chunkBytes, and puts the frame that did not fit first in the next', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `LEEF:1.0|V|P|1|E${i}|a=${i}`);
    // Each frame is 52 bytes; three fit in 160 bytes (156), four do not.
    const frame = (i: number) => `<134>Nov 27 06:00:00 lab-fw01 ${lines[i]}\n`;
    expect(Buffer.byteLength(frame(0))).toBe(52);
    // The string path checks 3 bytes per code unit before it writes, so a chunk is cut early
    // rather than late: never over chunkBytes.
    const pieces = await piecesOf(
      eventFrames(batches(lines.map((l) => event(l))), format({ chunkBytes: 160 }), NOW),
    );
    const got = chunks(pieces);
    expect(got.every((c) => c.data.length <= 160)).toBe(true);
    expect(got.reduce((n, c) => n + c.events, 0)).toBe(10);
    expect(text(pieces)).toBe(lines.map((_, i) => frame(i)).join(''));
    for (const c of got) {
      // Every chunk is whole frames: it starts with a PRI and ends with the framing's LF.
      expect(c.data.toString('utf8')).toMatch(/^<134>[\s\S]*\n$/);
      expect(c.data.toString('utf8').split('\n').length - 1).toBe(c.events);
    }
  });

  it('sends a frame larger than a chunk alone in a chunk of its own and counts long frames', async () => {
    const long = `LEEF:1.0|V|P|1|E|msg=${'x'.repeat(120)}`;
    const pieces = await piecesOf(
      eventFrames(
        batches([event('LEEF:1.0|V|P|1|E|a=1'), event(long), event('LEEF:1.0|V|P|1|E|a=2')]),
        format({ chunkBytes: 64, longFrameBytes: 100 }),
        NOW,
      ),
    );
    const got = chunks(pieces);
    expect(got.map((c) => c.events)).toEqual([1, 1, 1]);
    expect(got.map((c) => c.longFrames)).toEqual([0, 1, 0]);
    expect(got[1]?.data.toString('utf8')).toBe(`<134>Nov 27 06:00:00 lab-fw01 ${long}\n`);
  });

  it('counts each refused event once, per reason, and sends the rest', async () => {
    const pieces = await piecesOf(
      eventFrames(
        batches(
          [event('LEEF:1.0|V|P|1|E|a=1'), event(null), event(`LEEF:1.0|V|P|1|E|m=${'y'.repeat(300)}`)],
          [event(null), event('LEEF:1.0|V|P|1|E|a=2')],
        ),
        format(),
        NOW,
      ),
    );
    const refused = pieces.flatMap((p) => (p.kind === 'refused' ? [[p.reason, p.events] as const] : []));
    expect(refused).toEqual([
      ['the event has no LEEF line (syslog frames carry LEEF only)', 1],
      ['the message is longer than 200 bytes and is not sent (the receiver would cut it in pieces)', 1],
      ['the event has no LEEF line (syslog frames carry LEEF only)', 1],
    ]);
    expect(chunks(pieces).map((c) => c.events)).toEqual([1, 1]);
  });

  it('refuses lines that need a synthesized header when no source identity is named', async () => {
    const pieces = await piecesOf(
      eventFrames(
        batches([event('LEEF:1.0|V|P|1|E|a=1'), event('<14>Nov 27 06:00:00 fw02 LEEF:1.0|V|P|1|E|a=2')]),
        format({ header: { mode: 'synthesize_if_missing', format: 'rfc3164', sourceIdentity: null } }),
        NOW,
      ),
    );
    expect(pieces.filter((p) => p.kind === 'refused').map((p) => p.events)).toEqual([1]);
    expect(text(pieces)).toBe('<14>Nov 27 06:00:00 fw02 LEEF:1.0|V|P|1|E|a=2\n');
  });

  it('gives a prepared shipment the same bytes whatever the chunk size, pending frames included', async () => {
    // Lines that go the byte path (ASCII) and the string path (non-ASCII), headed and bare.
    const body = Array.from({ length: 400 }, (_, i) => {
      const time = T - (400 - i) * 1000;
      if (i % 7 === 0) return `LEEF:1.0|V|P|1|E|usrName=ü${i}\tdevTime=${time}`;
      if (i % 5 === 0) return `<13>Nov 27 05:00:00 fw-${i} LEEF:1.0|V|P|1|E|n=${i}\tdevTime=${time}`;
      return `LEEF:1.0|V|P|1|E|n=${i}\tdevTime=${time}`;
    }).join('\n');
    const shipment = await prepareShipment(
      [{ data: buildZip([{ name: 'fw.log', data: body }]), kind: 'zip', label: 'fw.zip' }],
      { format: 'leef', now: NOW },
    );
    const whole = await piecesOf(shipmentFrames(shipment, 0, format({ framing: 'octet_counting' })));
    expect(chunks(whole).reduce((n, c) => n + c.events, 0)).toBe(400);
    for (const chunkBytes of [90, 97, 256, 1000]) {
      const cut = await piecesOf(
        shipmentFrames(shipment, 0, format({ framing: 'octet_counting', chunkBytes })),
      );
      expect(text(cut)).toBe(text(whole));
      // Over chunkBytes only a frame alone that is longer by itself.
      expect(chunks(cut).filter((c) => c.data.length > chunkBytes && c.events > 1)).toEqual([]);
      expect(chunks(cut).length).toBeGreaterThan(chunkBytes < 100 ? 300 : 10);
      expect(chunks(cut).reduce((n, c) => n + c.events, 0)).toBe(400);
    }
  });
});
