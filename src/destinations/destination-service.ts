import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, DestinationRow } from '../db/schema.ts';
import { AppError, invalidInput, notFound } from '../errors.ts';
import { jobsTargeting } from '../noise/job-store.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { SiemRegistry } from '../siems/registry.ts';
import type { AnySiemKind } from '../siems/siem-kind.ts';
import { mergeSettings, resolveSettings, type Secrets, withSecrets } from './destination-settings.ts';
import { type Destination, PAYLOAD_FORMATS, type PayloadFormat } from './destination-types.ts';

/** A destination as the API shows it: settings without secrets, plus which secrets are set. */
export type DestinationView = {
  id: string;
  name: string;
  driver: string;
  payload_format: PayloadFormat;
  index: string | null;
  enabled: boolean;
  secrets_set: string[];
  created_at: string;
  updated_at: string;
} & Record<string, unknown>;

/** Request body of create and update; checked field by field against the kind's settings schema. */
export type DestinationInput = Record<string, unknown>;

/** What the destination functions use. */
export interface DestinationDeps {
  readonly db: Kysely<Database>;
  readonly secretBox: SecretBox;
  readonly siems: SiemRegistry;
}

export const DESTINATION_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const NAME_RE = new RegExp(DESTINATION_NAME_PATTERN);
/** Fields of every destination; the rest are the kind's settings. */
const COMMON = new Set(['name', 'driver', 'payload_format', 'index', 'enabled']);
/** PostgreSQL's unique_violation: a concurrent create took the name between check and insert. */
const UNIQUE_VIOLATION = '23505';

interface Normalized {
  payload_format: PayloadFormat;
  index: string | null;
  enabled: boolean;
  settings: Record<string, unknown>;
  secrets: Secrets;
}

/** Every destination, by name. */
export async function listDestinations(
  deps: Pick<DestinationDeps, 'db' | 'siems'>,
): Promise<DestinationView[]> {
  const rows = await deps.db.selectFrom('destinations').selectAll().orderBy('name').execute();
  return rows.map((row) => toView(deps.siems, row));
}

/** One destination as the API shows it; 404 when unknown. */
export async function getDestinationView(
  deps: Pick<DestinationDeps, 'db' | 'siems'>,
  name: string,
): Promise<DestinationView> {
  return toView(deps.siems, await findRow(deps.db, name));
}

/** Loads a destination with decrypted secrets, for its SIEM client. Throws 404 for an unknown name. */
export async function loadDestination(deps: DestinationDeps, name: string): Promise<Destination> {
  const row = await findRow(deps.db, name);
  return toDestination(
    deps.siems.kindOf({ name: row.name, driver: row.driver }),
    row,
    openSecrets(deps.secretBox, row),
  );
}

/** An enabled destination as loadEnabledDestinations reads it: decrypted, or why it cannot be. */
export type LoadedDestination =
  | { readonly name: string; readonly destination: Destination }
  | { readonly name: string; readonly driver: string; readonly error: string };

/**
 * The enabled destinations, in name order, each decrypted on its own: one whose secrets cannot be
 * opened (sealed with another SECRET_KEY, tampered with), or whose kind this version does not
 * know, comes back with the reason instead of failing the others; disabled ones are not
 * decrypted at all.
 */
export async function loadEnabledDestinations(deps: DestinationDeps): Promise<LoadedDestination[]> {
  const rows = await deps.db
    .selectFrom('destinations')
    .selectAll()
    .where('enabled', '=', true)
    .orderBy('name')
    .execute();
  return rows.map((r) => {
    try {
      const kind = deps.siems.kindOf({ name: r.name, driver: r.driver });
      return { name: r.name, destination: toDestination(kind, r, openSecrets(deps.secretBox, r)) };
    } catch (err) {
      return { name: r.name, driver: r.driver, error: err instanceof Error ? err.message : String(err) };
    }
  });
}

