import { plainIndexNameProblem } from '../shared/index-name.ts';
import { pairProblem } from '../shared/tls-settings.ts';
import { type AnySiemKind, defineSiemKind } from '../siem-kind.ts';
import { createHecDriver, type HecDriverOptions } from './hec-driver.ts';
import { HecSettings } from './hec-settings.ts';

/**
 * `vendorA_hec`: an HTTP Event Collector SIEM (SIEM A). Events go to the collector; indexes are
 * created and wiped (search | delete) through the management API.
 */
export function hecKind(options: HecDriverOptions = {}): AnySiemKind {
  return defineSiemKind({
    name: 'vendorA_hec',
    title: 'HTTP Event Collector (SIEM A)',
    settings: HecSettings,
    payloadFormats: ['leef', 'ecs'],
    intake: 'events',
    capabilities: {
      indexes: 'native',
      labelsIndex: false,
      indexCreation: true,
      wipe: true,
      sourceIdentity: false,
      logSources: false,
    },
    indexNameProblem: (name) => plainIndexNameProblem(name, { dots: false }),
    settingsProblems(settings) {
      const problems = pairProblem(settings, 'management_username', 'management_password');
      if (settings.management_token !== null && settings.management_username !== null) {
        problems.management_token =
          'use either management_token or management_username and management_password, not both';
      }
      return problems;
    },
    create: (destination, deps) => createHecDriver(destination, deps, options),
  });
}
