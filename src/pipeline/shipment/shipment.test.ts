import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import { AppError } from '../../errors.ts';
import type { OutboundEvent } from './outbound-event.ts';
import { prepareShipment, type ShipmentSource } from './prepare-shipment.ts';
import { type ShipmentOutput, shipmentEvents } from './shipment-events.ts';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const HOUR = 3_600_000;
const zip = (entries: Array<[string, string]>): ShipmentSource => ({
  data: buildZip(entries.map(([name, data]) => ({ name, data }))),
  kind: 'zip',
  label: 'test.zip',
});

async function collect(
  shipment: Awaited<ReturnType<typeof prepareShipment>>,
  source: number,
  output: ShipmentOutput,
) {
  const events: OutboundEvent[] = [];
  for await (const batch of shipmentEvents(shipment, source, output)) events.push(...batch.map(asRead));
  return events;
}

/** What a driver reads of an event, as a plain object (events held as bytes build their text on demand). */
function asRead(e: OutboundEvent): OutboundEvent {
  return {
    ...(e.line !== undefined ? { line: e.line } : {}),
    ...(e.json !== undefined ? { json: e.json } : {}),
    ...(e.doc !== undefined ? { doc: e.doc } : {}),
    time: e.time,
  };
}

const t0 = Date.UTC(2024, 0, 10, 8, 0, 0);
const leefA = [
  `LEEF:1.0|Acme|FW|1.0|deny|src=10.0.0.1\tdst=10.0.0.2\tdevTime=${t0}`,
  `<134>Jan 10 09:00:00 fw01 LEEF:2.0|Acme|FW|1.0|allow|^|src=10.0.0.3^devTime=${t0 + HOUR}`,
  'LEEF:1.0|Acme|FW|1.0|note|msg=no time here',
].join('\r\n');
const leefB = `LEEF:1.0|Acme|FW|1.0|deny|devTime=Jan 10 2024 10:00:00.000 UTC\tdevTimeFormat=MMM dd yyyy HH:mm:ss.SSS z\n`;

