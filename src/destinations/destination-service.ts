import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, DestinationRow } from '../db/schema.ts';
import { AppError, invalidInput, notFound } from '../errors.ts';
import { jobsTargeting } from '../noise/job-store.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import {
  DRIVER_FIELDS,
  extraFieldProblem,
  type FieldSpec,
  fieldProblem,
  SIEM_Q_FIELDS,
  secretFieldNames,
} from './destination-fields.ts';
import {
  DEFAULT_PAYLOAD_FORMAT,
  type Destination,
  DRIVERS,
  type DriverName,
  PAYLOAD_FORMATS,
  type PayloadFormat,
} from './destination-types.ts';
import { indexNameProblem } from './index-name.ts';

/** A destination as the API shows it: settings without secrets, plus which secrets are set. */
export type DestinationView = {
  id: string;
  name: string;
  driver: DriverName;
  payload_format: PayloadFormat;
  index: string | null;
  enabled: boolean;
  secrets_set: string[];
  created_at: string;
  updated_at: string;
} & Record<string, unknown>;

/** Request body of create and update; checked field by field against the driver's table. */
export type DestinationInput = Record<string, unknown>;

export const DESTINATION_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const NAME_RE = new RegExp(DESTINATION_NAME_PATTERN);
const COMMON = new Set(['name', 'driver', 'payload_format', 'index', 'enabled']);
/** PostgreSQL's unique_violation: a concurrent create took the name between check and insert. */
const UNIQUE_VIOLATION = '23505';

/** Which payload formats each driver can ship. */
const FORMATS_BY_DRIVER: Record<DriverName, readonly PayloadFormat[]> = {
  vendorA_hec: ['leef', 'ecs'],
  syslog_tcp: ['leef'],
  vendorB_bulk: ['ecs'],
};

type Secrets = Record<string, string>;
interface Normalized {
  payload_format: PayloadFormat;
  index: string | null;
  enabled: boolean;
  settings: Record<string, unknown>;
  secrets: Secrets;
}

export async function listDestinations(db: Kysely<Database>): Promise<DestinationView[]> {
  const rows = await db.selectFrom('destinations').selectAll().orderBy('name').execute();
  return rows.map(toView);
}

export async function getDestinationView(db: Kysely<Database>, name: string): Promise<DestinationView> {
  return toView(await findRow(db, name));
}

/** Loads a destination with decrypted secrets, for drivers. Throws 404 for an unknown name. */
export async function loadDestination(
  db: Kysely<Database>,
  box: SecretBox,
  name: string,
): Promise<Destination> {
  const row = await findRow(db, name);
  return toDestination(row, openSecrets(box, row));
}

/** An enabled destination as loadEnabledDestinations reads it: decrypted, or why it cannot be. */
export type LoadedDestination =
  | { readonly name: string; readonly destination: Destination }
  | { readonly name: string; readonly driver: string; readonly error: string };

/**
 * The enabled destinations, in name order, each decrypted on its own: one whose secrets cannot be
 * opened (sealed with another SECRET_KEY, tampered with) comes back with the reason instead of
 * failing the others; disabled ones are not decrypted at all.
 */
export async function loadEnabledDestinations(
  db: Kysely<Database>,
  box: SecretBox,
): Promise<LoadedDestination[]> {
  const rows = await db
    .selectFrom('destinations')
    .selectAll()
    .where('enabled', '=', true)
    .orderBy('name')
    .execute();
  return rows.map((r) => {
    try {
      return { name: r.name, destination: toDestination(r, openSecrets(box, r)) };
    } catch (err) {
      return { name: r.name, driver: r.driver, error: err instanceof Error ? err.message : String(err) };
    }
  });
}

