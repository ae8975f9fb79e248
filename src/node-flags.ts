// V8 flags the service runs with: bin/socdrill.js applies them to `serve`, and the benchmarks run
// with them too, so their figures are the service's. Measured in docs/performance-history.md.
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
//
// --external-memory-accounted-in-global-limit (V8 13 only, Node 24's): V8 13 counts every byte of
// Buffer memory allocated since the last full collection as old-generation memory (what its heap.h
// calls the historic behaviour, with a TODO to count it in a global limit instead; this flag does
// that). A shipment allocates hundreds of MiB of Buffers (inflated chunks, frames), so V8 kept
// starting mark-compacts: 12-30 per million LEEF lines, each marking the whole heap. In a process
// holding a service-sized heap (≈ 40 MiB live, as `serve` holds after start) that doubled the
// shipment's CPU (2.6-2.8 s against 1.3-1.7 s with the flag, two mark-compacts).
//
// --heap-growing-percent=200 (V8 13 only): after a collection that shrinks the heap — V8's memory
// reducer, about 15 s after a burst of work, or gc() — V8 sets the next limit at 1.1 times the
// live heap, and the Buffers a shipment allocates (zlib's output, frames; external memory, which
// the allocation rate V8 sizes limits by does not count) then start a mark-compact every 15-30 ms:
// 30-40 per million LEEF lines, 0.1-0.4 s of CPU. A fixed factor of 3 (V8's own factor runs from
// 1.1 to 4) left 2: the second shipment after a full collection took 0.76 s instead of 1.16 s
// (syslog output, median of 4), one after 12 s idle beside the service 0.74-0.89 s against
// 0.78-1.17 s. Bare first shipments and LEEF to ECS conversion did not move, the noise benchmark
// stayed within its spread (231,000-240,000 events/s against 227,000-253,000); the drivers
// benchmark peaked 16-52 MiB higher on HEC paths.
//
// --liftoff-only: the embedded database (PGlite) is Postgres compiled to WebAssembly, 9 MiB of
// it. V8 compiles it with its baseline compiler (Liftoff) and then, seconds later, recompiles hot
// functions with its optimising one (TurboFan), which held 450-500 MiB at once for Postgres's
// large functions: a service reopening its data dir idled at 420-450 MiB after a peak of 920-950.
// With the baseline only: 240 MiB, peak 240 (docs/performance.md, "Memory"). Other V8 lines are not measured and keep their
// defaults.

/** The flags for a V8 of version `v8` (process.versions.v8), as node command-line options. */
export function serviceNodeFlags(v8: string = process.versions.v8): string[] {
  const flags = ['--max-semi-space-size=32', '--no-allocation-site-pretenuring', '--liftoff-only'];
  if (v8.startsWith('13.')) {
    flags.push('--external-memory-accounted-in-global-limit', '--heap-growing-percent=200');
  }
  return flags;
}

/** The flags for this process's V8. */
export const SERVICE_NODE_FLAGS: readonly string[] = serviceNodeFlags();

/**
 * Whether `execArgv` or `nodeOptions` (NODE_OPTIONS) already set the option `flag` sets, with
 * any value: the operator's choice wins. The caller reads both from its process (only
 * src/config.ts reads the environment of the service itself).
 */
export function flagIsSet(flag: string, execArgv: readonly string[], nodeOptions: string): boolean {
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

/** The service flags `execArgv` and `nodeOptions` (NODE_OPTIONS) do not set yet. */
export function missingServiceFlags(execArgv: readonly string[], nodeOptions: string): string[] {
  return SERVICE_NODE_FLAGS.filter((f) => !flagIsSet(f, execArgv, nodeOptions));
}
