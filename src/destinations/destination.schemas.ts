import { type TSchema, Type } from 'typebox';
import { DRIVER_FIELDS, type FieldSpec, SIEM_Q_FIELDS } from './destination-fields.ts';
import { DRIVERS, PAYLOAD_FORMATS } from './destination-types.ts';

function fieldSchema(spec: FieldSpec, drivers: string[]): TSchema {
  const description = `${spec.description}${spec.secret ? ' (secret: write-only, never returned)' : ''}${
    drivers.length < DRIVERS.length ? ` — ${drivers.join(', ')}` : ''
  }${spec.default !== undefined && spec.default !== null ? `; default ${String(spec.default)}` : ''}`;
  const base =
    spec.kind === 'boolean'
      ? Type.Boolean()
      : spec.kind === 'port' || spec.kind === 'int'
        ? Type.Integer()
        : spec.kind === 'enum'
          ? Type.Union((spec.values ?? []).map((v) => Type.Literal(v)))
          : Type.String();
  return Type.Union([base, Type.Null()], { description });
}

function settingsProperties(): Record<string, TSchema> {
  const seen = new Map<string, { spec: FieldSpec; drivers: string[] }>();
  for (const driver of DRIVERS) {
    for (const [name, spec] of Object.entries(DRIVER_FIELDS[driver])) {
      const entry = seen.get(name);
      if (entry) entry.drivers.push(driver);
      else seen.set(name, { spec, drivers: [driver] });
    }
  }
  const props: Record<string, TSchema> = {};
  for (const [name, { spec, drivers }] of seen) props[name] = Type.Optional(fieldSchema(spec, drivers));
  return props;
}

const SiemQInput = Type.Union(
  [
    Type.Object(
      Object.fromEntries(
        Object.entries(SIEM_Q_FIELDS).map(([k, s]) => [k, Type.Optional(fieldSchema(s, ['syslog_tcp']))]),
      ),
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'SIEM Q console API settings — syslog_tcp' },
);

const common = {
  payload_format: Type.Optional(
    Type.Union([...PAYLOAD_FORMATS.map((f) => Type.Literal(f)), Type.Null()], {
      description: 'leef (default for vendorA_hec, syslog_tcp) or ecs (vendorB_bulk; vendorA_hec may use it)',
    }),
  ),
  index: Type.Optional(
    Type.Union([Type.String({ maxLength: 120 }), Type.Null()], {
      description: 'default index (required for vendorB_bulk; the labIndex= default on syslog_tcp)',
    }),
  ),
  enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
  ...settingsProperties(),
  siem_q: Type.Optional(SiemQInput),
};

/** POST /api/destinations body: common fields plus the chosen driver's settings. */
export const DestinationCreateBody = Type.Object(
  {
    name: Type.String({ description: 'unique name used as `siem` in requests' }),
    driver: Type.Union(DRIVERS.map((d) => Type.Literal(d))),
    ...common,
  },
  {
    additionalProperties: false,
    description:
      'vendorA_hec needs url and token; vendorB_bulk needs url and index; syslog_tcp needs host and port. ' +
      'Secrets are write-only. On update, null resets a setting (clears a secret) and "" keeps a secret.',
  },
);

/** PATCH /api/destinations/:name body. */
export const DestinationPatchBody = Type.Object(
  { name: Type.Optional(Type.String()), driver: Type.Optional(Type.String()), ...common },
  { additionalProperties: false },
);

/** A destination as returned: settings without secrets, plus `secrets_set`. */
export const DestinationView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    driver: Type.String(),
    payload_format: Type.String(),
    index: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    secrets_set: Type.Array(Type.String(), { description: 'names of the secrets that are set' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: true, description: "plus the driver's non-secret settings" },
);

/** Path parameter naming a destination; any text, as an overlong name is simply unknown (404). */
export const NameParams = Type.Object({ name: Type.String() });
