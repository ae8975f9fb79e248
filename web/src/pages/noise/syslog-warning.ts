import type { IndexMode, Siem } from './types.ts';

/** A target the service will refuse the job for (decisions.md §5, clarifications). */
export interface SyslogIndexWarning {
  readonly target: string;
  readonly message: string;
}

/**
 * The chosen targets whose kind routes to an index by a label (`indexes: 'label'`, e.g. syslog_tcp)
 * and that have no index while some archive goes to the default index: every line sent to such a
 * target must carry `labIndex=`, so the service refuses the job at save naming the target. Said
 * before saving, in the order the targets were chosen.
 */
export function syslogIndexWarnings(
  targets: readonly string[],
  siems: readonly Pick<Siem, 'name' | 'driver' | 'index' | 'indexes'>[],
  archives: readonly { storage_path: string; index_mode: IndexMode }[],
): SyslogIndexWarning[] {
  const byDefault = archives.filter((a) => a.index_mode === 'default');
  if (byDefault.length === 0) return [];
  const names = byDefault.map((a) => (a.storage_path ? `"${a.storage_path}"` : 'an archive not chosen yet'));
  const out: SyslogIndexWarning[] = [];
  for (const target of targets) {
    const siem = siems.find((s) => s.name === target);
    if (siem?.indexes !== 'label') continue;
    if (siem.index !== null && siem.index.trim() !== '') continue;
    out.push({
      target,
      message:
        `${siem.driver} target "${target}" has no index, so ${names.join(', ')} (index mode default) would carry ` +
        "no labIndex= and the job will be refused. Set the destination's index, or route " +
        (byDefault.length === 1 ? 'that archive' : 'those archives') +
        ' to an existing or new index.',
    });
  }
  return out;
}
