import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedInAs, type TestApp } from '../../test/helpers/test-app.ts';
import { createRole } from '../roles/role-service.ts';
import { createDestination } from './destination-service.ts';

describe('GET /api/siems', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await createDestination(t.ctx, {
      name: 'splunk-lab',
      driver: 'vendorA_hec',
      url: 'https://siem-a:8088',
      token: 'hec-secret-token',
      index: 'lab',
    });
    await createDestination(t.ctx, { name: 'qradar-lab', driver: 'syslog_tcp', host: '10.0.0.5', port: 514 });
    await createRole(t.ctx.db, { name: 'nobody', permissions: [] });
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists every SIEM by name, kind and abilities, without settings, to users who pick SIEMs', async () => {
    for (const role of ['noise_operator', 'author', 'analyst', 'admin']) {
      const { cookie } = await signedInAs(t, [role]);
      const res = await t.app.inject({ url: '/api/siems', headers: { cookie } });
      expect(res.statusCode, role).toBe(200);
      expect(res.json()).toEqual([
        {
          name: 'qradar-lab',
          driver: 'syslog_tcp',
          payload_format: 'leef',
          index: null,
          enabled: true,
          can_wipe: false,
          closes_offenses: false,
          indexes: 'label',
        },
        {
          name: 'splunk-lab',
          driver: 'vendorA_hec',
          payload_format: 'leef',
          index: 'lab',
          enabled: true,
          can_wipe: true,
          closes_offenses: false,
          indexes: 'native',
        },
      ]);
      expect(res.body).not.toContain('hec-secret-token');
      expect(res.body).not.toContain('siem-a');
    }
  });

  it('refuses a user whose roles give no SIEM work (403) and an anonymous one (401)', async () => {
    const { cookie } = await signedInAs(t, ['nobody']);
    expect((await t.app.inject({ url: '/api/siems', headers: { cookie } })).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/siems' })).statusCode).toBe(401);
  });
});
