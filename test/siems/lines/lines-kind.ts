import { plainIndexNameProblem } from '../../../src/siems/shared/index-name.ts';
import { type AnySiemKind, defineSiemKind } from '../../../src/siems/siem-kind.ts';
import { createLinesClient } from './lines-client.ts';
import { LinesSettings } from './lines-settings.ts';

/** `test_lines`: a test-only SIEM that takes JSON lines over HTTP into named indexes. */
export function linesKind(): AnySiemKind {
  return defineSiemKind({
    name: 'test_lines',
    title: 'JSON lines over HTTP (test only)',
    settings: LinesSettings,
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
    create: (destination) => createLinesClient(destination),
  });
}
