import { describe, expect, it } from 'vitest';
import { checkEntryName, selectForFormat, structuralSkipReason } from './entry-path.ts';

describe('checkEntryName', () => {
  it('normalizes ./ and repeated slashes and recognizes folders', () => {
    expect(checkEntryName('./logs//day1/a.log')).toEqual({ path: 'logs/day1/a.log', folder: false });
    expect(checkEntryName('logs/')).toEqual({ path: 'logs', folder: true });
    expect(checkEntryName('./')).toEqual({ path: '', folder: true });
  });

  it.each([
    ['../x.log', 'points outside the archive'],
    ['a/../../x.log', 'points outside the archive'],
    ['/abs.log', 'absolute path'],
    ['C:\\x.log', 'backslash'],
    ['C:x.log', 'drive letter'],
    ['a\\b.log', 'backslash'],
    ['a\u0000.log', 'control character'],
    ['a\n.log', 'control character'],
    [`${'d'.repeat(256)}/a.log`, 'longer than 255 bytes'],
    [`${'d/'.repeat(600)}a.log`, 'longer than 1024 bytes'],
    ['', 'empty name'],
  ])('refuses %j', (name, why) => {
    expect(() => checkEntryName(name)).toThrow(expect.objectContaining({ code: 'archive_invalid' }));
    expect(() => checkEntryName(name)).toThrow(why);
  });
});

describe('selectForFormat', () => {
  it('takes .log/.txt for LEEF and .ndjson/.json for ECS, case-insensitively', () => {
    const leef = selectForFormat('leef');
    const ecs = selectForFormat('ecs');
    expect(['a.log', 'b/c.TXT', 'd.ndjson', 'e.json', 'f.csv'].map(leef)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(['a.log', 'b/c.TXT', 'd.ndjson', 'e.JSON', 'f.csv'].map(ecs)).toEqual([
      false,
      false,
      true,
      true,
      false,
    ]);
    expect(['a.log', 'd.ndjson', 'f.csv'].map(selectForFormat('any'))).toEqual([true, true, false]);
  });

  it('never takes __MACOSX, dot-files or files inside dot-folders', () => {
    const leef = selectForFormat('leef');
    expect(
      ['__MACOSX/a.log', 'x/__MACOSX/a.log', '.hidden.log', 'x/.git/a.log', 'x/._a.log'].map(leef),
    ).toEqual([false, false, false, false, false]);
  });
});

describe('structuralSkipReason', () => {
  it('names why an entry is never read', () => {
    expect(structuralSkipReason({ path: 'a', folder: true })).toBe('folder');
    expect(structuralSkipReason({ path: '__MACOSX/a.log', folder: false })).toBe('__MACOSX metadata');
    expect(structuralSkipReason({ path: 'a/.b.log', folder: false })).toBe('dot-file');
    expect(structuralSkipReason({ path: 'inner.zip', folder: false })).toBe('nested archive (not expanded)');
    expect(structuralSkipReason({ path: 'logs.tar.gz', folder: false })).toBe(
      'nested archive (not expanded)',
    );
    expect(structuralSkipReason({ path: 'a.log', folder: false })).toBeUndefined();
  });
});
