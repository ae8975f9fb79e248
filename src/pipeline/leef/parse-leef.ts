import { type LeefLayout, onlyDelimiters, scanLeef, valueEnd } from './leef-layout.ts';

/**
 * A LEEF event as the converters see it. Header fields are as written (a `\|` escape stays in
 * the text); `delimiter` is the attribute delimiter in effect; attributes keep their order and
 * are split on the first `=`.
 */
export interface LeefEvent {
  version: string;
  vendor: string;
  product: string;
  productVersion: string;
  eventId: string;
  delimiter: string;
  attributes: Array<[string, string]>;
}

/**
 * A parsed line: the event plus everything needed to write it back byte for byte. A chunk
 * between delimiters that holds no `=` is read as part of the value before it (a delimiter
 * inside a value); chunks without `=` before the first pair are `lead`, delimiters after the last
 * pair are `trail`.
 */
export interface ParsedLeef extends LeefEvent {
  /** Text before `LEEF:`: syslog header, octet-count prefix, TAG; '' for a bare line. */
  prefix: string;
  /** LEEF 2.0 field 6 exactly as written (`^`, `x5E`, `0x09`, ''), or null when absent. */
  delimiterField: string | null;
  /** LEEF 1.0 with `|` between attributes (PAN-OS). */
  pipeQuirk: boolean;
  lead: string;
  trail: string;
  /** The line's own CR/LF terminator, if it still had one. */
  eol: string;
}

/** Parses one line, or null when it holds no LEEF header. Never throws. */
export function parseLeef(line: string): ParsedLeef | null {
  const layout = scanLeef(line);
  return layout === null ? null : parseWithLayout(line, layout);
}

/** Parses `line` whose layout is already known. */
export function parseWithLayout(line: string, layout: LeefLayout): ParsedLeef {
  const { attrStart, end, delimiter } = layout;
  const dl = delimiter.length;
  const attributes: Array<[string, string]> = [];
  let lead = '';
  let trail = '';
  // Lead: the chunks before the one holding the first '='.
  let p = end;
  const firstEq = line.indexOf('=', attrStart);
  // A delimiter that holds '=' leaves no key=value pair to find: the whole text is kept as lead.
  if (firstEq < 0 || firstEq >= end || delimiter.includes('=')) {
    lead = line.slice(attrStart, end);
  } else {
    const d = line.lastIndexOf(delimiter, firstEq);
    p = d >= attrStart ? d + dl : attrStart;
    lead = line.slice(attrStart, p);
  }
  while (p < end) {
    const eq = line.indexOf('=', p);
    const vs = eq + 1;
    const ve = valueEnd(line, vs, end, delimiter);
    attributes.push([line.slice(p, eq), line.slice(vs, ve)]);
    if (ve >= end) break;
    if (onlyDelimiters(line, ve, end, delimiter)) {
      trail = line.slice(ve, end);
      break;
    }
    p = ve + dl;
  }
  return {
    version: line.slice(layout.start + 5, layout.versionEnd),
    vendor: line.slice(layout.versionEnd + 1, layout.vendorEnd),
    product: line.slice(layout.vendorEnd + 1, layout.productEnd),
    productVersion: line.slice(layout.productEnd + 1, layout.productVersionEnd),
    eventId: line.slice(layout.productVersionEnd + 1, layout.eventIdEnd),
    delimiter,
    attributes,
    prefix: line.slice(0, layout.start),
    delimiterField: layout.delimiterField,
    pipeQuirk: layout.pipeQuirk,
    lead,
    trail,
    eol: line.slice(end),
  };
}
