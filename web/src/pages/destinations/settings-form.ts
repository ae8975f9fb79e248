// From a SIEM kind (GET /api/siem-kinds) to a destination form, and from the form's values to a
// request body (POST /api/destinations, PATCH /api/destinations/:name). Pure: no React, no fetch.
//
// A kind's settings are a JSON Schema object (src/siems/settings-schema.ts): a required setting is
// listed in `required`; `default` is what an unset one reads as; `writeOnly: true` marks a secret
// (also named in the kind's `secret_fields`, groups' as `group.field`); `x-multiline` marks text
// with line breaks (a CA bundle); a nested object is a group of settings (SIEM Q's `siem_q`), null
// when unset.

/** What this module reads of a kind, as GET /api/siem-kinds lists it. */
export interface KindInfo {
  readonly name: string;
  readonly title: string;
  readonly payload_formats: readonly string[];
  readonly capabilities: { readonly indexes: string; readonly wipe: boolean };
  readonly secret_fields: readonly string[];
  readonly settings: Readonly<Record<string, unknown>>;
}

/** How a field is entered. */
export type FieldType = 'string' | 'multiline' | 'number' | 'integer' | 'boolean' | 'enum';

/** One input of the form. */
export interface FormField {
  /** Name in the request body and in `details.fields` of a 400: `token`, `siem_q.console_url`. */
  readonly path: string;
  readonly label: string;
  readonly type: FieldType;
  /** Required (inside a group: required when the group is used). */
  readonly required: boolean;
  /** Write-only: never shown, sent only when typed. */
  readonly secret: boolean;
  readonly description?: string;
  /** What the field reads as when left empty. */
  readonly defaultValue?: string | number | boolean;
  /** Choices of an `enum` field. */
  readonly options?: readonly string[];
}

/** Fields shown together: the top level (path "") or one group of settings. */
export interface FormSection {
  /** "" for the top level, else the group's name (`siem_q`). */
  readonly path: string;
  readonly label: string;
  readonly description?: string;
  readonly fields: readonly FormField[];
}

/** A kind's form: its sections, and settings the form cannot edit (types it does not render). */
export interface FormModel {
  readonly kind: string;
  readonly sections: readonly FormSection[];
  readonly unsupported: readonly string[];
}

/** The form's values by field path: text as typed, checkboxes as booleans. */
export type FormValues = Record<string, string | boolean>;

/** What an edit compares against. */
export interface EditBase {
  /** The values the form started with (initialValues of the stored destination). */
  readonly initial: FormValues;
  /** Secrets stored (the destination's `secrets_set`). */
  readonly secretsSet: readonly string[];
  /** Stored secrets the user chose to clear (sent as null). */
  readonly cleared?: readonly string[];
}

/** A request body, or the fields that could not be turned into one (by path). */
export interface BodyResult {
  readonly body: Record<string, unknown>;
  readonly errors: Record<string, string>;
}

type Schema = Readonly<Record<string, unknown>>;

const WORDS: Readonly<Record<string, string>> = {
  url: 'URL',
  urls: 'URLs',
  pem: 'PEM',
  tls: 'TLS',
  ca: 'CA',
  id: 'ID',
  api: 'API',
  siem: 'SIEM',
  q: 'Q',
  hec: 'HEC',
};

/** A person's label for a setting name: `management_url` → "Management URL". */
export function labelOf(name: string): string {
  const words = name.split('_').filter(Boolean);
  return words
    .map((word, i) => {
      const known = WORDS[word.toLowerCase()];
      if (known) return known;
      return i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word;
    })
    .join(' ');
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The choices of an enum schema (`enum`, or `anyOf` of `const`s), or undefined. */
function enumOptions(schema: Schema): string[] | undefined {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) {
    return schema.enum as string[];
  }
  const anyOf = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(anyOf) && anyOf.length > 0) {
    const values = anyOf.map((s) => (isObject(s) ? s.const : undefined));
    if (values.every((v) => typeof v === 'string')) return values as string[];
  }
  return undefined;
}

