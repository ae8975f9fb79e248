import { describe, expect, it } from 'vitest';
import { flagIsSet, missingServiceFlags, SERVICE_NODE_FLAGS } from './node-flags.ts';

describe('service node flags', () => {
  it('cap the young generation and turn off pretenuring', () => {
    expect(SERVICE_NODE_FLAGS).toEqual(['--max-semi-space-size=32', '--no-allocation-site-pretenuring']);
  });

  it('count a boolean flag the operator set either way as set', () => {
    const flag = '--no-allocation-site-pretenuring';
    expect(flagIsSet(flag, ['--allocation-site-pretenuring'], '')).toBe(true);
    expect(flagIsSet(flag, [], '--no_allocation_site_pretenuring')).toBe(true);
    expect(flagIsSet(flag, ['--allocation-site-pretenuring-x'], '')).toBe(false);
  });

  it('are all missing from a plain node command line', () => {
    expect(missingServiceFlags([], '')).toEqual([...SERVICE_NODE_FLAGS]);
  });

  it('leave an option the operator set, with any value and either spelling, to the operator', () => {
    const flag = '--max-semi-space-size=32';
    expect(flagIsSet(flag, ['--max-semi-space-size=8'], '')).toBe(true);
    expect(flagIsSet(flag, ['--max_semi_space_size=8'], '')).toBe(true);
    expect(flagIsSet(flag, [], '--expose-gc  --max-semi-space-size=64')).toBe(true);
    expect(missingServiceFlags(['--max-semi-space-size=8'], '')).toEqual([
      '--no-allocation-site-pretenuring',
    ]);
  });

  it('do not count other options or values that merely contain the name', () => {
    const flag = '--max-semi-space-size=32';
    expect(flagIsSet(flag, ['--max-old-space-size=512', 'max-semi-space-size=8'], '')).toBe(false);
    expect(flagIsSet(flag, [], '--max-semi-space-size-x=1')).toBe(false);
  });
});
