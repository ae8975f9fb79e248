import { sanitizeLeefValue } from './emit-leef.ts';
import { findValue, scanLeef, valueEnd } from './leef-layout.ts';

/**
 * `line` with attribute `key` set to `value`, using the line's own delimiter: every existing
 * `key=` gets the new value (QRadar may ignore a duplicate key, so no second one is added),
 * otherwise `<delim>key=value` goes after the last attribute (before trailing delimiters and
 * the line terminator). The value is sanitized (no delimiter, CR or LF; in LEEF 1.0 no `|`
 * either, which could flip the line to the PAN-OS reading). Returns `line`
 * unchanged when it is not LEEF or `key` is unusable (empty, or holding `=`, the delimiter,
 * CR, LF or a space).
 */
export function setAttribute(line: string, key: string, value: string): string {
  const layout = scanLeef(line);
  if (layout === null || !usableKey(key, layout.delimiter)) return line;
  const { attrStart, end, delimiter } = layout;
  const dl = delimiter.length;
  let safe = sanitizeLeefValue(value, delimiter);
  // In LEEF 1.0 a `|` in a value could make the line read as PAN-OS pipe-delimited.
  if (layout.delimiterField === null && delimiter !== '|' && safe.includes('|'))
    safe = safe.replaceAll('|', ' ');
  const needle = `${key}=`;

  let vs = findValue(line, layout, needle);
  if (vs >= 0) {
    let out = '';
    let last = 0;
    while (vs >= 0) {
      const ve = valueEnd(line, vs, end, delimiter);
      out += line.slice(last, vs) + safe;
      last = ve;
      vs = ve >= end ? -1 : findValue(line, layout, needle, ve);
    }
    return out + line.slice(last);
  }

  // Trailing delimiters stay trailing; '=' anywhere in the attributes means there is a pair.
  let t = end;
  while (t - dl >= attrStart && line.startsWith(delimiter, t - dl)) t -= dl;
  const eq = line.indexOf('=', attrStart);
  const hasPair = eq >= 0 && eq < t;
  let at: number;
  let insert: string;
  if (hasPair) {
    at = t;
    insert = `${delimiter}${needle}${safe}`;
  } else {
    at = end;
    insert =
      end === attrStart || line.startsWith(delimiter, end - dl)
        ? `${needle}${safe}`
        : `${delimiter}${needle}${safe}`;
  }
  return line.slice(0, at) + insert + line.slice(at);
}

function usableKey(key: string, delimiter: string): boolean {
  if (typeof key !== 'string' || key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 61 || c === 13 || c === 10 || c === 32 || c === 9 || c === 124) return false;
  }
  return !key.includes(delimiter);
}