function fieldType(schema: Schema): FieldType | undefined {
  if (enumOptions(schema)) return 'enum';
  switch (schema.type) {
    case 'string':
      return schema['x-multiline'] === true ? 'multiline' : 'string';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'boolean';
    default:
      return undefined;
  }
}

function scalarDefault(value: unknown): string | number | boolean | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : undefined;
}

function toField(path: string, name: string, schema: Schema, required: boolean, secret: boolean) {
  const type = fieldType(schema);
  if (!type) return undefined;
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  const defaultValue = scalarDefault(schema.default);
  const options = enumOptions(schema);
  const field: FormField = {
    path,
    label: labelOf(name),
    type,
    required,
    secret,
    ...(description !== undefined ? { description } : {}),
    ...(defaultValue !== undefined ? { defaultValue } : {}),
    ...(options ? { options } : {}),
  };
  return field;
}

/**
 * The fields of a settings schema: the top-level section first, then one section per group, in
 * schema order. `secretFields` adds secrets the schema itself does not mark.
 */
export function fieldsFromSchema(schema: Schema, secretFields: readonly string[] = []): FormModel {
  const secrets = new Set(secretFields);
  const groups: FormSection[] = [];
  const unsupported: string[] = [];
  const walk = (object: Schema, prefix: string): FormField[] => {
    const properties = isObject(object.properties) ? object.properties : {};
    const required = new Set(Array.isArray(object.required) ? (object.required as string[]) : []);
    const fields: FormField[] = [];
    for (const [name, property] of Object.entries(properties)) {
      if (!isObject(property)) continue;
      const path = `${prefix}${name}`;
      if (property.type === 'object' && isObject(property.properties)) {
        if (prefix !== '') {
          unsupported.push(path);
          continue;
        }
        const description = typeof property.description === 'string' ? property.description : undefined;
        groups.push({
          path,
          label: labelOf(name),
          ...(description !== undefined ? { description } : {}),
          fields: walk(property, `${path}.`),
        });
        continue;
      }
      const field = toField(
        path,
        name,
        property,
        required.has(name),
        property.writeOnly === true || secrets.has(path),
      );
      if (field) fields.push(field);
      else unsupported.push(path);
    }
    return fields;
  };
  const top = walk(schema, '');
  // Groups after the top level, whatever their place in the schema.
  return { kind: '', sections: [{ path: '', label: 'Settings', fields: top }, ...groups], unsupported };
}

/**
 * The whole form of a kind: the fields every destination has (name on create, payload format,
 * index, enabled on create: the page toggles it), then the kind's settings.
 */
export function buildFormModel(kind: KindInfo, mode: 'create' | 'edit'): FormModel {
  const settings = fieldsFromSchema(kind.settings, kind.secret_fields);
  const [defaultFormat] = kind.payload_formats;
  const common: FormField[] = [];
  if (mode === 'create') {
    common.push({
      path: 'name',
      label: 'Name',
      type: 'string',
      required: true,
      secret: false,
      description: 'unique; 1-64 letters, digits, ., _ or -; used as `siem` in requests',
    });
  }
  common.push({
    path: 'payload_format',
    label: 'Payload format',
    type: 'enum',
    required: false,
    secret: false,
    options: kind.payload_formats,
    ...(defaultFormat !== undefined ? { defaultValue: defaultFormat } : {}),
  });
  if (kind.capabilities.indexes !== 'none') {
    common.push({
      path: 'index',
      label: 'Index',
      type: 'string',
      required: kind.capabilities.wipe,
      secret: false,
      description:
        kind.capabilities.indexes === 'native'
          ? `default index${kind.capabilities.wipe ? ' (events are written to and wiped from it)' : ''}`
          : 'default lab index, carried as labIndex= on every line',
    });
  }
  if (mode === 'create') {
    common.push({
      path: 'enabled',
      label: 'Enabled',
      type: 'boolean',
      required: false,
      secret: false,
      defaultValue: true,
    });
  }
  const [top, ...groups] = settings.sections;
  return {
    kind: kind.name,
    sections: [
      { path: '', label: 'Destination', fields: common },
      ...(top && top.fields.length > 0 ? [top] : []),
      ...groups,
    ],
    unsupported: settings.unsupported,
  };
}

