// PostgreSQL refuses some text that JavaScript strings hold: `text` columns refuse U+0000, and
// `jsonb` refuses "\u0000" and unpaired UTF-16 surrogates. Requests are held to the text rules
// (src/http/text-rules.ts), but SIEM answers, archive entry names and error messages reach the
// audit log and run rows too; one refused value there loses the whole record.

/** `text` as PostgreSQL stores it unchanged: NUL and lone surrogates become U+FFFD. */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD').toWellFormed();
}

/** A JSON value (record details) with every string and key made storable. */
export function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[storableText(key)] = storableJson(item);
  return out;
}

/** `text` or null, storable. */
export function storableOrNull(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : storableText(text);
}
