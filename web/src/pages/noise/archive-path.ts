/** A storage path as URL path segments: each segment percent-encoded, the `/` between them kept. */
export function encodeStoragePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * openapi-fetch path serializer for the archive routes (`/api/noise/archives/{*}`): the default
 * one does not fill a parameter named `*`, and would encode the path's slashes.
 */
export function archivePathSerializer(pathname: string, params: Record<string, unknown>): string {
  const path = params['*'];
  return pathname.replace('{*}', encodeStoragePath(typeof path === 'string' ? path : ''));
}

/** A file's name as a default storage path: the name alone, folders and odd characters left out. */
export function defaultStoragePath(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? '';
  return base.trim();
}

/** A size for a person: bytes, KiB, MiB or GiB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
