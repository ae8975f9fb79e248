import { describe, expect, it } from 'vitest';
import { allCapabilities, capabilityUnion, grantedBy } from './capabilities.ts';

const roles = [
  { name: 'admin', permissions: ['manage_users', 'manage_exercises', 'run_exercises', 'manage_noise_logs'] },
  { name: 'author', permissions: ['manage_exercises'] },
  { name: 'analyst', permissions: ['run_exercises'] },
  { name: 'odd', permissions: ['zeta_feature', 'run_exercises', 'alpha_feature'] },
  { name: 'empty', permissions: [] },
];

describe('capabilityUnion', () => {
  it('is empty without roles', () => {
    expect(capabilityUnion(roles, [])).toEqual([]);
  });

  it('unites the permissions of the chosen roles once each, known ones in their order', () => {
    expect(capabilityUnion(roles, ['analyst', 'author'])).toEqual(['manage_exercises', 'run_exercises']);
    expect(capabilityUnion(roles, ['author', 'admin'])).toEqual([
      'manage_exercises',
      'manage_noise_logs',
      'manage_users',
      'run_exercises',
    ]);
  });

  it('puts capabilities it does not know last, by name', () => {
    expect(capabilityUnion(roles, ['odd'])).toEqual(['run_exercises', 'alpha_feature', 'zeta_feature']);
  });

  it('ignores names that are not roles and roles without permissions', () => {
    expect(capabilityUnion(roles, ['ghost', 'empty'])).toEqual([]);
    expect(capabilityUnion(roles, ['ghost', 'analyst'])).toEqual(['run_exercises']);
  });

  it('does not depend on the order of the chosen roles', () => {
    expect(capabilityUnion(roles, ['odd', 'author'])).toEqual(capabilityUnion(roles, ['author', 'odd']));
  });
});

describe('grantedBy and allCapabilities', () => {
  it('names the chosen roles that grant a capability', () => {
    expect(grantedBy(roles, ['admin', 'analyst', 'author'], 'run_exercises')).toEqual(['admin', 'analyst']);
    expect(grantedBy(roles, ['author'], 'run_exercises')).toEqual([]);
  });

  it('offers the known capabilities plus any other a role grants', () => {
    expect(allCapabilities(roles)).toEqual([
      'manage_exercises',
      'manage_noise_logs',
      'manage_destinations',
      'manage_users',
      'run_exercises',
      'alpha_feature',
      'zeta_feature',
    ]);
  });
});
