import { describe, expect, it } from 'vitest';
import { createTokenVerifier } from './dispatch-token.ts';

describe(createTokenVerifier.name, () => {
  const secret = 'dispatch-secret-0123456789abcdef';

  it('accepts the secret and refuses every other length without throwing', () => {
    const verify = createTokenVerifier([secret]);
    expect(verify(secret)).toBe(true);
    for (const wrong of [
      '',
      'd',
      secret.slice(0, -1),
      `${secret.slice(0, -1)}X`,
      `${secret}x`,
      'x'.repeat(10_240),
    ]) {
      expect(verify(wrong)).toBe(false);
    }
  });

  it('accepts the current and the previous secret during a rotation', () => {
    const verify = createTokenVerifier([secret, 'previous-secret-0123456789']);
    expect(verify(secret)).toBe(true);
    expect(verify('previous-secret-0123456789')).toBe(true);
    expect(verify('other-secret-0123456789')).toBe(false);
  });

  it('accepts nothing when no secret is configured', () => {
    expect(createTokenVerifier([])('')).toBe(false);
  });
});
