/** Longest custom index name (spec 8). */
export const INDEX_NAME_MAX = 120;

/**
 * Why `name` is not a usable index name made of lower-case letters, digits, `_` and `-` (and `.`
 * when `dots`), starting with a letter or digit, or undefined when it is. No wildcards or commas:
 * exact names only, so a wipe can never match more than the lab's own index.
 */
export function plainIndexNameProblem(name: string, options: { dots: boolean }): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > INDEX_NAME_MAX) return `must be at most ${INDEX_NAME_MAX} characters`;
  if (options.dots) {
    return /^[a-z0-9][a-z0-9._-]*$/.test(name)
      ? undefined
      : 'must be lower-case letters, digits, ., _ and -, starting with a letter or digit (no wildcards or commas)';
  }
  return /^[a-z0-9][a-z0-9_-]*$/.test(name)
    ? undefined
    : 'must be lower-case letters, digits, _ and -, starting with a letter or digit';
}
