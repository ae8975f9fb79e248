import { domainToASCII } from 'node:url';
import { answerRegexProblem, compileAnswerRegex } from './answer-regex.ts';

// How an analyst's submitted answer is compared with an artifact's accepted values. Pure: callers
// load artifacts and record outcomes. Every mode trims the submission first, because analysts paste
// from consoles and tickets with stray spaces and line breaks around the value; an answer that is
// empty after trimming never matches anything, so a blank submission cannot score through `.*`.

/** What an artifact is; picks the canonical form used by the `normalized` match mode. */
export type ArtifactKind = 'ip' | 'domain' | 'url' | 'hash' | 'user' | 'host' | 'process' | 'text';

/** Every artifact kind, in a stable order (schemas, forms, tests). */
export const ARTIFACT_KINDS: readonly ArtifactKind[] = [
  'ip',
  'domain',
  'url',
  'hash',
  'user',
  'host',
  'process',
  'text',
];

/** How a submission is compared with an artifact's values. */
export type AnswerMatch = 'exact' | 'case_insensitive' | 'normalized' | 'regex';

/** Every match mode, in a stable order (schemas, forms, tests). */
export const ANSWER_MATCHES: readonly AnswerMatch[] = ['exact', 'case_insensitive', 'normalized', 'regex'];

/** Something an analyst must find in an exercise; `values` are the accepted answers (patterns in `regex`). */
export interface Artifact {
  id: string;
  name: string;
  kind: ArtifactKind;
  values: string[];
  match: AnswerMatch;
  points: number;
}

/** Most accepted values one artifact may list. */
export const MAX_ARTIFACT_VALUES = 100;
/** Longest accepted value, in characters (code points). */
export const MAX_ARTIFACT_VALUE_LENGTH = 1024;
/** Most points one artifact may be worth. */
export const MAX_ARTIFACT_POINTS = 100_000;

/**
 * The canonical form `normalized` matching compares: trimmed, case-folded, then canonicalised by
 * kind; a value a kind cannot parse stays as its trimmed, case-folded text. Idempotent.
 */
export function normalizeAnswer(kind: ArtifactKind, value: string): string {
  // NFC once more at the end: removing separators can bring a base letter next to a combining mark
  // (`f :\u0307` → `f\u0307`), which would compose on a second pass.
  return canonicalByKind(kind, caseFold(value.trim())).normalize('NFC');
}

function canonicalByKind(kind: ArtifactKind, folded: string): string {
  switch (kind) {
    case 'ip':
      return canonicalIp(folded);
    case 'domain':
    case 'host':
      return canonicalDomain(folded);
    case 'url':
      return canonicalUrl(folded);
    case 'hash':
      // Separators only: an algorithm prefix (`sha256:`, `md5=`) is kept, so `sha256:ab…` becomes
      // `sha256ab…` and does not equal the bare digest; authors list both forms when both count.
      return folded.replace(/[\s:]+/g, '');
    case 'user':
      // `DOMAIN\user` and `user@domain` stay as written: which forms count is the author's call (list
      // each one that does), since logs disagree on which one names the account.
      return folded;
    case 'process':
      // Windows and POSIX separators name the same path in EDR and Sysmon exports; the whole path
      // is compared, not the basename, so `c:\temp\svchost.exe` is not `c:\windows\svchost.exe`.
      return folded.replaceAll('\\', '/');
    case 'text':
      return folded.replace(/\s+/g, ' ');
  }
}

/** Whether `submitted` is one of `artifact`'s accepted answers under the artifact's match mode. */
export function artifactMatches(artifact: Artifact, submitted: string): boolean {
  return matchesIn(newScope(submitted), artifact);
}

/**
 * Compiled answer patterns a caller keeps across findMatchingArtifact calls, keyed by
 * `${artifact.id}\u0000${pattern}`; a refused pattern is kept as a test that accepts nothing.
 */
export type CompiledAnswerCache = Map<string, (value: string) => boolean>;

/**
 * The artifact `submitted` answers: only `artifactId` when given (undefined if it does not match or
 * does not exist), else the first match in the given order. With `cache`, compiled patterns are
 * looked up and kept there, so a caller can compile each pattern once across calls; the key holds
 * the pattern, so an edited pattern compiles afresh, and the caller decides when entries go.
 */
