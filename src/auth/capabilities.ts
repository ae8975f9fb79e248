/** Every capability a role can grant (spec 2.7 plus decisions.md §2). */
export const CAPABILITIES = [
  'manage_exercises',
  'manage_noise_logs',
  'manage_destinations',
  'manage_users',
  'run_exercises',
] as const;

export type Capability = (typeof CAPABILITIES)[number];

/** Roles created at first start; `admin` always keeps every capability. */
export const BUILTIN_ROLES: Readonly<Record<string, readonly Capability[]>> = {
  admin: CAPABILITIES,
  author: ['manage_exercises'],
  analyst: ['run_exercises'],
  noise_operator: ['manage_noise_logs'],
};

/** True when `name` is a known capability. */
export function isCapability(name: string): name is Capability {
  return (CAPABILITIES as readonly string[]).includes(name);
}
