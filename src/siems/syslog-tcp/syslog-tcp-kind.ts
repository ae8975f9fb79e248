import { plainIndexNameProblem } from '../shared/index-name.ts';
import { type AnySiemKind, defineSiemKind } from '../siem-kind.ts';
import { SiemQSetupCache } from './siem-q/siem-q-setup-cache.ts';
import { createSyslogDriver, type SyslogDriverOptions } from './syslog-driver.ts';
import { type SyslogFrameOptions, syslogFrameFormat } from './syslog-frame-format.ts';
import { SyslogTcpSettings } from './syslog-tcp-settings.ts';

/**
 * `syslog_tcp`: a syslog receiver over TCP or TLS (SIEM Q and others). LEEF lines as syslog
 * messages; no indexes of its own (the lab index travels as `labIndex=`) and nothing to delete.
 */
export function syslogTcpKind(options: SyslogDriverOptions & SyslogFrameOptions = {}): AnySiemKind {
  // Resolved console ids of this kind instance's destinations (one per service context).
  let setupCache: SiemQSetupCache | undefined;
  return defineSiemKind({
    name: 'syslog_tcp',
    title: 'Syslog over TCP/TLS (SIEM Q and others)',
    settings: SyslogTcpSettings,
    payloadFormats: ['leef'],
    intake: 'frames',
    frameFormat: (destination, shipment) => syslogFrameFormat(destination, shipment.identity, options),
    capabilities: {
      indexes: 'label',
      labelsIndex: true,
      indexCreation: false,
      wipe: false,
      sourceIdentity: true,
      logSources: true,
    },
    indexNameProblem: (name) => plainIndexNameProblem(name, { dots: false }),
    settingsProblems(settings): Record<string, string> {
      if (!settings.provision_log_source && !settings.offense_cleanup) return {};
      if (settings.siem_q === null)
        return { siem_q: 'is required when provision_log_source or offense_cleanup is on' };
      if (settings.siem_q.token === null)
        return { 'siem_q.token': 'is required when provision_log_source or offense_cleanup is on' };
      return {};
    },
    create: (destination, deps) => {
      setupCache ??= new SiemQSetupCache(() => deps.clock.now());
      return createSyslogDriver(destination, deps, { ...options, setupCache });
    },
  });
}