export function findMatchingArtifact(
  artifacts: readonly Artifact[],
  submitted: string,
  artifactId?: string,
  cache?: CompiledAnswerCache,
): Artifact | undefined {
  // Without a cache, one scope per call: patterns compile at most once and only when reached, and
  // nothing outlives the call, so an edited exercise never meets a stale compiled pattern.
  const scope = newScope(submitted, cache);
  if (artifactId !== undefined) {
    const artifact = artifacts.find((candidate) => candidate.id === artifactId);
    return artifact !== undefined && matchesIn(scope, artifact) ? artifact : undefined;
  }
  return artifacts.find((artifact) => matchesIn(scope, artifact));
}

/** Authoring mistakes in `artifact`, one sentence each naming the artifact; empty when it can be saved. */
export function artifactProblems(artifact: Artifact): string[] {
  const label = `Artifact "${artifact.name}"`;
  const problems: string[] = [];
  if (artifact.values.length === 0) problems.push(`${label} needs at least one accepted answer.`);
  if (artifact.values.length > MAX_ARTIFACT_VALUES) {
    problems.push(
      `${label} has ${artifact.values.length} accepted answers; at most ${MAX_ARTIFACT_VALUES} are allowed.`,
    );
  }
  artifact.values.forEach((value, index) => {
    const which = `${label}, answer ${index + 1}`;
    const length = [...value].length;
    if (value.trim() === '') {
      // Blank values could only equal a blank submission, which never matches.
      problems.push(`${which} is empty.`);
    } else if (length > MAX_ARTIFACT_VALUE_LENGTH) {
      problems.push(`${which} has ${length} characters; at most ${MAX_ARTIFACT_VALUE_LENGTH} are allowed.`);
    } else if (artifact.match === 'regex') {
      const problem = answerRegexProblem(value);
      if (problem !== null) problems.push(`${which}: ${problem}`);
    }
  });
  if (!Number.isInteger(artifact.points) || artifact.points < 0 || artifact.points > MAX_ARTIFACT_POINTS) {
    problems.push(`${label} must be worth a whole number of points from 0 to ${MAX_ARTIFACT_POINTS}.`);
  }
  return problems;
}

/** What one submission needs across artifacts, computed at most once per findMatchingArtifact call. */
interface MatchScope {
  trimmed: string;
  folded: string | undefined;
  normalized: Map<ArtifactKind, string>;
  /** Compiled patterns of this call, keyed by pattern, or the caller's cache keyed by artifact and pattern. */
  regexes: Map<string, (value: string) => boolean>;
  cached: boolean;
}

/** What a refused pattern compiles to: it accepts nothing. */
const NEVER = (): boolean => false;

function newScope(submitted: string, cache?: CompiledAnswerCache): MatchScope {
  return {
    trimmed: submitted.trim(),
    folded: undefined,
    normalized: new Map(),
    regexes: cache ?? new Map(),
    cached: cache !== undefined,
  };
}

function matchesIn(scope: MatchScope, artifact: Artifact): boolean {
  if (scope.trimmed === '') return false;
  switch (artifact.match) {
    case 'exact':
      // Byte-exact: only the submission is trimmed; values are compared as the author wrote them.
      return artifact.values.includes(scope.trimmed);
    case 'case_insensitive': {
      scope.folded ??= caseFold(scope.trimmed);
      const folded = scope.folded;
      return artifact.values.some((value) => caseFold(value.trim()) === folded);
    }
    case 'normalized': {
      let normalized = scope.normalized.get(artifact.kind);
      if (normalized === undefined) {
        normalized = normalizeAnswer(artifact.kind, scope.trimmed);
        scope.normalized.set(artifact.kind, normalized);
      }
      const submitted = normalized;
      return artifact.values.some((value) => normalizeAnswer(artifact.kind, value) === submitted);
    }
    case 'regex':
      return artifact.values.some((pattern) => regexIn(scope, artifact, pattern)(scope.trimmed));
  }
}

function regexIn(scope: MatchScope, artifact: Artifact, pattern: string): (value: string) => boolean {
  const key = scope.cached ? `${artifact.id}\u0000${pattern}` : pattern;
  let test = scope.regexes.get(key);
  if (test === undefined) {
    // artifactProblems refuses bad patterns at save; one stored before a rule change must not turn
    // every submission for the exercise into an error, so it simply accepts nothing.
    try {
      test = compileAnswerRegex(pattern);
    } catch {
      test = NEVER;
    }
    scope.regexes.set(key, test);
  }
  return test;
}

