import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { hashPassword, passwordProblem } from '../auth/passwords.ts';
import { deleteUserSessions, loadCapabilities } from '../auth/sessions.ts';
import type { Database, UserRow } from '../db/schema.ts';
import { AppError, invalidInput, isUuid, notFound } from '../errors.ts';
import { assertSomeoneManagesUsers, lockUserManagers } from '../roles/role-service.ts';

/** A user as the API returns it (never the password hash). */
export interface UserView {
  id: string;
  email: string;
  display_name: string;
  roles: string[];
  capabilities: string[];
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface NewUserInput {
  email: string;
  password: string;
  display_name?: string;
  roles: string[];
}

export interface UserPatch {
  email?: string;
  password?: string;
  display_name?: string;
  roles?: string[];
  disabled?: boolean;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

/** PostgreSQL's unique_violation: a concurrent request took the e-mail between check and write. */
const UNIQUE_VIOLATION = '23505';

/** Lower-cases and trims an e-mail address (sign-in is case-insensitive). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function listUsers(db: Kysely<Database>): Promise<UserView[]> {
  const rows = await db.selectFrom('users').selectAll().orderBy('email').execute();
  return Promise.all(rows.map((r) => toUserView(db, r)));
}

export async function getUser(db: Kysely<Database>, id: string): Promise<UserView> {
  return toUserView(db, await findUser(db, id));
}

/**
 * Creates a user. `passwordPolicy: false` skips the strength rules (length, common passwords) for
 * the operator's own ADMIN_PASSWORD, which start-up takes as given and warns about instead.
 */
export async function createUser(
  db: Kysely<Database>,
  input: NewUserInput,
  options: { passwordPolicy?: boolean } = {},
): Promise<UserView> {
  const email = normalizeEmail(input.email);
  const bad: Record<string, string> = {};
  if (!EMAIL_RE.test(email) || email.length > 320) bad.email = 'must be an e-mail address';
  const pw = options.passwordPolicy === false ? undefined : passwordProblem(input.password);
  if (pw) bad.password = pw;
  const { roles, problem } = await checkRoles(db, input.roles);
  if (problem) bad.roles = problem;
  if (Object.keys(bad).length > 0) throw invalidInput('Invalid user', bad);
  const passwordHash = await hashPassword(input.password);
  const id = randomUUID();
  await emailMustBeFree(email, () =>
    db.transaction().execute(async (tx) => {
      const taken = await tx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
      if (taken) throw emailTaken(email);
      await tx
        .insertInto('users')
        .values({ id, email, display_name: input.display_name?.trim() ?? '', password_hash: passwordHash })
        .execute();
      if (roles.length > 0) {
        await tx
          .insertInto('user_roles')
          .values(roles.map((role_name) => ({ user_id: id, role_name })))
          .execute();
      }
    }),
  );
  return getUser(db, id);
}

/** Applies a patch; a new password, disabling or a role change ends the user's sessions. */
export async function updateUser(
  db: Kysely<Database>,
  id: string,
  patch: UserPatch,
  now: Date,
): Promise<{ user: UserView; sessionsEnded: number }> {
  await findUser(db, id);
  const bad: Record<string, string> = {};
  const email = patch.email === undefined ? undefined : normalizeEmail(patch.email);
  if (email !== undefined && (!EMAIL_RE.test(email) || email.length > 320))
    bad.email = 'must be an e-mail address';
  if (patch.password !== undefined) {
    const pw = passwordProblem(patch.password);
    if (pw) bad.password = pw;
  }
  const checked = patch.roles === undefined ? undefined : await checkRoles(db, patch.roles);
  if (checked?.problem) bad.roles = checked.problem;
  if (Object.keys(bad).length > 0) throw invalidInput('Invalid user', bad);
  const roles = checked?.roles;
  const passwordHash = patch.password === undefined ? undefined : await hashPassword(patch.password);

  let sessionsEnded = 0;
  const write = () =>
    db.transaction().execute(async (tx) => {
      await lockUserManagers(tx);
      if (email !== undefined) {
        const taken = await tx
          .selectFrom('users')
          .select('id')
          .where('email', '=', email)
          .where('id', '!=', id)
          .executeTakeFirst();
        if (taken) throw emailTaken(email);
      }
      await tx
        .updateTable('users')
        .set({
          updated_at: now,
          ...(email !== undefined ? { email } : {}),
          ...(patch.display_name !== undefined ? { display_name: patch.display_name.trim() } : {}),
          ...(passwordHash !== undefined ? { password_hash: passwordHash } : {}),
          ...(patch.disabled !== undefined ? { disabled: patch.disabled } : {}),
        })
        .where('id', '=', id)
        .execute();
      if (roles !== undefined) {
        await tx.deleteFrom('user_roles').where('user_id', '=', id).execute();
        if (roles.length > 0) {
          await tx
            .insertInto('user_roles')
            .values(roles.map((role_name) => ({ user_id: id, role_name })))
            .execute();
        }
      }
      await assertSomeoneManagesUsers(tx);
      if (passwordHash !== undefined || patch.disabled === true || roles !== undefined) {
        sessionsEnded = await deleteUserSessions(tx, id);
      }
    });
  await (email === undefined ? write() : emailMustBeFree(email, write));
  return { user: await getUser(db, id), sessionsEnded };
}

export async function deleteUser(db: Kysely<Database>, id: string): Promise<UserView> {
  const user = await getUser(db, id);
  await db.transaction().execute(async (tx) => {
    await lockUserManagers(tx);
    await tx.deleteFrom('users').where('id', '=', id).execute();
    await assertSomeoneManagesUsers(tx);
  });
  return user;
}

/**
 * Creates the ADMIN_EMAIL user with the admin role when no user has that e-mail; never changes an
 * existing user. Returns true when it created one.
 */
export async function bootstrapAdmin(
  db: Kysely<Database>,
  email: string,
  password: string,
): Promise<boolean> {
  const normalized = normalizeEmail(email);
  const existing = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', normalized)
    .executeTakeFirst();
  if (existing) return false;
  try {
    await createUser(
      db,
      { email: normalized, password, roles: ['admin'], display_name: 'Administrator' },
      { passwordPolicy: false },
    );
    return true;
  } catch (err) {
    // Another instance may have created it at the same moment.
    if (err instanceof AppError && err.code === 'conflict') return false;
    throw err;
  }
}

function emailTaken(email: string): AppError {
  return new AppError('conflict', `A user with e-mail ${email} already exists`, { details: { email } });
}

/**
 * Runs a write that sets `email`. A request that takes the same e-mail after this one's check (both
 * saw it free) makes the write fail on the unique index: answer the same 409 as the check would.
 */
async function emailMustBeFree<T>(email: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as { code?: unknown }).code === UNIQUE_VIOLATION) throw emailTaken(email);
    throw err;
  }
}

