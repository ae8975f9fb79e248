import { describe, expect, it } from 'vitest';
import { builtinKindsWith } from '../../test/helpers/siem-kinds.ts';
import { buildStatusTestApp } from '../../test/helpers/status-test-app.ts';
import { createDestination } from '../destinations/destination-service.ts';

describe('platform status wiring', () => {
  it('spaces the checks of a failing SIEM 1, 2, 4 … configured poll intervals apart', async () => {
    let t0 = 0;
    const checkedAtSecond: number[] = [];
    const t = await buildStatusTestApp({
      env: { PLATFORM_STATUS_POLL_SECONDS: '5' },
      listen: false,
      overrides: {
        // Clients whose check fails, and counts when it ran.
        siemKinds: builtinKindsWith((_destination, real) => ({
          ...real(),
          async check() {
            checkedAtSecond.push((t.clock.now() - t0) / 1000);
            return [{ name: 'connection', ok: false, message: 'connection refused' }];
          },
        })),
      },
    });
    try {
      await createDestination(t.ctx, {
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
