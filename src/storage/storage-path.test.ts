import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { checkStoragePath, storagePathProblem } from './storage-path.ts';

describe('storagePathProblem', () => {
  it('accepts relative paths with folders, spaces, dots inside names and non-ASCII letters', () => {
    for (const ok of ['a.zip', 'noise/2026/web proxy.zip', 'x/.hidden/y.zip', 'a..b/c', 'ünïcode/日本.zip']) {
      expect(storagePathProblem(ok), ok).toBeUndefined();
    }
  });

  it.each([
    ['', 'must not be empty'],
    ['/etc/passwd', 'must be relative (no leading /)'],
    ['../x.zip', 'must not contain a .. segment'],
    ['a/../../x.zip', 'must not contain a .. segment'],
    ['a/..', 'must not contain a .. segment'],
    ['./a.zip', 'must not contain a . segment'],
    ['a//b.zip', 'must not contain empty segments (// or a trailing /)'],
    ['a/', 'must not contain empty segments (// or a trailing /)'],
    ['a\\b.zip', 'must not contain a backslash'],
    ['..\\x.zip', 'must not contain a backslash'],
    ['a\u0000.zip', 'must not contain control characters (NUL, newline, …)'],
    ['a\nb.zip', 'must not contain control characters (NUL, newline, …)'],
    ['a\u007f.zip', 'must not contain control characters (NUL, newline, …)'],
    [`${'x'.repeat(256)}.zip`, 'must not have a segment longer than 255 bytes'],
    [`${'abc/'.repeat(256)}x`, 'must be at most 1024 bytes'],
  ])('refuses %j: %s', (path, problem) => {
    expect(storagePathProblem(path)).toBe(problem);
  });

  it('counts the length limits in UTF-8 bytes, not characters', () => {
    expect(storagePathProblem('é'.repeat(127))).toBeUndefined();
    expect(storagePathProblem('é'.repeat(128))).toBe('must not have a segment longer than 255 bytes');
  });
});

describe('checkStoragePath', () => {
  it('returns a valid path unchanged', () => {
    expect(checkStoragePath('a/b.zip')).toBe('a/b.zip');
  });

  it('throws a 400 that names the path and the reason', () => {
    try {
      checkStoragePath('a/../b.zip');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      const e = err as AppError;
      expect(e.status).toBe(400);
      expect(e.message).toBe('Invalid storage path "a/../b.zip": storage_path must not contain a .. segment');
      expect(e.details).toEqual({ fields: { storage_path: 'must not contain a .. segment' } });
    }
  });
});
