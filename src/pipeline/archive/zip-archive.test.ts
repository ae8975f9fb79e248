import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  buildZip,
  centralHeader,
  endOfCentralDirectory,
  localHeader,
  unixMode,
  zipMember,
} from '../../../test/fixtures/archives/zip-builder.ts';
import type { ArchiveLimits } from './archive-limits.ts';
import { selectForFormat } from './entry-path.ts';
import { type OpenedArchive, openArchive } from './open-archive.ts';

const MiB = 1024 * 1024;

function openZip(zip: Buffer, limits?: Partial<ArchiveLimits>, format: 'leef' | 'ecs' = 'leef') {
  return openArchive(zip, { kind: 'zip', select: selectForFormat(format), ...(limits ? { limits } : {}) });
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

async function failure(
  run: () => Promise<unknown>,
): Promise<{ code: string; message: string; details?: unknown }> {
  try {
    await run();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

describe('zip archives', () => {
  it('reads the selected entries in path order and notes what it skipped', async () => {
    const zip = buildZip([
      { name: 'logs/', data: '' },
      { name: 'logs/b.log', data: 'b1\nb2\n' },
      { name: 'a.txt', data: 'a1\r\na2', method: 0 },
      { name: '__MACOSX/logs/._b.log', data: 'junk' },
      { name: '.DS_Store', data: 'junk' },
      { name: 'inner.zip', data: 'PK' },
      { name: 'readme.md', data: 'hi' },
      { name: 'logs/A.log', data: 'upper\n' },
    ]);
    const archive = await openZip(zip);
    expect(archive.files).toBe(3);
    expect(archive.paths).toEqual(['a.txt', 'logs/A.log', 'logs/b.log']);
    expect(archive.skipped).toEqual([
      { path: 'logs', reason: 'folder' },
      { path: '__MACOSX/logs/._b.log', reason: '__MACOSX metadata' },
      { path: '.DS_Store', reason: 'dot-file' },
      { path: 'inner.zip', reason: 'nested archive (not expanded)' },
      { path: 'readme.md', reason: 'not selected' },
    ]);
    expect(await readAll(archive)).toEqual([
      ['a.txt', ['a1', 'a2']],
      ['logs/A.log', ['upper']],
      ['logs/b.log', ['b1', 'b2']],
    ]);
  });

  it('gives the same entries on a second pass (the rebase reads twice)', async () => {
    const archive = await openZip(buildZip([{ name: 'x.log', data: 'one\ntwo\n' }]));
    const first = await readAll(archive);
    expect(await readAll(archive)).toEqual(first);
  });

  it('keeps what head() read for the following read', async () => {
    const archive = await openZip(buildZip([{ name: 'x.log', data: `${'a'.repeat(100)}\nsecond\n` }]));
    for await (const entry of archive.entries()) {
      expect(
        Buffer.from(await entry.head(10))
          .subarray(0, 10)
          .toString(),
      ).toBe('aaaaaaaaaa');
      const lines: string[] = [];
      for await (const l of entry.lines()) lines.push(l);
      expect(lines).toEqual(['a'.repeat(100), 'second']);
    }
  });

  it('selects .ndjson and .json for ECS', async () => {
    const zip = buildZip([
      { name: 'b.json', data: '{}' },
      { name: 'a.ndjson', data: '{}' },
      { name: 'c.log', data: 'x' },
    ]);
    expect((await openZip(zip, undefined, 'ecs')).paths).toEqual(['a.ndjson', 'b.json']);
  });

  describe('refuses with payload_too_large', () => {
    it('an archive larger than the download cap', async () => {
      const zip = buildZip([{ name: 'a.log', data: 'x'.repeat(2000) }]);
      expect(await failure(() => openZip(zip, { maxBytes: 100 }))).toMatchObject({
        code: 'payload_too_large',
      });
    });

    it('a single entry inflating beyond 1000:1 before inflating it', async () => {
      const zeros = Buffer.alloc(4 * MiB);
      const zip = buildZip([{ name: 'bomb.log', data: zeros }]);
      expect(zeros.length / deflateRawSync(zeros).length).toBeGreaterThan(1000);
      const err = await failure(() => openZip(zip));
      expect(err).toMatchObject({ code: 'payload_too_large', details: { entry: 'bomb.log', limit: 1000 } });
      expect(err.message).toContain('1000:1 compression ratio');
    });

    it('entries whose declared total exceeds the configured total cap', async () => {
      const data = Buffer.from('line\n'.repeat(120_000));
      const zip = buildZip([
        { name: 'a.log', data },
        { name: 'b.log', data },
      ]);
      const err = await failure(() => openZip(zip, { maxTotalBytes: MiB }));
      expect(err).toMatchObject({ code: 'payload_too_large', details: { limit: MiB } });
    });

    it('one entry above the per-entry cap', async () => {
      const zip = buildZip([{ name: 'a.log', data: 'y'.repeat(5000) }]);
      expect(await failure(() => openZip(zip, { maxEntryBytes: 4096 }))).toMatchObject({
        code: 'payload_too_large',
        details: { entry: 'a.log' },
      });
    });

    it('more than 10,000 entries, before reading any of them', async () => {
      const specs = Array.from({ length: 10_001 }, (_, i) => ({ name: `e${i}.log`, data: 'x', method: 0 }));
      expect(await failure(() => openZip(buildZip(specs)))).toMatchObject({
        code: 'payload_too_large',
        details: { limit: 10_000 },
      });
    });
  });

  it('refuses an entry inflating beyond its declared size, yielding no more than declared', async () => {
    const data = Buffer.from('z\n'.repeat(100_000));
    const zip = buildZip([{ name: 'liar.log', data, uncompressedSize: 1000 }]);
    const archive = await openZip(zip);
    let seen = 0;
    const err = await failure(async () => {
      for await (const entry of archive.entries())
        for await (const chunk of entry.bytes()) seen += chunk.length;
    });
    expect(err).toMatchObject({ code: 'archive_invalid', details: { entry: 'liar.log' } });
    expect(err.message).toContain('inflates to more than its declared 1000 bytes');
    expect(seen).toBeLessThanOrEqual(1000);
  });

  it('refuses an entry inflating to less than declared', async () => {
    const zip = buildZip([{ name: 'short.log', data: 'abc\n', uncompressedSize: 10 }]);
    const err = await failure(async () => readAll(await openZip(zip)));
    expect(err).toMatchObject({ code: 'archive_invalid', details: { entry: 'short.log' } });
  });

  describe('refuses with archive_invalid naming the entry', () => {
    it.each([
      ['../x.log', 'points outside the archive'],
      ['/abs.log', 'absolute path'],
      ['C:\\x.log', 'backslash'],
      ['logs\\x.log', 'backslash'],
      ['a\u0000b.log', 'control character'],
      [`${'n'.repeat(300)}.log`, 'longer than 255 bytes'],
    ])('an entry named %j', async (name, why) => {
      const err = await failure(() => openZip(buildZip([{ name, data: 'x' }])));
      expect(err.code).toBe('archive_invalid');
      expect(err.message).toContain(why);
    });

    it('a symbolic link entry (Unix mode 0o120000), even one that would be skipped', async () => {
      for (const name of ['link.log', 'link']) {
        const zip = buildZip([{ name, data: '/etc/passwd', externalAttributes: unixMode(0o120777) }]);
        const err = await failure(() => openZip(zip));
        expect(err).toMatchObject({ code: 'archive_invalid', details: { entry: name } });
        expect(err.message).toContain('symbolic link');
      }
    });

    it('a device or FIFO entry', async () => {
      const zip = buildZip([{ name: 'fifo.log', data: '', externalAttributes: unixMode(0o010644) }]);
      expect((await failure(() => openZip(zip))).message).toContain('special file');
    });

    it('names that differ only in case', async () => {
      const zip = buildZip([
        { name: 'Logs/A.log', data: '1' },
        { name: 'logs/a.LOG', data: '2' },
      ]);
      const err = await failure(() => openZip(zip));
      expect(err).toMatchObject({ code: 'archive_invalid', details: { entry: 'logs/a.LOG' } });
      expect(err.message).toContain('duplicates entry "Logs/A.log"');
    });

    it('an encrypted entry', async () => {
      const zip = buildZip([{ name: 'secret.log', data: 'x', flags: 0x0801 }]);
      expect((await failure(() => openZip(zip))).message).toContain('is encrypted');
    });

    it('a selected entry with an unsupported compression method, but not a skipped one', async () => {
      const bz = { data: 'x', method: 12, payload: Buffer.from('BZh') };
      expect((await failure(() => openZip(buildZip([{ name: 'a.log', ...bz }])))).message).toContain(
        'unsupported compression method 12',
      );
      const ok = await openZip(
        buildZip([
          { name: 'pic.png', ...bz },
          { name: 'a.log', data: 'x' },
        ]),
      );
      expect(ok.paths).toEqual(['a.log']);
    });

    it('a local header whose name differs from the central directory', async () => {
      const zip = buildZip([{ name: 'a.log', localName: '../evil.log', data: 'x' }]);
      expect((await failure(() => openZip(zip))).message).toContain('local header name that differs');
    });

    it('overlapping entries (one entry quoting the next, Fifield-style)', async () => {
      const inner = zipMember({ name: 'b.log', data: 'b\n', method: 0 });
      const innerRecord = Buffer.concat([localHeader(inner), inner.payload]);
      const outer = zipMember({ name: 'a.log', data: innerRecord, method: 0 });
      const outerLocal = localHeader(outer);
      const body = Buffer.concat([outerLocal, outer.payload]);
      const cd = Buffer.concat([centralHeader(outer, 0), centralHeader(inner, outerLocal.length)]);
      const zip = Buffer.concat([body, cd, endOfCentralDirectory(2, cd.length, body.length)]);
      const err = await failure(() => openZip(zip));
      expect(err).toMatchObject({ code: 'archive_invalid', details: { entry: 'a.log' } });
      expect(err.message).toContain('overlaps entry "b.log"');
    });

    it('two central entries pointing at one local header', async () => {
      const a = zipMember({ name: 'a.log', data: 'x' });
      const b = zipMember({ name: 'b.log', data: 'x' });
      const body = Buffer.concat([localHeader(a), a.payload]);
      const cd = Buffer.concat([centralHeader(a, 0), centralHeader(b, 0)]);
      const zip = Buffer.concat([body, cd, endOfCentralDirectory(2, cd.length, body.length)]);
      const err = await failure(() => openZip(zip));
      expect(err).toMatchObject({ code: 'archive_invalid', details: { entry: 'b.log' } });
      expect(err.message).toContain('local header name that differs');
    });

    it('corrupt compressed bytes', async () => {
      const zip = buildZip([{ name: 'a.log', data: 'hello world\n'.repeat(200) }]);
      const payloadStart = 30 + 'a.log'.length;
      for (let i = payloadStart; i < payloadStart + 20; i++) zip[i] = (zip[i] ?? 0) ^ 0x5a;
      const err = await failure(async () => readAll(await openZip(zip)));
      expect(err).toMatchObject({ code: 'archive_invalid', details: { entry: 'a.log' } });
    });

    it('data that inflates but fails its CRC-32', async () => {
      const zip = buildZip([{ name: 'a.log', data: 'abc\n', crc: 1234 }]);
      expect((await failure(async () => readAll(await openZip(zip)))).message).toContain('CRC-32');
    });
  });

  it('refuses a truncated zip as archive_invalid', async () => {
    const zip = buildZip([{ name: 'a.log', data: 'abc\n'.repeat(100) }]);
    for (const cut of [10, zip.length - 30, zip.length - 5]) {
      const err = await failure(() => openZip(zip.subarray(0, cut)));
      expect(err.code).toBe('archive_invalid');
      expect(err.message).toContain('End of central directory record signature not found');
    }
  });

  it('refuses a zip missing bytes in the middle (directory offsets no longer match)', async () => {
    const zip = buildZip([
      { name: 'a.log', data: 'abc\n'.repeat(100) },
      { name: 'b.log', data: 'def\n'.repeat(100) },
    ]);
    const cut = Buffer.concat([zip.subarray(0, 20), zip.subarray(40)]);
    const err = await failure(() => openZip(cut));
    expect(err.code).toBe('archive_invalid');
  });

  it('refuses bytes that are not a zip', async () => {
    const err = await failure(() => openZip(Buffer.from('LEEF:1.0|a|b|c|d|\tsrc=1.2.3.4\n')));
    expect(err.code).toBe('archive_invalid');
    expect(err.message).toContain('not a readable zip file');
  });

  it('refuses an empty zip with no_events', async () => {
    const err = await failure(() => openZip(buildZip([])));
    expect(err).toMatchObject({ code: 'no_events', message: 'the archive is empty' });
  });

  it('refuses a zip holding only __MACOSX entries and dot-files with no_events listing them', async () => {
    const zip = buildZip([
      { name: '__MACOSX/', data: '' },
      { name: '__MACOSX/._a.log', data: 'x' },
      { name: '.hidden.log', data: 'x' },
    ]);
    const err = await failure(() => openZip(zip));
    expect(err.code).toBe('no_events');
    expect(err.message).toBe(
      'the archive has no usable entry; skipped: "__MACOSX" (folder), "__MACOSX/._a.log" (__MACOSX metadata), ".hidden.log" (dot-file)',
    );
  });
});
