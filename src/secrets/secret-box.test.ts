import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSecretBox, keyId } from './secret-box.ts';

describe(createSecretBox.name, () => {
  const key = randomBytes(32);

  it('round-trips any text and never reuses a nonce', () => {
    const box = createSecretBox(key);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const a = box.seal(text, 'ctx');
        const b = box.seal(text, 'ctx');
        expect(a).not.toBe(b);
        expect(box.open(a, 'ctx')).toBe(text);
      }),
    );
  });

  it('names the key in the envelope and keeps no plaintext', () => {
    const box = createSecretBox(key);
    const env = box.seal('hunter2-secret', 'ctx');
    expect(env.split(':')[1]).toBe(keyId(key));
    expect(env).not.toContain('hunter2');
  });

  it('refuses a ciphertext moved to another record (context is authenticated)', () => {
    const box = createSecretBox(key);
    expect(() => box.open(box.seal('x', 'destination:a'), 'destination:b')).toThrow(/integrity/);
  });

  it('refuses tampering in any part of the envelope', () => {
    const box = createSecretBox(key);
    const env = box.seal('secret value', 'ctx');
    for (const part of [2, 3, 4]) {
      const parts = env.split(':');
      const buf = Buffer.from(parts[part] ?? '', 'base64');
      buf[0] = (buf[0] ?? 0) ^ 0x80;
      parts[part] = buf.toString('base64');
      expect(() => box.open(parts.join(':'), 'ctx')).toThrow(/integrity/);
    }
  });

  it('opens envelopes of a previous key during rotation and marks them stale', () => {
    const old = randomBytes(32);
    const before = createSecretBox(old).seal('rotate me', 'ctx');
    const box = createSecretBox(key, [old]);
    expect(box.open(before, 'ctx')).toBe('rotate me');
    expect(box.isStale(before)).toBe(true);
    expect(box.isStale(box.seal('x', 'ctx'))).toBe(false);
    expect(() => createSecretBox(key).open(before, 'ctx')).toThrow(/not configured/);
  });
});
