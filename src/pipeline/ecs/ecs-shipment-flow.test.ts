import { describe, expect, it } from 'vitest';
import { buildTarGz } from '../../../test/fixtures/archives/tar-builder.ts';
import { buildZip } from '../../../test/fixtures/archives/zip-builder.ts';
import { selectForFormat } from '../archive/entry-path.ts';
import { type ArchiveKind, openArchive } from '../archive/open-archive.ts';
import { requireEntryFormat } from './detect-format.ts';
import { ecsRecordTime, shiftEcsRecord } from './ecs-record.ts';
import { EcsTwoPassReader } from './read-ecs-records.ts';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 22, 18, 0, 0);

/** The ECS part of a shipment: what the assembler does with an archive, end to end. */
async function ship(kind: ArchiveKind, data: Buffer) {
  const archive = await openArchive(data, { kind, select: selectForFormat('ecs') });
  const reader = new EcsTwoPassReader();
  let newest: number | null = null;
  let withoutTime = 0;
  for await (const entry of archive.entries()) {
    expect(await requireEntryFormat(entry)).toBe('ecs');
    for await (const batch of reader.firstPass(entry)) {
      for (const record of batch) {
        const t = ecsRecordTime(record);
        if (t === null) withoutTime++;
        else if (newest === null || t > newest) newest = t;
      }
    }
  }
  const shift = newest === null ? 0 : NOW + 2 * HOUR - newest;
  const lines: string[] = [];
  for await (const entry of archive.entries()) {
    for await (const batch of reader.secondPass(entry))
      for (const record of batch) lines.push(shiftEcsRecord(record, shift));
  }
  return { files: archive.files, shiftDays: shift / 86_400_000, withoutTime, lines };
}

const a = '{"@timestamp":"2024-05-01T10:00:00.000Z","message":"a"}\n{"@timestamp":"no time","message":"b"}\n';
const b =
  '[{"@timestamp":"2024-05-01T14:00:00+02:00","event":{"created":"2024-05-01T12:00:01.5Z"},"message":"c"}]';
const expected = {
  files: 2,
  withoutTime: 1,
  lines: [
    '{"@timestamp":"2026-11-22T18:00:00.000Z","message":"a"}',
    '{"@timestamp":"no time","message":"b"}',
    '{"@timestamp":"2026-11-22T22:00:00+02:00","event":{"created":"2026-11-22T20:00:01.5Z"},"message":"c"}',
  ],
};

describe('ECS shipment flow', () => {
  it('rebases a zip so the newest event lands at now + 2 h, in path order, other events unchanged', async () => {
    const zip = buildZip([
      { name: 'b.json', data: b },
      { name: 'a.ndjson', data: a },
      { name: 'notes.txt', data: 'x' },
    ]);
    const shipped = await ship('zip', zip);
    expect(shipped).toMatchObject(expected);
    expect(shipped.shiftDays).toBeCloseTo((NOW + 2 * HOUR - Date.UTC(2024, 4, 1, 12)) / 86_400_000, 9);
  });

  it('does the same from a tar.gz whose entries are out of order', async () => {
    const tgz = buildTarGz([
      { name: 'b.json', data: b },
      { name: 'a.ndjson', data: a },
    ]);
    expect(await ship('tar.gz', tgz)).toMatchObject(expected);
  });

  it('fails closed on an ECS-named entry that holds something else', async () => {
    const zip = buildZip([
      { name: 'a.ndjson', data: a },
      { name: 'c.ndjson', data: '{"time":"t","msg":"no ECS fields"}\n' },
    ]);
    await expect(ship('zip', zip)).rejects.toMatchObject({
      code: 'archive_invalid',
      details: { entry: 'c.ndjson' },
    });
  });
});
