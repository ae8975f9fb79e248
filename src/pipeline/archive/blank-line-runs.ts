/**
 * Skips runs of blank lines at memcmp speed, for the line splitters.
 *
 * Why: a line at a time costs a `Buffer#indexOf` call and the splitter's bookkeeping, about
 * 30 ns, whatever the line's length. Empty lines deflate about 1000:1, so an 18 MB zip held
 * 1,000 MiB of them, inside every limit, and its pass 1 took minutes of CPU before
 * `400 no_events` (hardening issue, item 4). Here the first BLOCK_LINES lines of a run are read
 * byte by byte (a blank line or two between events is common and must stay cheap); when the run
 * goes on, the block just read is taken as a repeating unit: the bytes that follow are compared
 * with the bytes one block earlier (`Buffer#compare`, a memcmp) in doubling, then halving steps,
 * a few dozen calls for a run of any length. Runs of LF, of CR LF, of the same blank line or of
 * any mix that repeats within a block are skipped so; other mixes go a block at a time, byte by
 * byte. 200 MiB of empty lines: 6-9 s of CPU before, 0.2-0.4 s after, most of it inflating
 * (bench/blank-lines.bench.ts; docs/performance.md). A lone blank line is left to the splitter's
 * usual path (it is cheaper there); its cost on LEEF lines was within noise.
 *
 * There is no "first byte that is not LF" search in Node, so `indexOf` cannot find where a run
 * ends; memcmp against the run itself is the nearest thing.
 */
export class BlankLineRuns {
  /** Blank lines the last skip() passed over. */
  lines = 0;

  /**
   * Where the run of blank lines that starts at `from` ends: the start of the first line that is
   * not blank, is longer than `maxLineBytes` (the caller refuses it) or has no LF in `buf` yet (it
   * may go on in the next chunk); `lines` is set to the lines skipped, 0 when the line at `from`
   * is one of those. Blank: nothing but tab, VT, FF, CR and space before the LF, the bytes up to
   * 32 that `String#trim` removes, so the splitters would have skipped each of them.
   */
  skip(buf: Buffer, from: number, maxLineBytes: number): number {
    let pos = from;
    let lines = 0;
    for (;;) {
      const block = pos;
      let n = 0;
      let at = pos;
      while (n < BLOCK_LINES) {
        const c = buf[at];
        if (c === LF) {
          if (at - pos > maxLineBytes) break;
          n++;
          pos = ++at;
        } else if (c === 0x20 || (c !== undefined && c >= 0x09 && c <= 0x0d)) {
          at++;
        } else break;
      }
      lines += n;
      if (n < BLOCK_LINES) break;
      // BLOCK_LINES blank lines in `period` bytes: as many copies of them as follow.
      const period = pos - block;
      const copies = repeats(buf, pos, period);
      pos += copies * period;
      lines += copies * BLOCK_LINES;
    }
    this.lines = lines;
    return pos;
  }
}

const LF = 0x0a;
/** Lines read byte by byte, the unit whose copies are then searched for. */
const BLOCK_LINES = 32;
/** The longest memcmp step, in copies of the block. */
const MAX_STEP_COPIES = 2048;

/**
 * How many whole copies of the `period` bytes before `pos` follow it: `buf[pos + i]` must equal
 * `buf[pos + i - period]`, compared in steps of copies that double while they match (up to
 * MAX_STEP_COPIES), then halve down to one. A matching stretch's prefixes match too, so the
 * halving steps add up the longest match bit by bit.
 */
function repeats(buf: Buffer, pos: number, period: number): number {
  const end = buf.length;
  // buf[at, at + length) against the same length one period earlier: equal means periodic there.
  const same = (at: number, copies: number) => {
    const length = copies * period;
    return at + length <= end && buf.compare(buf, at, at + length, at - period, at - period + length) === 0;
  };
  let copies = 0;
  let step = 1;
  while (same(pos + copies * period, step)) {
    copies += step;
    if (step < MAX_STEP_COPIES) step *= 2;
  }
  while (step > 1) {
    step >>= 1;
    if (same(pos + copies * period, step)) copies += step;
  }
  return copies;
}
