import { Type } from 'typebox';
import { Defaulted } from '../settings-schema.ts';

/** TLS settings of an outbound connection: verification on by default, an optional private CA. */
export const TlsSettings = {
  tls_verify: Defaulted(Type.Boolean({ description: 'verify the server certificate' }), true),
  ca_pem: Type.Optional(
    Type.String({
      format: 'pem-certificates',
      maxLength: 1_000_000,
      // Multi-line text: the request text rules (src/http/text-rules.ts) allow line breaks here.
      'x-multiline': true,
      description: 'PEM CA bundle trusted in addition to the system CAs',
    }),
  ),
};

/** Why two settings that only work together are not both set: `{ [the missing one]: problem }`. */
export function pairProblem(
  settings: Readonly<Record<string, unknown>>,
  user: string,
  pass: string,
): Record<string, string> {
  const hasUser = typeof settings[user] === 'string';
  const hasPass = typeof settings[pass] === 'string';
  if (hasUser === hasPass) return {};
  return { [hasUser ? pass : user]: `${user} and ${pass} go together` };
}
