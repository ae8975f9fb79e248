import type { Migration } from 'kysely/migration';
import * as m0001 from './0001-foundation.ts';
import * as m0002 from './0002-noise.ts';

/** Every migration, in order. Names are stable: never rename one that has shipped. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-noise': m0002,
};
