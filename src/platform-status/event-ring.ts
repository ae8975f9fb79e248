/** One retained event: its sequence number, when it was published, and its encoded frame. */
export interface RingEntry {
  readonly seq: number;
  readonly at: number;
  readonly frame: Buffer;
}

/**
 * The last events, bounded by count and by age, so a reconnecting client can be sent exactly what
 * it missed. Sequence numbers must be pushed in increasing order without gaps.
 */
export class EventRing {
  readonly #capacity: number;
  readonly #maxAgeMs: number;
  readonly #slots: Array<RingEntry | undefined>;
  #start = 0;
  #length = 0;
  #lastSeq = 0;

  constructor(capacity: number, maxAgeMs: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('ring capacity must be >= 1');
    this.#capacity = capacity;
    this.#maxAgeMs = maxAgeMs;
    this.#slots = new Array(capacity);
  }

  /** Number of events currently retained. */
  get size(): number {
    return this.#length;
  }

  /** Sequence number of the last event pushed (0 before the first). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Retains an event, evicting the oldest when full. */
  push(entry: RingEntry): void {
    if (entry.seq !== this.#lastSeq + 1)
      throw new Error(`ring expects seq ${this.#lastSeq + 1}, got ${entry.seq}`);
    this.#lastSeq = entry.seq;
    if (this.#length === this.#capacity) {
      this.#slots[this.#start] = undefined;
      this.#start = (this.#start + 1) % this.#capacity;
      this.#length -= 1;
    }
    this.#slots[(this.#start + this.#length) % this.#capacity] = entry;
    this.#length += 1;
  }

  /**
   * The events after `seq`, oldest first, or null when some of them are no longer retained (too
   * many events since, or too old) or `seq` lies in the future. An empty array means "nothing missed".
   */
  after(seq: number, now: number): RingEntry[] | null {
    this.#evictOlderThan(now - this.#maxAgeMs);
    if (!Number.isSafeInteger(seq) || seq < 0 || seq > this.#lastSeq) return null;
    const firstRetained = this.#length === 0 ? this.#lastSeq + 1 : this.#at(0).seq;
    if (seq + 1 < firstRetained) return null;
    const out: RingEntry[] = [];
    for (let i = seq + 1 - firstRetained; i < this.#length; i += 1) out.push(this.#at(i));
    return out;
  }

  #at(i: number): RingEntry {
    return this.#slots[(this.#start + i) % this.#capacity] as RingEntry;
  }

  #evictOlderThan(cutoff: number): void {
    while (this.#length > 0 && this.#at(0).at < cutoff) {
      this.#slots[this.#start] = undefined;
      this.#start = (this.#start + 1) % this.#capacity;
      this.#length -= 1;
    }
  }
}
