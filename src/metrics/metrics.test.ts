import { describe, expect, it } from 'vitest';
import type { ShipOutcome } from '../shipping/ship.ts';
import { Metrics } from './metrics.ts';

function outcome(over: Partial<ShipOutcome>): ShipOutcome {
  return {
    siem: 'elastic',
    driver: 'vendorB_bulk',
    events: 10,
    shipped: 10,
    failed: 0,
    retried: 0,
    bytes: 2048,
    errors: [],
    failures: [],
    perSource: [],
    stopped: null,
    ...over,
  };
}

const lines = async (m: Metrics) => (await m.scrape()).body.split('\n');

describe(Metrics.name, () => {
  it('keeps one registry per instance: two contexts in one process never collide or share counts', async () => {
    const a = new Metrics({ sseClients: () => 2 }, { processMetrics: false });
    const b = new Metrics({ sseClients: () => 5 }, { processMetrics: false });
    a.shipment(outcome({}), 1);
    expect(await lines(a)).toContain(
      'socdrill_shipments_total{destination="elastic",kind="vendorB_bulk",outcome="succeeded"} 1',
    );
    expect(await lines(a)).toContain('socdrill_sse_clients 2');
    expect(await lines(b)).toContain('socdrill_sse_clients 5');
    expect((await b.scrape()).body).not.toContain('destination="elastic"');
  });

  it('counts failed events by reason and a shipment as partial or failed', async () => {
    const m = new Metrics({ sseClients: () => 0 }, { processMetrics: false });
    m.shipment(
      outcome({
        shipped: 6,
        failed: 4,
        failures: [
          { reason: 'rejected', message: 'x', events: 1 },
          { reason: 'deadline', message: 'y', events: 3 },
        ],
      }),
      2,
    );
    // A failure with no reason named still counts (as internal).
    m.shipment(outcome({ shipped: 0, failed: 10, bytes: 0 }), 0.5);
    const out = await lines(m);
    const l = 'destination="elastic",kind="vendorB_bulk"';
    expect(out).toContain(`socdrill_shipments_total{${l},outcome="partial"} 1`);
    expect(out).toContain(`socdrill_shipments_total{${l},outcome="failed"} 1`);
    expect(out).toContain(`socdrill_events_shipped_total{${l}} 6`);
    expect(out).toContain(`socdrill_events_failed_total{${l},reason="rejected"} 1`);
    expect(out).toContain(`socdrill_events_failed_total{${l},reason="deadline"} 3`);
    expect(out).toContain(`socdrill_events_failed_total{${l},reason="internal"} 10`);
    expect(out).toContain(`socdrill_shipment_duration_seconds_sum{${l}} 2.5`);
  });

  it('records noise run statuses, scheduler lag (never negative) and HTTP requests by route', async () => {
    const m = new Metrics({ sseClients: () => 0 }, { processMetrics: false });
    m.runEnded('skipped', 'manual');
    m.runEnded('failed', 'schedule');
    m.jobClaimed(12);
    m.jobClaimed(-0.2);
    m.httpRequest('GET', '/api/noise/jobs/:id', 200, 0.01);
    m.httpRequest('GET', undefined, 404, 0.001);
    const out = await lines(m);
    expect(out).toContain('socdrill_noise_runs_total{status="skipped",trigger="manual"} 1');
    expect(out).toContain('socdrill_noise_runs_total{status="failed",trigger="schedule"} 1');
    expect(out).toContain('socdrill_scheduler_lag_seconds_sum 12');
    expect(out).toContain('socdrill_scheduler_lag_seconds_count 2');
    expect(out).toContain(
      'socdrill_http_request_duration_seconds_count{method="GET",route="/api/noise/jobs/:id",status_code="200"} 1',
    );
    expect(out).toContain(
      'socdrill_http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"} 1',
    );
  });
});
