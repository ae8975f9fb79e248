import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LEEF_ECS_MAPPING } from './leef-ecs-mapping.ts';
import { renderMappingTables, updateMappingDoc } from './mapping-doc.ts';

describe('docs/leef-ecs-mapping.md', () => {
  const doc = readFileSync(new URL('../../../docs/leef-ecs-mapping.md', import.meta.url), 'utf8');

  // Compares cell contents: the formatter pads Markdown tables, which changes nothing they say.
  const cells = (markdown: string) =>
    markdown
      .split('\n')
      .map((line) =>
        line.startsWith('|')
          ? line
              .split('|')
              .map((cell) => cell.trim().replace(/^-+$/, '-'))
              .join('|')
          : line,
      )
      .join('\n');

  it('holds the tables generated from the code (run `npx node src/pipeline/convert/mapping-doc.ts`)', () => {
    expect(cells(doc)).toBe(cells(updateMappingDoc(doc)));
  });

  it('lists every row of the table', () => {
    const tables = renderMappingTables();
    for (const row of LEEF_ECS_MAPPING) expect(tables).toContain(`| \`${row.leef}\` |`);
  });
});
