/** Token kinds of a compiled Java date pattern. */
export const K = {
  LITERAL: 0,
  YEAR: 1,
  MONTH: 2,
  DAY: 3,
  HOUR_0_23: 4,
  HOUR_1_12: 5,
  HOUR_0_11: 6,
  HOUR_1_24: 7,
  MINUTE: 8,
  SECOND: 9,
  MILLI: 10,
  AMPM: 11,
  WEEKDAY: 12,
  ZONE_GENERAL: 13,
  ZONE_RFC822: 14,
  ZONE_ISO: 15,
} as const;

/** One element of a compiled pattern: literal text or a field with its letter count. */
export interface Token {
  readonly kind: number;
  readonly count: number;
  /** Literal text (LITERAL only). */
  readonly text: string;
  /** Read as digits (months only with one or two letters). */
  readonly numeric: boolean;
  /** Read exactly `count` digits: the next token is another field (SimpleDateFormat's "abutting fields"). */
  readonly fixed: boolean;
}

const LETTER_KIND: Record<string, number> = {
  y: K.YEAR,
  M: K.MONTH,
  L: K.MONTH,
  d: K.DAY,
  H: K.HOUR_0_23,
  h: K.HOUR_1_12,
  K: K.HOUR_0_11,
  k: K.HOUR_1_24,
  m: K.MINUTE,
  s: K.SECOND,
  S: K.MILLI,
  a: K.AMPM,
  E: K.WEEKDAY,
  z: K.ZONE_GENERAL,
  Z: K.ZONE_RFC822,
  X: K.ZONE_ISO,
};

// Letters SimpleDateFormat knows but a replay must not guess at: week years (Y), day of year (D),
// week numbers (w, W, F, u) and eras (G). A pattern using them is reported, so its values stay
// untouched instead of being "fixed" (Palo Alto's `YYYY-MM-DD'T'…` sample is the classic case).
const REFUSED = 'GYDwWFu';

/** Tokens of `pattern`, or a problem saying why it cannot be used. */
export function compilePattern(pattern: string): { tokens: Token[]; problem: string | undefined } {
  const tokens: Token[] = [];
  let literal = '';
  let i = 0;
  const n = pattern.length;
  while (i < n) {
    const ch = pattern[i] as string;
    if (ch === "'") {
      if (pattern[i + 1] === "'") {
        literal += "'";
        i += 2;
        continue;
      }
      i++;
      let closed = false;
      while (i < n) {
        if (pattern[i] === "'") {
          if (pattern[i + 1] === "'") {
            literal += "'";
            i += 2;
            continue;
          }
          closed = true;
          i++;
          break;
        }
        literal += pattern[i];
        i++;
      }
      if (!closed) return { tokens: [], problem: 'unterminated quote' };
      continue;
    }
    const code = ch.charCodeAt(0);
    const isLetter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
    if (!isLetter) {
      literal += ch;
      i++;
      continue;
    }
    let count = 1;
    while (pattern[i + count] === ch) count++;
    const kind = LETTER_KIND[ch];
    if (kind === undefined) {
      const why = REFUSED.includes(ch) ? 'not supported for rebasing' : 'unknown';
      return { tokens: [], problem: `pattern letter '${ch}' is ${why}` };
    }
    if (kind === K.ZONE_ISO && count > 3)
      return { tokens: [], problem: "pattern letter 'X' repeated more than 3 times" };
    if (literal !== '') {
      tokens.push({ kind: K.LITERAL, count: 0, text: literal, numeric: false, fixed: false });
      literal = '';
    }
    const numeric = kind === K.MONTH ? count <= 2 : kind <= K.MILLI;
    tokens.push({ kind, count, text: '', numeric, fixed: false });
    i += count;
  }
  if (literal !== '') tokens.push({ kind: K.LITERAL, count: 0, text: literal, numeric: false, fixed: false });
  // Without a month and a day Java reads 1970-01-01; such a value cannot be placed in time.
  if (!tokens.some((t) => t.kind === K.MONTH) || !tokens.some((t) => t.kind === K.DAY)) {
    return { tokens: [], problem: 'pattern has no month and day' };
  }
  // A numeric field followed directly by another field takes exactly its letter count
  // ("yyyyMMddHHmmss"), as SimpleDateFormat does.
  return {
    tokens: tokens.map((t, idx) => {
      const next = tokens[idx + 1];
      return t.numeric && next !== undefined && next.kind !== K.LITERAL ? { ...t, fixed: true } : t;
    }),
    problem: undefined,
  };
}