describe('prepareShipment and shipmentEvents', () => {
  it('rebases LEEF so the newest event lands at now + 2 h, in path order, skipping other files', async () => {
    const source = zip([
      ['logs/b.txt', leefB],
      ['logs/a.log', leefA],
      ['README.md', 'not shipped'],
      ['__MACOSX/logs/._a.log', 'junk'],
      ['.hidden.log', 'junk'],
    ]);
    const shipment = await prepareShipment([source], { format: 'leef', now: NOW });
    expect(shipment).toMatchObject({ files: 2, events: 4, unreadable: 1 });
    // Newest: devTime 10:00 UTC on 2024-01-10 (entry b).
    const newest = Date.UTC(2024, 0, 10, 10, 0, 0);
    expect(shipment.shiftMs).toBe(NOW + 2 * HOUR - newest);
    expect(shipment.shiftDays).toBe(shipment.shiftMs / 86_400_000);

    const events = await collect(shipment, 0, { kind: 'leef' });
    const s = shipment.shiftMs;
    expect(events.map((e) => e.line)).toEqual([
      `LEEF:1.0|Acme|FW|1.0|deny|src=10.0.0.1\tdst=10.0.0.2\tdevTime=${t0 + s}`,
      `<134>Mar  1 13:00:00 fw01 LEEF:2.0|Acme|FW|1.0|allow|^|src=10.0.0.3^devTime=${t0 + HOUR + s}`,
      'LEEF:1.0|Acme|FW|1.0|note|msg=no time here',
      'LEEF:1.0|Acme|FW|1.0|deny|devTime=Mar 01 2026 14:00:00.000 UTC\tdevTimeFormat=MMM dd yyyy HH:mm:ss.SSS z',
    ]);
    expect(events.map((e) => e.time)).toEqual([t0 + s, t0 + HOUR + s, null, NOW + 2 * HOUR]);
  });

  it('adds labIndex with each line’s own delimiter, replacing an existing one', async () => {
    const source = zip([
      ['a.log', `LEEF:2.0|V|P|1|E|^|a=1^devTime=${t0}\nLEEF:1.0|V|P|1|E|labIndex=old\tdevTime=${t0}\n`],
    ]);
    const shipment = await prepareShipment([source], { format: 'leef', now: NOW });
    const events = await collect(shipment, 0, { kind: 'leef', labIndex: 'noise-web' });
    const s = shipment.shiftMs;
    expect(events.map((e) => e.line)).toEqual([
      `LEEF:2.0|V|P|1|E|^|a=1^devTime=${t0 + s}^labIndex=noise-web`,
      `LEEF:1.0|V|P|1|E|labIndex=noise-web\tdevTime=${t0 + s}`,
    ]);
  });

  it('converts LEEF to ECS documents for ECS destinations, carrying the lab index', async () => {
    const source = zip([
      ['a.log', `LEEF:1.0|Acme|FW|1.0|deny|src=10.0.0.1\tdstPort=443\tusrName=bob\tdevTime=${t0}\n`],
    ]);
    const shipment = await prepareShipment([source], { format: 'leef', now: NOW });
    const [event] = await collect(shipment, 0, { kind: 'ecs', labIndex: 'lab-1' });
    expect(event?.time).toBe(NOW + 2 * HOUR);
    expect(event?.doc).toMatchObject({
      '@timestamp': new Date(NOW + 2 * HOUR).toISOString(),
      source: { ip: '10.0.0.1' },
      destination: { port: 443 },
      user: { name: 'bob' },
      observer: { vendor: 'Acme', product: 'FW' },
      event: { code: 'deny' },
      labels: { labIndex: 'lab-1' },
    });
  });

  it('puts a LEEF line’s syslog header into log.syslog of its ECS document', async () => {
    const source = zip([
      [
        'a.log',
        `<134>Jan 10 09:00:00 fw01 sshd[77]: LEEF:1.0|Acme|FW|1.0|deny|src=10.0.0.1\tdevTime=${t0}\nLEEF:1.0|Acme|FW|1.0|deny|devTime=${t0}\n`,
      ],
    ]);
    const shipment = await prepareShipment([source], { format: 'leef', now: NOW });
    const events = await collect(shipment, 0, { kind: 'ecs' });
    expect(events[0]?.doc?.log).toEqual({
      syslog: {
        priority: 134,
        facility: { code: 16, name: 'local0' },
        severity: { code: 6, name: 'Informational' },
        hostname: 'fw01',
        appname: 'sshd',
        procid: '77',
      },
    });
    expect(events[1]?.doc).not.toHaveProperty('log');
  });

  it('converts a large LEEF archive to ECS in batches of at most 1,000 documents, in line order', async () => {
    const lines = Array.from(
      { length: 2_500 },
      (_, i) => `LEEF:1.0|Acme|FW|1.0|e${i}|src=10.0.${i >> 8}.${i & 255}\tdevTime=${t0 + i * 1000}`,
    );
    const shipment = await prepareShipment([zip([['a.log', `${lines.join('\n')}\n`]])], {
      format: 'leef',
      now: NOW,
    });
    const sizes: number[] = [];
    const codes: unknown[] = [];
    for await (const batch of shipmentEvents(shipment, 0, { kind: 'ecs' })) {
      sizes.push(batch.length);
      for (const event of batch) codes.push((event.doc?.event as { code?: unknown } | undefined)?.code);
    }
    expect(sizes.every((n) => n > 0 && n <= 1_000)).toBe(true);
    expect(codes).toEqual(lines.map((_, i) => `e${i}`));
  });

  it('rebases ECS documents as text: .json arrays and .ndjson, time fields moved, the rest byte for byte', async () => {
    const source = zip([
      [
        'b.ndjson',
        '{"@timestamp":"2024-01-10T10:00:00Z","event":{"created":"2024-01-10T10:00:01.250Z"},"message":"x"}\n',
      ],
      [
        'a.json',
        '[{"@timestamp":"2024-01-10T09:00:00.000+01:00","host":{"name":"h"}},{"@timestamp":"bad","message":"y"}]',
      ],
    ]);
    const shipment = await prepareShipment([source], { format: 'ecs', now: NOW });
    expect(shipment).toMatchObject({ files: 2, events: 3, unreadable: 1 });
    const events = await collect(shipment, 0, { kind: 'ecs' });
    expect(events.map((e) => e.json)).toEqual([
      '{"@timestamp":"2026-03-01T13:00:00.000+01:00","host":{"name":"h"}}',
      '{"@timestamp":"bad","message":"y"}',
      '{"@timestamp":"2026-03-01T14:00:00Z","event":{"created":"2026-03-01T14:00:01.250Z"},"message":"x"}',
    ]);
    expect(events.map((e) => e.time)).toEqual([NOW, null, NOW + 2 * HOUR]);
  });

  it('gives each ECS event the time its written @timestamp denotes, also when the value has no milliseconds', async () => {
    const source = zip([
      [
        'a.ndjson',
        '{"@timestamp":"2024-01-10T10:00:00Z","message":"seconds"}\n{"@timestamp":"2024-01-10T09:00:00.500Z","message":"ms"}\n',
      ],
    ]);
    // A now with milliseconds: the shift is not a whole number of seconds.
    const shipment = await prepareShipment([source], { format: 'ecs', now: NOW + 123 });
    const events = await collect(shipment, 0, { kind: 'ecs' });
    for (const e of events) {
      const written = (JSON.parse(e.json as string) as { '@timestamp': string })['@timestamp'];
      expect(e.time, written).toBe(Date.parse(written));
    }
    expect(events.map((e) => e.json)).toEqual([
      '{"@timestamp":"2026-03-01T14:00:00Z","message":"seconds"}',
      '{"@timestamp":"2026-03-01T13:00:00.623Z","message":"ms"}',
    ]);
  });

  it('ships every non-empty line of a LEEF entry that starts with a banner line', async () => {
    const source = zip([['a.log', `# exported from the lab firewall\nLEEF:1.0|V|P|1|E|devTime=${t0}\n`]]);
    const shipment = await prepareShipment([source], { format: 'leef', now: NOW });
    expect(shipment).toMatchObject({ files: 1, events: 2, unreadable: 1 });
    const events = await collect(shipment, 0, { kind: 'leef' });
    expect(events.map((e) => e.line)).toEqual([
      '# exported from the lab firewall',
      `LEEF:1.0|V|P|1|E|devTime=${NOW + 2 * HOUR}`,
    ]);
  });

  it('counts a devTime whose seconds are cut short as unreadable, and gives its events no time', async () => {
    const source = zip([
      [
        'a.log',
        [
          'LEEF:2.0|V|P|1|E|^|msg=café^devTime=2024-03-11T09:15:',
          'LEEF:2.0|V|P|1|E|^|msg=cafe^devTime=2024-03-11T09:15:0',
          `LEEF:1.0|V|P|1|E|devTime=${t0}`,
        ].join('\n'),
      ],
    ]);
    const shipment = await prepareShipment([source], { format: 'leef', now: NOW });
    expect(shipment).toMatchObject({ files: 1, events: 3, unreadable: 2 });
    for (const kind of ['leef', 'ecs'] as const) {
      const events = await collect(shipment, 0, { kind });
      expect(events.map((e) => e.time)).toEqual([null, null, NOW + 2 * HOUR]);
    }
  });

  it('computes one shift over several archives (a noise run)', async () => {
    const a = zip([['a.log', `LEEF:1.0|V|P|1|E|devTime=${t0}\n`]]);
    const b = zip([['b.log', `LEEF:1.0|V|P|1|E|devTime=${t0 + 5 * HOUR}\n`]]);
    const shipment = await prepareShipment([a, b], { format: 'leef', now: NOW });
    expect(shipment.eventsPerSource).toEqual([1, 1]);
    const [ea] = await collect(shipment, 0, { kind: 'leef' });
    const [eb] = await collect(shipment, 1, { kind: 'leef' });
    expect(eb?.time).toBe(NOW + 2 * HOUR);
    expect(ea?.time).toBe(NOW + 2 * HOUR - 5 * HOUR);
  });

  it('lands the newest event at now + 2 h when it is a year-less header in another archive than the dated ones', async () => {
    const dated = Date.UTC(2024, 2, 10, 12, 0, 0);
    const a = zip([['a.log', `LEEF:1.0|V|P|1|E|devTime=${dated}\tsrc=1.1.1.1\n`]]);
    const b = zip([['b.log', '<13>Mar 10 20:00:00 fw LEEF:1.0|V|P|1|E|src=2.2.2.2\n']]);
    const shipment = await prepareShipment([a, b], { format: 'leef', now: NOW });
    expect(shipment.shiftMs).toBe(NOW + 2 * HOUR - Date.UTC(2024, 2, 10, 20, 0, 0));
    const [ea] = await collect(shipment, 0, { kind: 'leef' });
    const [eb] = await collect(shipment, 1, { kind: 'leef' });
    expect(eb?.time).toBe(NOW + 2 * HOUR);
    expect(eb?.line).toBe('<13>Mar  1 14:00:00 fw LEEF:1.0|V|P|1|E|src=2.2.2.2');
    expect(ea?.time).toBe(NOW + 2 * HOUR - 8 * HOUR);
  });

  it('ships an archive without any readable time unchanged with a zero shift', async () => {
    const source = zip([['a.log', 'LEEF:1.0|V|P|1|E|msg=hello\n']]);
    const shipment = await prepareShipment([source], { format: 'leef', now: NOW });
    expect(shipment.shiftMs).toBe(0);
    expect(shipment.shiftDays).toBe(0);
    expect((await collect(shipment, 0, { kind: 'leef' }))[0]).toEqual({
      line: 'LEEF:1.0|V|P|1|E|msg=hello',
      time: null,
    });
  });

  it('answers no_events, naming them, when no entry at all is of the format (decisions.md §5)', async () => {
    const only = zip([
      ['readme.txt', 'Notes for the instructor\n'],
      ['ecs.log', '{"@timestamp":"2024-01-01T00:00:00Z","message":"m"}\n'],
    ]);
    await expect(prepareShipment([only], { format: 'leef', now: NOW })).rejects.toMatchObject({
      code: 'no_events',
      message: expect.stringContaining('"ecs.log", "readme.txt"'),
      details: { files: 2, format: 'leef', unusable_entries: ['ecs.log', 'readme.txt'] },
    });
  });

  it('refuses an archive with nothing to ship for the format', async () => {
    const cases: ShipmentSource[] = [
      zip([['a.ndjson', '{"@timestamp":"2024-01-01T00:00:00Z","message":"m"}\n']]),
      zip([['a.log', '\n\n  \n']]),
      zip([['__MACOSX/a.log', 'LEEF:1.0|V|P|1|E|a=1']]),
    ];
    for (const source of cases) {
      const err = await prepareShipment([source], { format: 'leef', now: NOW }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('no_events');
    }
  });

  it('fails closed on an entry that is not the destination’s format, naming it', async () => {
    const leef = 'LEEF:1.0|V|P|1|E|a=1\n';
    const ecsInLog = zip([
      ['a.log', leef],
      ['ecs.log', '{"@timestamp":"2024-01-01T00:00:00Z","message":"m"}\n'],
    ]);
    await expect(prepareShipment([ecsInLog], { format: 'leef', now: NOW })).rejects.toMatchObject({
      code: 'archive_invalid',
      details: { entry: 'ecs.log', found: 'ecs', expected: 'leef' },
    });
    const junk = zip([
      ['a.log', leef],
      ['junk.log', 'just some text\n'],
    ]);
    await expect(prepareShipment([junk], { format: 'leef', now: NOW })).rejects.toMatchObject({
      code: 'archive_invalid',
      details: { entry: 'junk.log' },
    });
    const corrupt: ShipmentSource = {
      data: Buffer.from('PK\x03\x04garbage'),
      kind: 'zip',
      label: 'noise/a.zip',
    };
    const other = zip([['a.log', 'LEEF:1.0|V|P|1|E|a=1\n']]);
    await expect(prepareShipment([other, corrupt], { format: 'leef', now: NOW })).rejects.toMatchObject({
      code: 'archive_invalid',
      message: expect.stringMatching(/^noise\/a\.zip: /),
    });
  });
});

describe('pass 1 findings kept for pass 2', () => {
  it('are found again for the chunks pass 2 inflates again, and give the same events', async () => {
    // About 1.2 MB of 1 KiB lines: three 512 KiB chunks, all inflated again by pass 2 (nothing
    // inflated is kept by default), found by entry and offset.
    const pad = 'x'.repeat(960);
    const text = Array.from(
      { length: 1200 },
      (_, i) => `LEEF:1.0|Acme|FW|1.0|deny|devTime=${t0 + i * 1000}\tmsg=${pad}`,
    ).join('\n');
    const source = zip([['big.log', text]]);
    const indexed = await prepareShipment([source], { format: 'leef', now: NOW });
    const found: number[] = [];
    let missed = 0;
    const indexes = indexed.lineIndexes;
    const find = indexes.find.bind(indexes);
    indexes.find = (lines, entry) => {
      const index = find(lines, entry);
      if (index === null) missed++;
      else found.push(lines.offset);
      return index;
    };
    const events = await collect(indexed, 0, { kind: 'leef' });
    // The three chunks, the two lines assembled across their boundaries and the last line (no
    // LF after it), every one found.
    expect(found).toEqual(expect.arrayContaining([0, 524_288, 1_048_576]));
    expect(found).toHaveLength(6);
    expect(missed).toBe(0);

    // The same events as a pass 2 that reads every line afresh, and as one replaying kept chunks.
    const fresh = await prepareShipment([source], { format: 'leef', now: NOW, indexBytes: 0 });
    expect(events).toEqual(await collect(fresh, 0, { kind: 'leef' }));
    const kept = await prepareShipment([source], {
      format: 'leef',
      now: NOW,
      limits: { retainBytes: 1 << 20 },
    });
    expect(events).toEqual(await collect(kept, 0, { kind: 'leef' }));
    expect(events[1199]?.time).toBe(NOW + 2 * HOUR);
  });

  it('are kept apart for entries of the same name in different archives', async () => {
    // Same path, same line lengths, devTime first in one archive and last in the other: positions
    // from one used for the other would rewrite the wrong digits.
    const lines = (devFirst: boolean) =>
      Array.from({ length: 3 }, (_, i) => {
        const dev = `devTime=${t0 + i * 60_000}`;
        return `LEEF:1.0|Acme|FW|1.0|deny|${devFirst ? `${dev}\tmsg=0123456789` : `msg=0123456789\t${dev}`}`;
      }).join('\n');
    const sources = [zip([['logs/fw.log', lines(true)]]), zip([['logs/fw.log', lines(false)]])];
    const indexed = await prepareShipment(sources, { format: 'leef', now: NOW });
    const fresh = await prepareShipment(sources, { format: 'leef', now: NOW, indexBytes: 0 });
    for (const source of [0, 1]) {
      const events = await collect(indexed, source, { kind: 'leef' });
      expect(events).toEqual(await collect(fresh, source, { kind: 'leef' }));
      expect(events.map((e) => e.time)).toEqual([0, 1, 2].map((i) => t0 + i * 60_000 + indexed.shiftMs));
    }
  });
});

describe('prepareShipment stopped by its signal', () => {
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) => `LEEF:1.0|Acme|FW|1.0|deny|src=10.0.0.1\tdevTime=${t0 + i}`).join(
      '\n',
    );

  it('reads nothing for a signal already aborted, and throws its reason', async () => {
    const reason = new DOMException('deadline', 'TimeoutError');
    await expect(
      prepareShipment([zip([['a.log', many(10)]])], {
        format: 'leef',
        now: NOW,
        signal: AbortSignal.abort(reason),
      }),
    ).rejects.toBe(reason);
  });

  it('stops between batches of pass 1 when aborted while reading, for LEEF and for ECS', async () => {
    const ecs = Array.from(
      { length: 200_000 },
      (_, i) =>
        `{"@timestamp":"2024-01-10T08:00:00.${String(i % 1000).padStart(3, '0')}Z","event":{"kind":"event"}}`,
    ).join('\n');
    for (const [format, source] of [
      ['leef', zip([['a.log', many(300_000)]])],
      ['ecs', zip([['a.ndjson', ecs]])],
    ] as const) {
      const controller = new AbortController();
      const reason = new Error('stopped');
      let batches = 0;
      const preparing = prepareShipment([source], { format, now: NOW, signal: controller.signal });
      // Abort once reading is under way: pass 1 yields between inflated chunks.
      setImmediate(() => {
        batches += 1;
        controller.abort(reason);
      });
      await expect(preparing, format).rejects.toBe(reason);
      expect(batches).toBe(1);
    }
  });
});

