// Destination settings against a SIEM kind's schema (siems/settings-schema.ts): merging a create or
// a partial update into what is stored, and resolving stored settings for reads and clients.

import type { TObject, TSchema } from 'typebox';
import { isGroup, isSecret, unsetValue } from '../siems/settings-schema.ts';

/** Secret values by field path (`token`, `siem_q.token`). */
export type Secrets = Record<string, string>;
type Settings = Record<string, unknown>;

/**
 * Merges `input` into `current` settings of a kind's `schema`: an absent field keeps its value,
 * `null` unsets it (it reads as its default; a secret is cleared; a group is removed with its
 * secrets), and a secret given as "" keeps the stored one. Secrets go to `secrets`, the rest is
 * returned (unset fields left out). Fields the schema does not know are named in `bad`.
 */
export function mergeSettings(
  schema: TObject,
  input: Readonly<Settings>,
  current: Readonly<Settings>,
  secrets: Secrets,
  bad: Record<string, string>,
  prefix = '',
): Settings {
  const properties = schema.properties as Record<string, TSchema>;
  const out: Settings = {};
  if (prefix !== '') {
    for (const key of Object.keys(input))
      if (!(key in properties)) bad[`${prefix}${key}`] = 'is not a known setting';
  }
  for (const [key, property] of Object.entries(properties)) {
    const path = `${prefix}${key}`;
    const given = input[key];
    if (isSecret(property)) {
      if (given === null) delete secrets[path];
      // A non-string is kept for the schema check to name; nothing is saved when it fails.
      else if (given !== undefined && given !== '') secrets[path] = given as string;
      continue;
    }
    const stored = current[key];
    if (isGroup(property)) {
      if (given === null) {
        for (const name of Object.keys(secrets)) if (name.startsWith(`${path}.`)) delete secrets[name];
      } else if (given === undefined) {
        if (stored !== null && stored !== undefined) out[key] = stored;
      } else if (typeof given !== 'object' || Array.isArray(given)) {
        bad[path] = 'must be an object';
      } else {
        const base = typeof stored === 'object' && stored !== null ? (stored as Settings) : {};
        out[key] = mergeSettings(property, given as Settings, base, secrets, bad, `${path}.`);
      }
      continue;
    }
    if (given === undefined) {
      if (stored !== null && stored !== undefined) out[key] = stored;
    } else if (given !== null) out[key] = given;
  }
  return out;
}

/** Settings with their secrets put back in place: what the schema validates. */
export function withSecrets(
  schema: TObject,
  settings: Readonly<Settings>,
  secrets: Secrets,
  prefix = '',
): Settings {
  const out: Settings = {};
  for (const [key, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
    const path = `${prefix}${key}`;
    if (isSecret(property)) {
      if (secrets[path] !== undefined) out[key] = secrets[path];
    } else if (isGroup(property)) {
      const group = settings[key];
      if (typeof group === 'object' && group !== null)
        out[key] = withSecrets(property, group as Settings, secrets, `${path}.`);
    } else if (settings[key] !== undefined && settings[key] !== null) out[key] = settings[key];
  }
  return out;
}

/**
 * Every setting of the schema as a client reads it: unset ones as their default or null, groups
 * resolved or null, secrets from `secrets` (or left out when `secrets` is null: what reads show).
 */
export function resolveSettings(
  schema: TObject,
  stored: Readonly<Settings>,
  secrets: Secrets | null,
  prefix = '',
): Settings {
  const out: Settings = {};
  for (const [key, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
    const path = `${prefix}${key}`;
    if (isSecret(property)) {
      if (secrets !== null) out[key] = secrets[path] ?? null;
    } else if (isGroup(property)) {
      const group = stored[key];
      out[key] =
        typeof group === 'object' && group !== null
          ? resolveSettings(property, group as Settings, secrets, `${path}.`)
          : null;
    } else {
      const value = stored[key];
      out[key] = value === undefined || value === null ? unsetValue(property) : value;
    }
  }
  return out;
}
