#!/usr/bin/env node
// Entry of the `socdrill` command. Node >= 24 runs the TypeScript sources directly (type stripping).
import { missingServiceFlags } from '../src/node-flags.ts';

// `serve` runs with the service's V8 flags (src/node-flags.ts): the process replaces itself with
// one started with them (same PID, environment and stdio), unless the operator set them already
// through node options or NODE_OPTIONS.
const missing =
  (process.argv[2] ?? 'serve') === 'serve'
    ? missingServiceFlags(process.execArgv, process.env.NODE_OPTIONS ?? '')
    : [];
if (missing.length > 0 && typeof process.execve === 'function') {
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)],
      process.env,
    );
  } catch {
    // Not possible on this platform: V8's defaults then.
  }
}

const { runCli } = await import('../src/cli.ts');
const code = await runCli(process.argv.slice(2));
if (code !== 0 || (process.argv[2] !== 'serve' && process.argv[2] !== undefined)) process.exitCode = code;
