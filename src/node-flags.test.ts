import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { flagIsSet, missingServiceFlags, SERVICE_NODE_FLAGS, serviceNodeFlags } from './node-flags.ts';

describe('service node flags', () => {
  it('cap the young generation, turn off pretenuring, keep WebAssembly on the baseline compiler and, on V8 13, count Buffer memory in a global limit with a fixed growing factor', () => {
    expect(serviceNodeFlags('13.6.233.17-node.37')).toEqual([
      '--max-semi-space-size=32',
      '--no-allocation-site-pretenuring',
      '--liftoff-only',
      '--external-memory-accounted-in-global-limit',
      '--heap-growing-percent=200',
    ]);
    // Another V8 may not know the flag (node would refuse to start): its default then.
    expect(serviceNodeFlags('14.9.1')).toEqual([
      '--max-semi-space-size=32',
      '--no-allocation-site-pretenuring',
      '--liftoff-only',
    ]);
    expect(SERVICE_NODE_FLAGS).toEqual(serviceNodeFlags(process.versions.v8));
  });

  it('are accepted by this node', () => {
    const run = spawnSync(process.execPath, [...SERVICE_NODE_FLAGS, '-e', 'process.exit(7)']);
    expect(run.stderr.toString()).toBe('');
    expect(run.status).toBe(7);
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
    expect(missingServiceFlags(['--max-semi-space-size=8'], '')).toEqual(
      SERVICE_NODE_FLAGS.filter((f) => !f.startsWith('--max-semi-space-size')),
    );
  });

  it('do not count other options or values that merely contain the name', () => {
    const flag = '--max-semi-space-size=32';
    expect(flagIsSet(flag, ['--max-old-space-size=512', 'max-semi-space-size=8'], '')).toBe(false);
    expect(flagIsSet(flag, [], '--max-semi-space-size-x=1')).toBe(false);
  });
});
