import type { paths } from '../../api/schema.gen.ts';

type Json200<T> = T extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

/** An object of the noise-archives bucket (GET /api/noise/archives). */
export type ArchiveRow = Json200<paths['/api/noise/archives']['get']>[number];
/** A noise job as reads return it. */
export type Job = Json200<paths['/api/noise/jobs']['get']>[number];
/** POST /api/noise/jobs body. */
export type JobCreateBody = paths['/api/noise/jobs']['post']['requestBody']['content']['application/json'];
/** One run row (GET /api/noise/runs). */
export type Run = Json200<paths['/api/noise/runs']['get']>[number];
/** Run statuses. */
export type RunStatus = Run['status'];
/** A SIEM as GET /api/siems lists it (name, kind, default index and abilities; no settings). */
export type Siem = Json200<paths['/api/siems']['get']>[number];
/** Where an archive's events go on each target. */
export type IndexMode = 'default' | 'existing' | 'new';
export const INDEX_MODES: readonly IndexMode[] = ['default', 'existing', 'new'];
