#!/usr/bin/env node
// Entry of the `socdrill` command. Node >= 24 runs the TypeScript sources directly (type stripping).
import { runCli } from '../src/cli.ts';

const code = await runCli(process.argv.slice(2));
if (code !== 0 || (process.argv[2] !== 'serve' && process.argv[2] !== undefined)) process.exitCode = code;
