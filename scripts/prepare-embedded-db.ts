// `npm start` runs this first: it makes the installation's template PGlite data dir once (initdb
// in its own short-lived process), so the service's first start on a new DATA_DIR copies files
// instead of running initdb beside it (src/db/pglite-template.ts). A no-op when the template
// exists or when DATABASE_URL names a PostgreSQL server.
import { ensurePgliteTemplate, pgliteTemplateDir } from '../src/db/pglite-template.ts';

if (import.meta.main && !process.env.DATABASE_URL) {
  if (await ensurePgliteTemplate()) {
    process.stdout.write(`Prepared the embedded database template (${pgliteTemplateDir()}).\n`);
  }
}
