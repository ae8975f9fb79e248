import type { paths } from '../../api/schema.gen.ts';

/** One SIEM kind as GET /api/siem-kinds lists it. */
export type SiemKind =
  paths['/api/siem-kinds']['get']['responses'][200]['content']['application/json'][number];

/** A destination as the API shows it (settings without secrets, plus secrets_set). */
export type DestinationView =
  paths['/api/destinations/{name}']['get']['responses'][200]['content']['application/json'];

/** POST /api/destinations body. */
export type CreateBody = paths['/api/destinations']['post']['requestBody']['content']['application/json'];

/** PATCH /api/destinations/:name body. */
export type PatchBody =
  paths['/api/destinations/{name}']['patch']['requestBody']['content']['application/json'];

/** POST /api/destinations/:name/test answer. */
export type CheckResult =
  paths['/api/destinations/{name}/test']['post']['responses'][200]['content']['application/json'];

/** A platform-status component (the SIEM ones are `siem:<name>`). */
export type StatusComponent =
  paths['/api/platform-status']['get']['responses'][200]['content']['application/json']['components'][number];
