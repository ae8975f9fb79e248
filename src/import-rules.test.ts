import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../test/helpers/test-app.ts';

const require = createRequire(import.meta.url);
const rules = require('../.dependency-cruiser.cjs') as { forbidden: unknown[] };

/** Writes `files` (path → source) under a fresh folder laid out like the project. */
function tree(files: Record<string, string>): string {
  const root = testTempDir('import-rules-');
  for (const [name, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), source);
  }
  return root;
}

/** The rules `npm run lint` enforces, applied to a tree: `rule name: from → to` per violation. */
async function violations(root: string): Promise<string[]> {
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const result = await cruise(['src'], {
      validate: true,
      ruleSet: { forbidden: rules.forbidden } as never,
      tsPreCompilationDeps: true,
      enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    });
    const output = result.output as ICruiseResult;
    return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  } finally {
    process.chdir(cwd);
  }
}

describe('import rules (lint)', () => {
  it('fail on each kind of deliberate violation', async () => {
    const root = tree({
      'src/db/schema.ts': 'export type Row = { id: string };\n',
      'src/http/app.ts': "import 'fastify';\nexport const app = 1;\n",
      'src/pipeline/leef/leaky.ts': "import type { Row } from '../../db/schema.ts';\nexport type R = Row;\n",
      'src/pipeline/leef/query.ts': "import { Kysely } from 'kysely';\nexport const q = Kysely;\n",
      'src/pipeline/leef/fine.ts': "import { AppError } from '../../errors.ts';\nexport { AppError };\n",
      'src/errors.ts': 'export class AppError extends Error {}\n',
      'src/siems/acme/acme-kind.ts': "import { app } from '../../http/app.ts';\nexport const kind = app;\n",
      'src/noise/noise-service.ts': "import Fastify from 'fastify';\nexport const f = Fastify;\n",
      'src/noise/noise.routes.ts': "import Fastify from 'fastify';\nexport const r = Fastify;\n",
      'src/siems/acme/acme-admin.ts': "import { ctx } from '../../context.ts';\nexport const admin = ctx;\n",
      'src/context.ts': 'export const ctx = 1;\n',
      'src/shipping/ship.ts': "import { jobs } from '../noise/jobs.ts';\nexport const s = jobs;\n",
      'src/noise/jobs.ts': 'export const jobs = 1;\n',
      'src/noise/uses-sim.ts': "import { sim } from '../../test/simulators/sim.ts';\nexport const u = sim;\n",
      'test/simulators/sim.ts': 'export const sim = 1;\n',
      'src/users/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
      'src/users/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
    });
    expect(await violations(root)).toEqual([
      // The temporary tree resolves Fastify from the project's node_modules.
      expect.stringMatching(
        /^fastify-only-in-routes-and-http: src\/noise\/noise-service\.ts → .*node_modules\/fastify\//,
      ),
      expect.stringMatching(/^no-cycles: src\/users\/[ab]\.ts → src\/users\/[ab]\.ts$/),
      'no-test-code-in-src: src/noise/uses-sim.ts → test/simulators/sim.ts',
      'pipeline-is-pure: src/pipeline/leef/leaky.ts → src/db/schema.ts',
      expect.stringMatching(/^pipeline-is-pure: src\/pipeline\/leef\/query\.ts → .*node_modules\/kysely\//),
      'shipping-is-the-send-side: src/shipping/ship.ts → src/noise/jobs.ts',
      'siem-kinds-talk-to-siems-only: src/siems/acme/acme-admin.ts → src/context.ts',
      'siem-kinds-talk-to-siems-only: src/siems/acme/acme-kind.ts → src/http/app.ts',
    ]);
  });

  it('pass on a tree that keeps them', async () => {
    const root = tree({
      'src/errors.ts': 'export class AppError extends Error {}\n',
      'src/pipeline/leef/parse.ts':
        "import { AppError } from '../../errors.ts';\nexport const p = AppError;\n",
      'src/siems/acme/acme-kind.ts':
        "import { p } from '../../pipeline/leef/parse.ts';\nexport const k = p;\n",
      'src/noise/noise.routes.ts':
        "import Fastify from 'fastify';\nimport { k } from '../siems/acme/acme-kind.ts';\nexport const r = [Fastify, k];\n",
    });
    expect(await violations(root)).toEqual([]);
  });
});
