import { describe, expect, it } from 'vitest';
import { safeNext } from './SignInPage.tsx';

describe('safeNext', () => {
  it('keeps paths of this console and refuses anything that could leave it', () => {
    expect(safeNext('/noise/jobs?x=1#runs')).toBe('/noise/jobs?x=1#runs');
    for (const next of [
      null,
      '',
      'https://evil.example/',
      '//evil.example/',
      '/\\evil.example',
      '/\t/evil.example',
      '/sign-in?next=/',
    ]) {
      expect(safeNext(next), String(next)).toBe('/');
    }
  });
});
