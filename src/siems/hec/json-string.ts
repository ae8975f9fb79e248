/** Longest text checked through the scan buffer; longer (rare) texts go to JSON.stringify directly. */
const MAX_SCANNED = 64 * 1024;

/**
 * The buffer needsNoEscape copies a text into to look at it four bytes at a time, grown as needed.
 * One per encoder (createHecEncoder makes one per shipment), so no buffer outlives its shipment.
 */
export class JsonScanBuffer {
  /** The text's Latin-1 image, and the same memory as little-endian words. */
  bytes = Buffer.allocUnsafeSlow(4096);
  words = new Uint32Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length >>> 2);

  /** Makes room for a text of `n` characters and the padding after it. */
  fit(n: number): void {
    if (n + 4 <= this.bytes.length) return;
    this.bytes = Buffer.allocUnsafeSlow(Math.min(2 * MAX_SCANNED, 2 * n) + 8);
    this.words = new Uint32Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length >>> 2);
  }
}

/**
 * `JSON.stringify(text)` for a string, cheaper for the usual log line, which needs no escaping:
 * the text is then put between quotes without being copied. The output is always identical to
 * JSON.stringify's: any text with a quote, a backslash, a control character or a lone surrogate
 * is handed to JSON.stringify itself. `scan`: the caller's buffer (a new one when not given).
 */
export function jsonString(text: string, scan: JsonScanBuffer = new JsonScanBuffer()): string {
  return needsNoEscape(text, scan) ? `"${text}"` : JSON.stringify(text);
}

/**
 * True when JSON.stringify would copy `text` unchanged between quotes. Surrogates are judged by
 * `isWellFormed` (constant time for one-byte strings; pairs are not escaped, lone ones are), quotes
 * and backslashes by native `indexOf`. Control characters are looked for four bytes at a time on
 * the text's Latin-1 image in `scan` (the caller's buffer; a new one when not given): each keeps
 * its value there, while a character above U+00FF is cut to its low byte and can at worst look
 * like one, sending the text to JSON.stringify for nothing.
 */
export function needsNoEscape(text: string, scan: JsonScanBuffer = new JsonScanBuffer()): boolean {
  const n = text.length;
  if (n > MAX_SCANNED || !text.isWellFormed() || text.indexOf('"') >= 0 || text.indexOf('\\') >= 0)
    return false;
  scan.fit(n);
  const bytes = scan.bytes;
  bytes.write(text, 0, 'latin1');
  // Pad the last word with spaces, which need no escape.
  bytes[n] = 0x20;
  bytes[n + 1] = 0x20;
  bytes[n + 2] = 0x20;
  const words = scan.words;
  const end = (n + 3) >>> 2;
  for (let k = 0; k < end; k++) {
    const w = words[k]!;
    // Any byte below 0x20 (exact for "any byte": a borrow only starts at such a byte).
    if ((w - 0x20202020) & ~w & 0x80808080) return false;
  }
  return true;
}
