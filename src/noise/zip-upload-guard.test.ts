import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { createZipUploadGuard } from './zip-upload-guard.ts';

async function run(chunks: Buffer[], max: number): Promise<{ out: Buffer; error?: string }> {
  const out: Buffer[] = [];
  try {
    await pipeline(
      Readable.from(chunks),
      createZipUploadGuard(max),
      async (source: AsyncIterable<Buffer>) => {
        for await (const c of source) out.push(c);
      },
    );
    return { out: Buffer.concat(out) };
  } catch (err) {
    return { out: Buffer.concat(out), error: err instanceof AppError ? err.code : String(err) };
  }
}

describe('createZipUploadGuard', () => {
  it('passes a zip through unchanged, even when the signature arrives split over chunks', async () => {
    const chunks = [Buffer.from('P'), Buffer.from('K\x03'), Buffer.from('\x04rest of the archive')];
    const { out, error } = await run(chunks, 1000);
    expect(error).toBeUndefined();
    expect(out.equals(Buffer.concat(chunks))).toBe(true);
  });

  it('refuses a body that does not start with PK\\x03\\x04 and passes none of it on', async () => {
    expect(await run([Buffer.from('PK\x05\x06 empty zip')], 1000)).toEqual({
      out: Buffer.alloc(0),
      error: 'archive_invalid',
    });
    expect(await run([Buffer.from('\x1f\x8b gzip')], 1000)).toEqual({
      out: Buffer.alloc(0),
      error: 'archive_invalid',
    });
  });

  it('refuses an empty or three-byte body', async () => {
    expect((await run([], 1000)).error).toBe('archive_invalid');
    expect((await run([Buffer.from('PK\x03')], 1000)).error).toBe('archive_invalid');
  });

  it('accepts exactly maxBytes and refuses one byte more', async () => {
    const zip = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(96)]);
    expect((await run([zip], 100)).error).toBeUndefined();
    expect((await run([zip, Buffer.from('x')], 100)).error).toBe('payload_too_large');
  });
});
