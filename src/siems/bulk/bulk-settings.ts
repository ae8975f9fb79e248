import { Type } from 'typebox';
import { Secret } from '../settings-schema.ts';
import { TlsSettings } from '../shared/tls-settings.ts';
import type { KindDestination } from '../siem-kind.ts';

/** Settings of an Elasticsearch 8+ or OpenSearch 2+ cluster fed through `_bulk` (decisions.md §4). */
export const BulkSettings = Type.Object(
  {
    url: Type.String({ format: 'siem-url', description: 'cluster URL, e.g. https://siem-b:9200' }),
    api_key: Type.Optional(
      Secret(Type.String({ maxLength: 4096, description: 'sent as Authorization: ApiKey' })),
    ),
    username: Type.Optional(Type.String({ maxLength: 256, description: 'basic auth user' })),
    password: Type.Optional(Secret(Type.String({ maxLength: 1024, description: 'basic auth password' }))),
    ...TlsSettings,
  },
  { title: 'vendorB_bulk settings' },
);

/** A vendorB_bulk destination as its client reads it. */
export type BulkDestination = KindDestination<(typeof BulkSettings)['properties']>;
