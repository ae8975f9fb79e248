import { Type } from 'typebox';
import { Secret } from '../settings-schema.ts';
import { TlsSettings } from '../shared/tls-settings.ts';
import type { KindDestination } from '../siem-kind.ts';

/** Settings of an HTTP Event Collector SIEM with its management API (decisions.md §4). */
export const HecSettings = Type.Object(
  {
    url: Type.String({ format: 'siem-url', description: 'collector base URL, e.g. https://siem-a:8088' }),
    token: Secret(Type.String({ minLength: 1, maxLength: 512, description: 'HEC token' })),
    management_url: Type.Optional(
      Type.String({ format: 'siem-url', description: 'management API base URL, e.g. https://siem-a:8089' }),
    ),
    management_token: Type.Optional(
      Secret(Type.String({ maxLength: 4096, description: 'sent as Authorization: Bearer' })),
    ),
    management_username: Type.Optional(Type.String({ maxLength: 256, description: 'basic auth user' })),
    management_password: Type.Optional(
      Secret(Type.String({ maxLength: 1024, description: 'basic auth password' })),
    ),
    sourcetype: Type.Optional(Type.String({ maxLength: 256, description: 'event sourcetype' })),
    source: Type.Optional(Type.String({ maxLength: 256, description: 'event source' })),
    channel: Type.Optional(
      Type.String({ maxLength: 64, description: 'X-Splunk-Request-Channel value (GUID)' }),
    ),
    ...TlsSettings,
  },
  { title: 'vendorA_hec settings' },
);

/** A vendorA_hec destination as its client reads it. */
export type HecDestination = KindDestination<(typeof HecSettings)['properties']>;
