import { type TSchema, Type } from 'typebox';
import type { AnySiemKind } from '../siems/siem-kind.ts';
import { PAYLOAD_FORMATS } from './destination-types.ts';

/** Fields of every destination, whatever its kind. */
function commonFields(kind: AnySiemKind) {
  const [defaultFormat] = kind.payloadFormats;
  return {
    payload_format: Type.Optional(
      Type.Union([...kind.payloadFormats.map((f) => Type.Literal(f)), Type.Null()], {
        description: `payload format (default ${defaultFormat})`,
      }),
    ),
    index: Type.Optional(
      Type.Union([Type.String({ maxLength: 120 }), Type.Null()], {
        description:
          kind.capabilities.indexes === 'native'
            ? `default index${kind.capabilities.wipe ? ' (required: events are written to and wiped from it)' : ''}`
            : 'default lab index, carried as labIndex= on every line',
      }),
    ),
    enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
  };
}

/**
 * A kind's settings as a request may send them: a setting may be null (reset to its default, or
 * clear a secret); a secret may be "" (keep the stored one).
 */
function settingsInput(kind: AnySiemKind, partial: boolean): Record<string, TSchema> {
  const out: Record<string, TSchema> = {};
  for (const [key, schema] of Object.entries(kind.settings.properties as Record<string, TSchema>)) {
    const {
      description,
      writeOnly,
      default: byDefault,
    } = schema as {
      description?: string;
      writeOnly?: boolean;
      default?: unknown;
    };
    const nullable = Type.Union([schema, Type.Null()], {
      ...(description ? { description } : {}),
      ...(writeOnly ? { writeOnly } : {}),
      ...(byDefault !== undefined ? { default: byDefault } : {}),
    });
    const required = !partial && !Type.IsOptional(schema) && !writeOnly;
    out[key] = required ? nullable : Type.Optional(nullable);
  }
  return out;
}

/**
 * POST /api/destinations body, for the OpenAPI document: one shape per SIEM kind, told apart by
 * `driver`, each with its kind's settings (siems/*-settings.ts). The service checks a body against
 * its kind's schema itself, so that every bad field is named, not only the first union branch.
 */
export function destinationCreateBody(kinds: readonly AnySiemKind[]): TSchema {
  return Type.Union(
    kinds.map((kind) =>
      Type.Object(
        {
          name: Type.String({ description: 'unique name used as `siem` in requests' }),
          driver: Type.Literal(kind.name),
          ...commonFields(kind),
          ...settingsInput(kind, false),
        },
        { title: kind.title, additionalProperties: false },
      ),
    ),
    {
      description:
        'Common fields plus the chosen driver’s settings. Secrets (writeOnly) are never returned: a read ' +
        'lists them in secrets_set.',
    },
  );
}

/** PATCH /api/destinations/:name body: any of the kind's fields; null resets, "" keeps a secret. */
export function destinationPatchBody(kinds: readonly AnySiemKind[]): TSchema {
  return Type.Union(
    kinds.map((kind) =>
      Type.Object(
        {
          name: Type.Optional(Type.String({ description: 'cannot change' })),
          driver: Type.Optional(Type.Literal(kind.name, { description: 'cannot change' })),
          ...commonFields(kind),
          ...settingsInput(kind, true),
        },
        { title: kind.title, additionalProperties: false },
      ),
    ),
  );
}

/** A destination as returned: settings without secrets, plus `secrets_set`. */
export const DestinationView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    driver: Type.String(),
    payload_format: Type.Enum(PAYLOAD_FORMATS),
    index: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    secrets_set: Type.Array(Type.String(), { description: 'names of the secrets that are set' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: true, description: "plus the driver's non-secret settings (unset ones null)" },
);

/** One SIEM kind, as GET /api/siem-kinds lists it (the console builds its forms from these). */
export const SiemKindView = Type.Object({
  name: Type.String({ description: 'the `driver` value of its destinations' }),
  title: Type.String(),
  payload_formats: Type.Array(Type.Enum(PAYLOAD_FORMATS)),
  capabilities: Type.Object({
    indexes: Type.Union([Type.Literal('native'), Type.Literal('label'), Type.Literal('none')]),
    labels_index: Type.Boolean(),
    index_creation: Type.Boolean(),
    wipe: Type.Boolean(),
    source_identity: Type.Boolean(),
  }),
  secret_fields: Type.Array(Type.String()),
  settings: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of its settings' }),
});

/** Path parameter naming a destination; any text, as an overlong name is simply unknown (404). */
export const NameParams = Type.Object({ name: Type.String() });
