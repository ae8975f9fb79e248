// V8 flags the service runs with: bin/socdrill.js applies them to `serve`, and the benchmarks run
// with them too, so their figures are the service's. Measured in docs/performance.md.
//
// --max-semi-space-size=32 (MiB): V8 sizes its young generation from the machine's memory (64 MiB
// semi-spaces on a 24 GiB host) and grows it towards that size whenever objects survive a
// collection, which a long shipment always does a little. Converting 1,000,000 LEEF lines to ECS
// then peaked at 340-460 MiB above the archive; with this cap mostly at 278-292 MiB (16 gave
// 250-260 MiB but cost the HEC driver up to a tenth more CPU in one sitting). The process then
// needs the same memory on any host.
//
// --no-allocation-site-pretenuring: with the cap, about one run in three of that conversion still
// peaked at 350-360 MiB and ran a fifth slower. V8 had decided, from survival early in the run,
// to allocate the documents' objects straight in the old generation (pretenuring), where they died
// as garbage for mark-compacts: 7.5 MiB promoted per scavenge instead of under 1. Without it, 15 of
// 15 runs stayed at 280-295 MiB; the other outputs and the ECS archive were as fast or faster.

/** The flags, as node command-line options. */
export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=32',
  '--no-allocation-site-pretenuring',
];

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

/**
 * Node and V8 read `--max-semi-space-size` and `--max_semi_space_size` alike, and a boolean flag
 * set either way (`--allocation-site-pretenuring`, `--no-…`) is the operator's choice.
 */
function optionName(arg: string): string {
  return (arg.split('=')[0] as string).replace(/^--?/, '').replaceAll('_', '-').replace(/^no-/, '');
}

/** The service flags `execArgv` and `nodeOptions` do not set yet. */
export function missingServiceFlags(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): string[] {
  return SERVICE_NODE_FLAGS.filter((f) => !flagIsSet(f, execArgv, nodeOptions));
}
