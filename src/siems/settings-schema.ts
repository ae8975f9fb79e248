// How a SIEM kind declares its settings: one TypeBox object per kind, the single source for
// validation (settings-validator.ts), the API's OpenAPI document and the console's forms. Three
// markers carry what JSON Schema alone does not say the way we need it:
// - a required setting is a plain property; an optional one is Type.Optional and reads as null
//   when unset;
// - Defaulted(schema, value): optional, and reads as `value` when unset (the type says so too);
// - Secret(schema): write-only (`writeOnly: true`, which OpenAPI and forms understand): stored
//   encrypted, never returned; a read lists it in `secrets_set`.
// A nested Type.Optional(Type.Object(...)) is a group of settings (SIEM Q's `siem_q`), null when
// unset; its secrets are named `group.field`.

import { type Static, type TObject, type TOptional, type TProperties, type TSchema, Type } from 'typebox';

/** A setting that reads as its default when unset. */
export type TDefaulted<T extends TSchema, V> = TOptional<T> & { readonly default: V };

/** An optional setting with a default value (what a read shows when it was never set). */
export function Defaulted<T extends TSchema>(schema: T, value: Static<T>): TDefaulted<T, Static<T>> {
  return Type.Optional({ ...schema, default: value } as T) as TDefaulted<T, Static<T>>;
}

/** A write-only setting: stored encrypted, never returned. */
export function Secret<T extends TSchema>(schema: T): T {
  return { ...schema, writeOnly: true } as T;
}

/**
 * The settings of a destination of a kind as its client reads them: every setting present, unset
 * optional ones null, defaulted ones their default, groups null or resolved in turn.
 */
export type ResolvedSettings<P extends TProperties> = {
  readonly [K in keyof P]: P[K] extends { readonly default: unknown }
    ? Static<P[K]>
    : P[K] extends TOptional<infer O extends TObject>
      ? ResolvedSettings<O['properties']> | null
      : P[K] extends TOptional<TSchema>
        ? Static<P[K]> | null
        : Static<P[K]>;
};

/** True for a write-only (secret) setting. */
export function isSecret(schema: TSchema): boolean {
  return (schema as { writeOnly?: unknown }).writeOnly === true;
}

/** True for a group of settings (a nested object). */
export function isGroup(schema: TSchema): schema is TObject {
  return Type.IsObject(schema);
}

/** The value a setting reads as when unset: its default, else null. */
export function unsetValue(schema: TSchema): unknown {
  const value = (schema as { default?: unknown }).default;
  return value === undefined ? null : value;
}

/** Names of the secret settings of a schema, groups' as `group.field`, in schema order. */
export function secretPaths(schema: TObject, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
    if (isSecret(property)) out.push(`${prefix}${key}`);
    else if (isGroup(property)) out.push(...secretPaths(property, `${prefix}${key}.`));
  }
  return out;
}