/** Creates a destination of one of the registered kinds; every bad field is named at once. */
export async function createDestination(
  deps: DestinationDeps,
  input: DestinationInput,
): Promise<DestinationView> {
  const bad: Record<string, string> = {};
  const name = input.name;
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    bad.name = 'must be 1-64 letters, digits, ., _ or -, starting with a letter or digit';
  }
  const kind = typeof input.driver === 'string' ? deps.siems.find(input.driver) : undefined;
  if (!kind) {
    bad.driver = `must be one of ${deps.siems.names.join(', ')}`;
    throw invalidInput('Invalid destination', bad);
  }
  const normalized = normalize(deps.siems, kind, input, undefined, bad);
  if (Object.keys(bad).length > 0) throw invalidInput('Invalid destination', bad);
  const id = randomUUID();
  const nameTaken = () =>
    new AppError('conflict', `A destination named "${name}" already exists`, { details: { name } });
  try {
    return await deps.db.transaction().execute(async (tx) => {
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
          driver: kind.name,
          payload_format: normalized.payload_format,
          index_name: normalized.index,
          enabled: normalized.enabled,
          settings: JSON.stringify(normalized.settings),
          secrets: sealSecrets(deps.secretBox, id, normalized.secrets),
          secrets_set: JSON.stringify(Object.keys(normalized.secrets).sort()),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toView(deps.siems, row);
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
  deps: DestinationDeps,
  name: string,
  patch: DestinationInput,
  now: Date,
): Promise<DestinationView> {
  // The whole row is rewritten from the copy read here (every secret re-sealed together), so a
  // concurrent PATCH must wait for this one's commit and merge into its result, not into the
  // stale copy: otherwise one acknowledged change, e.g. a token rotation, is silently undone.
  return deps.db.transaction().execute(async (tx) => {
    const row = await findRow(tx, name, { forUpdate: true });
    const kind = deps.siems.kindOf({ name: row.name, driver: row.driver });
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
      secrets: openSecrets(deps.secretBox, row),
    };
    const normalized = normalize(deps.siems, kind, patch, existing, bad);
    if (Object.keys(bad).length > 0) throw invalidInput('Invalid destination', bad);
    const updated = await tx
      .updateTable('destinations')
      .set({
        payload_format: normalized.payload_format,
        index_name: normalized.index,
        enabled: normalized.enabled,
        settings: JSON.stringify(normalized.settings),
        secrets: sealSecrets(deps.secretBox, row.id, normalized.secrets),
        secrets_set: JSON.stringify(Object.keys(normalized.secrets).sort()),
        updated_at: now,
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toView(deps.siems, updated);
  });
}

/** Deletes a destination; refused with 409 naming the noise jobs that still target it. */
export async function deleteDestination(
  deps: Pick<DestinationDeps, 'db' | 'siems'>,
  name: string,
): Promise<DestinationView> {
  return deps.db.transaction().execute(async (tx) => {
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
    return toView(deps.siems, row);
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

/**
 * Merges a create or update into the stored destination and checks the result as a whole against
 * the kind: its settings schema, its payload formats and index names, a default index when it can
 * be wiped (decisions.md §5: the wipe needs it), and its rules across settings.
 */
function normalize(
  siems: SiemRegistry,
  kind: AnySiemKind,
  input: DestinationInput,
  existing: Normalized | undefined,
  bad: Record<string, string>,
): Normalized {
  const properties = kind.settings.properties as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!COMMON.has(key) && !(key in properties)) bad[key] = `is not a setting of driver ${kind.name}`;
  }

  const [defaultFormat] = kind.payloadFormats;
  let payloadFormat = existing?.payload_format ?? defaultFormat;
  if (input.payload_format !== undefined) {
    const pf = input.payload_format === null ? defaultFormat : input.payload_format;
    if (typeof pf !== 'string' || !(PAYLOAD_FORMATS as readonly string[]).includes(pf)) {
      bad.payload_format = `must be one of ${PAYLOAD_FORMATS.join(', ')}`;
    } else if (!kind.payloadFormats.includes(pf as PayloadFormat)) {
      bad.payload_format = `driver ${kind.name} ships ${kind.payloadFormats.join(' or ')}`;
    } else {
      payloadFormat = pf as PayloadFormat;
    }
  }

  let index = existing?.index ?? null;
  if (input.index !== undefined) {
    if (input.index === null || input.index === '') index = null;
    else if (typeof input.index !== 'string') bad.index = 'must be a string';
    else {
      const problem = kind.indexNameProblem(input.index);
      if (problem) bad.index = problem;
      else index = input.index;
    }
  }
  if (kind.capabilities.wipe && index === null && bad.index === undefined) {
    bad.index = `is required for ${kind.name} (the index events are written to and wiped from)`;
  }

  let enabled = existing?.enabled ?? true;
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean') bad.enabled = 'must be true or false';
    else enabled = input.enabled;
  }

  const secrets: Secrets = { ...(existing?.secrets ?? {}) };
  const own: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) if (key in input) own[key] = input[key];
  const settings = mergeSettings(kind.settings, own, existing?.settings ?? {}, secrets, bad);
  const problems = siems.validate(kind, withSecrets(kind.settings, settings, secrets));
  for (const [field, problem] of Object.entries(problems)) bad[field] ??= problem;
  if (Object.keys(problems).length === 0 && kind.settingsProblems) {
    const across = kind.settingsProblems(resolveSettings(kind.settings, settings, secrets));
    for (const [field, problem] of Object.entries(across)) bad[field] ??= problem;
  }
  return { payload_format: payloadFormat, index, enabled, settings, secrets };
}

function sealSecrets(box: SecretBox, id: string, secrets: Secrets): string | null {
  return Object.keys(secrets).length === 0 ? null : box.seal(JSON.stringify(secrets), `destination:${id}`);
}

function openSecrets(box: SecretBox, row: DestinationRow): Secrets {
  if (row.secrets === null) return {};
  return JSON.parse(box.open(row.secrets, `destination:${row.id}`)) as Secrets;
}

function toView(siems: SiemRegistry, row: DestinationRow): DestinationView {
  const kind = siems.find(row.driver);
  // A destination of a kind this version does not know is shown as stored.
  const settings = kind ? resolveSettings(kind.settings, row.settings, null) : row.settings;
  return {
    id: row.id,
    name: row.name,
    driver: row.driver,
    payload_format: row.payload_format as PayloadFormat,
    index: row.index_name,
    enabled: row.enabled,
    ...settings,
    secrets_set: row.secrets_set,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toDestination(kind: AnySiemKind, row: DestinationRow, secrets: Secrets): Destination {
  return {
    ...resolveSettings(kind.settings, row.settings, secrets),
    id: row.id,
    name: row.name,
    driver: row.driver,
    payload_format: row.payload_format as PayloadFormat,
    index: row.index_name,
    enabled: row.enabled,
  };
}
