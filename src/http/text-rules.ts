import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * The schema keyword that marks a string field as multi-line text (a PEM bundle): it may hold
 * tab, line feed and carriage return. Every other string a request carries may not.
 */
export const MULTILINE = 'x-multiline';

type TextMode = 'line' | 'multiline';

// C0 controls, DEL and C1 controls. PostgreSQL refuses U+0000 in text outright (a 500 before this
// rule existed), and the others in a name, an e-mail, an id or a query value are at best invisible
// and at worst split a log line or a syslog frame further down.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * Why `text` may not be stored, or undefined when it may: a control character (where `mode` is
 * `multiline`, tab, LF and CR are allowed) or a lone UTF-16 surrogate (PostgreSQL would store it
 * as U+FFFD, so what is read back differs from what was sent).
 */
export function textProblem(text: string, mode: TextMode): string | undefined {
  const control = (mode === 'multiline' ? CONTROL_BUT_LINE_BREAKS : CONTROL).exec(text);
  if (control !== null) {
    const code = (control[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
    return `must not contain control characters (U+${code} at position ${control.index})`;
  }
  if (!text.isWellFormed()) {
    return `must be well-formed Unicode (a lone surrogate at position ${loneSurrogateAt(text)})`;
  }
  return undefined;
}

function loneSurrogateAt(text: string): number {
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
      else return i;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return i;
  }
  return -1;
}

/**
 * A preValidation hook for every route: the one place where the strings of a request's path
 * parameters, query and JSON body are held to the text rules, whatever the route's schema says
 * (records, free-form objects and bodies a service validates itself included). The first part with
 * a problem answers 400 naming each bad field, in the shape of a schema validation error.
 */
export function createTextRulesHook(): (request: FastifyRequest) => Promise<void> {
  // Multi-line fields per body schema, computed once per route.
  const bodies = new WeakMap<object, Set<string>>();
  const multilineOf = (schema: unknown): Set<string> => {
    if (typeof schema !== 'object' || schema === null) return new Set();
    let paths = bodies.get(schema);
    if (paths === undefined) {
      paths = multilinePaths(schema);
      bodies.set(schema, paths);
    }
    return paths;
  };
  return async (request) => {
    const parts = [
      ['params', request.params, undefined],
      ['querystring', request.query, undefined],
      ['body', request.body, request.routeOptions.schema?.body],
    ] as const;
    for (const [part, data, schema] of parts) {
      let fields = textProblems(data, multilineOf(schema));
      // A wildcard parameter (`*`) is named by its schema's title, as its route names it.
      if (part === 'params') fields = titled(fields, request.routeOptions.schema?.params);
      const names = Object.keys(fields);
      if (names.length === 0) continue;
      throw new AppError('invalid_input', `Invalid ${part}: ${names.join(', ')}`, {
        details: { in: part, fields },
      });
    }
  };
}

function titled(fields: Record<string, string>, schema: unknown): Record<string, string> {
  const properties = (schema as { properties?: Record<string, { title?: unknown }> } | undefined)?.properties;
  const out: Record<string, string> = {};
  for (const [name, problem] of Object.entries(fields)) {
    const title = properties?.[name]?.title;
    out[typeof title === 'string' ? title : name] = problem;
  }
  return out;
}

/**
 * The dotted paths of `schema` (a route's body schema) whose strings are multi-line text, through
 * unions and nested objects; `*` stands for any array index or record key.
 */
export function multilinePaths(schema: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (typeof schema !== 'object' || schema === null) return out;
  const node = schema as Record<string, unknown>;
  if (node[MULTILINE] === true) out.add(prefix);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches)) for (const branch of branches) multilinePaths(branch, prefix, out);
  }
  const join = (name: string) => (prefix === '' ? name : `${prefix}.${name}`);
  if (typeof node.properties === 'object' && node.properties !== null) {
    for (const [name, property] of Object.entries(node.properties)) multilinePaths(property, join(name), out);
  }
  if (typeof node.patternProperties === 'object' && node.patternProperties !== null) {
    for (const property of Object.values(node.patternProperties)) multilinePaths(property, join('*'), out);
  }
  if (typeof node.additionalProperties === 'object')
    multilinePaths(node.additionalProperties, join('*'), out);
  if (typeof node.items === 'object') multilinePaths(node.items, join('*'), out);
  return out;
}

/**
 * Every string in `data` (and every object key) that breaks the text rules, by dotted path
 * (`settings.token`, `siem.0`). Strings at a path in `multiline` may hold line breaks. Anything that
 * is not a plain JSON value (an upload's Buffer or stream) is not text and is left alone.
 */
export function textProblems(
  data: unknown,
  multiline: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const patterns = [...multiline].map((path) => path.split('.'));
  const problems: Record<string, string> = {};
  walk(data, [], patterns, problems);
  return problems;
}

function walk(data: unknown, path: string[], multiline: string[][], problems: Record<string, string>): void {
  if (typeof data === 'string') {
    const mode = multiline.some((pattern) => matches(pattern, path)) ? 'multiline' : 'line';
    const problem = textProblem(data, mode);
    if (problem !== undefined) problems[path.length === 0 ? '(root)' : path.join('.')] = problem;
    return;
  }
  if (Array.isArray(data)) {
    for (const [i, item] of data.entries()) walk(item, [...path, String(i)], multiline, problems);
    return;
  }
  if (typeof data !== 'object' || data === null || !isJsonObject(data)) return;
  for (const [key, value] of Object.entries(data)) {
    const keyProblem = textProblem(key, 'line');
    if (keyProblem === undefined) {
      walk(value, [...path, key], multiline, problems);
      continue;
    }
    // The key itself is bad: it is named escaped, so the answer does not carry its characters.
    const escaped = JSON.stringify(key).slice(1, -1);
    problems[[...path, escaped].join('.')] = `field name ${keyProblem}`;
  }
}

/** A parsed JSON or query object, not an upload (a Buffer, a typed array, a stream). */
function isJsonObject(data: object): boolean {
  if (ArrayBuffer.isView(data) || data instanceof ArrayBuffer) return false;
  return typeof (data as { pipe?: unknown }).pipe !== 'function';
}

/** Whether a data path (`items.3.pem`) fits a schema path (`items.*.pem`). */
function matches(pattern: readonly string[], path: readonly string[]): boolean {
  return pattern.length === path.length && pattern.every((part, i) => part === '*' || part === path[i]);
}
