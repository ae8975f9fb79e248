import { describe, expect, it } from 'vitest';
import { buildStatusTestApp } from '../../test/helpers/status-test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';
import type { Driver } from '../siems/siem-client.ts';

describe('platform status wiring', () => {
  it('spaces the checks of a failing SIEM 1, 2, 4 … configured poll intervals apart', async () => {
    let t0 = 0;
    const checkedAtSecond: number[] = [];
    const t = await buildStatusTestApp({
      env: { PLATFORM_STATUS_POLL_SECONDS: '5' },
      listen: false,
      platformStatus: {
        // Status probes use only check() and close() of a driver.
        createDriver: (destination) =>
          ({
            driver: destination.driver,
            destination,
            async check() {
              checkedAtSecond.push((t.clock.now() - t0) / 1000);
              return [{ name: 'connection', ok: false, message: 'connection refused' }];
            },
            async close() {},
          }) as unknown as Driver,
      },
    });
    try {
      await createDestination(t.ctx.db, t.ctx.secretBox, {
        name: 'siem-q',
        driver: 'syslog_tcp',
        host: 'q.test',
        port: 514,
      });
      const hub = t.ctx.platformStatus.hub;
      t0 = t.clock.now();
      for (let poll = 0; poll < 8; poll += 1) {
        await hub.pollNow();
        t.clock.advance(5_000);
      }
      // Polls at 0, 5 … 35 s; back-off after each failure: 1, 2, then 4 intervals.
      expect(checkedAtSecond).toEqual([0, 5, 15, 35]);
      expect(hub.snapshot().components.find((c) => c.id === 'siem:siem-q')?.state).toBe('down');
    } finally {
      await t.close();
    }
  });
});
