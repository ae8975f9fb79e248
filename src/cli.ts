import { parseArgs } from 'node:util';
import { loadConfig, readEnv } from './config.ts';
import { createContext } from './context.ts';
import { openDatabase } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { AppError } from './errors.ts';
import { createLogger } from './logger.ts';
import { serve } from './main.ts';
import { createUser } from './users/user-service.ts';

const USAGE = `Usage: socdrill <command> [options]

Commands:
  serve                         run the service (the default)
  migrate                       apply pending database migrations and exit
  user create --email E --password P [--role R ...] [--name N]
                                create a user (roles: admin, author, analyst, noise_operator, …)
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

function describe(err: unknown): string {
  if (err instanceof AppError) return `Error: ${err.message}`;
  return `Error: ${err instanceof Error ? err.message : String(err)}`;
}
