import { Type } from 'typebox';

/** decisions.md §3 error body, for OpenAPI. */
export const ErrorBody = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ description: 'snake_case machine code' }),
      message: Type.String({ description: 'for a person' }),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
  },
  { $id: 'ErrorBody', description: 'Every non-2xx JSON response' },
);

const ref = Type.Unsafe<unknown>({ $ref: 'ErrorBody#' });

/** Response map entries for the given error statuses (all share the ErrorBody schema). */
export function errors(...statuses: number[]): Record<number, typeof ref> {
  return Object.fromEntries(statuses.map((s) => [s, ref]));
}

export const OkBody = Type.Object({ ok: Type.Literal(true) });

/** An id in the path; text that is no UUID names nothing and answers 404, not 400 (decisions.md §3). */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) });
