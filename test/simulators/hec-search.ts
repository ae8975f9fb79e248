/** The small SPL subset the HEC simulator runs: `search index=<name> [terms] [| delete | stats count | head N]`. */
export interface ParsedSearch {
  /** Index named by `index=`, `*` for all, or undefined for the default searched index. */
  readonly index: string | undefined;
  /** Bare words: an event matches when its raw text contains each one (case-insensitive). */
  readonly terms: readonly string[];
  /** Inline `earliest=` / `latest=` modifiers, which override the job's time range. */
  readonly earliest: string | undefined;
  readonly latest: string | undefined;
  readonly command: 'events' | 'delete' | 'stats_count';
  readonly head: number | undefined;
}

/** Parsed search, or the FATAL message splunkd would put in `messages`. */
export type SearchParse =
  | { readonly ok: true; readonly search: ParsedSearch }
  | { readonly ok: false; readonly message: string };

/** Parses a search string; anything outside the subset is refused as an unknown command. */
export function parseSearch(spl: string): SearchParse {
  const text = spl.trim();
  if (text === '') return { ok: false, message: 'Empty search.' };
  const parts = splitPipes(text).map((p) => p.trim());
  const first = parts[0] ?? '';
  if (text.startsWith('|')) {
    const name = (parts[1] ?? '').split(/\s+/)[0] ?? '';
    return { ok: false, message: `Unknown search command '${name}'.` };
  }
  const head = first.split(/\s+/)[0] ?? '';
  // The REST API does not add the implicit `search` the UI adds (protocols-hec-bulk.md §2.4).
  if (head.toLowerCase() !== 'search')
    return { ok: false, message: `Unknown search command '${commandName(head)}'.` };
  let index: string | undefined;
  let earliest: string | undefined;
  let latest: string | undefined;
  const terms: string[] = [];
  for (const token of tokenize(first.slice(head.length))) {
    const kv = /^(index|earliest|latest)=(.*)$/i.exec(token);
    if (!kv) {
      if (token !== '*') terms.push(unquote(token));
      continue;
    }
    const key = kv[1]!.toLowerCase();
    const value = unquote(kv[2]!);
    if (key === 'index') index = value;
    else if (key === 'earliest') earliest = value;
    else latest = value;
  }
  let command: ParsedSearch['command'] = 'events';
  let headCount: number | undefined;
  for (const part of parts.slice(1)) {
    const words = part.split(/\s+/);
    const name = (words[0] ?? '').toLowerCase();
    if (name === 'delete' && words.length === 1) command = 'delete';
    else if (name === 'stats' && words.slice(1).join(' ').toLowerCase() === 'count') command = 'stats_count';
    else if (name === 'head' && words.length <= 2) headCount = words[1] ? Number(words[1]) : 10;
    else return { ok: false, message: `Unknown search command '${words[0] ?? ''}'.` };
  }
  return { ok: true, search: { index, terms, earliest, latest, command, head: headCount } };
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * A Splunk time modifier to epoch seconds: epoch numbers, `now`, ISO-8601, and relative forms like
 * `-24h`, `-7d@d`, `+1mon`, `@w`. Snapping uses UTC. Returns null for forms not supported here
 * (real-time `rt…` among them).
 */
export function parseTimeModifier(modifier: string, nowSeconds: number): number | null {
  const m = modifier.trim();
  if (m === '' || m.toLowerCase() === 'now') return nowSeconds;
  if (/^-?\d+(\.\d+)?$/.test(m)) return Number(m);
  if (/^\d{4}-\d{2}-\d{2}T/.test(m)) {
    const ms = Date.parse(m);
    return Number.isNaN(ms) ? null : ms / 1000;
  }
  const rel = /^(?:([+-])(\d*)([a-z]+))?(?:@([a-z]+))?$/i.exec(m);
  if (!rel || (!rel[1] && !rel[4])) return null;
  let t = nowSeconds;
  if (rel[1]) {
    const unit = normalizeUnit(rel[3]!);
    if (!unit) return null;
    const amount = (rel[2] === '' ? 1 : Number(rel[2])) * (rel[1] === '-' ? -1 : 1);
    t = shift(t, amount, unit);
  }
  if (rel[4]) {
    const unit = normalizeUnit(rel[4]);
    if (!unit) return null;
    t = snap(t, unit);
  }
  return t;
}

type Unit = 's' | 'm' | 'h' | 'd' | 'w' | 'mon' | 'y';

function normalizeUnit(unit: string): Unit | undefined {
  const u = unit.toLowerCase();
  if (['s', 'sec', 'secs', 'second', 'seconds'].includes(u)) return 's';
  if (['m', 'min', 'mins', 'minute', 'minutes'].includes(u)) return 'm';
  if (['h', 'hr', 'hrs', 'hour', 'hours'].includes(u)) return 'h';
  if (['d', 'day', 'days'].includes(u)) return 'd';
  if (['w', 'week', 'weeks'].includes(u)) return 'w';
  if (['mon', 'month', 'months'].includes(u)) return 'mon';
  if (['y', 'yr', 'yrs', 'year', 'years'].includes(u)) return 'y';
  return undefined;
}

function shift(t: number, amount: number, unit: Unit): number {
  if (unit === 'mon' || unit === 'y') {
    const d = new Date(t * 1000);
    d.setUTCMonth(d.getUTCMonth() + amount * (unit === 'y' ? 12 : 1));
    return d.getTime() / 1000 + (t % 1);
  }
  return t + amount * UNIT_SECONDS[unit]!;
}

function snap(t: number, unit: Unit): number {
  const d = new Date(Math.floor(t) * 1000);
  if (unit === 's') return Math.floor(t);
  if (unit === 'm') d.setUTCSeconds(0, 0);
  else if (unit === 'h') d.setUTCMinutes(0, 0, 0);
  else {
    d.setUTCHours(0, 0, 0, 0);
    if (unit === 'w') d.setUTCDate(d.getUTCDate() - d.getUTCDay());
    else if (unit === 'mon') d.setUTCDate(1);
    else if (unit === 'y') d.setUTCMonth(0, 1);
  }
  return d.getTime() / 1000;
}

function splitPipes(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    if (c === '|' && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function tokenize(text: string): string[] {
  return text.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
}

function unquote(s: string): string {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s;
}

function commandName(word: string): string {
  // splunkd names the command up to the first `=` ("index=main" → 'index').
  return word.split('=')[0] ?? word;
}
