import type { ConsoleSetup } from '../../log-source-admin.ts';

/** What the setup resolved, with the protocol's parameter ids. */
export interface ResolvedSetup extends ConsoleSetup {
  readonly identifierParam: number;
  readonly encodingParam: number | null;
}

/** How long resolved ids are trusted before they are looked up again. */
export const SETUP_TTL_MS = 10 * 60_000;

/**
 * Collector, log source type and protocol ids resolved per destination revision (decisions.md §7:
 * by name, cached per destination). One per kind instance (per service context), never a module
 * variable; a refusal naming a stale id, or a destination check, forgets the entry.
 */
export class SiemQSetupCache {
  readonly #entries = new Map<string, { at: number; setup: ResolvedSetup }>();
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(now: () => number, ttlMs = SETUP_TTL_MS) {
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  get(key: string): ResolvedSetup | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() - entry.at > this.#ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.setup;
  }

  set(key: string, setup: ResolvedSetup): void {
    // Bounded: destinations are few; an edited one leaves its old revision behind.
    if (this.#entries.size > 200) this.#entries.clear();
    this.#entries.set(key, { at: this.#now(), setup });
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }
}
