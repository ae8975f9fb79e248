/**
 * The syslog HOSTNAME a section's events carry (decisions.md §7, also SIEM Q's log source
 * identifier): `lab-{exercise_id8}-{section_position}-{siem}`, or `lab-{exercise_id8}-{siem}` for a
 * sectionless exercise; lower case, characters a HOSTNAME may not hold replaced, at most 63.
 */
export function sectionIdentity(exerciseId: string, position: number | null, siem: string): string {
  const id8 = exerciseId.replace(/-/g, '').slice(0, 8);
  const raw = position === null ? `lab-${id8}-${siem}` : `lab-${id8}-${position}-${siem}`;
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9._-]/g, '-')
    .slice(0, 63);
}
