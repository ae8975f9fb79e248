import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../clock.ts';
import { createLogger } from '../logger.ts';
import { EcsScanPool } from '../pipeline/ecs/ecs-scan-pool.ts';
import { createShipping } from './shipping.ts';

describe('createShipping', () => {
  const pools: EcsScanPool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.close();
  });

  /** A shipping path with its own scan worker; nothing here touches the database or a SIEM. */
  const shippingWithPool = () => {
    const pool = new EcsScanPool();
    pools.push(pool);
    const shipping = createShipping({
      db: undefined as never,
      secretBox: undefined as never,
      siems: undefined as never,
      clock: manualClock(0),
      log: createLogger('silent'),
      limits: {},
      ecsScanPool: pool,
    });
    return { pool, shipping };
  };

  it('starts the ECS scan worker ahead of an ECS shipment, without waiting for it', async () => {
    const { pool, shipping } = shippingWithPool();
    shipping.warmFor('ecs');
    // Not online yet: warmFor returns at once, the worker loads while the archive downloads.
    expect(pool.available()).toBe(false);
    expect(await pool.ready()).toBe(true);
  });

  it('starts no worker for LEEF, whose pass 1 runs on one thread', () => {
    const { pool, shipping } = shippingWithPool();
    shipping.warmFor('leef');
    expect(pool.started).toBe(false);
    shipping.warmFor('ecs');
    expect(pool.started).toBe(true);
  });
});
