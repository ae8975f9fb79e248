import type { TObject } from 'typebox';
import { secretPaths } from '../settings-schema.ts';

/** What replaces a secret, in any of its forms. */
export const REDACTED = '[redacted]';

/**
 * Secrets shorter than this are not scrubbed on their own: replacing every `ab1` or `x` would
 * mangle ordinary words, numbers and index names in messages and answers, and a secret that short
 * is guessed faster than it is read out of a message anyway. Its Basic form (base64 of
 * `user:password`, which carries the user name too) is still scrubbed.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * Shortest base64 piece of a secret sitting inside a longer base64 text (a whole header encoded,
 * say) that is scrubbed: 8 characters (6 bytes of the secret). Shorter pieces could match by chance.
 */
const MIN_BASE64_PIECE = 8;

/** JSON escapes other than the standard ones (`\"`, `\\`, `\n`, …) that a form could hide behind. */
const UNUSUAL_ESCAPE = /\\u([0-9a-fA-F]{4})|\\\//g;

/** The credentials a client sends, as its kind knows them. */
export interface ClientCredentials {
  /** Values of the secret settings (tokens, API keys, passwords); unset ones may be null. */
  readonly secrets: readonly (string | null | undefined)[];
  /** User and password pairs sent as HTTP Basic credentials (`Basic base64(user:password)`). */
  readonly basic?: readonly {
    readonly user: string | null | undefined;
    readonly password: string | null | undefined;
  }[];
}

/** Removes every known form of a client's secrets from text a SIEM wrote or a message quotes. */
export interface SecretScrubber {
  /** `text` with every form of every secret replaced by `[redacted]`, longest form first. */
  text(text: string): string;
  /**
   * An answer body, before anything parses or quotes it: a JSON body has its string values
   * scrubbed, whatever escapes the SIEM used, and is written again only when one changed, so a
   * secret never breaks the structure the caller reads; any other body is scrubbed as text.
   */
  answer(body: string): string;
  /** Every form it looks for, longest first. */
  readonly forms: readonly string[];
}

/**
 * A scrubber of `credentials`, with every form precomputed once: each secret (and the secret
 * without leading and trailing spaces, as an HTTP header carries it) raw, as JSON string
 * contents (standard escapes, `\/`, Go's `\u003c`-style), URL-encoded (encodeURIComponent and form
 * encoding with `+`, upper- and lower-case hex), in base64 and base64url (padded and not, and the
 * pieces that encode it inside a longer base64 text at any offset), and the Basic base64 of each
 * `user:password` pair; base64 forms URL-encoded too. Forms are replaced longest first, so a long
 * form is never cut by a shorter one it contains.
 */
export function secretScrubber(credentials: ClientCredentials): SecretScrubber {
  const found = new Set<string>();
  for (const secret of credentials.secrets) {
    if (typeof secret !== 'string') continue;
    // HTTP trims a header value's ends: a SIEM repeats a credential that ends in spaces without them.
    for (const value of new Set([secret, secret.trim()])) {
      if (value.length >= MIN_SECRET_LENGTH) for (const form of secretForms(value)) found.add(form);
    }
  }
  for (const { user, password } of credentials.basic ?? []) {
    if (typeof user !== 'string' || typeof password !== 'string' || password === '') continue;
    const basic = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
    if (basic.length >= MIN_BASE64_PIECE) for (const form of urlEncodedToo([basic])) found.add(form);
  }
  const forms = [...found].filter((f) => f !== '').sort((a, b) => b.length - a.length);

  const text = (input: string): string => {
    let out = input;
    for (const form of forms) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
    return out;
  };

  const answer = (body: string): string => {
    if (forms.length === 0 || body === '') return body;
    const flat = text(body);
    const first = body.trimStart()[0];
    if (first !== '{' && first !== '[') return flat;
    // `\u0041` and `\/` escapes could hide a form from the text search: undo them for a second look
    // (cheap), and read the JSON only when something is found.
    if (flat === body) {
      if (!body.includes('\\u') && !body.includes('\\/')) return body;
      const unescaped = body.replace(UNUSUAL_ESCAPE, (_escape, hex?: string) =>
        hex === undefined ? '/' : String.fromCharCode(Number.parseInt(hex, 16)),
      );
      if (text(unescaped) === unescaped) return body;
    }
    let changed = false;
    const scrub = (value: string): string => {
      const scrubbed = text(value);
      if (scrubbed !== value) changed = true;
      return scrubbed;
    };
    const walk = (value: unknown): unknown => {
      if (typeof value === 'string') return scrub(value);
      if (Array.isArray(value)) return value.map(walk);
      if (typeof value === 'object' && value !== null) {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
      }
      return value;
    };
    let walked: unknown;
    try {
      walked = walk(JSON.parse(body));
    } catch {
      // Not JSON after all, or nested too deep to walk.
      return flat;
    }
    // String values are where an echo lands. A secret that only matches a key, a number or a
    // literal (a password "errors" or "true", a PIN equal to a count) matches the protocol's own
    // words: they are left, so the caller still reads the answer (messages are scrubbed again).
    return changed ? JSON.stringify(walked) : body;
  };

  return { text, answer, forms };
}

/** The values of the secret settings of `settings` (Secret() in `schema`; groups' as `group.field`). */
export function secretValues(schema: TObject, settings: object): string[] {
  const out: string[] = [];
  for (const path of secretPaths(schema)) {
    let value: unknown = settings;
    for (const key of path.split('.')) {
      value =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (typeof value === 'string' && value !== '') out.push(value);
  }
  return out;
}

/** Every form of one secret, as listed on {@link secretScrubber}. */
function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const uri = encodeURIComponent(secret);
  const form = new URLSearchParams({ s: secret }).toString().slice(2);
  return [
    secret,
    json,
    json.replaceAll('/', '\\/'),
    json.replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026'),
    uri,
    lowerHex(uri),
    form,
    lowerHex(form),
    // Strict percent-encoding (Go's QueryEscape, Python's quote): every byte but A-Z a-z 0-9 - _ . ~.
    strictPercent(secret),
    lowerHex(strictPercent(secret)),
    // XML and HTML answers (splunkd without output_mode=json) escape markup characters.
    xmlEscaped(secret, '&apos;'),
    xmlEscaped(secret, '&#39;'),
    ...base64Forms(Buffer.from(secret, 'utf8')),
  ];
}

function strictPercent(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function xmlEscaped(text: string, apostrophe: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", apostrophe);
}

/**
 * The base64 and base64url of `bytes`, padded and not, and for each of the three offsets the bytes
 * can have inside a longer encoded text, the whole 4-character groups that encode only them.
 */
function base64Forms(bytes: Buffer): string[] {
  const std = bytes.toString('base64');
  const url = bytes.toString('base64url');
  const out = [std, std.replace(/=+$/, ''), url, `${url}${'='.repeat((4 - (url.length % 4)) % 4)}`];
  for (let skip = 0; skip < 3; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole <= 0) continue;
    const piece = bytes.subarray(skip, skip + whole);
    for (const encoded of [piece.toString('base64'), piece.toString('base64url')]) {
      if (encoded.length >= MIN_BASE64_PIECE) out.push(encoded);
    }
  }
  return urlEncodedToo(out);
}

/** Base64 `forms` and, for those with `+`, `/` or `=`, their URL-encoded spellings (a query repeated). */
function urlEncodedToo(forms: readonly string[]): string[] {
  const out = [...forms];
  for (const form of forms) {
    const uri = encodeURIComponent(form);
    if (uri !== form) out.push(uri, lowerHex(uri));
  }
  return out;
}

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}
