import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';

/** Encrypts and decrypts small secrets with AES-256-GCM; the output names the key that made it. */
export interface SecretBox {
  /** Encrypts `plaintext`, binding it to `context` (e.g. the row id) so it cannot be moved. */
  seal(plaintext: string, context: string): string;
  /** Decrypts an envelope made by seal() with the same context; throws when tampered or keyless. */
  open(envelope: string, context: string): string;
  /** True when the envelope was made with an older key (re-seal it). */
  isStale(envelope: string): boolean;
}

const VERSION = 'v1';
/** GCM tag length in bytes; seal() always writes the full tag, so open() accepts nothing shorter. */
const TAG_LENGTH = 16;

/** Short key fingerprint stored in each envelope so rotation knows which key to use. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** Creates a SecretBox sealing with `current` and opening with it or any of `previous`. */
export function createSecretBox(current: Buffer, previous: readonly Buffer[] = []): SecretBox {
  if (current.length !== 32) throw new AppError('internal', 'SECRET_KEY must be 32 bytes');
  const keys = new Map<string, Buffer>();
  for (const k of [current, ...previous]) keys.set(keyId(k), k);
  const currentId = keyId(current);

  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, currentId, iv.toString('base64'), tag.toString('base64'), ct.toString('base64')].join(
        ':',
      );
    },
    open(envelope, context) {
      const parts = envelope.split(':');
      if (parts.length !== 5 || parts[0] !== VERSION) {
        throw new AppError('internal', 'Stored secret has an unknown format');
      }
      const [, id, ivB64, tagB64, ctB64] = parts as [string, string, string, string, string];
      const key = keys.get(id);
      if (!key) {
        throw new AppError(
          'internal',
          `Stored secret was encrypted with key ${id}, which is not configured (set SECRET_KEY or SECRET_KEY_PREVIOUS)`,
        );
      }
      try {
        const tag = Buffer.from(tagB64, 'base64');
        // Without a fixed length GCM checks only the bytes given, so a 4-byte tag could be forged.
        if (tag.length !== TAG_LENGTH) throw new Error(`auth tag is ${tag.length} bytes, not ${TAG_LENGTH}`);
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivB64, 'base64'), {
          authTagLength: TAG_LENGTH,
        });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(ctB64, 'base64')), decipher.final()]).toString(
          'utf8',
        );
      } catch (cause) {
        throw new AppError('internal', 'Stored secret failed its integrity check (tampered, or wrong key)', {
          cause,
        });
      }
    },
    isStale(envelope) {
      return envelope.split(':')[1] !== currentId;
    },
  };
}
