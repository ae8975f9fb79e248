import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  type AnswerMatch,
  ARTIFACT_KINDS,
  type Artifact,
  type ArtifactKind,
  artifactMatches,
  artifactProblems,
  findMatchingArtifact,
  normalizeAnswer,
} from './artifact-match.ts';

function artifact(
  kind: ArtifactKind,
  match: AnswerMatch,
  values: string[],
  extra: Partial<Artifact> = {},
): Artifact {
  return { id: `${kind}-${match}`, name: `${kind} ${match}`, kind, values, match, points: 10, ...extra };
}

describe('exact matching', () => {
  const beacon = artifact('domain', 'exact', ['Evil.example', 'cdn.evil.example']);

  it('accepts a byte-exact answer, trimming only the submission', () => {
    expect(artifactMatches(beacon, 'Evil.example')).toBe(true);
    expect(artifactMatches(beacon, '  cdn.evil.example\t\n')).toBe(true);
  });

  it('refuses other case, other spellings and untrimmed values', () => {
    expect(artifactMatches(beacon, 'evil.example')).toBe(false);
    expect(artifactMatches(beacon, 'Evil.example.')).toBe(false);
    expect(artifactMatches(artifact('text', 'exact', [' padded ']), 'padded')).toBe(false);
  });

  it('does not unify Unicode spellings (composed vs decomposed é)', () => {
    expect(artifactMatches(artifact('user', 'exact', ['ren\u00e9']), 'rene\u0301')).toBe(false);
  });

  it('never matches a blank submission', () => {
    expect(artifactMatches(beacon, '   ')).toBe(false);
  });
});

describe('case_insensitive matching', () => {
  const user = artifact('user', 'case_insensitive', ['CORP\\Administrator', 'Ren\u00e9']);

  it('accepts another case, trimmed', () => {
    expect(artifactMatches(user, ' corp\\ADMINISTRATOR ')).toBe(true);
    expect(artifactMatches(user, 'REN\u00c9')).toBe(true);
  });

  it('treats composed and decomposed spellings alike', () => {
    expect(artifactMatches(user, 'rene\u0301')).toBe(true);
  });

  it('refuses a different value', () => {
    expect(artifactMatches(user, 'corp/administrator')).toBe(false);
    expect(artifactMatches(user, 'administrator')).toBe(false);
    expect(artifactMatches(user, '')).toBe(false);
  });

  it('does not depend on a locale (dotted capital I)', () => {
    expect(artifactMatches(artifact('user', 'case_insensitive', ['ADMIN']), 'admin')).toBe(true);
  });
});

