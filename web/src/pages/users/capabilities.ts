import type { paths } from '../../api/schema.gen.ts';

/** A user as GET /api/users lists it. */
export type User = paths['/api/users']['get']['responses'][200]['content']['application/json'][number];

/** A role as GET /api/roles lists it. */
export type Role = paths['/api/roles']['get']['responses'][200]['content']['application/json'][number];

/**
 * Every capability a role can grant (the service's src/auth/capabilities.ts; the API has no route that
 * lists them). Capabilities found on roles but missing here are shown too (see allCapabilities).
 */
export const KNOWN_CAPABILITIES: readonly string[] = [
  'manage_exercises',
  'manage_noise_logs',
  'manage_destinations',
  'manage_users',
  'run_exercises',
];

/** What each capability allows, for a person choosing them. */
export const CAPABILITY_HELP: Readonly<Record<string, string>> = {
  manage_exercises: 'author exercises, start lab sessions and wipe SIEMs',
  manage_noise_logs: 'noise archives, jobs and runs',
  manage_destinations: 'SIEM destinations',
  manage_users: 'users, roles and the audit log',
  run_exercises: 'run their own exercise attempts',
};

/** The capabilities to offer: the known ones, then any other a role already grants, in name order. */
export function allCapabilities(roles: readonly Pick<Role, 'permissions'>[]): string[] {
  const extra = new Set<string>();
  for (const role of roles)
    for (const p of role.permissions) if (!KNOWN_CAPABILITIES.includes(p)) extra.add(p);
  return [...KNOWN_CAPABILITIES, ...[...extra].sort()];
}

/**
 * The capabilities a user gets from the chosen roles: the union of their permissions, known ones in
 * their usual order first, then others by name. Names that are not roles add nothing.
 */
export function capabilityUnion(
  roles: readonly Pick<Role, 'name' | 'permissions'>[],
  chosen: readonly string[],
): string[] {
  const union = new Set<string>();
  for (const role of roles) if (chosen.includes(role.name)) for (const p of role.permissions) union.add(p);
  const known = KNOWN_CAPABILITIES.filter((c) => union.has(c));
  const others = [...union].filter((c) => !KNOWN_CAPABILITIES.includes(c)).sort();
  return [...known, ...others];
}

/** Which roles grant a capability among the chosen ones (to explain the preview). */
export function grantedBy(
  roles: readonly Pick<Role, 'name' | 'permissions'>[],
  chosen: readonly string[],
  capability: string,
): string[] {
  return roles
    .filter((r) => chosen.includes(r.name) && r.permissions.includes(capability))
    .map((r) => r.name);
}
