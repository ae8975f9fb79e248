import { describe, expect, it } from 'vitest';
import { syslogDestination } from '../../../test/fixtures/syslog-destination.ts';
import { shipmentHeaderSettings, syslogFrameFormat } from './syslog-frame-format.ts';

describe('shipmentHeaderSettings', () => {
  it('uses the destination when the shipment says nothing', () => {
    expect(shipmentHeaderSettings(syslogDestination({ facility: 4, severity: 5 }))).toEqual({
      mode: 'synthesize_if_missing',
      format: 'rfc3164',
      sourceIdentity: 'lab-fw01',
      facility: 4,
      severity: 5,
    });
  });

  it("forces synthesized headers with a request's source identity, whatever the header mode", () => {
    const s = shipmentHeaderSettings(syslogDestination({ header_mode: 'preserve_raw' }), 'exercise-7');
    expect(s.mode).toBe('force_synthesize');
    expect(s.sourceIdentity).toBe('exercise-7');
  });

  it('treats an empty request identity as absent', () => {
    expect(shipmentHeaderSettings(syslogDestination(), '').mode).toBe('synthesize_if_missing');
  });
});

describe('syslogFrameFormat', () => {
  it("takes the destination's framing, the defaults, and the tuning given", () => {
    expect(syslogFrameFormat(syslogDestination({ framing: 'octet_counting' }), undefined)).toEqual({
      header: shipmentHeaderSettings(syslogDestination()),
      framing: 'octet_counting',
      maxMessageBytes: 65_536,
      chunkBytes: 128 * 1024,
      longFrameBytes: 4096,
    });
    expect(
      syslogFrameFormat(syslogDestination(), 'ex-1', {
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
