import { RE2JS } from 're2js';
import { describe, expect, it, vi } from 'vitest';
import { answerRegexProblem, compileAnswerRegex, MAX_ANSWER_REGEX_LENGTH } from './answer-regex.ts';

describe('answerRegexProblem', () => {
  it.each([
    ['a literal', 'evil\\.com'],
    ['classes and repetition', '[a-f0-9]{32}'],
    ['alternation', 'cmd\\.exe|powershell\\.exe'],
    ['inline case-insensitivity', '(?i)mimikatz'],
    ['named groups (not lookbehind)', '(?<user>\\w+)@corp'],
    ['a literal parenthesis before ?=', '\\(?=x'],
    ['lookaround characters inside a class', '[(?=!<]+'],
    ['lookaround characters inside \\Q…\\E', '\\Q(?=\\1\\E'],
    ['a closing bracket first in a class', '[]a](?:b)'],
    ['exactly the longest pattern', 'a'.repeat(MAX_ANSWER_REGEX_LENGTH)],
    ['counted repetitions up to {100}', 'a{100}b{0,100}c{100,}d{007}'],
    ['large counts that are literal text', '\\{1000}[{1000}]\\Q{1000}\\Ex{}y{,1000}'],
  ])('accepts %s', (_, pattern) => {
    expect(answerRegexProblem(pattern)).toBeNull();
  });

  it.each(['', '   '])('refuses the empty or blank pattern %j', (pattern) => {
    expect(answerRegexProblem(pattern)).toBe('The pattern is empty.');
  });

  it('refuses a pattern over 256 characters, counting code points', () => {
    expect(answerRegexProblem('a'.repeat(257))).toBe(
      'The pattern has 257 characters; at most 256 are allowed.',
    );
    // 256 astral characters are 512 UTF-16 units but 256 characters for the person typing them.
    expect(answerRegexProblem('😀'.repeat(256))).toBeNull();
  });

  it.each([
    ['(a)\\1', '\\1'],
    ['(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10', '\\10'],
    ['(?<n>a)\\k<n>', '\\k<n>'],
    ["(?<n>a)\\k'n'", "\\k'n'"],
    ['(?P<n>a)(?P=n)', '(?P=n)'],
  ])('refuses the backreference in %j, saying RE2 does not support it', (pattern, construct) => {
    expect(answerRegexProblem(pattern)).toBe(
      `Backreferences such as \`${construct}\` are not supported: answers are matched with RE2, ` +
        'which does not support them. Spell out the repeated text or list each accepted answer instead.',
    );
  });

  it.each([
    ['evil(?=\\.com)', '(?='],
    ['evil(?!\\.com)', '(?!'],
    ['(?<=www\\.)evil', '(?<='],
    ['(?<!not-)evil', '(?<!'],
  ])('refuses the lookaround in %j, saying RE2 does not support it', (pattern, construct) => {
    expect(answerRegexProblem(pattern)).toBe(
      `Lookaround such as \`${construct}\` is not supported: answers are matched with RE2, ` +
        'which does not support them. Match the surrounding text explicitly instead.',
    );
  });

  it.each([
    ['(', 'missing closing ) at `(`'],
    ['a)', 'unexpected ) at `a)`'],
    ['[a-', 'missing closing ] at `[a-`'],
    ['a++', 'invalid nested repetition operator at `++`'],
    ['(?>atomic)', 'invalid or unsupported Perl syntax at `(?>`'],
    ['a{5,3}', 'invalid repeat count at `{5,3}`'],
  ])('refuses %j, which does not compile, with the engine’s reason', (pattern, reason) => {
    expect(answerRegexProblem(pattern)).toBe(`The pattern is not a valid RE2 regular expression: ${reason}.`);
  });

  it.each([
    ['[\\s\\S]{1000}', '{1000}'],
    ['a{101}', '{101}'],
    ['a{101,}', '{101,}'],
    ['a{2,101}', '{2,101}'],
    ['a{0101,}', '{0101,}'],
    [`a{${'9'.repeat(200)}}`, `{${'9'.repeat(200)}}`],
    ['[{]x{5}\\{y(?:z){200}', '{200}'],
  ])('refuses the counted repetition in %j above {100}', (pattern, construct) => {
    expect(answerRegexProblem(pattern)).toBe(
      `The counted repetition \`${construct}\` is too large: counted repetitions above {100} are not allowed. ` +
        'Use a smaller count, or + or * when any length will do.',
    );
  });

  it('refuses a short pattern of many large counted repetitions without compiling it', () => {
    const pattern = '[\\s\\S]{1000}'.repeat(17);
    expect(pattern.length).toBeLessThanOrEqual(MAX_ANSWER_REGEX_LENGTH);
    const compile = vi.spyOn(RE2JS, 'compile');
    try {
      expect(answerRegexProblem(pattern)).toContain('counted repetitions above {100} are not allowed');
      expect(compile).not.toHaveBeenCalled();
    } finally {
      compile.mockRestore();
    }
  });

  it('refuses an unterminated \\Q, which would swallow the anchoring', () => {
    expect(answerRegexProblem('\\Qevil')).toBe(
      'The pattern must be complete on its own (close every \\Q with \\E).',
    );
  });
});

describe('compileAnswerRegex', () => {
  it('anchors the pattern at both ends', () => {
    const evil = compileAnswerRegex('evil');
    expect(evil('evil')).toBe(true);
    expect(evil('not-evil.com')).toBe(false);
    expect(evil('evil.com')).toBe(false);
    expect(evil('not-evil')).toBe(false);
  });

  it('anchors every branch of an alternation', () => {
    const either = compileAnswerRegex('cmd|powershell');
    expect(either('cmd')).toBe(true);
    expect(either('powershell')).toBe(true);
    expect(either('cmd.exe')).toBe(false);
    expect(either('x-powershell')).toBe(false);
  });

  it('does not let $ match before a final line break', () => {
    expect(compileAnswerRegex('evil')('evil\n')).toBe(false);
  });

  it('is case-sensitive unless the pattern says (?i)', () => {
    expect(compileAnswerRegex('mimikatz')('MimiKatz')).toBe(false);
    expect(compileAnswerRegex('(?i)mimikatz')('MimiKatz')).toBe(true);
  });

  it('keeps inline flags inside the anchoring group', () => {
    // (?m) would let ^ and $ match at line breaks if it leaked to the outer anchors.
    expect(compileAnswerRegex('(?m)evil$')('evil\nmore')).toBe(false);
  });

  it('finishes a catastrophic-backtracking pattern on a long non-matching input', () => {
    const catastrophic = compileAnswerRegex('(a+)+$');
    expect(catastrophic(`${'a'.repeat(50_000)}b`)).toBe(false);
    expect(catastrophic('a'.repeat(50_000))).toBe(true);
  });

  it('throws the problem for a refused pattern', () => {
    expect(() => compileAnswerRegex('(a)\\1')).toThrow(/Backreferences such as `\\1` are not supported/);
    expect(() => compileAnswerRegex('')).toThrow('The pattern is empty.');
  });
});
