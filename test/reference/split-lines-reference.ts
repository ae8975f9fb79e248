// The plain line splitting both splitters (src/pipeline/archive/split-lines.ts and byte-lines.ts)
// did before runs of blank lines were skipped at once (blank-line-runs.ts): every line cut at its
// LF and judged on its own, over the whole entry at once. Kept as the reference they are held to by
// property tests.

/** A kept line with its 1-based number, or the error the splitters give for an over-long line. */
export type ReferenceSplit =
  | { readonly ok: ReadonlyArray<readonly [number, string]> }
  | { readonly error: { readonly line: number; readonly limit: number } };

/**
 * The non-blank lines of `data` with their line numbers: cut at LF, one CR before it dropped, a
 * byte order mark dropped from line 1, blank lines skipped (still counted); a line
 * longer than `maxLineBytes` (its CR counted, as the splitters count it) is the error instead.
 */
export function referenceSplit(data: Buffer, maxLineBytes: number): ReferenceSplit {
  const out: Array<readonly [number, string]> = [];
  let start = 0;
  let number = 0;
  while (start < data.length) {
    let nl = data.indexOf(0x0a, start);
    if (nl < 0) nl = data.length;
    number++;
    if (nl - start > maxLineBytes) return { error: { line: number, limit: maxLineBytes } };
    let s = start;
    let e = nl;
    start = nl + 1;
    if (e > s && data[e - 1] === 0x0d) e--;
    if (number === 1 && e - s >= 3 && data[s] === 0xef && data[s + 1] === 0xbb && data[s + 2] === 0xbf)
      s += 3;
    if (e === s) continue;
    const line = data.toString('utf8', s, e);
    // Blank: starts and ends with a character up to U+0020 and trims to nothing.
    if (line.charCodeAt(0) <= 32 && line.charCodeAt(line.length - 1) <= 32 && line.trim() === '') continue;
    out.push([number, line]);
  }
  return { ok: out };
}
