import type { HttpDriverOptions } from '../shared/driver-options.ts';
import { plainIndexNameProblem } from '../shared/index-name.ts';
import { pairProblem } from '../shared/tls-settings.ts';
import { type AnySiemKind, defineSiemKind } from '../siem-kind.ts';
import { createBulkDriver } from './bulk-driver.ts';
import { BulkSettings } from './bulk-settings.ts';

/**
 * `vendorB_bulk`: an Elasticsearch 8+ or OpenSearch 2+ cluster (SIEM B). ECS documents through
 * `_bulk`; indexes created and wiped (delete-by-query) through the same API.
 */
export function bulkKind(options: HttpDriverOptions = {}): AnySiemKind {
  return defineSiemKind({
    name: 'vendorB_bulk',
    title: 'Elasticsearch / OpenSearch bulk (SIEM B)',
    settings: BulkSettings,
    payloadFormats: ['ecs'],
    intake: 'events',
    capabilities: {
      indexes: 'native',
      labelsIndex: true,
      indexCreation: true,
      wipe: true,
      sourceIdentity: false,
      logSources: false,
    },
    indexNameProblem: (name) => plainIndexNameProblem(name, { dots: true }),
    settingsProblems(settings) {
      const problems = pairProblem(settings, 'username', 'password');
      if (settings.api_key !== null && settings.username !== null)
        problems.api_key = 'use either api_key or username and password, not both';
      return problems;
    },
    create: (destination, deps) => createBulkDriver(destination, deps, options),
  });
}
