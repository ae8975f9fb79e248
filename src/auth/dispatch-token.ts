import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented Bearer token with the configured secrets in constant time. Both sides are
 * HMAC'd with a per-process key first, so lengths never leak and timingSafeEqual never throws.
 */
export function createTokenVerifier(secrets: readonly string[]): (presented: string) => boolean {
  const key = randomBytes(32);
  const mac = (v: string) => createHmac('sha256', key).update(v, 'utf8').digest();
  const expected = secrets.map(mac);
  return (presented) => {
    const got = mac(presented);
    let ok = false;
    // Check every secret (no early exit) so timing does not tell which one matched.
    for (const e of expected) ok = timingSafeEqual(e, got) || ok;
    return ok;
  };
}
