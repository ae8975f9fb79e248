import { describe, expect, it } from 'vitest';
import { syslogIndexWarnings } from './syslog-warning.ts';

const siems = [
  { name: 'qradar-lab', driver: 'syslog_tcp', index: null, indexes: 'label' },
  { name: 'qradar-indexed', driver: 'syslog_tcp', index: 'noise', indexes: 'label' },
  { name: 'splunk-lab', driver: 'vendorA_hec', index: null, indexes: 'native' },
];

describe('syslogIndexWarnings', () => {
  it('names a label-indexed (syslog_tcp) target without index when an archive goes to the default index', () => {
    const warnings = syslogIndexWarnings(['splunk-lab', 'qradar-lab', 'qradar-indexed'], siems, [
      { storage_path: 'noise/web.zip', index_mode: 'default' },
      { storage_path: 'noise/dns.zip', index_mode: 'new' },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.target).toBe('qradar-lab');
    expect(warnings[0]?.message).toContain('syslog_tcp target "qradar-lab" has no index');
    expect(warnings[0]?.message).toContain('"noise/web.zip"');
    expect(warnings[0]?.message).not.toContain('dns.zip');
    expect(warnings[0]?.message).toMatch(/labIndex=/);
  });

  it('says nothing when every archive names its index', () => {
    expect(
      syslogIndexWarnings(['qradar-lab'], siems, [{ storage_path: 'a.zip', index_mode: 'existing' }]),
    ).toEqual([]);
  });

  it('says nothing for targets that are not chosen, unknown or of a kind with native indexes', () => {
    const archives = [{ storage_path: 'a.zip', index_mode: 'default' as const }];
    expect(syslogIndexWarnings(['splunk-lab', 'gone'], siems, archives)).toEqual([]);
  });

  it('treats a blank destination index as none', () => {
    const warnings = syslogIndexWarnings(
      ['blank'],
      [{ name: 'blank', driver: 'syslog_tcp', index: '  ', indexes: 'label' }],
      [{ storage_path: '', index_mode: 'default' }],
    );
    expect(warnings[0]?.message).toContain('an archive not chosen yet');
  });

  it("goes by the kind's index routing, not by the driver name", () => {
    const archives = [{ storage_path: 'a.zip', index_mode: 'default' as const }];
    const labelled = [{ name: 'relay', driver: 'other_relay', index: null, indexes: 'label' }];
    expect(syslogIndexWarnings(['relay'], labelled, archives)[0]?.message).toContain(
      'other_relay target "relay" has no index',
    );
    const unrouted = [{ name: 'plain', driver: 'syslog_tcp', index: null, indexes: 'none' }];
    expect(syslogIndexWarnings(['plain'], unrouted, archives)).toEqual([]);
  });
});
