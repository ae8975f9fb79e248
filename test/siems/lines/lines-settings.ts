import { Type } from 'typebox';
import { Secret } from '../../../src/siems/settings-schema.ts';
import type { KindDestination } from '../../../src/siems/siem-kind.ts';

/** Settings of a JSON-lines SIEM: where it listens and the token it wants. */
export const LinesSettings = Type.Object(
  {
    url: Type.String({ format: 'siem-url', description: 'base URL of the lines receiver' }),
    token: Secret(
      Type.String({ minLength: 1, maxLength: 256, description: 'sent as Authorization: Bearer' }),
    ),
  },
  { title: 'test_lines settings' },
);

/** A test_lines destination as its client reads it. */
export type LinesDestination = KindDestination<(typeof LinesSettings)['properties']>;