/** Every field of a model, sections in order. */
export function allFields(model: FormModel): FormField[] {
  return model.sections.flatMap((s) => [...s.fields]);
}

function valueAt(source: Readonly<Record<string, unknown>>, path: string): unknown {
  let current: unknown = source;
  for (const part of path.split('.')) {
    if (!isObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

function booleanDefault(field: FormField): boolean {
  return typeof field.defaultValue === 'boolean' ? field.defaultValue : false;
}

/**
 * The values a form starts with: for a new destination empty text and checkboxes at their
 * defaults; for a stored one (a GET answer) its values, secrets always empty.
 */
export function initialValues(model: FormModel, stored?: Readonly<Record<string, unknown>>): FormValues {
  const values: FormValues = {};
  for (const field of allFields(model)) {
    const value = stored && !field.secret ? valueAt(stored, field.path) : undefined;
    if (field.type === 'boolean') {
      values[field.path] = typeof value === 'boolean' ? value : booleanDefault(field);
    } else if (typeof value === 'string' || typeof value === 'number') {
      values[field.path] = String(value);
    } else {
      values[field.path] = '';
    }
  }
  return values;
}

/** A typed number, or why it is not one. */
function parseNumber(text: string, integer: boolean): number | string {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value))
    return integer ? 'must be a whole number' : 'must be a number';
  if (integer && !Number.isInteger(value)) return 'must be a whole number';
  return value;
}

function isEmpty(field: FormField, value: string | boolean | undefined): boolean {
  if (field.type === 'boolean') return value === undefined || value === booleanDefault(field);
  return value === undefined || value === '';
}

/**
 * The request body of a form: for a create every filled field (empty ones left out, checkboxes
 * only when not at their default, secrets when typed); for an edit (`base` given) only what
 * changed (a field emptied is sent as null: back to its default), secrets when typed or cleared.
 * A group is left out when none of its fields is filled, and sent as null on an edit when it was
 * set before and every field is now empty. Numbers are parsed; a bad one is named in `errors`.
 */
export function toRequestBody(model: FormModel, values: FormValues, base?: EditBase): BodyResult {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  const cleared = new Set(base?.cleared ?? []);
  const secretsSet = new Set(base?.secretsSet ?? []);

  const parsedValue = (field: FormField): unknown => {
    const value = values[field.path];
    if (field.type === 'boolean') return value === true;
    const text = typeof value === 'string' ? value : '';
    if (field.type === 'number' || field.type === 'integer') {
      const parsed = parseNumber(text, field.type === 'integer');
      if (typeof parsed === 'string') {
        errors[field.path] = parsed;
        return undefined;
      }
      return parsed;
    }
    return text;
  };

  /** The fields of one section as body entries (keys without the group prefix). */
  const entries = (section: FormSection): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const field of section.fields) {
      const key = section.path === '' ? field.path : field.path.slice(section.path.length + 1);
      const value = values[field.path];
      if (field.secret) {
        if (typeof value === 'string' && value !== '') out[key] = value;
        else if (base && cleared.has(field.path)) out[key] = null;
        continue;
      }
      if (base) {
        if (value === base.initial[field.path]) continue;
        if (field.type !== 'boolean' && value === '') {
          out[key] = null;
          continue;
        }
      } else if (isEmpty(field, value)) {
        continue;
      }
      const parsed = parsedValue(field);
      if (parsed !== undefined) out[key] = parsed;
    }
    return out;
  };

  for (const section of model.sections) {
    if (section.path === '') {
      Object.assign(body, entries(section));
      continue;
    }
    const filled = section.fields.some((f) =>
      f.secret ? values[f.path] !== undefined && values[f.path] !== '' : !isEmpty(f, values[f.path]),
    );
    if (!filled) {
      const wasSet =
        base !== undefined &&
        section.fields.some((f) =>
          f.secret ? secretsSet.has(f.path) : f.type !== 'boolean' && (base.initial[f.path] ?? '') !== '',
        );
      if (wasSet) body[section.path] = null;
      continue;
    }
    const group = entries(section);
    if (Object.keys(group).length > 0) body[section.path] = group;
  }
  return { body, errors };
}
