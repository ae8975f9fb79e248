// Creates a new PGlite data dir at the path given as argument, then exits (see create-db.ts).
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_OPTIONS } from './pglite-options.ts';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: pglite-initdb.ts <data dir>');
const pglite = await PGlite.create(dir, PGLITE_OPTIONS);
await pglite.close();
