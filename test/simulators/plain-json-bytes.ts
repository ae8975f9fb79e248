let viewed: ArrayBufferLike | undefined;
let words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);

/**
 * A check that spans of one buffer, known to hold no `"` (each ends at the first quote after its
 * start), can stand inside a JSON string as they are: no backslash and no control byte (bytes of
 * UTF-8 above 0x7F are all fine). Made for a reader going forward through a body: the next
 * backslash is found by native search and remembered while the spans move forward, and control
 * bytes are looked for four at a time. The buffer must not change while the check is in use.
 */
export function quoteFreeCheck(bytes: Uint8Array): (from: number, to: number) => boolean {
  let searchedFrom = 0;
  let nextBackslash = -1;
  return (from, to) => {
    if (from < searchedFrom || nextBackslash < from) {
      const at = bytes.indexOf(0x5c, from);
      nextBackslash = at < 0 ? Number.POSITIVE_INFINITY : at;
      searchedFrom = from;
    }
    return nextBackslash >= to && noControlBytes(bytes, from, to);
  };
}

/** True when `bytes[from, to)` holds no byte below 0x20. */
function noControlBytes(bytes: Uint8Array, from: number, to: number): boolean {
  const base = bytes.byteOffset;
  let i = from;
  while (i < to && ((base + i) & 3) !== 0) {
    if (!plainByte(bytes[i]!)) return false;
    i++;
  }
  const last = (base + to) >>> 2;
  if ((base + i) >>> 2 < last) {
    if (viewed !== bytes.buffer) {
      viewed = bytes.buffer;
      words = new Uint32Array(bytes.buffer, 0, bytes.buffer.byteLength >>> 2);
    }
    for (let k = (base + i) >>> 2; k < last; k++) {
      const w = words[k]!;
      // Any byte below 0x20 (exact for "any byte": a borrow only starts at such a byte).
      if ((w - 0x20202020) & ~w & 0x80808080) return false;
    }
    i = last * 4 - base;
  }
  for (; i < to; i++) if (!plainByte(bytes[i]!)) return false;
  return true;
}

function plainByte(c: number): boolean {
  return c >= 0x20;
}
