import type { ShipCounters, ShipResult } from '../siem-client.ts';
import type { Failure, SiemFailure } from '../siem-failure.ts';

/** Distinct failures (and error messages) a shipment keeps; the rest are only counted. */
export const MAX_ERRORS = 10;

/**
 * The counting discipline of one shipment: every event handed to the driver is counted exactly
 * once, as shipped (the SIEM acknowledged it) or failed (with a Failure). Also carries the "stop"
 * state: once a configuration error or an exhausted retry budget stops the shipment, everything
 * not yet acknowledged is failed with that failure instead of being sent.
 */
export class ShipLedger {
  shipped = 0;
  failed = 0;
  retried = 0;
  bytes = 0;
  readonly #errors: string[] = [];
  readonly #failures: Array<{ failure: Failure; events: number }> = [];
  readonly #onProgress: ((counters: Readonly<ShipCounters>) => void) | undefined;
  #stopped: Failure | undefined;

  constructor(onProgress?: (counters: Readonly<ShipCounters>) => void) {
    this.#onProgress = onProgress;
  }

  /** Why the shipment stopped, or undefined while it runs. */
  get stopped(): Failure | undefined {
    return this.#stopped;
  }

  /** `count` events acknowledged by the SIEM, `bytes` of payload among them. */
  accept(count: number, bytes: number): void {
    this.shipped += count;
    this.bytes += bytes;
  }

  /** `count` events that will not be delivered, for `failure`. */
  fail(count: number, failure: Failure): void {
    if (count <= 0) return;
    this.failed += count;
    this.note(failure.message);
    // Failures are told apart by reason and index; the first message of each stands for it.
    const same = this.#failures.find(
      (f) => f.failure.reason === failure.reason && f.failure.index === failure.index,
    );
    if (same) same.events += count;
    else if (this.#failures.length < MAX_ERRORS) this.#failures.push({ failure, events: count });
  }

  /** `count` events sent again after a retriable failure. */
  retry(count: number): void {
    this.retried += count;
  }

  /** Stops the shipment; the first failure wins. */
  stop(failure: Failure): void {
    this.#stopped ??= failure;
    this.note(failure.message);
  }

  /** Keeps an error message unless it is already listed or the list is full. */
  note(message: string): void {
    if (this.#errors.length < MAX_ERRORS && !this.#errors.includes(message)) this.#errors.push(message);
  }

  /** Tells the caller about progress; a failing callback must not disturb the counting. */
  progress(): void {
    if (!this.#onProgress) return;
    try {
      this.#onProgress(this.counters());
    } catch {
      // The callback is the caller's business (e.g. a closed event stream).
    }
  }

  counters(): ShipCounters {
    return { shipped: this.shipped, failed: this.failed, retried: this.retried, bytes: this.bytes };
  }

  result(): ShipResult {
    const failures: SiemFailure[] = this.#failures.map((f) => ({ ...f.failure, events: f.events }));
    return { ...this.counters(), errors: [...this.#errors], failures };
  }
}
