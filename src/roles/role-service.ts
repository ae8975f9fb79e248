import { type Kysely, sql, type Transaction } from 'kysely';
import { BUILTIN_ROLES, CAPABILITIES, isCapability } from '../auth/capabilities.ts';
import type { Database, RoleRow } from '../db/schema.ts';
import { AppError, invalidInput, notFound } from '../errors.ts';

/** A role as the API returns it. */
export interface RoleView {
  name: string;
  permissions: string[];
  builtin: boolean;
  created_at: string;
  updated_at: string;
}

export const ROLE_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,62}$';
const ROLE_NAME_RE = new RegExp(ROLE_NAME_PATTERN);

/** PostgreSQL's unique_violation: a concurrent create took the name between check and insert. */
const UNIQUE_VIOLATION = '23505';

/** Advisory lock key of lockUserManagers; any constant no other lock in the database uses. */
const USER_MANAGERS_LOCK = 7_302_019_551;

/** Creates missing built-in roles; keeps `admin` holding every capability as capabilities are added. */
export async function seedBuiltinRoles(db: Kysely<Database>): Promise<void> {
  for (const [name, permissions] of Object.entries(BUILTIN_ROLES)) {
    await db
      .insertInto('roles')
      .values({ name, permissions: JSON.stringify(permissions), builtin: true })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }
  await db
    .updateTable('roles')
    .set({ permissions: JSON.stringify(CAPABILITIES), builtin: true })
    .where('name', '=', 'admin')
    .execute();
}

export async function listRoles(db: Kysely<Database>): Promise<RoleView[]> {
  const rows = await db.selectFrom('roles').selectAll().orderBy('name').execute();
  return rows.map(toRoleView);
}

export async function getRole(db: Kysely<Database>, name: string): Promise<RoleView> {
  const row = await db.selectFrom('roles').selectAll().where('name', '=', name).executeTakeFirst();
  if (!row) throw notFound('role', name);
  return toRoleView(row);
}

export async function createRole(
  db: Kysely<Database>,
  input: { name: string; permissions: string[] },
): Promise<RoleView> {
  if (!ROLE_NAME_RE.test(input.name)) {
    throw invalidInput('Invalid role name', {
      name: 'lower-case letters, digits, _ and -, starting with a letter',
    });
  }
  const permissions = checkPermissions(input.permissions);
  const taken = () =>
    new AppError('conflict', `Role "${input.name}" already exists`, { details: { name: input.name } });
  const existing = await db
    .selectFrom('roles')
    .select('name')
    .where('name', '=', input.name)
    .executeTakeFirst();
  if (existing) throw taken();
  try {
    const row = await db
      .insertInto('roles')
      .values({ name: input.name, permissions: JSON.stringify(permissions) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRoleView(row);
  } catch (err) {
    // A create of the same name that committed after the check above: the same 409, not a 500.
    if ((err as { code?: unknown }).code === UNIQUE_VIOLATION) throw taken();
    throw err;
  }
}

export async function updateRole(
  db: Kysely<Database>,
  name: string,
  input: { permissions?: string[] },
  now: Date,
): Promise<RoleView> {
  const current = await getRole(db, name);
  if (input.permissions === undefined) return current;
  if (name === 'admin') {
    throw new AppError(
      'conflict',
      'The built-in admin role always holds every capability and cannot be changed',
    );
  }
  const permissions = checkPermissions(input.permissions);
  return db.transaction().execute(async (tx) => {
    await lockUserManagers(tx);
    const row = await tx
      .updateTable('roles')
      .set({ permissions: JSON.stringify(permissions), updated_at: now })
      .where('name', '=', name)
      .returningAll()
      .executeTakeFirstOrThrow();
    await assertSomeoneManagesUsers(tx);
    return toRoleView(row);
  });
}

export async function deleteRole(db: Kysely<Database>, name: string): Promise<void> {
  const role = await getRole(db, name);
  if (role.builtin) throw new AppError('conflict', `The built-in role "${name}" cannot be deleted`);
  await db.transaction().execute(async (tx) => {
    await lockUserManagers(tx);
    await tx.deleteFrom('roles').where('name', '=', name).execute();
    await assertSomeoneManagesUsers(tx);
  });
}

/** Serialises the transactions that can change who manages users; take it first in each of them. */
export async function lockUserManagers(tx: Transaction<Database>): Promise<void> {
  // At READ COMMITTED two such transactions each still see the other's target as a manager (two
  // admins disabling each other both pass assertSomeoneManagesUsers). Waiting here until the other
  // commits lets the check see its change. Released at commit or rollback.
  await sql`select pg_advisory_xact_lock(${sql.lit(USER_MANAGERS_LOCK)})`.execute(tx);
}

/**
 * Refuses a change that would leave no enabled user able to manage users (nobody could fix
 * roles or sign-ins afterwards). Call inside the transaction making the change, after
 * lockUserManagers.
 */
export async function assertSomeoneManagesUsers(db: Kysely<Database>): Promise<void> {
  const rows = await db
    .selectFrom('users')
    .innerJoin('user_roles', 'user_roles.user_id', 'users.id')
    .innerJoin('roles', 'roles.name', 'user_roles.role_name')
    .select(['users.id', 'roles.permissions'])
    .where('users.disabled', '=', false)
    .execute();
  const anyUsers = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (!anyUsers) return;
  if (!rows.some((r) => r.permissions.includes('manage_users'))) {
    throw new AppError('conflict', 'This would leave no enabled user with the manage_users capability');
  }
}

function checkPermissions(permissions: string[]): string[] {
  const unknown = permissions.filter((p) => !isCapability(p));
  if (unknown.length > 0) {
    throw new AppError('invalid_input', `Unknown capability: ${unknown.join(', ')}`, {
      details: { fields: { permissions: `unknown: ${unknown.join(', ')}` }, known: CAPABILITIES },
    });
  }
  return [...new Set(permissions)];
}

function toRoleView(row: RoleRow): RoleView {
  return {
    name: row.name,
    permissions: row.permissions,
    builtin: row.builtin,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
