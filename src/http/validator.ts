import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

type AddFormats = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS; its default export arrives wrapped under native ESM.
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/**
 * Schema validation for every route. Bodies are validated without type coercion: with coercion a
 * JSON `null` sent to clear a setting would silently become `""` or `false`. Query strings, params
 * and headers arrive as text, so they are coerced (and repeated query keys become arrays).
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strictAjv = new Ajv({ ...common, coerceTypes: false });
  const coercingAjv = new Ajv({ ...common, coerceTypes: 'array' });
  addFormats(strictAjv);
  addFormats(coercingAjv);
  return ({ schema, httpPart }) => (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema as object);
}
