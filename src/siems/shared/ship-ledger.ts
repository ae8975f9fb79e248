import type { ShipCounters, ShipResult } from '../siem-client.ts';

/** Distinct error messages a shipment keeps; the rest are only counted. */
export const MAX_ERRORS = 10;

/**
 * The counting discipline of one shipment: every event handed to the driver is counted exactly
 * once, as shipped (the SIEM acknowledged it) or failed (with a reason). Also carries the "stop"
 * state: once a configuration error or an exhausted retry budget stops the shipment, everything
 * not yet acknowledged is failed with that reason instead of being sent.
 */
export class ShipLedger {
  shipped = 0;
  failed = 0;
  retried = 0;
  bytes = 0;
  readonly #errors: string[] = [];
  readonly #onProgress: ((counters: Readonly<ShipCounters>) => void) | undefined;
  #stopReason: string | undefined;

  constructor(onProgress?: (counters: Readonly<ShipCounters>) => void) {
    this.#onProgress = onProgress;
  }

  /** Why the shipment stopped, or undefined while it runs. */
  get stopReason(): string | undefined {
    return this.#stopReason;
  }

  /** `count` events acknowledged by the SIEM, `bytes` of payload among them. */
  accept(count: number, bytes: number): void {
    this.shipped += count;
    this.bytes += bytes;
  }

  /** `count` events that will not be delivered, for `reason`. */
  fail(count: number, reason: string): void {
    if (count <= 0) return;
    this.failed += count;
    this.note(reason);
  }

  /** `count` events sent again after a retriable failure. */
  retry(count: number): void {
    this.retried += count;
  }

  /** Stops the shipment; the first reason wins. */
  stop(reason: string): void {
    this.#stopReason ??= reason;
    this.note(reason);
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
    return { ...this.counters(), errors: [...this.#errors] };
  }
}
