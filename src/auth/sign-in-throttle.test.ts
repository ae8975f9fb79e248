import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers/test-app.ts';

const WINDOW_MS = 15 * 60_000;

/** Tallies answers by status code, e.g. { 401: 10, 429: 30 }. */
function tally(codes: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const c of codes) counts[c] = (counts[c] ?? 0) + 1;
  return counts;
}

describe('sign-in throttle under concurrent attempts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /** Sends all attempts at once, as an attacker keeping many requests in flight would. */
  async function concurrently(
    attempts: { email: string; password: string; ip: string }[],
  ): Promise<Record<number, number>> {
    const answers = await Promise.all(
      attempts.map((a) =>
        t.app.inject({
          method: 'POST',
          url: '/login',
          remoteAddress: a.ip,
          payload: { email: a.email, password: a.password },
        }),
      ),
    );
    return tally(answers.map((r) => r.statusCode));
  }

  it('checks at most 10 concurrent wrong passwords for one account; the rest get 429', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    // Spread over addresses so only the per-account limit applies.
    const counts = await concurrently(
      Array.from({ length: 40 }, (_, i) => ({
        email: u.email,
        password: `guess-${i}`,
        ip: `10.1.0.${i + 1}`,
      })),
    );
    expect(counts).toEqual({ 401: 10, 429: 30 });
    // The account stays blocked, exactly as after 10 sequential failures.
    const owner = await t.app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress: '10.1.1.1',
      payload: { email: u.email, password: u.password },
    });
    expect(owner.statusCode).toBe(429);
    t.clock.advance(WINDOW_MS + 1000);
  });

  it('checks at most 50 concurrent wrong sign-ins from one address; the rest get 429', async () => {
    const counts = await concurrently(
      Array.from({ length: 70 }, (_, i) => ({
        email: `spray-concurrent-${i}@example.test`,
        password: 'wrong-password',
        ip: '192.0.2.150',
      })),
    );
    expect(counts).toEqual({ 401: 50, 429: 20 });
    t.clock.advance(WINDOW_MS + 1000);
  });

  it('still clears the account after a correct password, and caps the next concurrent burst', async () => {
    const u = await createTestUser(t.ctx, ['analyst']);
    for (let i = 0; i < 9; i++) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: `10.2.0.${i + 1}`,
        payload: { email: u.email, password: 'wrong-password' },
      });
      expect(r.statusCode).toBe(401);
    }
    const ok = await t.app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress: '10.2.1.1',
      payload: { email: u.email, password: u.password },
    });
    expect(ok.statusCode).toBe(200);
    // Cleared: a full 10 more are checked (not 1), and no more than that.
    const counts = await concurrently(
      Array.from({ length: 15 }, (_, i) => ({
        email: u.email,
        password: `guess-${i}`,
        ip: `10.2.2.${i + 1}`,
      })),
    );
    expect(counts).toEqual({ 401: 10, 429: 5 });
    t.clock.advance(WINDOW_MS + 1000);
  });
});