describe('normalized matching, by kind', () => {
  const cases: Array<[ArtifactKind, string, string[], string[]]> = [
    [
      'ip',
      '10.1.0.1',
      ['10.1.0.1', ' 010.001.000.001 ', '::ffff:10.1.0.1', '::FFFF:0a01:0001', '[10.1.0.1]'],
      ['10.1.0.10', '10.1.1', '0x0a.1.0.1', '10.1.0.1:443', '167837697'],
    ],
    [
      'ip',
      '2001:DB8:0:0:0:0:0:1',
      ['2001:db8::1', '2001:0db8:0000::0001', '[2001:db8::1]', '2001:DB8::0:1'],
      ['2001:db8::2', '2001:db8:1::1', '[2001:db8::1]:443', '2001:db8::1%eth0'],
    ],
    ['ip', '::ffff:10.0.0.1', ['10.0.0.1', '::ffff:a00:1', '0:0:0:0:0:ffff:10.0.0.1'], ['::10.0.0.1']],
    ['ip', '[::1]', ['::1', '0:0:0:0:0:0:0:1', '::0:1'], ['::', '1::']],
    ['ip', '256.1.1.1', ['256.1.1.1', ' 256.1.1.1 '], ['0.1.1.1']],
    [
      'hash',
      'D41D8CD98F00B204E9800998ECF8427E',
      [
        'd41d8cd98f00b204e9800998ecf8427e',
        'd4:1d:8c:d9:8f:00:b2:04:e9:80:09:98:ec:f8:42:7e',
        'd41d 8cd9 8f00 b204'.concat(' e980 0998 ecf8 427e'),
      ],
      ['d41d8cd98f00b204e9800998ecf8427f', 'md5=d41d8cd98f00b204e9800998ecf8427e'],
    ],
    ['hash', 'sha256:ABCDEF', ['SHA256:abcdef', 'sha256abcdef'], ['abcdef', 'sha256=abcdef']],
    [
      'domain',
      'Evil.Example.',
      ['evil.example', 'EVIL.EXAMPLE', 'evil.example.'],
      ['www.evil.example', 'evil.example.com'],
    ],
    [
      'domain',
      'bücher.example',
      ['xn--bcher-kva.example', 'BÜCHER.example', 'bu\u0308cher.example.'],
      ['bucher.example'],
    ],
    [
      'host',
      'WKSTN-01.corp.local',
      ['wkstn-01.corp.local.', 'Wkstn-01.Corp.Local'],
      ['wkstn-01', 'wkstn-02.corp.local'],
    ],
    // ASCII names skip IDNA, so WHATWG's octal and short IPv4 readings never join different answers.
    ['host', '010.1.1.1', ['010.1.1.1'], ['8.1.1.1']],
    ['host', '1.2.3', ['1.2.3'], ['1.2.0.3']],
    [
      'url',
      'http://Evil.Example:80',
      ['http://evil.example/', 'HTTP://EVIL.EXAMPLE', 'http://evil.example:80/'],
      ['https://evil.example/', 'http://evil.example:8080/', 'http://evil.example/x'],
    ],
    [
      'url',
      'https://evil.example:443/Payload.PS1',
      ['https://evil.example/payload.ps1'],
      ['https://evil.example/payload.ps2'],
    ],
    [
      'url',
      'https://bücher.example/ü',
      ['https://xn--bcher-kva.example/%C3%BC', 'https://xn--bcher-kva.example/%c3%bc'],
      [],
    ],
    ['url', 'evil.example/path', ['EVIL.example/path'], ['http://evil.example/path']],
    ['user', 'CORP\\jdoe', ['corp\\JDOE'], ['jdoe', 'jdoe@corp', 'corp/jdoe']],
    ['user', 'jdoe@corp.example', ['JDoe@Corp.Example'], ['corp.example\\jdoe']],
    [
      'process',
      'C:\\Windows\\System32\\cmd.exe',
      ['c:/windows/system32/CMD.EXE', 'C:\\WINDOWS/System32\\cmd.exe'],
      ['cmd.exe', 'C:\\Temp\\cmd.exe'],
    ],
    ['process', '/usr/bin/curl', ['\\usr\\bin\\CURL'], ['curl']],
    [
      'text',
      'Scheduled   Task\tCreated',
      ['scheduled task created', ' SCHEDULED\nTASK  CREATED '],
      ['scheduledtask created', 'scheduled task created.'],
    ],
  ];

  for (const [kind, value, accepted, refused] of cases) {
    const subject = artifact(kind, 'normalized', [value]);
    for (const submission of accepted) {
      it(`${kind}: ${JSON.stringify(value)} accepts ${JSON.stringify(submission)}`, () => {
        expect(artifactMatches(subject, submission)).toBe(true);
      });
    }
    for (const submission of refused) {
      it(`${kind}: ${JSON.stringify(value)} refuses ${JSON.stringify(submission)}`, () => {
        expect(artifactMatches(subject, submission)).toBe(false);
      });
    }
  }
});

