// V8 flags the service runs with: bin/socdrill.js applies them to `serve`, and the benchmarks run
// with them too, so their figures are the service's.
//
// --max-semi-space-size=32 (MiB): V8 sizes its young generation from the machine's memory (64 MiB
// semi-spaces on a 24 GiB host) and grows it towards that size whenever objects survive a
// collection, which a long shipment always does a little. Converting 1,000,000 LEEF lines to ECS
// then peaked at 340-460 MiB above the archive; with this cap at 278-284 MiB, at the same speed
// (16 gave 250-260 MiB but cost the HEC driver up to a tenth more CPU in one sitting). The
// process then needs the same memory on any host. Measured in docs/performance.md.

/** The flags, as node command-line options. */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/**
 * Whether `execArgv` or `nodeOptions` (NODE_OPTIONS) already set the option `flag` sets, with
 * any value: the operator's choice wins.
 */
export function flagIsSet(
  flag: string,
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): boolean {
  const wanted = optionName(flag);
  return [...execArgv, ...nodeOptions.split(/\s+/)].some(
    (arg) => arg.startsWith('-') && optionName(arg) === wanted,
  );
}

/** Node and V8 read `--max-semi-space-size` and `--max_semi_space_size` alike. */
function optionName(arg: string): string {
  return (arg.split('=')[0] as string).replace(/^--?/, '').replaceAll('_', '-');
}

/** The service flags `execArgv` and `nodeOptions` do not set yet. */
export function missingServiceFlags(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): string[] {
  return SERVICE_NODE_FLAGS.filter((f) => !flagIsSet(f, execArgv, nodeOptions));
}
