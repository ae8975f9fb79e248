import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options?: { type?: string; execution?: string; flavor?: string }) => void;

/**
 * Gives back the memory the start-up grew (docs/performance.md "Memory"). Migrations, PGlite's
 * start and the app's construction grow V8's young generation to its cap (--max-semi-space-size=32,
 * two semi-spaces) and leave garbage in the old one; V8's memory reducer shrinks them only when it
 * notices an idle heap, which on a reopened data dir it did not within 90 s: the service then idled
 * at 261–265 MiB. One memory-reducing full collection right after the start (the one V8 runs as a
 * last resort, which also shrinks the young generation) leaves 189–190 MiB; it takes tens of
 * milliseconds, once, before the service has work. `gc` is reached through a new context after
 * turning the flag on, so the service itself runs without a global `gc`.
 */
export function releaseStartupMemory(): boolean {
  let gc: GcFunction | undefined;
  try {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as GcFunction;
  } catch {
    return false;
  }
  if (typeof gc !== 'function') return false;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
