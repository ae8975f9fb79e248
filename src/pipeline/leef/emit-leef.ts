import type { LeefEvent, ParsedLeef } from './parse-leef.ts';

/**
 * Writes a LEEF event. A ParsedLeef comes out byte for byte as it was read (prefix, field 6 as
 * written, lead, trail, line terminator). For a new event (no ParsedLeef extras), LEEF 2.0 gets
 * field 6 written as the literal delimiter when printable, else as `xHH` (protocols §1.1).
 * Values are written as given: run new values through sanitizeLeefValue first.
 */
export function emitLeef(event: LeefEvent & Partial<ParsedLeef>): string {
  const delimiter = event.delimiter;
  let out = `${event.prefix ?? ''}LEEF:${event.version}|${event.vendor}|${event.product}|${event.productVersion}|${event.eventId}|`;
  const field =
    event.delimiterField !== undefined
      ? event.delimiterField
      : defaultDelimiterField(event.version, delimiter);
  if (field !== null) out += `${field}|`;
  out += event.lead ?? '';
  const attrs = event.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const pair = attrs[i] as [string, string];
    out += i === 0 ? `${pair[0]}=${pair[1]}` : `${delimiter}${pair[0]}=${pair[1]}`;
  }
  return out + (event.trail ?? '') + (event.eol ?? '');
}

/** Field 6 for a new LEEF 2.0 event, null for 1.0 (which has none). */
function defaultDelimiterField(version: string, delimiter: string): string | null {
  if (!version.startsWith('2')) return null;
  const c = delimiter.charCodeAt(0);
  if (delimiter.length === 1 && c > 32 && c < 127 && c !== 124) return delimiter;
  return `x${(Number.isNaN(c) ? 9 : c).toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * `value` made safe as an attribute value: the delimiter, CR and LF each become a space (an
 * underscore when the delimiter is itself a space). `=` stays: parsers split on the first one.
 */
export function sanitizeLeefValue(value: string, delimiter: string): string {
  const s = typeof value === 'string' ? value : String(value);
  const hasDelimiter = delimiter.length > 0 && s.includes(delimiter);
  if (!hasDelimiter && !s.includes('\r') && !s.includes('\n')) return s;
  const filler = delimiter === ' ' ? '_' : ' ';
  let out = s.replace(/\r\n|[\r\n]/g, filler);
  if (hasDelimiter) out = out.replaceAll(delimiter, filler);
  return out;
}

/** `value` made safe as a LEEF header field: `|`, CR and LF become spaces (protocols §1.2). */
export function sanitizeLeefHeaderField(value: string): string {
  return /[|\r\n]/.test(value) ? value.replace(/[|\r\n]/g, ' ') : value;
}
