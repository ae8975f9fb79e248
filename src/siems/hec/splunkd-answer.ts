import { clip } from '../shared/siem-message.ts';

/** The text of splunkd's `{"messages":[{"type","text"}]}` error body, or a clipped raw body. */
export function splunkdMessages(body: string): string {
  try {
    const json = JSON.parse(body) as { messages?: Array<{ type?: unknown; text?: unknown }> };
    const texts = (json.messages ?? [])
      .filter((m) => typeof m.text === 'string')
      .map((m) => (typeof m.type === 'string' ? `${m.type} ${m.text as string}` : (m.text as string)));
    if (texts.length > 0) return clip(texts.join('; '));
  } catch {
    // Not JSON (XML from an endpoint that ignored output_mode, or a proxy page).
  }
  return clip(body, 200);
}

/** `entry[0].content` of a splunkd JSON feed, or undefined. */
export function firstEntryContent(body: string): Record<string, unknown> | undefined {
  try {
    const json = JSON.parse(body) as { entry?: Array<{ content?: unknown }> };
    const content = json.entry?.[0]?.content;
    return typeof content === 'object' && content !== null ? (content as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Deleted count of `| delete` results: the row of `index`, else the `__ALL__` total, else 0 when
 * the search produced no rows (nothing matched). Undefined when the body cannot be read.
 */
export function deletedCount(body: string, index: string): { deleted: number; errors: number } | undefined {
  if (body.trim() === '') return { deleted: 0, errors: 0 };
  let rows: Array<Record<string, unknown>>;
  try {
    const json = JSON.parse(body) as { results?: unknown };
    if (!Array.isArray(json.results)) return undefined;
    rows = json.results as Array<Record<string, unknown>>;
  } catch {
    return undefined;
  }
  const row = rows.find((r) => r.index === index) ?? rows.find((r) => r.index === '__ALL__');
  if (!row) return { deleted: 0, errors: 0 };
  const deleted = Number(row.deleted ?? 0);
  const errors = Number(row.errors ?? 0);
  if (!Number.isFinite(deleted)) return undefined;
  return { deleted, errors: Number.isFinite(errors) ? errors : 0 };
}
