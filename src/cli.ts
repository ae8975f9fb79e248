import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Config, loadConfig, readEnv } from './config.ts';
import { createContext } from './context.ts';
import { openDatabase } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { AppError } from './errors.ts';
import { type ReadBundleResult, readBundle, readBundleDirectory } from './exercises/bundle/bundle-read.ts';
import type { BundleProblem } from './exercises/bundle/bundle-schema.ts';
import {
  bundleArchiveProblems,
  bundleLimitsOf,
  exportExercise,
  importExercise,
} from './exercises/bundle/bundle-service.ts';
import { createLogger } from './logger.ts';
import { serve } from './main.ts';
import { archiveLimitsOf } from './pipeline/archive/archive-limits.ts';
import { createUser } from './users/user-service.ts';

const USAGE = `Usage: socdrill <command> [options]

Commands:
  serve                         run the service (the default)
  migrate                       apply pending database migrations and exit
  user create --email E --password P [--role R ...] [--name N]
                                create a user (roles: admin, author, analyst, noise_operator, …)
  exercise export ID [--out FILE]
                                write an exercise as a bundle zip (default: <title>.zip here)
  exercise import BUNDLE [--destination NAME ...]
                                import a bundle (.zip or unpacked folder) as a new draft; the
                                given destinations replace the bundle's
  exercise validate BUNDLE      check a bundle (.zip or folder) and its archives without a
                                database; exits 1 listing every problem when it is invalid
  help                          show this text

Configuration comes from environment variables and ./.env (see README).`;

/** Entry of the `socdrill` command; returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        await serve();
        return 0;
      case 'migrate': {
        const config = loadConfig(readEnv());
        const handle = await openDatabase(config);
        try {
          const applied = await migrateToLatest(handle.db as never);
          process.stdout.write(
            applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n',
          );
        } finally {
          await handle.close();
        }
        return 0;
      }
      case 'user':
        return await userCommand(rest);
      case 'exercise':
        return await exerciseCommand(rest);
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return 0;
      default:
        process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
        return 2;
    }
  } catch (err) {
    process.stderr.write(`${describe(err)}\n`);
    return 1;
  }
}

async function userCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') {
    process.stderr.write(`Unknown user command "${sub ?? ''}".\n\n${USAGE}\n`);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string', multiple: true },
      name: { type: 'string' },
    },
    strict: true,
  });
  if (!values.email || !values.password) {
    process.stderr.write('user create needs --email and --password\n');
    return 2;
  }
  const config = loadConfig(readEnv());
  const ctx = await createContext(config, { log: createLogger('warn') });
  try {
    const user = await createUser(ctx.db, {
      email: values.email,
      password: values.password,
      roles: values.role ?? [],
      display_name: values.name,
    });
    await ctx.audit({
      actor: 'system',
      action: 'user.create',
      target: user.email,
      outcome: 'success',
      details: { id: user.id, roles: user.roles, via: 'cli' },
    });
    process.stdout.write(
      `Created user ${user.email} (${user.id}) with roles: ${user.roles.join(', ') || 'none'}\n`,
    );
    return 0;
  } finally {
    await ctx.close();
  }
}

async function exerciseCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      out: { type: 'string' },
      destination: { type: 'string', multiple: true },
    },
    allowPositionals: true,
    strict: true,
  });
  const [target, ...extra] = positionals;
  const usage = (message: string) => {
    process.stderr.write(`${message}\n\n${USAGE}\n`);
    return 2;
  };
  if (sub !== 'export' && sub !== 'import' && sub !== 'validate') {
    return usage(`Unknown exercise command "${sub ?? ''}".`);
  }
  if (target === undefined || extra.length > 0)
    return usage(`exercise ${sub} takes one ${sub === 'export' ? 'exercise id' : 'bundle'}`);
  if (sub !== 'export' && values.out !== undefined) return usage(`exercise ${sub} has no --out`);
  if (sub !== 'import' && values.destination !== undefined)
    return usage(`exercise ${sub} has no --destination`);

  const config = loadConfig(readEnv());
  if (sub === 'validate') return validateBundle(target, config);

  const ctx = await createContext(config, { log: createLogger('warn') });
  try {
    if (sub === 'export') {
      const { filename, data } = await exportExercise(ctx, target);
      const out = path.resolve(values.out ?? filename);
      await writeFile(out, data);
      await ctx.audit({
        actor: 'system',
        action: 'exercise.export',
        target,
        outcome: 'success',
        details: { filename: path.basename(out), size: data.length, via: 'cli' },
      });
      process.stdout.write(`Exported exercise ${target} to ${out} (${data.length} bytes)\n`);
      return 0;
    }
    const input = await readBundleAt(target, config);
    const { exercise, warnings } = await importExercise(
      {
        db: ctx.db,
        storage: ctx.storage,
        clock: ctx.clock,
        limits: archiveLimitsOf(config),
        createdBy: null,
      },
      input,
      values.destination === undefined ? {} : { destinations: values.destination },
    );
    await ctx.audit({
      actor: 'system',
      action: 'exercise.import',
      target: exercise.id,
      outcome: 'success',
      details: {
        title: exercise.title,
        destinations: exercise.destinations,
        warnings: warnings.length,
        via: 'cli',
      },
    });
    for (const warning of warnings) process.stderr.write(`Warning: ${warning}\n`);
    process.stdout.write(`Imported "${exercise.title}" as draft exercise ${exercise.id}\n`);
    return 0;
  } finally {
    await ctx.close();
  }
}

// A bundle zip or unpacked folder, read with the configured archive caps.
async function readBundleAt(file: string, config: Config): Promise<ReadBundleResult> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) throw new AppError('not_found', `no such file or folder: ${file}`);
  const limits = bundleLimitsOf(config);
  if (info.isDirectory()) return readBundleDirectory(file, limits);
  if (info.size > limits.maxBytes) {
    throw new AppError(
      'payload_too_large',
      `${file} is larger than ${limits.maxBytes} bytes (ARCHIVE_MAX_BYTES)`,
    );
  }
  return readBundle(await readFile(file), limits);
}

async function validateBundle(file: string, config: Config): Promise<number> {
  let input: ReadBundleResult;
  try {
    input = await readBundleAt(file, config);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const problems = (err.details?.problems as BundleProblem[] | undefined) ?? [];
    process.stderr.write(
      `Invalid bundle ${file}: ${problems.length > 0 ? 'exercise.yaml has problems' : err.message}\n`,
    );
    for (const p of problems) process.stderr.write(`  exercise.yaml ${p.path || '(root)'}: ${p.message}\n`);
    return 1;
  }
  for (const warning of input.warnings) process.stderr.write(`Warning: ${warning}\n`);
  const problems = await bundleArchiveProblems(input, { limits: archiveLimitsOf(config), now: Date.now() });
  if (problems.length > 0) {
    process.stderr.write(`Invalid bundle ${file}: ${problems.length} archive problem(s)\n`);
    for (const p of problems) process.stderr.write(`  ${p.path}: ${p.message}\n`);
    return 1;
  }
  const { bundle } = input;
  const archives = bundle.sections.reduce((n, s) => n + s.archives.length, bundle.archives.length);
  process.stdout.write(
    `Valid bundle "${bundle.title}": ${bundle.steps.length} steps, ${bundle.sections.length} sections, ` +
      `${bundle.artifacts.length} artifacts, ${archives} archives\n`,
  );
  return 0;
}

function describe(err: unknown): string {
  if (err instanceof AppError) return `Error: ${err.message}`;
  return `Error: ${err instanceof Error ? err.message : String(err)}`;
}
