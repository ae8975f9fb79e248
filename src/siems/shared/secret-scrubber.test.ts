import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SyslogTcpSettings } from '../syslog-tcp/syslog-tcp-settings.ts';
import { REDACTED, secretScrubber, secretValues } from './secret-scrubber.ts';
import { clip } from './siem-message.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The first 6-character piece of `secret` found in `text`, or undefined. */
function pieceIn(text: string, secret: string): string | undefined {
  for (let i = 0; i + 6 <= secret.length; i++) {
    const piece = secret.slice(i, i + 6);
    if (text.includes(piece)) return piece;
  }
  return undefined;
}

describe('secretScrubber: the forms of a secret', () => {
  const secret = 'p@ss/w"rd <&> \\ zé+1';
  const scrub = secretScrubber({ secrets: [secret] }).text;

  it.each([
    ['raw', secret],
    ['JSON string contents', JSON.stringify(secret).slice(1, -1)],
    ['JSON with \\/', JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/')],
    [
      'JSON with Go-style \\u003c escapes',
      JSON.stringify(secret)
        .slice(1, -1)
        .replaceAll('<', '\\u003c')
        .replaceAll('>', '\\u003e')
        .replaceAll('&', '\\u0026'),
    ],
    ['encodeURIComponent', encodeURIComponent(secret)],
    [
      'encodeURIComponent, lower-case hex',
      encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    ],
    ['form encoding (space as +)', new URLSearchParams({ k: secret }).toString().slice(2)],
    ['base64', b64(secret)],
    ['base64 without padding', b64(secret).replace(/=+$/, '')],
    ['base64url', Buffer.from(secret).toString('base64url')],
  ])('replaces the %s form', (_name, form) => {
    const text = `before ${form} after`;
    expect(scrub(text)).toBe(`before ${REDACTED} after`);
  });

  it('replaces the base64 of a secret inside a longer encoded text, at any offset', () => {
    const token = 'tok-4f9a1c77e2b5d3';
    const { text } = secretScrubber({ secrets: [token] });
    for (const around of ['', 'x', 'xy', 'Bearer ', 'Splunk ', 'ApiKey ']) {
      const encoded = b64(`${around}${token}!tail`);
      const out = text(`echo ${encoded}`);
      expect(out, around).toContain(REDACTED);
      // What is left encodes at most the two bytes of each end that share a group with others.
      const rest = Buffer.from(out.replace(`echo `, '').split(REDACTED).join(''), 'base64').toString(
        'latin1',
      );
      expect(pieceIn(rest, token), around).toBeUndefined();
    }
  });

  it('replaces the Basic base64 of user:password, and the password in it', () => {
    const { text } = secretScrubber({
      secrets: ['hunter2-long'],
      basic: [{ user: 'elastic', password: 'hunter2-long' }],
    });
    expect(text(`Authorization: Basic ${b64('elastic:hunter2-long')}`)).toBe(
      `Authorization: Basic ${REDACTED}`,
    );
    expect(text('elastic:hunter2-long')).toBe(`elastic:${REDACTED}`);
  });

  it('ignores secrets shorter than 4 characters, but still scrubs their Basic form', () => {
    const { text, forms } = secretScrubber({
      secrets: ['abc', '', null, undefined],
      basic: [{ user: 'admin', password: 'abc' }],
    });
    expect(forms).toEqual([b64('admin:abc')]);
    expect(text('abc is a word')).toBe('abc is a word');
    expect(text(`Basic ${b64('admin:abc')}`)).toBe(`Basic ${REDACTED}`);
    // A pair without a user or a password sends no Basic header.
    expect(secretScrubber({ secrets: [], basic: [{ user: null, password: 'secret-pw' }] }).forms).toEqual([]);
  });

  it('replaces the longest form first, so no shorter one cuts it', () => {
    // The token contains the password: the whole token goes, not the password and two ends.
    const { text } = secretScrubber({ secrets: ['pass-word', 'tok-pass-word-tok'] });
    expect(text('x tok-pass-word-tok y pass-word')).toBe(`x ${REDACTED} y ${REDACTED}`);
  });

  it('leaves text without secrets as it is', () => {
    const { text, answer } = secretScrubber({ secrets: ['abcdef'] });
    expect(text('nothing here')).toBe('nothing here');
    expect(answer('{"a": "nothing here"}')).toBe('{"a": "nothing here"}');
    expect(secretScrubber({ secrets: [] }).answer('abcdef')).toBe('abcdef');
  });
});

describe('secretScrubber.answer: bodies before anyone reads them', () => {
  const secret = 'S3cr<et>&x';
  const { answer } = secretScrubber({ secrets: [secret] });

  it('scrubs JSON string values whatever escapes the SIEM used, keeping the structure', () => {
    const escaped = [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const body = `{"messages":[{"type":"ERROR","text":"token ${escaped} refused"}],"code":4}`;
    const out = answer(body);
    expect(JSON.parse(out)).toEqual({
      messages: [{ type: 'ERROR', text: `token ${REDACTED} refused` }],
      code: 4,
    });
  });

  it('scrubs a JSON string value whose slashes are escaped (\\/)', () => {
    const slashed = secretScrubber({ secrets: ['a/b/c/d/e'] });
    expect(JSON.parse(slashed.answer('{"text":"got a\\/b\\/c\\/d\\/e"}'))).toEqual({
      text: `got ${REDACTED}`,
    });
  });

  it('never breaks a JSON body whose keys or literals happen to equal a secret', () => {
    const word = secretScrubber({ secrets: ['errors', 'status'] });
    const body =
      '{"errors":false,"items":[{"create":{"status":201,"error":{"type":"x","reason":"status errors"}}}]}';
    expect(JSON.parse(word.answer(body))).toEqual({
      errors: false,
      items: [{ create: { status: 201, error: { type: 'x', reason: `${REDACTED} ${REDACTED}` } } }],
    });
    // Nothing in a string value: the body is handed back untouched, not written again.
    const clean = '{"errors":false,"items":[{"create":{"status":201}}]}';
    expect(word.answer(clean)).toBe(clean);
  });

  it('scrubs plain text and broken JSON as text', () => {
    expect(answer(`<html>token ${secret}</html>`)).toBe(`<html>token ${REDACTED}</html>`);
    expect(answer(`{"text":"${JSON.stringify(secret).slice(1, -1)}`)).toBe(`{"text":"${REDACTED}`);
  });

  it('scrubs first, then clips: no piece of a secret survives a cut anywhere', () => {
    const token = 'mgmt-0123456789abcdefghijklmn';
    const { answer: scrubAnswer, text } = secretScrubber({ secrets: [token] });
    for (let at = 250; at <= 320; at++) {
      const body = `${'x'.repeat(at)}${token} trailing words`;
      expect(pieceIn(clip(scrubAnswer(body)), token), `at ${at}`).toBeUndefined();
      // The order this replaces: a cut first leaves a piece nothing recognises afterwards.
      if (at > 300 - token.length && at <= 300 - 6) expect(pieceIn(text(clip(body)), token)).toBeDefined();
    }
  });
});

describe('secretValues', () => {
  it('reads every Secret() setting of a schema, groups included', () => {
    expect(
      secretValues(SyslogTcpSettings, {
        host: 'siem-q',
        siem_q: { console_url: 'https://q', token: 'q-token-123' },
      }),
    ).toEqual(['q-token-123']);
    expect(secretValues(SyslogTcpSettings, { host: 'siem-q', siem_q: null })).toEqual([]);
  });
});

describe('secretScrubber: property', () => {
  const printable = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 6,
    maxLength: 40,
  });
  const encodings: Array<(s: string, user: string) => string> = [
    (s) => s,
    (s) => JSON.stringify(s).slice(1, -1),
    (s) => encodeURIComponent(s),
    (s) => new URLSearchParams({ k: s }).toString().slice(2),
    (s) => b64(s),
    (s) => Buffer.from(s).toString('base64url'),
    (s, user) => `Basic ${b64(`${user}:${s}`)}`,
    (s) => `Bearer ${s}`,
  ];

  it('leaves no 6-character piece of a secret, its base64 or its Basic base64, in text of any length cut anywhere', () => {
    fc.assert(
      fc.property(
        printable,
        fc.stringMatching(/^[a-z]{1,12}$/),
        fc.array(fc.tuple(fc.nat(encodings.length - 1), fc.nat(4000)), { minLength: 1, maxLength: 6 }),
        fc.nat(4000),
        fc.integer({ min: 20, max: 600 }),
        (secret, user, echoes, fillerLength, cut) => {
          const { answer } = secretScrubber({ secrets: [secret], basic: [{ user, password: secret }] });
          // Filler outside ASCII, so no piece of it can look like a secret by chance; each echo
          // goes between two filler pieces, never into another echo.
          const filler = '§'.repeat(fillerLength);
          const cuts = echoes.map(([, at]) => Math.min(at, filler.length)).sort((a, b) => a - b);
          let body = '';
          let from = 0;
          echoes.forEach(([which], i) => {
            const at = cuts[i] ?? 0;
            body += `${filler.slice(from, at)} ${encodings[which]?.(secret, user)} `;
            from = at;
          });
          body += filler.slice(from);
          const out = clip(answer(body), cut);
          for (const value of [secret, b64(secret), b64(`${user}:${secret}`)]) {
            expect(pieceIn(out, value)).toBeUndefined();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