/** Finds a user row by id or throws 404. */
export async function findUser(db: Kysely<Database>, id: string): Promise<UserRow> {
  // Any other text names no user (decisions.md §3: 404), and PostgreSQL would refuse it as a uuid.
  if (!isUuid(id)) throw notFound('user', id);
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('user', id);
  return row;
}

async function checkRoles(
  db: Kysely<Database>,
  roles: string[],
): Promise<{ roles: string[]; problem?: string }> {
  const unique = [...new Set(roles)];
  if (unique.length === 0) return { roles: [] };
  const found = await db.selectFrom('roles').select('name').where('name', 'in', unique).execute();
  const known = new Set(found.map((r) => r.name));
  const missing = unique.filter((r) => !known.has(r));
  return missing.length > 0
    ? { roles: unique, problem: `unknown role: ${missing.join(', ')}` }
    : { roles: unique };
}

async function toUserView(db: Kysely<Database>, row: UserRow): Promise<UserView> {
  const roles = await db
    .selectFrom('user_roles')
    .select('role_name')
    .where('user_id', '=', row.id)
    .orderBy('role_name')
    .execute();
  return {
    id: row.id,
    email: row.email,
    display_name: row.display_name,
    roles: roles.map((r) => r.role_name),
    capabilities: [...(await loadCapabilities(db, row.id))].sort(),
    disabled: row.disabled,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
