import { describe, expect, it } from 'vitest';
import { failure } from '../siem-failure.ts';
import { MAX_ERRORS, ShipLedger } from './ship-ledger.ts';

describe('ShipLedger', () => {
  it('counts shipped, failed, retried and bytes, and lists each distinct error and failure once', () => {
    const ledger = new ShipLedger();
    ledger.accept(10, 1_000);
    ledger.fail(2, failure('rejected', 'bad event'));
    ledger.fail(3, failure('rejected', 'bad event'));
    ledger.fail(0, failure('auth', 'never happened'));
    ledger.retry(4);
    expect(ledger.result()).toEqual({
      shipped: 10,
      failed: 5,
      retried: 4,
      bytes: 1_000,
      errors: ['bad event'],
      failures: [{ reason: 'rejected', message: 'bad event', events: 5 }],
    });
  });

  it('tells failures apart by reason and index, with the events each cost and its first message', () => {
    const ledger = new ShipLedger();
    ledger.fail(2, failure('index_refused', 'index "a" refused', 'a'));
    ledger.fail(1, failure('index_refused', 'index "b" refused', 'b'));
    ledger.fail(4, failure('index_refused', 'index "a" refused again', 'a'));
    ledger.fail(1, failure('unreachable', 'connection refused'));
    expect(ledger.result().failures).toEqual([
      { reason: 'index_refused', index: 'a', message: 'index "a" refused', events: 6 },
      { reason: 'index_refused', index: 'b', message: 'index "b" refused', events: 1 },
      { reason: 'unreachable', message: 'connection refused', events: 1 },
    ]);
  });

  it(`keeps at most ${MAX_ERRORS} errors, the first ones`, () => {
    const ledger = new ShipLedger();
    for (let i = 0; i < 25; i++) ledger.fail(1, failure('rejected', `error ${i}`));
    const { errors, failed, failures } = ledger.result();
    expect(failed).toBe(25);
    expect(errors).toEqual(Array.from({ length: MAX_ERRORS }, (_, i) => `error ${i}`));
    expect(failures).toEqual([{ reason: 'rejected', message: 'error 0', events: 25 }]);
  });

  it('remembers the first stop and lists its message', () => {
    const ledger = new ShipLedger();
    ledger.stop(failure('auth', 'token refused'));
    ledger.stop(failure('config', 'something later'));
    expect(ledger.stopped).toEqual({ reason: 'auth', message: 'token refused' });
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