// NFC first so composed and decomposed spellings (é as one or two code points) compare equal, and
// again after lowering, which can yield decomposed sequences (İ → i + U+0307). toLowerCase, never
// toLocaleLowerCase: a server's locale must not change which answers score.
function caseFold(value: string): string {
  return value.normalize('NFC').toLowerCase().normalize('NFC');
}

// ─── ip ──────────────────────────────────────────────────────────────────────────────────────────

function canonicalIp(folded: string): string {
  // Brackets as in URLs and logs (`[::1]`); a port after them is not accepted.
  const bare = folded.startsWith('[') && folded.endsWith(']') ? folded.slice(1, -1) : folded;
  const v4 = parseIpv4(bare);
  if (v4 !== null) return v4.join('.');
  const v6 = parseIpv6(bare);
  return v6 === null ? folded : formatIpv6(v6);
}

/**
 * Four dotted decimal octets of one to three digits. Leading zeros are read as decimal (`010` is
 * 10): analysts copy zero-padded addresses from tools, and nobody means octal in an answer. Other
 * forms inet_aton accepts (`0x0a.1`, `10.1`, one 32-bit number) are not addresses here.
 */
function parseIpv4(text: string): number[] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (match === null) return null;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** Eight 16-bit groups; a dotted IPv4 tail counts as the last two. Zone ids (`%eth0`) are not parsed. */
function parseIpv6(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0] ?? '', halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '', true) : [];
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  // `::` stands for at least one zero group.
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function groupsOf(part: string, mayEndInIpv4: boolean): number[] | null {
  if (part === '') return [];
  const pieces = part.split(':');
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (mayEndInIpv4 && index === pieces.length - 1 && piece.includes('.')) {
      const v4 = parseIpv4(piece);
      if (v4 === null) return null;
      groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    } else if (/^[0-9a-f]{1,4}$/.test(piece)) {
      groups.push(Number.parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return groups;
}

/**
 * RFC 5952: lowercase, no leading zeros, the longest run of two or more zero groups (the first on a
 * tie) as `::`. IPv4-mapped addresses (`::ffff:a.b.c.d`) are their IPv4 address: dual-stack logs
 * show the same client either way.
 */
function formatIpv6(groups: number[]): string {
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const high = groups[6] ?? 0;
    const low = groups[7] ?? 0;
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; ) {
    if (groups[start] !== 0) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

// ─── domain and host ─────────────────────────────────────────────────────────────────────────────

function canonicalDomain(folded: string): string {
  // Trailing dots (the DNS root in `example.com.`) go, with any whitespace between them, so
  // normalising twice changes nothing.
  const bare = stripTrailingDots(folded);
  // Only non-ASCII names go through IDNA: for ASCII, domainToASCII adds nothing beyond the case
  // already folded, but applies WHATWG host rules (octal `010.1.1.1` → 8.1.1.1, `1.2.3` → 1.2.0.3,
  // percent-decoding) that would make different answers equal.
  if (isAscii(bare)) return bare;
  const ascii = stripTrailingDots(domainToASCII(bare));
  // Empty means IDNA refused the name; a numeric last label means WHATWG read it as an IPv4 address
  // (full-width digits), with the same octal surprises. Both keep the text as written.
  const lastLabel = ascii.slice(ascii.lastIndexOf('.') + 1);
  if (ascii === '' || /^(?:\d+|0x[0-9a-f]*)$/.test(lastLabel)) return bare;
  return ascii;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function stripTrailingDots(text: string): string {
  // A loop rather than /[.\s]+$/, which rescans from every dot of a long dotted answer.
  let end = text.length;
  while (end > 0 && /[.\s]/.test(text[end - 1] ?? '')) end -= 1;
  return text.slice(0, end);
}

// ─── url ─────────────────────────────────────────────────────────────────────────────────────────

function canonicalUrl(folded: string): string {
  let href: string;
  try {
    // WHATWG serialisation drops default ports, gives special URLs an empty path's `/`, and IDNA
    // encodes hosts; the text was folded before parsing, so paths compare case-insensitively too.
    href = new URL(folded).href;
  } catch {
    return folded;
  }
  // The serialiser writes percent escapes in uppercase (`%C3%BC`); folding again keeps the result
  // a fixed point.
  return caseFold(href);
}
