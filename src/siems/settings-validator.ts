import { Ajv, type ErrorObject } from 'ajv';
import type { TObject } from 'typebox';
import { SETTING_FORMATS } from './settings-formats.ts';

/** Checks settings against a kind's schema; answers the problems by field (`siem_q.console_url`). */
export type SettingsValidator = (settings: Readonly<Record<string, unknown>>) => Record<string, string>;

/**
 * A validator for `schema` (ajv, every error at once, no coercion, no defaults written). Unknown
 * settings are named with `unknown` (e.g. "is not a setting of driver syslog_tcp"); nested ones
 * with "is not a known setting".
 */
export function createSettingsValidator(schema: TObject, unknown: string): SettingsValidator {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: false,
    useDefaults: false,
    verbose: true,
  });
  for (const [name, format] of Object.entries(SETTING_FORMATS)) {
    ajv.addFormat(name, { type: 'string', validate: (value: string) => format.problem(value) === undefined });
  }
  const validate = ajv.compile(closed(schema) as object);
  return (settings) => {
    if (validate(settings)) return {};
    const problems: Record<string, string> = {};
    for (const error of validate.errors ?? []) {
      const [path, problem] = describe(error, settings, unknown);
      problems[path] ??= problem;
    }
    return problems;
  };
}

/** The field an ajv error concerns and a sentence about it. */
function describe(
  error: ErrorObject,
  settings: Readonly<Record<string, unknown>>,
  unknown: string,
): [string, string] {
  const base = error.instancePath.split('/').filter(Boolean).join('.');
  const at = (name: string) => (base === '' ? name : `${base}.${name}`);
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return [at(String(params.missingProperty)), 'is required'];
    case 'additionalProperties':
      return [at(String(params.additionalProperty)), base === '' ? unknown : 'is not a known setting'];
    case 'format': {
      const value = valueAt(settings, base);
      const problem =
        typeof value === 'string' ? SETTING_FORMATS[String(params.format)]?.problem(value) : undefined;
      return [base, problem ?? `must be a ${String(params.format)}`];
    }
    case 'enum':
      return [base, `must be one of ${(params.allowedValues as unknown[]).join(', ')}`];
    case 'type':
      return [base, typeProblem(String(params.type), schema)];
    case 'minimum':
    case 'maximum':
      return [base, typeProblem(String(schema.type), schema)];
    case 'maxLength':
      return [base, `must be at most ${String(params.limit)} characters`];
    case 'minLength':
      return [
        base,
        Number(params.limit) === 1
          ? 'must not be empty'
          : `must be at least ${String(params.limit)} characters`,
      ];
    default:
      return [base, error.message ?? 'is not valid'];
  }
}

/** The schema with every object closed to settings it does not declare. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = closed(value);
  if (out.type === 'object' && out.properties !== undefined) out.additionalProperties = false;
  return out;
}

function typeProblem(type: string, schema: Record<string, unknown>): string {
  switch (type) {
    case 'boolean':
      return 'must be true or false';
    case 'integer':
      return typeof schema.minimum === 'number' && typeof schema.maximum === 'number'
        ? `must be an integer from ${schema.minimum} to ${schema.maximum}`
        : 'must be an integer';
    case 'object':
      return 'must be an object';
    default:
      return `must be a ${type}`;
  }
}

function valueAt(settings: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = settings;
  for (const part of path.split('.').filter(Boolean))
    value = (value as Record<string, unknown> | null)?.[part];
  return value;
}