export async function createDestination(
  db: Kysely<Database>,
  box: SecretBox,
  input: DestinationInput,
): Promise<DestinationView> {
  const bad: Record<string, string> = {};
  const name = input.name;
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    bad.name = 'must be 1-64 letters, digits, ., _ or -, starting with a letter or digit';
  }
  const driver = input.driver;
  if (typeof driver !== 'string' || !(DRIVERS as readonly string[]).includes(driver)) {
    bad.driver = `must be one of ${DRIVERS.join(', ')}`;
    throw invalidInput('Invalid destination', bad);
  }
  const normalized = normalize(driver as DriverName, input, undefined, bad);
  if (Object.keys(bad).length > 0) throw invalidInput('Invalid destination', bad);
  const id = randomUUID();
  const nameTaken = () =>
    new AppError('conflict', `A destination named "${name}" already exists`, { details: { name } });
  try {
    return await db.transaction().execute(async (tx) => {
      const taken = await tx
        .selectFrom('destinations')
        .select('id')
        .where('name', '=', name as string)
        .executeTakeFirst();
      if (taken) throw nameTaken();
      const row = await tx
        .insertInto('destinations')
        .values({
          id,
          name: name as string,
          driver,
          payload_format: normalized.payload_format,
          index_name: normalized.index,
          enabled: normalized.enabled,
          settings: JSON.stringify(normalized.settings),
          secrets: sealSecrets(box, id, normalized.secrets),
          secrets_set: JSON.stringify(Object.keys(normalized.secrets).sort()),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toView(row);
    });
  } catch (err) {
    // A create of the same name that committed after the check above: the same 409, not a 500.
    if ((err as { code?: unknown }).code === UNIQUE_VIOLATION) throw nameTaken();
    throw err;
  }
}

/**
 * Applies a partial update. Absent fields keep their value; `null` resets a setting to its default
 * (or clears a secret); an empty string for a secret keeps the stored one. Name and driver are fixed.
 */
export async function updateDestination(
  db: Kysely<Database>,
  box: SecretBox,
  name: string,
  patch: DestinationInput,
  now: Date,
): Promise<DestinationView> {
  // The whole row is rewritten from the copy read here (every secret re-sealed together), so a
  // concurrent PATCH must wait for this one's commit and merge into its result, not into the
  // stale copy: otherwise one acknowledged change, e.g. a token rotation, is silently undone.
  return db.transaction().execute(async (tx) => {
    const row = await findRow(tx, name, { forUpdate: true });
    const driver = row.driver as DriverName;
    const bad: Record<string, string> = {};
    if (patch.name !== undefined && patch.name !== row.name)
      bad.name = 'cannot be changed; create a new destination';
    if (patch.driver !== undefined && patch.driver !== row.driver)
      bad.driver = 'cannot be changed; create a new destination';
    const existing: Normalized = {
      payload_format: row.payload_format as PayloadFormat,
      index: row.index_name,
      enabled: row.enabled,
      settings: row.settings,
      secrets: openSecrets(box, row),
    };
    const normalized = normalize(driver, patch, existing, bad);
    if (Object.keys(bad).length > 0) throw invalidInput('Invalid destination', bad);
    const updated = await tx
      .updateTable('destinations')
      .set({
        payload_format: normalized.payload_format,
        index_name: normalized.index,
        enabled: normalized.enabled,
        settings: JSON.stringify(normalized.settings),
        secrets: sealSecrets(box, row.id, normalized.secrets),
        secrets_set: JSON.stringify(Object.keys(normalized.secrets).sort()),
        updated_at: now,
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toView(updated);
  });
}

/** Deletes a destination; refused with 409 naming the noise jobs that still target it. */
export async function deleteDestination(db: Kysely<Database>, name: string): Promise<DestinationView> {
  return db.transaction().execute(async (tx) => {
    const row = await findRow(tx, name);
    // A job save holds FOR SHARE on its targets, so with this lock the check cannot miss a job.
    await tx.selectFrom('destinations').select('id').where('id', '=', row.id).forUpdate().execute();
    const jobs = await jobsTargeting(tx, name);
    if (jobs.length > 0) {
      throw new AppError(
        'conflict',
        `Destination "${name}" is a target of noise jobs: ${jobs.map((j) => `"${j.name}"`).join(', ')}`,
        { details: { destination: name, jobs } },
      );
    }
    await tx.deleteFrom('destinations').where('id', '=', row.id).execute();
    return toView(row);
  });
}

async function findRow(
  db: Kysely<Database>,
  name: string,
  options: { forUpdate?: boolean } = {},
): Promise<DestinationRow> {
  const query = db.selectFrom('destinations').selectAll().where('name', '=', name);
  const row = await (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
  if (!row) throw notFound('destination', name);
  return row;
}

function normalize(
  driver: DriverName,
  input: DestinationInput,
  existing: Normalized | undefined,
  bad: Record<string, string>,
): Normalized {
  const fields = DRIVER_FIELDS[driver];
  for (const key of Object.keys(input)) {
    if (!COMMON.has(key) && !(key in fields) && !(key === 'siem_q' && driver === 'syslog_tcp')) {
      bad[key] = `is not a setting of driver ${driver}`;
    }
  }

  let payloadFormat = existing?.payload_format ?? DEFAULT_PAYLOAD_FORMAT[driver];
  if (input.payload_format !== undefined) {
    const pf = input.payload_format === null ? DEFAULT_PAYLOAD_FORMAT[driver] : input.payload_format;
    if (typeof pf !== 'string' || !(PAYLOAD_FORMATS as readonly string[]).includes(pf)) {
      bad.payload_format = `must be one of ${PAYLOAD_FORMATS.join(', ')}`;
    } else if (!FORMATS_BY_DRIVER[driver].includes(pf as PayloadFormat)) {
      bad.payload_format = `driver ${driver} ships ${FORMATS_BY_DRIVER[driver].join(' or ')}`;
    } else {
      payloadFormat = pf as PayloadFormat;
    }
  }

  let index = existing?.index ?? null;
  if (input.index !== undefined) {
    if (input.index === null || input.index === '') index = null;
    else if (typeof input.index !== 'string') bad.index = 'must be a string';
    else {
      const problem = indexNameProblem(driver, input.index);
      if (problem) bad.index = problem;
      else index = input.index;
    }
  }
  if (driver === 'vendorB_bulk' && index === null && bad.index === undefined) {
    bad.index = 'is required for vendorB_bulk (the index documents are written to and wiped from)';
  }

  let enabled = existing?.enabled ?? true;
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean') bad.enabled = 'must be true or false';
    else enabled = input.enabled;
  }

  const secrets: Secrets = { ...(existing?.secrets ?? {}) };
  const settings = applyFields(fields, input, existing?.settings ?? {}, secrets, '', bad);

  if (driver === 'syslog_tcp') {
    const current = (existing?.settings.siem_q as Record<string, unknown> | null | undefined) ?? null;
    if (input.siem_q === null) {
      settings.siem_q = null;
      delete secrets['siem_q.token'];
    } else if (input.siem_q !== undefined) {
      if (typeof input.siem_q !== 'object' || Array.isArray(input.siem_q)) bad.siem_q = 'must be an object';
      else
        settings.siem_q = applyFields(
          SIEM_Q_FIELDS,
          input.siem_q as Record<string, unknown>,
          current ?? {},
          secrets,
          'siem_q.',
          bad,
        );
    } else {
      settings.siem_q = current;
    }
    if (
      (settings.provision_log_source === true || settings.offense_cleanup === true) &&
      bad.siem_q === undefined
    ) {
      if (!settings.siem_q) bad.siem_q = 'is required when provision_log_source or offense_cleanup is on';
      else if (!secrets['siem_q.token'])
        bad['siem_q.token'] = 'is required when provision_log_source or offense_cleanup is on';
    }
  }

  // Credentials that only work in pairs.
  const pair = (user: string, pass: string) => {
    const hasUser = typeof settings[user] === 'string';
    const hasPass = typeof secrets[pass] === 'string';
    if (hasUser !== hasPass) bad[hasUser ? pass : user] = `${user} and ${pass} go together`;
  };
  if (driver === 'vendorB_bulk') {
    pair('username', 'password');
    if (secrets.api_key && settings.username)
      bad.api_key = 'use either api_key or username and password, not both';
  }
  if (driver === 'vendorA_hec') {
    pair('management_username', 'management_password');
    if (secrets.management_token && settings.management_username) {
      bad.management_token =
        'use either management_token or management_username and management_password, not both';
    }
  }
  return { payload_format: payloadFormat, index, enabled, settings, secrets };
}

function applyFields(
  specs: Readonly<Record<string, FieldSpec>>,
  input: Record<string, unknown>,
  current: Record<string, unknown>,
  secrets: Secrets,
  prefix: string,
  bad: Record<string, string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (prefix && !(key in specs)) bad[`${prefix}${key}`] = 'is not a known setting';
  }
  for (const [key, spec] of Object.entries(specs)) {
    const path = `${prefix}${key}`;
    const given = input[key];
    if (spec.secret) {
      if (given === null) delete secrets[path];
      else if (given !== undefined && given !== '') {
        const problem = fieldProblem(spec, given);
        if (problem) bad[path] = problem;
        else secrets[path] = given as string;
      }
      if (spec.required && secrets[path] === undefined && bad[path] === undefined) bad[path] = 'is required';
      continue;
    }
    let value: unknown;
    if (given === undefined) value = key in current ? current[key] : (spec.default ?? null);
    else if (given === null) value = spec.default ?? null;
    else {
      const problem = fieldProblem(spec, given) ?? extraFieldProblem(key, given);
      if (problem) {
        bad[path] = problem;
        continue;
      }
      value = given;
    }
    if (spec.required && (value === null || value === undefined)) {
      bad[path] = 'is required';
      continue;
    }
    out[key] = value;
  }
  return out;
}

function sealSecrets(box: SecretBox, id: string, secrets: Secrets): string | null {
  return Object.keys(secrets).length === 0 ? null : box.seal(JSON.stringify(secrets), `destination:${id}`);
}

function openSecrets(box: SecretBox, row: DestinationRow): Secrets {
  if (row.secrets === null) return {};
  return JSON.parse(box.open(row.secrets, `destination:${row.id}`)) as Secrets;
}

function toView(row: DestinationRow): DestinationView {
  const driver = row.driver as DriverName;
  const settings: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(DRIVER_FIELDS[driver])) {
    if (!spec.secret) settings[key] = row.settings[key] ?? spec.default ?? null;
  }
  if (driver === 'syslog_tcp') {
    const q = row.settings.siem_q as Record<string, unknown> | null | undefined;
    settings.siem_q = q
      ? Object.fromEntries(
          Object.entries(SIEM_Q_FIELDS)
            .filter(([, s]) => !s.secret)
            .map(([k, s]) => [k, q[k] ?? s.default ?? null]),
        )
      : null;
  }
  return {
    id: row.id,
    name: row.name,
    driver,
    payload_format: row.payload_format as PayloadFormat,
    index: row.index_name,
    enabled: row.enabled,
    ...settings,
    secrets_set: row.secrets_set,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toDestination(row: DestinationRow, secrets: Secrets): Destination {
  const driver = row.driver as DriverName;
  const base = {
    id: row.id,
    name: row.name,
    payload_format: row.payload_format as PayloadFormat,
    index: row.index_name,
    enabled: row.enabled,
  };
  const flat: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(DRIVER_FIELDS[driver])) {
    flat[key] = spec.secret ? (secrets[key] ?? null) : (row.settings[key] ?? spec.default ?? null);
  }
  if (driver === 'syslog_tcp') {
    const q = row.settings.siem_q as Record<string, unknown> | null | undefined;
    flat.siem_q = q
      ? {
          ...Object.fromEntries(
            Object.entries(SIEM_Q_FIELDS).map(([k, s]) => [k, q[k] ?? s.default ?? null]),
          ),
          token: secrets['siem_q.token'] ?? null,
        }
      : null;
  }
  return { ...base, ...flat, driver } as Destination;
}

export { secretFieldNames };
