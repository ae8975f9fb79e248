import { describe, expect, it } from 'vitest';
import { shipmentHeaderSettings, syslogFrameFormat } from './syslog-frame-format.ts';
import type { SyslogDestination } from './syslog-tcp-settings.ts';

function destination(over: Partial<SyslogDestination> = {}): SyslogDestination {
  return {
    id: 'd1',
    name: 'siem-q',
    driver: 'syslog_tcp',
    payload_format: 'leef',
    index: 'lab',
    enabled: true,
    tls_verify: true,
    ca_pem: null,
    host: '127.0.0.1',
    port: 514,
    tls: false,
    source_identity: 'lab-fw01',
    header_mode: 'synthesize_if_missing',
    syslog_format: 'rfc3164',
    framing: 'lf',
    facility: 16,
    severity: 6,
    provision_log_source: false,
    offense_cleanup: false,
    siem_q: null,
    ...over,
  };
}

describe('shipmentHeaderSettings', () => {
  it('uses the destination when the shipment says nothing', () => {
    expect(shipmentHeaderSettings(destination({ facility: 4, severity: 5 }))).toEqual({
      mode: 'synthesize_if_missing',
      format: 'rfc3164',
      sourceIdentity: 'lab-fw01',
      facility: 4,
      severity: 5,
    });
  });

  it("forces synthesized headers with a request's source identity, whatever the header mode", () => {
    const s = shipmentHeaderSettings(destination({ header_mode: 'preserve_raw' }), 'exercise-7');
    expect(s.mode).toBe('force_synthesize');
    expect(s.sourceIdentity).toBe('exercise-7');
  });

  it('treats an empty request identity as absent', () => {
    expect(shipmentHeaderSettings(destination(), '').mode).toBe('synthesize_if_missing');
  });
});

describe('syslogFrameFormat', () => {
  it("takes the destination's framing, the defaults, and the tuning given", () => {
    expect(syslogFrameFormat(destination({ framing: 'octet_counting' }), undefined)).toEqual({
      header: shipmentHeaderSettings(destination()),
      framing: 'octet_counting',
      maxMessageBytes: 65_536,
      chunkBytes: 128 * 1024,
      longFrameBytes: 4096,
    });
    expect(
      syslogFrameFormat(destination(), 'ex-1', {
        chunkBytes: 4096,
        maxMessageBytes: 9000,
        warnMessageBytes: 100,
      }),
    ).toMatchObject({
      header: { mode: 'force_synthesize', sourceIdentity: 'ex-1' },
      chunkBytes: 4096,
      maxMessageBytes: 9000,
      longFrameBytes: 100,
    });
  });
});
