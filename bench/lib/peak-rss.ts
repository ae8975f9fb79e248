import { readFileSync } from 'node:fs';

/**
 * This process's peak resident set in bytes: VmHWM of /proc/self/status where there is one, else
 * `process.resourceUsage().maxRSS`. On Linux maxRSS is kept across exec: a child forked from a
 * larger parent reports the parent's RSS at the fork as its own peak (a child of a 645 MiB
 * parent reported 605 MiB, VmHWM 45), which would credit a bench's sides with the bench's memory.
 */
export function peakRssBytes(): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}
