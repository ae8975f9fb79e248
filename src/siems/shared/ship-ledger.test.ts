import { describe, expect, it } from 'vitest';
import { MAX_ERRORS, ShipLedger } from './ship-ledger.ts';

describe('ShipLedger', () => {
  it('counts shipped, failed, retried and bytes, and lists each distinct error once', () => {
    const ledger = new ShipLedger();
    ledger.accept(10, 1_000);
    ledger.fail(2, 'bad event');
    ledger.fail(3, 'bad event');
    ledger.fail(0, 'never happened');
    ledger.retry(4);
    expect(ledger.result()).toEqual({
      shipped: 10,
      failed: 5,
      retried: 4,
      bytes: 1_000,
      errors: ['bad event'],
    });
  });

  it(`keeps at most ${MAX_ERRORS} errors, the first ones`, () => {
    const ledger = new ShipLedger();
    for (let i = 0; i < 25; i++) ledger.fail(1, `error ${i}`);
    const { errors, failed } = ledger.result();
    expect(failed).toBe(25);
    expect(errors).toEqual(Array.from({ length: MAX_ERRORS }, (_, i) => `error ${i}`));
  });

  it('remembers the first stop reason and lists it', () => {
    const ledger = new ShipLedger();
    ledger.stop('token refused');
    ledger.stop('something later');
    expect(ledger.stopReason).toBe('token refused');
    expect(ledger.result().errors).toEqual(['token refused', 'something later']);
  });

  it('reports progress with a copy of the counters and survives a callback that throws', () => {
    const seen: number[] = [];
    const ledger = new ShipLedger((c) => {
      seen.push(c.shipped);
      throw new Error('stream closed');
    });
    ledger.accept(3, 30);
    ledger.progress();
    ledger.accept(2, 20);
    ledger.progress();
    expect(seen).toEqual([3, 5]);
    expect(ledger.result().shipped).toBe(5);
  });
});
