import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/helpers/test-app.ts';
import { createPgliteDataDir, pgliteTemplateDir } from './pglite-template.ts';

// A project root with PGlite's package.json only (its version names the template).
function fakeRoot(version: string): string {
  const root = testTempDir('root-');
  mkdirSync(path.join(root, 'node_modules/@electric-sql/pglite'), { recursive: true });
  writeFileSync(
    path.join(root, 'node_modules/@electric-sql/pglite/package.json'),
    JSON.stringify({ version }),
  );
  return root;
}

describe('the template data dir', () => {
  it('is named after the PGlite version, so an upgrade never reuses a data dir another Postgres wrote', () => {
    const a = pgliteTemplateDir(fakeRoot('0.5.16'));
    const b = pgliteTemplateDir(fakeRoot('0.6.0'));
    expect(path.basename(a)).toMatch(/^pglite-0\.5\.16-[0-9a-f]{12}$/);
    expect(path.basename(b)).toMatch(/^pglite-0\.6\.0-/);
    expect(a).toContain(path.join('node_modules', '.cache', 'socdrill'));
  });

  it('is copied for a new data dir, leaving nothing half-made beside it', async () => {
    const root = fakeRoot('9.9.9');
    const template = pgliteTemplateDir(root);
    mkdirSync(path.join(template, 'base'), { recursive: true });
    writeFileSync(path.join(template, 'PG_VERSION'), '18\n');
    writeFileSync(path.join(template, 'base', 'marker'), 'from the template');
    const target = path.join(testTempDir('data-'), 'pgdata');

    expect(await createPgliteDataDir(target, root)).toBe('template');
    expect(readFileSync(path.join(target, 'base', 'marker'), 'utf8')).toBe('from the template');
    expect(existsSync(`${target}.copy`)).toBe(false);
    expect(existsSync(path.join(template, 'base', 'marker'))).toBe(true);
  });
});
