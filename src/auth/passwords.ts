import { hash, verify } from '@node-rs/argon2';

/** argon2id parameters: OWASP's minimum (m = 19 MiB, t = 2, p = 1). */
// algorithm 2 is Argon2id (the package's const enum cannot be imported under verbatimModuleSyntax).
const PARAMS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const CURRENT_PREFIX = `$argon2id$v=19$m=${PARAMS.memoryCost},t=${PARAMS.timeCost},p=${PARAMS.parallelism}$`;

export const PASSWORD_MIN_LENGTH = 8;
/** Bounds hashing work per request; far above what people type (no truncation below it). */
export const PASSWORD_MAX_LENGTH = 1024;

/** Hashes a password into a PHC string. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

/** Checks a password against a stored hash; false for a malformed hash rather than throwing. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** True when a stored hash uses older parameters and should be replaced at the next sign-in. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith(CURRENT_PREFIX);
}

/** A valid hash of a random password, verified against when the account does not exist (equal timing). */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(`dummy-${Math.random()}`);
  return dummyHash;
}

/** Returns why a new password is unacceptable, or undefined when it is fine. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (COMMON.has(password.toLowerCase())) return 'is too common';
  return undefined;
}

// A short list of the most common passwords; a full breach corpus is out of scope for a lab console.
const COMMON = new Set([
  'password',
  'password1',
  'password123',
  '12345678',
  '123456789',
  '1234567890',
  'qwertyui',
  'qwerty123',
  'iloveyou',
  'admin123',
  'administrator',
  'welcome1',
  'changeme',
  'letmein1',
  'socdrill',
  'abc12345',
  '11111111',
  '00000000',
  'passw0rd',
  'p@ssw0rd',
]);
