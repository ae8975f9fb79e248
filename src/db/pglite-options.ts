import type { PGliteOptions } from '@electric-sql/pglite';

// PGlite's Postgres runs inside the service's process, so its memory settings are the service's.
// With PGlite's defaults (shared_buffers=128MB, and initdb's for a new data dir) the service idled
// at 1,010-1,070 MiB. These sizes suit one embedded lab database: the buffer pool holds its working
// set many times over, and sorts or hashes above work_mem spill to files as in any Postgres.
// Figures and the command: docs/performance.md, "Memory".
const PGLITE_CONF = [
  'shared_buffers=16MB',
  'work_mem=1MB',
  'maintenance_work_mem=8MB',
  'wal_buffers=1MB',
  'temp_buffers=1MB',
];

/** Options every PGlite data dir of the service is created and opened with. */
export const PGLITE_OPTIONS: PGliteOptions = {
  postgresqlconf: PGLITE_CONF,
  // initdb's bootstrap backends for a new data dir run with these too (else 128MB of buffers).
  initDbStartParams: PGLITE_CONF.flatMap((setting) => ['-c', setting]),
};
