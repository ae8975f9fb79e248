import { describe, expect, it } from 'vitest';
import { manualClock } from '../clock.ts';
import { LoginThrottle, type ThrottleGate, type ThrottleTicket } from './login-throttle.ts';

const LIMITS = { perAccount: 3, perAddress: 5, windowMs: 60_000 };

function ticketOf(gate: ThrottleGate): ThrottleTicket {
  if (!gate.admitted) throw new Error(`not admitted (retry after ${gate.retryAfter} s)`);
  return gate.ticket;
}

describe(LoginThrottle.name, () => {
  it('counts attempts still in flight against the limit: 1 s to wait while only they fill it, then the window', () => {
    const clock = manualClock(0);
    const throttle = new LoginThrottle(clock, LIMITS);
    const inFlight = [1, 2, 3].map((i) => ticketOf(throttle.admit('ana', `10.0.0.${i}`)));
    // Their verdicts come within a second (a class signing in at once is not locked out for 15 min).
    expect(throttle.admit('ana', '10.0.0.9')).toEqual({ admitted: false, retryAfter: 1 });
    for (const ticket of inFlight) ticket.failed();
    expect(throttle.admit('ana', '10.0.0.9')).toEqual({ admitted: false, retryAfter: 60 });
    clock.advance(20_000);
    expect(throttle.admit('ana', '10.0.0.9')).toEqual({ admitted: false, retryAfter: 40 });
    clock.advance(40_001);
    expect(throttle.admit('ana', '10.0.0.9').admitted).toBe(true);
  });

  it('counts nothing for an attempt released without a verdict', () => {
    const throttle = new LoginThrottle(manualClock(0), LIMITS);
    for (let i = 0; i < 10; i++) ticketOf(throttle.admit('ana', '10.0.0.1')).release();
    expect(throttle.admit('ana', '10.0.0.1').admitted).toBe(true);
  });

  it('settles a ticket once: a release after a failure does not undo it, a second failure adds nothing', () => {
    const throttle = new LoginThrottle(manualClock(0), LIMITS);
    for (let i = 0; i < 2; i++) {
      const ticket = ticketOf(throttle.admit('ana', '10.0.0.1'));
      ticket.failed();
      ticket.failed();
      ticket.release();
    }
    ticketOf(throttle.admit('ana', '10.0.0.1')).failed();
    expect(throttle.admit('ana', '10.0.0.1').admitted).toBe(false);
  });

  it("clears the account's failures on success but keeps the address's", () => {
    const throttle = new LoginThrottle(manualClock(0), LIMITS);
    for (const account of ['ana', 'ana', 'bob', 'bob'])
      ticketOf(throttle.admit(account, '10.0.0.1')).failed();
    ticketOf(throttle.admit('ana', '10.0.0.1')).succeeded();
    // Without the clearing, ana's second failure here would reach the limit of 3.
    for (let i = 0; i < 3; i++) ticketOf(throttle.admit('ana', '10.0.0.2')).failed();
    expect(throttle.admit('ana', '10.0.0.3').admitted).toBe(false);
    // The address kept its 4 failures: one more reaches its limit of 5.
    ticketOf(throttle.admit('carl', '10.0.0.1')).failed();
    expect(throttle.admit('dave', '10.0.0.1').admitted).toBe(false);
  });
});
