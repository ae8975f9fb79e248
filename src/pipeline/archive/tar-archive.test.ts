import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildTar, buildTarGz, type TarEntrySpec } from '../../../test/fixtures/archives/tar-builder.ts';
import type { ArchiveLimits } from './archive-limits.ts';
import { selectForFormat } from './entry-path.ts';
import { type OpenedArchive, openArchive } from './open-archive.ts';

function openTgz(data: Buffer, limits?: Partial<ArchiveLimits>) {
  return openArchive(data, { kind: 'tar.gz', select: selectForFormat('any'), ...(limits ? { limits } : {}) });
}

async function readAll(archive: OpenedArchive): Promise<Array<[string, string[]]>> {
  const out: Array<[string, string[]]> = [];
  for await (const entry of archive.entries()) {
    const lines: string[] = [];
    for await (const line of entry.lines()) lines.push(line);
    out.push([entry.path, lines]);
  }
  return out;
}

async function failure(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

const shuffled: TarEntrySpec[] = [
  { name: './', type: '5' },
  { name: './logs/', type: '5' },
  { name: './logs/d.log', data: 'd1\nd2\n' },
  { name: './logs/b.ndjson', data: '{"b":1}\n' },
  { name: './.hidden.log', data: 'h' },
  { name: './logs/a.txt', data: 'a1\r\na2' },
  { name: './logs/c.log', data: `${'c'.repeat(3000)}\n` },
  { name: './notes.md', data: 'n' },
];

describe('tar.gz archives', () => {
  it('yields selected entries in path order whatever their order in the stream', async () => {
    const archive = await openTgz(buildTarGz(shuffled));
    expect(archive.paths).toEqual(['logs/a.txt', 'logs/b.ndjson', 'logs/c.log', 'logs/d.log']);
    expect(archive.skipped).toEqual([
      { path: '', reason: 'folder' },
      { path: 'logs', reason: 'folder' },
      { path: '.hidden.log', reason: 'dot-file' },
      { path: 'notes.md', reason: 'not selected' },
    ]);
    expect(await readAll(archive)).toEqual([
      ['logs/a.txt', ['a1', 'a2']],
      ['logs/b.ndjson', ['{"b":1}']],
      ['logs/c.log', ['c'.repeat(3000)]],
      ['logs/d.log', ['d1', 'd2']],
    ]);
  });

  it('keeps path order with no reorder memory at all, by reading the stream again', async () => {
    const specs = Array.from({ length: 6 }, (_, i) => ({ name: `f${5 - i}.log`, data: `line ${5 - i}\n` }));
    const archive = await openTgz(buildTarGz(specs), { maxReorderBytes: 0 });
    expect(await readAll(archive)).toEqual(
      Array.from({ length: 6 }, (_, i) => [`f${i}.log`, [`line ${i}`]] as [string, string[]]),
    );
  });

  it('skips the rest of an entry the reader left unread', async () => {
    const archive = await openTgz(buildTarGz(shuffled));
    const firstLines: string[] = [];
    for await (const entry of archive.entries()) {
      for await (const line of entry.lines()) {
        firstLines.push(line);
        break;
      }
    }
    expect(firstLines).toEqual(['a1', '{"b":1}', 'c'.repeat(3000), 'd1']);
  });

  it('lets format detection look at the head of a stream-once entry', async () => {
    const archive = await openTgz(buildTarGz([{ name: 'a.log', data: 'LEEF:2.0|x\nsecond\n' }]));
    for await (const entry of archive.entries()) {
      expect(
        Buffer.from(await entry.head(4))
          .toString()
          .startsWith('LEEF'),
      ).toBe(true);
      const lines: string[] = [];
      for await (const l of entry.lines()) lines.push(l);
      expect(lines).toEqual(['LEEF:2.0|x', 'second']);
    }
  });

  it.each([
    [{ name: 'link.log', type: '2', linkName: '/etc/passwd' }, 'is a link'],
    [{ name: 'hard.log', type: '1', linkName: 'other.log' }, 'is a link'],
    [{ name: 'dev.log', type: '3' }, 'special file'],
    [{ name: 'fifo', type: '6' }, 'special file'],
    [{ name: '../up.log', data: 'x' }, 'points outside the archive'],
    [{ name: '/etc/cron.d/x.log', data: 'x' }, 'absolute path'],
    [{ name: 'a\\b.log', data: 'x' }, 'backslash'],
    [{ name: 'sparse.log', type: 'S', data: 'x' }, 'unsupported tar entry type'],
  ] as Array<[TarEntrySpec, string]>)('refuses %j as archive_invalid', async (spec, why) => {
    const err = await failure(() => openTgz(buildTarGz([{ name: 'ok.log', data: 'fine\n' }, spec])));
    expect(err.code).toBe('archive_invalid');
    expect(err.message).toContain(why);
  });

  it('refuses names that differ only in case', async () => {
    const err = await failure(() =>
      openTgz(
        buildTarGz([
          { name: 'A.log', data: '1' },
          { name: 'a.log', data: '2' },
        ]),
      ),
    );
    expect(err.message).toContain('duplicates entry "A.log"');
  });

  it('refuses data that is not gzip, corrupt gzip and a truncated tar', async () => {
    expect((await failure(() => openTgz(buildTar([{ name: 'a.log', data: 'x' }])))).message).toContain(
      'not gzip-compressed',
    );
    const gz = buildTarGz([{ name: 'a.log', data: 'hello\n'.repeat(1000) }]);
    const corrupt = Buffer.from(gz);
    for (let i = 12; i < 40; i++) corrupt[i] = (corrupt[i] ?? 0) ^ 0xa5;
    expect((await failure(() => openTgz(corrupt))).code).toBe('archive_invalid');
    expect((await failure(() => openTgz(gz.subarray(0, gz.length - 10)))).code).toBe('archive_invalid');
    const tar = buildTar([{ name: 'a.log', data: 'hello\n'.repeat(1000) }]);
    const truncated = gzipSync(tar.subarray(0, 2048));
    expect((await failure(() => openTgz(truncated))).code).toBe('archive_invalid');
    expect((await failure(() => openTgz(gzipSync(Buffer.from('just text, not a tar\n'))))).code).toBe(
      'archive_invalid',
    );
  });

  it('refuses a gzip bomb by the ratio of the whole stream', async () => {
    const gz = buildTarGz([{ name: 'zeros.log', data: Buffer.alloc(2 * 1024 * 1024) }]);
    const err = await failure(() => openTgz(gz, { maxRatio: 100 }));
    expect(err).toMatchObject({ code: 'payload_too_large' });
    expect(err.message).toContain('100:1 compression ratio');
  });

  it('refuses a stream inflating beyond the total cap, even through skipped entries', async () => {
    const big = Buffer.from('x\n'.repeat(300_000));
    const gz = buildTarGz([
      { name: 'skipped.bin', data: big },
      { name: 'a.log', data: 'a\n' },
    ]);
    expect((await failure(() => openTgz(gz, { maxTotalBytes: 500_000 }))).code).toBe('payload_too_large');
  });

  it('refuses more entries than the cap and entries over the per-entry cap', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ name: `e${i}.log`, data: 'x' }));
    expect((await failure(() => openTgz(buildTarGz(many), { maxEntries: 10 }))).code).toBe(
      'payload_too_large',
    );
    const one = buildTarGz([{ name: 'a.log', data: 'y'.repeat(5000) }]);
    expect(await failure(() => openTgz(one, { maxEntryBytes: 4096 }))).toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('refuses an empty tar with no_events', async () => {
    expect(await failure(() => openTgz(buildTarGz([])))).toMatchObject({
      code: 'no_events',
      message: 'the archive is empty',
    });
  });

  it('refuses an archive with only folders and dot-files with no_events', async () => {
    const err = await failure(() =>
      openTgz(
        buildTarGz([
          { name: 'd/', type: '5' },
          { name: '.x.log', data: '1' },
        ]),
      ),
    );
    expect(err.code).toBe('no_events');
  });
});

describe('plain text uploads', () => {
  it('are one entry named after the upload, whatever its extension', async () => {
    const archive = await openArchive(Buffer.from('l1\nl2'), {
      kind: 'text',
      name: 'C:\\Users\\me\\events.dat',
      select: selectForFormat('leef'),
    });
    expect(archive.paths).toEqual(['events.dat']);
    expect(await readAll(archive)).toEqual([['events.dat', ['l1', 'l2']]]);
  });

  it('refuse an empty upload with no_events and an oversized one with payload_too_large', async () => {
    const select = selectForFormat('leef');
    expect((await failure(() => openArchive(Buffer.alloc(0), { kind: 'text', select }))).code).toBe(
      'no_events',
    );
    const big = Buffer.alloc(100, 0x61);
    expect(
      (await failure(() => openArchive(big, { kind: 'text', select, limits: { maxEntryBytes: 50 } }))).code,
    ).toBe('payload_too_large');
  });
});
