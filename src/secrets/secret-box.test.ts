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

  it('refuses an envelope whose auth tag is not the full 16 bytes', () => {
    const box = createSecretBox(key);
    const parts = box.seal('hec-secret', 'ctx').split(':');
    const tag = Buffer.from(parts[3] ?? '', 'base64');
    // A cut tag is what an attacker able to write the database would use to forge in 2^32 tries.
    for (const length of [4, 8, 12, 15]) {
      const cut = [...parts.slice(0, 3), tag.subarray(0, length).toString('base64'), parts[4]].join(':');
      expect(() => box.open(cut, 'ctx'), `${length}-byte tag`).toThrow(
        'Stored secret failed its integrity check (tampered, or wrong key)',
      );
    }
    const padded = [...parts.slice(0, 3), Buffer.concat([tag, Buffer.alloc(1)]).toString('base64'), parts[4]];
    expect(() => box.open(padded.join(':'), 'ctx')).toThrow(/integrity/);
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
