import type { Migration } from 'kysely/migration';
import * as m0001 from './0001-foundation.ts';
import * as m0002 from './0002-noise.ts';
import * as m0003 from './0003-run-totals.ts';
import * as m0004 from './0004-object-storage.ts';
import * as m0005 from './0005-exercises.ts';
import * as m0006 from './0006-log-sources.ts';

/** Every migration, in order. Names are stable: never rename one that has shipped. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-noise': m0002,
  '0003-run-totals': m0003,
  '0004-object-storage': m0004,
  '0005-exercises': m0005,
  '0006-log-sources': m0006,
};
