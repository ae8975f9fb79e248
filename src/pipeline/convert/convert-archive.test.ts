import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import { AppError } from '../../errors.ts';
import { analyzeArchive } from '../../exercises/exercise-archives.ts';
import { looksLikeLeef } from '../ecs/detect-format.ts';
import { parseLeef } from '../leef/parse-leef.ts';
import { baseName, convertArchive, jsonLine } from './convert-archive.ts';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const dir = path.resolve(import.meta.dirname, '../../../test/fixtures/leef');
const fixture = (name: string) => readFileSync(path.join(dir, name));
const options = { limits: {}, now: NOW };

const ecsDocs = [
  {
    '@timestamp': '2024-05-01T10:00:00.000Z',
    event: { code: '4625', action: 'logon-failed' },
    source: { ip: '10.1.2.3' },
    user: { name: 'alice' },
  },
  { '@timestamp': '2024-05-01T10:00:05.000Z', host: { name: 'ws-01' }, message: 'no code here' },
  { '@timestamp': '2024-05-01T10:00:09.250Z', process: { name: 'cmd.exe' } },
];
const ndjson = Buffer.from(`${ecsDocs.map((d) => JSON.stringify(d)).join('\n')}\n`);

function ndjsonDocs(data: Buffer): Record<string, unknown>[] {
  return data
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe(convertArchive.name, () => {
  it('turns LEEF lines into ECS NDJSON with the same count and the unshifted devTime as @timestamp', async () => {
    const result = await convertArchive(fixture('windows.log'), 'text', 'windows.log', 'leef', options);
    expect(result.filename).toBe('windows.converted.ndjson');
    const docs = ndjsonDocs(result.data);
    expect(result.events).toBe(4);
    expect(docs).toHaveLength(4);
    expect(docs.map((d) => d['@timestamp'])).toEqual([
      '2024-03-11T09:15:02.123Z',
      '2024-03-11T09:15:13.456Z',
      '2024-03-11T09:15:20.000Z',
      '2024-03-11T09:15:33.000Z',
    ]);
    expect(docs[0]).toMatchObject({ observer: { vendor: 'Microsoft' }, event: { code: '4624' } });
  });

  it('reads every LEEF entry of a zip, in path order', async () => {
    const zip = buildZip([
      { name: 'b/fortinet.log', data: fixture('fortinet.log') },
      { name: 'a/palo-alto.log', data: fixture('palo-alto.log') },
      { name: 'readme.md', data: 'skipped' },
    ]);
    const result = await convertArchive(zip, 'zip', 'uploads/attack.zip', 'leef', options);
    expect(result.filename).toBe('attack.converted.ndjson');
    const docs = ndjsonDocs(result.data);
    expect(docs).toHaveLength(result.events);
    expect(result.events).toBe(8);
    expect(docs[0]?.['@timestamp']).toBe('2024-03-11T09:15:01.000Z');
  });

  it('turns ECS documents into LEEF lines with Socdrill defaults where the document names nothing', async () => {
    const result = await convertArchive(ndjson, 'text', 'events.ndjson', 'ecs', options);
    expect(result.filename).toBe('events.converted.log');
    expect(result.events).toBe(3);
    const lines = result.data
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(looksLikeLeef(line)).toBe(true);
    const parsed = lines.map((l) => parseLeef(l));
    expect(parsed[0]).toMatchObject({
      vendor: 'Socdrill',
      product: 'Converted',
      productVersion: '1',
      eventId: '4625',
    });
    expect(parsed[1]?.eventId).toBe('event');
    // Unshifted: devTime is @timestamp in epoch ms.
    expect(lines[2]).toContain(`devTime=${Date.parse('2024-05-01T10:00:09.250Z')}`);
  });

  it('produces archives that analyse as the target format (round trip)', async () => {
    const toEcs = await convertArchive(fixture('formats.log'), 'text', 'formats.log', 'leef', options);
    const ecs = await analyzeArchive(toEcs.data, toEcs.filename, options);
    expect(ecs).toMatchObject({ format: 'ecs', kind: 'text', events: toEcs.events });

    const toLeef = await convertArchive(ndjson, 'text', 'events.ndjson', 'ecs', options);
    const leef = await analyzeArchive(toLeef.data, toLeef.filename, options);
    expect(leef).toMatchObject({ format: 'leef', kind: 'text', events: 3 });
    expect(leef.latestEventMs).toBe(Date.parse('2024-05-01T10:00:09.250Z'));

    // And back: LEEF made from ECS converts to ECS with the same times.
    const back = await convertArchive(toLeef.data, 'text', toLeef.filename, 'leef', options);
    expect(back.filename).toBe('events.converted.ndjson');
    expect(ndjsonDocs(back.data).map((d) => d['@timestamp'])).toEqual(ecsDocs.map((d) => d['@timestamp']));
  });

  it.each(['fortinet.log', 'palo-alto.log', 'windows.log', 'formats.log'])(
    '%s converts to ECS that analyses as ECS',
    async (name) => {
      const result = await convertArchive(fixture(name), 'text', name, 'leef', options);
      expect(await analyzeArchive(result.data, result.filename, options)).toMatchObject({
        format: 'ecs',
        events: result.events,
      });
    },
  );

  it('keeps a LEEF line behind a syslog header in event.original as it was, in JSON detection cannot take for LEEF', async () => {
    const result = await convertArchive(fixture('fortinet.log'), 'text', 'fortinet.log', 'leef', options);
    const first = result.data.toString('utf8').split('\n')[0] ?? '';
    expect(looksLikeLeef(first)).toBe(false);
    const original = (JSON.parse(first) as { event: { original: string } }).event.original;
    expect(original).toBe(fixture('fortinet.log').toString('utf8').split('\n')[0]);
  });

  it('refuses a result larger than one entry may be', async () => {
    const data = fixture('windows.log');
    const err = await convertArchive(data, 'text', 'windows.log', 'leef', {
      limits: { maxEntryBytes: data.length + 10 },
      now: NOW,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'payload_too_large' });
  });

  it('fails as reading fails: nothing to convert is no_events', async () => {
    await expect(
      convertArchive(Buffer.from('\n\n'), 'text', 'empty.log', 'leef', options),
    ).rejects.toMatchObject({
      code: 'no_events',
    });
  });
});

describe(jsonLine.name, () => {
  it('spells the space before LEEF: as an escape, giving the same JSON', () => {
    const doc = {
      message: 'x',
      event: { original: '<13>Jan 1 00:00:00 h LEEF:2.0|a|b|c|d|^|k=v and LEEF: again' },
    };
    const line = jsonLine(JSON.stringify(doc));
    expect(line).not.toContain(' LEEF:');
    expect(JSON.parse(line)).toEqual(doc);
    expect(jsonLine('{"a":1}')).toBe('{"a":1}');
  });
});

describe(baseName.name, () => {
  it.each([
    ['attack.zip', 'attack'],
    ['logs.tar.gz', 'logs'],
    ['a/b/logs.TGZ', 'logs'],
    ['events.ndjson', 'events'],
    ['events.converted.log', 'events'],
    ['.zip', 'archive'],
    ['noext', 'noext'],
  ])('%s → %s', (name, base) => {
    expect(baseName(name)).toBe(base);
  });
});
