import type { NoiseDispatcher } from '../../src/noise/dispatch-types.ts';

/**
 * A `noiseDispatcher` context override whose behaviour a test can change between cases: it
 * dispatches through the dispatcher given to use(), or the real one after reset().
 */
export class SwitchableDispatcher {
  #real: NoiseDispatcher | undefined;
  #current: NoiseDispatcher | undefined;

  /** Pass as `overrides.noiseDispatcher`. */
  readonly override = (real: NoiseDispatcher): NoiseDispatcher => {
    this.#real = real;
    return (request, signal) => (this.#current ?? real)(request, signal);
  };

  /** The context's real dispatcher (shipping through the SIEM kinds). */
  get real(): NoiseDispatcher {
    if (!this.#real) throw new Error('the context has not been created with this override');
    return this.#real;
  }

  /** Dispatches through `dispatcher` from now on. */
  use(dispatcher: NoiseDispatcher): void {
    this.#current = dispatcher;
  }

  /** Dispatches through the real dispatcher again. */
  reset(): void {
    this.#current = undefined;
  }
}