describe('normalizeAnswer', () => {
  it.each<[ArtifactKind, string, string]>([
    ['ip', '2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['ip', '2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['ip', '2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['ip', '2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['ip', '0:0:0:0:0:0:0:0', '::'],
    ['ip', '::ffff:10.0.0.1', '10.0.0.1'],
    ['ip', '::1.2.3.4', '::102:304'],
    ['ip', '010.001.000.001', '10.1.0.1'],
    ['ip', '[::1]', '::1'],
    ['ip', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7:8:9'],
    ['ip', '1::2::3', '1::2::3'],
    ['ip', '1:2:3:4:5:6:7::8', '1:2:3:4:5:6:7::8'],
    ['ip', ' [Not-An-IP] ', '[not-an-ip]'],
    ['hash', ' AB:CD ef\t01 ', 'abcdef01'],
    ['hash', 'SHA256:AB', 'sha256ab'],
    // Removing the separator puts the mark on the f: the composed ḟ is the fixed point.
    ['hash', 'f :\u0307', '\u1e1f'],
    ['domain', 'bücher.example', 'xn--bcher-kva.example'],
    ['domain', 'Example.COM..', 'example.com'],
    ['domain', 'xn--iñvalid.com', 'xn--iñvalid.com'],
    ['domain', '０１０.１.１.１', '０１０.１.１.１'],
    ['url', 'HTTP://Example.COM:80', 'http://example.com/'],
    ['url', 'https://example.com:8443', 'https://example.com:8443/'],
    ['url', 'not a url', 'not a url'],
    ['process', 'C:\\Temp\\A.exe', 'c:/temp/a.exe'],
    ['text', '  A \n\t B  ', 'a b'],
    ['user', 'CORP\\JDoe', 'corp\\jdoe'],
  ])('%s: %j → %j', (kind, value, expected) => {
    expect(normalizeAnswer(kind, value)).toBe(expected);
  });

  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({
      unit: fc.constantFrom(
        '.',
        ':',
        '[',
        ']',
        ' ',
        '\\',
        '/',
        '0',
        '1',
        'f',
        'F',
        'x',
        'İ',
        'ß',
        'ü',
        '。',
        '%',
        '\u0307',
      ),
    }),
    fc.ipV4(),
    fc.ipV4Extended(),
    fc.ipV6(),
    fc.ipV6().map((ip) => `[${ip.toUpperCase()}]`),
    fc.domain(),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.webUrl().map((url) => url.toUpperCase()),
    fc
      .tuple(
        fc.constantFrom('http://', 'https://', 'file:///', 'x:'),
        fc.string({ unit: 'binary', maxLength: 20 }),
      )
      .map(([scheme, rest]) => `${scheme}${rest}`),
  );
  const decorated = fc
    .tuple(anyText, fc.constantFrom('', ' ', '\t', '\n '), fc.constantFrom('', ' ', '.', ' \n'), fc.boolean())
    .map(([text, before, after, upper]) => `${before}${upper ? text.toUpperCase() : text}${after}`);

  it.each(ARTIFACT_KINDS)('is idempotent for %s', (kind) => {
    fc.assert(
      fc.property(decorated, (value) => {
        const once = normalizeAnswer(kind, value);
        expect(normalizeAnswer(kind, once)).toBe(once);
      }),
    );
  });
});

describe('regex matching', () => {
  const c2 = artifact('domain', 'regex', ['evil', '(?i)c2-[0-9]+\\.example']);

  it('accepts a whole trimmed submission matching any pattern', () => {
    expect(artifactMatches(c2, ' evil ')).toBe(true);
    expect(artifactMatches(c2, 'C2-42.EXAMPLE')).toBe(true);
  });

  it('is anchored: a pattern does not match inside a longer answer', () => {
    expect(artifactMatches(c2, 'not-evil.com')).toBe(false);
    expect(artifactMatches(c2, 'c2-42.example.net')).toBe(false);
  });

  it('does not let a pattern that accepts anything score a blank submission', () => {
    expect(artifactMatches(artifact('text', 'regex', ['.*']), '  ')).toBe(false);
  });

  it('finishes a catastrophic pattern on a long submission', () => {
    expect(artifactMatches(artifact('text', 'regex', ['(a+)+$']), `${'a'.repeat(50_000)}b`)).toBe(false);
  });

  it('treats a refused pattern stored earlier as accepting nothing', () => {
    const stale = artifact('text', 'regex', ['(a)\\1', 'ok']);
    expect(artifactMatches(stale, 'aa')).toBe(false);
    expect(artifactMatches(stale, 'ok')).toBe(true);
  });
});

describe('findMatchingArtifact', () => {
  const ip = artifact('ip', 'normalized', ['10.0.0.5'], { id: 'ip' });
  const anyIp = artifact('ip', 'regex', ['10\\.0\\.0\\.[0-9]+'], { id: 'any-ip' });
  const host = artifact('host', 'case_insensitive', ['WKSTN-01'], { id: 'host' });
  const all = [ip, anyIp, host];

  it('returns the first matching artifact in the given order', () => {
    expect(findMatchingArtifact(all, '::ffff:10.0.0.5')).toBe(ip);
    expect(findMatchingArtifact(all, '10.0.0.5')).toBe(ip);
    expect(findMatchingArtifact([anyIp, ip], '10.0.0.5')).toBe(anyIp);
    expect(findMatchingArtifact(all, '10.0.0.6')).toBe(anyIp);
    expect(findMatchingArtifact(all, 'wkstn-01')).toBe(host);
  });

  it('returns undefined when nothing matches', () => {
    expect(findMatchingArtifact(all, 'wkstn-02')).toBeUndefined();
    expect(findMatchingArtifact([], 'wkstn-01')).toBeUndefined();
  });

  it('tries only the named artifact when an id is given', () => {
    expect(findMatchingArtifact(all, '10.0.0.5', 'any-ip')).toBe(anyIp);
    expect(findMatchingArtifact(all, '10.0.0.5', 'host')).toBeUndefined();
    expect(findMatchingArtifact(all, '10.0.0.5', 'missing')).toBeUndefined();
  });

  it('shares compiled patterns across artifacts without mixing their results', () => {
    const first = artifact('text', 'regex', ['x+'], { id: 'a' });
    const second = artifact('text', 'regex', ['y', 'x+'], { id: 'b' });
    expect(findMatchingArtifact([first, second], 'y')).toBe(second);
    expect(findMatchingArtifact([first, second], 'xx')).toBe(first);
  });

  it('keeps compiled patterns in a given cache, keyed by artifact and pattern, and reuses them', () => {
    const first = artifact('text', 'regex', ['x+'], { id: 'a' });
    const second = artifact('text', 'regex', ['y', 'x+', '(a)\\1'], { id: 'b' });
    const cache = new Map<string, (value: string) => boolean>();
    expect(findMatchingArtifact([first, second], 'y', undefined, cache)).toBe(second);
    expect([...cache.keys()]).toEqual(['a\u0000x+', 'b\u0000y']);
    const compiled = cache.get('a\u0000x+');

    expect(findMatchingArtifact([first, second], 'xx', undefined, cache)).toBe(first);
    expect(findMatchingArtifact([first, second], 'zz', undefined, cache)).toBeUndefined();
    expect(cache.get('a\u0000x+')).toBe(compiled);
    // A refused pattern is kept too, as a test that accepts nothing.
    expect(cache.size).toBe(4);
    expect(cache.get('b\u0000(a)\\1')?.('aa')).toBe(false);

    // What is in the cache is what runs: nothing is compiled again.
    const seeded = vi.fn((value: string) => value === 'seeded');
    cache.set('b\u0000y', seeded);
    expect(findMatchingArtifact([second], 'seeded', 'b', cache)).toBe(second);
    expect(seeded).toHaveBeenCalledWith('seeded');
    // Without a cache every call compiles afresh.
    expect(findMatchingArtifact([second], 'seeded', 'b')).toBeUndefined();
  });
});

describe('artifactProblems', () => {
  it('accepts a well-formed artifact', () => {
    expect(artifactProblems(artifact('domain', 'regex', ['evil\\.example'], { points: 0 }))).toEqual([]);
    expect(artifactProblems(artifact('ip', 'normalized', ['10.0.0.1'], { points: 100_000 }))).toEqual([]);
  });

  it('needs at least one value', () => {
    expect(artifactProblems(artifact('ip', 'exact', [], { name: 'Beacon IP' }))).toEqual([
      'Artifact "Beacon IP" needs at least one accepted answer.',
    ]);
  });

  it('allows at most 100 values', () => {
    const values = Array.from({ length: 101 }, (_, i) => `v${i}`);
    expect(artifactProblems(artifact('text', 'exact', values, { name: 'Note' }))).toEqual([
      'Artifact "Note" has 101 accepted answers; at most 100 are allowed.',
    ]);
    expect(artifactProblems(artifact('text', 'exact', values.slice(1), { name: 'Note' }))).toEqual([]);
  });

  it('refuses empty, blank and over-long values, naming the artifact and the answer', () => {
    expect(
      artifactProblems(
        artifact('text', 'exact', ['ok', '', ' ', 'x'.repeat(1025), 'y'.repeat(1024)], { name: 'Note' }),
      ),
    ).toEqual([
      'Artifact "Note", answer 2 is empty.',
      'Artifact "Note", answer 3 is empty.',
      'Artifact "Note", answer 4 has 1025 characters; at most 1024 are allowed.',
    ]);
  });

  it.each([-1, 1.5, 100_001, Number.NaN, Number.POSITIVE_INFINITY])('refuses %d points', (points) => {
    expect(artifactProblems(artifact('user', 'exact', ['jdoe'], { name: 'Account', points }))).toEqual([
      'Artifact "Account" must be worth a whole number of points from 0 to 100000.',
    ]);
  });

  it('checks every regex value with answerRegexProblem', () => {
    expect(
      artifactProblems(
        artifact('domain', 'regex', ['ok', '(a)\\1', 'a(?=b)', '(', 'z'.repeat(257)], { name: 'C2' }),
      ),
    ).toEqual([
      'Artifact "C2", answer 2: Backreferences such as `\\1` are not supported: answers are matched with RE2, ' +
        'which does not support them. Spell out the repeated text or list each accepted answer instead.',
      'Artifact "C2", answer 3: Lookaround such as `(?=` is not supported: answers are matched with RE2, ' +
        'which does not support them. Match the surrounding text explicitly instead.',
      'Artifact "C2", answer 4: The pattern is not a valid RE2 regular expression: missing closing ) at `(`.',
      'Artifact "C2", answer 5: The pattern has 257 characters; at most 256 are allowed.',
    ]);
  });

  it('does not read non-regex values as patterns', () => {
    expect(artifactProblems(artifact('text', 'exact', ['(a)\\1']))).toEqual([]);
  });
});
