import { RE2JS, RE2JSSyntaxException } from 're2js';

// Answers written as patterns run on RE2 (re2js): matching time is linear in the input whatever the
// pattern, so no answer an author saves can stall the service on a hostile or unlucky submission.
// Patterns come from exercise authors, submissions from analysts; only authors see these messages.

/** Longest answer pattern accepted, in characters (code points). */
export const MAX_ANSWER_REGEX_LENGTH = 256;

/**
 * Largest count of `{n}`, `{n,}` or `{n,m}`: RE2 expands counted repetitions, so a short pattern
 * such as a few `[\s\S]{1000}` takes hundreds of milliseconds to compile.
 */
export const MAX_ANSWER_REGEX_REPEAT = 100;

const RE2_REFUSES = 'answers are matched with RE2, which does not support them';
const COUNTED_REPEAT = /^\{(\d+)(?:,(\d*))?\}/;

/** Why `pattern` cannot be an answer pattern (a sentence for its author), or null when it can. */
export function answerRegexProblem(pattern: string): string | null {
  // Blank too: a submission is trimmed before matching, so a blank pattern could never accept one.
  if (pattern.trim() === '') return 'The pattern is empty.';
  const length = [...pattern].length;
  if (length > MAX_ANSWER_REGEX_LENGTH) {
    return `The pattern has ${length} characters; at most ${MAX_ANSWER_REGEX_LENGTH} are allowed.`;
  }
  // Named before compiling: re2js reports these as a bare "invalid escape" or "invalid named
  // capture", which does not tell an author that the feature itself is the problem; and a large
  // counted repetition must not be compiled at all.
  const unsupported = refusedConstruct(pattern);
  if (unsupported !== null) return unsupported;
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    return `The pattern is not a valid RE2 regular expression: ${syntaxDescription(error)}.`;
  }
  // A pattern valid alone can still break out of the anchoring group: an unterminated \Q swallows
  // the closing `)$`, so the anchored form must compile as well.
  try {
    RE2JS.compile(anchored(pattern));
  } catch {
    return 'The pattern must be complete on its own (close every \\Q with \\E).';
  }
  return null;
}

/**
 * A test of whether a whole value matches `pattern` (anchored at both ends); the caller trims the
 * submission. Throws an Error carrying answerRegexProblem's message when the pattern is refused.
 */
export function compileAnswerRegex(pattern: string): (value: string) => boolean {
  const problem = answerRegexProblem(pattern);
  if (problem !== null) throw new Error(problem);
  const compiled = RE2JS.compile(anchored(pattern));
  // testExact anchors on its own as well; the explicit ^(?:…)$ keeps the rule visible and holds
  // whichever matching entry point is used.
  return (value) => compiled.testExact(value);
}

function anchored(pattern: string): string {
  return `^(?:${pattern})$`;
}

function syntaxDescription(error: unknown): string {
  if (error instanceof RE2JSSyntaxException) {
    const at = error.getPattern();
    return at === null ? error.getDescription() : `${error.getDescription()} at \`${at}\``;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The first backreference, lookaround or counted repetition above MAX_ANSWER_REGEX_REPEAT outside
 * character classes and \Q…\E quotes, as a message, or null. Escapes are skipped as pairs so `\(?=`
 * (a literal parenthesis) or `\{1000}` (literal braces) is not mistaken for one.
 */
function refusedConstruct(pattern: string): string | null {
  let i = 0;
  let inClass = false;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (next === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        if (end === -1) return null;
        i = end + 2;
        continue;
      }
      if (!inClass && (/[1-9]/.test(next) || /^k[<{']/.test(pattern.slice(i + 1, i + 3)))) {
        return backreferenceMessage(pattern, i);
      }
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      i += 1;
      continue;
    }
    if (c === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal member, not the end of the class.
      i += pattern[i + 1] === '^' ? 2 : 1;
      if (pattern[i] === ']') i += 1;
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2, i + 4);
      if (rest.startsWith('=') || rest.startsWith('!') || rest === '<=' || rest === '<!') {
        const construct = rest.startsWith('<') ? `(?${rest}` : `(?${rest[0]}`;
        return (
          `Lookaround such as \`${construct}\` is not supported: ${RE2_REFUSES}. ` +
          'Match the surrounding text explicitly instead.'
        );
      }
      if (rest.startsWith('P=')) return backreferenceMessage(pattern, i);
    }
    if (c === '{') {
      const counted = COUNTED_REPEAT.exec(pattern.slice(i));
      if (counted !== null && countedTooLarge(counted)) {
        return (
          `The counted repetition \`${counted[0]}\` is too large: counted repetitions above ` +
          `{${MAX_ANSWER_REGEX_REPEAT}} are not allowed. Use a smaller count, or + or * when any length will do.`
        );
      }
    }
    i += 1;
  }
  return null;
}

function countedTooLarge(counted: RegExpExecArray): boolean {
  // Number() of a long run of digits is Infinity, still above the limit.
  return [counted[1], counted[2]].some(
    (b) => b !== undefined && b !== '' && Number(b) > MAX_ANSWER_REGEX_REPEAT,
  );
}

function backreferenceMessage(pattern: string, at: number): string {
  const shown = /^(?:\\[1-9]\d*|\\k(?:<[^>]*>?|\{[^}]*\}?|'[^']*'?)|\(\?P=[^)]*\)?)/.exec(pattern.slice(at));
  const construct = shown === null ? pattern.slice(at, at + 2) : shown[0];
  return (
    `Backreferences such as \`${construct}\` are not supported: ${RE2_REFUSES}. ` +
    'Spell out the repeated text or list each accepted answer instead.'
  );
}
