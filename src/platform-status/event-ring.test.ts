import { describe, expect, it } from 'vitest';
import { EventRing } from './event-ring.ts';

const entry = (seq: number, at = 0) => ({ seq, at, frame: Buffer.from(`e${seq}`) });
const seqs = (entries: { seq: number }[] | null) => entries?.map((e) => e.seq) ?? null;

describe('event ring', () => {
  it('returns the events after a sequence number, oldest first', () => {
    const ring = new EventRing(10, 60_000);
    for (let s = 1; s <= 5; s += 1) ring.push(entry(s));
    expect(seqs(ring.after(2, 0))).toEqual([3, 4, 5]);
    expect(seqs(ring.after(0, 0))).toEqual([1, 2, 3, 4, 5]);
    expect(seqs(ring.after(5, 0))).toEqual([]);
  });

  it('keeps only the newest events when full and refuses a resume point it no longer covers', () => {
    const ring = new EventRing(3, 60_000);
    for (let s = 1; s <= 7; s += 1) ring.push(entry(s));
    expect(ring.size).toBe(3);
    expect(seqs(ring.after(4, 0))).toEqual([5, 6, 7]);
    expect(ring.after(3, 0)).toBeNull();
    expect(ring.after(0, 0)).toBeNull();
  });

  it('drops events older than the age limit', () => {
    const ring = new EventRing(100, 1_000);
    ring.push(entry(1, 0));
    ring.push(entry(2, 500));
    ring.push(entry(3, 900));
    expect(seqs(ring.after(1, 1_400))).toEqual([2, 3]);
    expect(ring.after(0, 1_400)).toBeNull();
    // Once everything aged out, a client that saw the last event still resumes with nothing missed.
    expect(seqs(ring.after(3, 10_000))).toEqual([]);
    expect(ring.after(2, 10_000)).toBeNull();
  });

  it('refuses sequence numbers from the future or that are not integers', () => {
    const ring = new EventRing(5, 1_000);
    ring.push(entry(1));
    expect(ring.after(2, 0)).toBeNull();
    expect(ring.after(-1, 0)).toBeNull();
    expect(ring.after(0.5, 0)).toBeNull();
  });

  it('insists on consecutive sequence numbers', () => {
    const ring = new EventRing(5, 1_000);
    ring.push(entry(1));
    expect(() => ring.push(entry(3))).toThrow(/expects seq 2/);
  });
});