describe('ECS documents held as bytes', () => {
  it('keep their bytes until the pass is over, from a zip in a file with stored and deflated entries', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'socdrill-held-'));
    try {
      // Several 512 KiB chunks per entry, read from the file as the shipment goes.
      const docs = (n: number, from: number) =>
        Array.from(
          { length: n },
          (_, i) =>
            `{"@timestamp":"${new Date(t0 + (from + i) * 1000).toISOString()}","event":{"created":${t0 + (from + i) * 1000}},"pad":"${'y'.repeat(i % 200)}"}`,
        ).join('\n');
      const file = path.join(dir, 'ecs.zip');
      const data = buildZip([
        { name: 'a.ndjson', data: docs(12_000, 0), method: 0 },
        { name: 'b.ndjson', data: docs(12_000, 12_000), method: 8 },
      ]);
      writeFileSync(file, data);
      const shipment = await prepareShipment(
        [{ data: { path: file, size: data.length }, kind: 'zip', label: 'held.zip' }],
        { format: 'ecs', now: NOW },
      );
      // Each document's text read as it comes, its bytes written once the pass is over, as a
      // driver that holds a batch until the SIEM answers writes them: no chunk was reused.
      const held: Array<{ event: OutboundEvent; text: string }> = [];
      for await (const batch of shipmentEvents(shipment, 0, { kind: 'ecs' })) {
        for (const event of batch) held.push({ event, text: event.json as string });
      }
      expect(held).toHaveLength(24_000);
      for (const { event, text } of held) {
        if (event.writeJson === undefined || event.jsonBytes === undefined)
          throw new Error('not held as bytes');
        const out = Buffer.alloc(event.jsonBytes);
        event.writeJson(out, 0);
        expect(out.toString('latin1')).toBe(text);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
