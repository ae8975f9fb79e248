import { describe, expect, it } from 'vitest';
import { archivePathSerializer, defaultStoragePath, encodeStoragePath, formatSize } from './archive-path.ts';

describe('archive paths', () => {
  it('encode each segment and keep the slashes', () => {
    expect(encodeStoragePath('noise/web proxy#1.zip')).toBe('noise/web%20proxy%231.zip');
    expect(archivePathSerializer('/api/noise/archives/{*}', { '*': 'a/b c.zip' })).toBe(
      '/api/noise/archives/a/b%20c.zip',
    );
  });

  it('default to the file name', () => {
    expect(defaultStoragePath('C:\\fakepath\\proxy.zip')).toBe('proxy.zip');
    expect(defaultStoragePath('dns.zip')).toBe('dns.zip');
  });

  it('show sizes for a person', () => {
    expect(formatSize(900)).toBe('900 B');
    expect(formatSize(1536)).toBe('1.5 KiB');
    expect(formatSize(200 * 1024 * 1024)).toBe('200 MiB');
  });
});
