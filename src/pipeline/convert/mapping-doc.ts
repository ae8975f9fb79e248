import { readFileSync, writeFileSync } from 'node:fs';
import { HEADER_MAPPING, LEEF_ECS_MAPPING } from './leef-ecs-mapping.ts';

/** Marker opening the generated part of docs/leef-ecs-mapping.md. */
export const TABLE_START = '<!-- generated from src/pipeline/convert/leef-ecs-mapping.ts: start -->';
/** Marker closing the generated part. */
export const TABLE_END = '<!-- generated: end -->';

/** The mapping tables as Markdown, generated from the code tables so the document cannot drift. */
export function renderMappingTables(): string {
  const lines = ['### Attributes', '', '| LEEF key | ECS field(s) | Value | Notes |', '|---|---|---|---|'];
  for (const row of LEEF_ECS_MAPPING) {
    const notes = [
      row.alias === true ? `used only when \`${primaryKey(row.ecs[0]!)}\` is absent` : '',
      row.note ?? '',
    ]
      .filter((n) => n !== '')
      .join('; ');
    lines.push(
      `| \`${row.leef}\` | ${row.ecs.map((f) => `\`${f}\``).join(', ')} | ${row.codec.name} | ${notes} |`,
    );
  }
  lines.push('', '### Header, time and other keys', '', '| LEEF | ECS | Notes |', '|---|---|---|');
  for (const row of HEADER_MAPPING) lines.push(`| ${row.leef} | \`${row.ecs}\` | ${row.note} |`);
  return lines.join('\n');
}

/** Replaces the generated part of the document with the current tables. */
export function updateMappingDoc(markdown: string): string {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('mapping document has no generated section markers');
  return `${markdown.slice(0, start + TABLE_START.length)}\n${renderMappingTables()}\n${markdown.slice(end)}`;
}

function primaryKey(field: string): string {
  return LEEF_ECS_MAPPING.find((row) => row.ecs[0] === field && row.alias !== true)?.leef ?? field;
}

// `npx node src/pipeline/convert/mapping-doc.ts` regenerates the document after a table change.
if (import.meta.main) {
  const file = new URL('../../../docs/leef-ecs-mapping.md', import.meta.url);
  writeFileSync(file, updateMappingDoc(readFileSync(file, 'utf8')));
}
