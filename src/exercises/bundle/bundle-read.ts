import { constants } from 'node:buffer';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import { parseDocument } from 'yaml';
import { AppError } from '../../errors.ts';
import { type ResolvedExerciseBundle, resolveBundle } from './bundle-schema.ts';
import { BUNDLE_YAML, referencedFiles } from './bundle-write.ts';

/** Caps on a bundle: its size, its number of entries and the bytes read out of it. */
export interface BundleLimits {
  /** Bytes of the zip as received (not applied to a folder). */
  readonly maxBytes: number;
  /** Entries in the zip (folders included) or files in the folder. */
  readonly maxEntries: number;
  /** Bytes of exercise.yaml and the archives, counted as they are inflated or read. */
  readonly maxUncompressedBytes: number;
}

/** A bundle read and checked: the exercise, its archives by `file`, and what was ignored. */
export interface ReadBundleResult {
  readonly bundle: ResolvedExerciseBundle;
  readonly archives: Map<string, Buffer>;
  /** Files present but not named in exercise.yaml (ignored), one sentence each. */
  readonly warnings: string[];
}

/**
 * Reads an exercise bundle zip. Every refusal is `invalid_input` with `details.reason` (not_a_zip,
 * corrupt_zip, unsafe_entry, duplicate_entry, unsupported_entry, corrupt_entry,
 * missing_exercise_yaml, yaml_encoding, yaml_syntax, unsupported_schema_version, schema,
 * references, missing_archive), or `payload_too_large` with `details.limit` naming the cap.
 * Inflated bytes are counted as they come out; the headers' sizes are not trusted.
 */
export function readBundle(zip: Buffer, limits: BundleLimits): ReadBundleResult {
  if (zip.length > limits.maxBytes) {
    throw tooLarge('maxBytes', limits.maxBytes, `the bundle is ${zip.length} bytes`);
  }
  const entries = zipEntries(zip, limits);
  const budget = { left: limits.maxUncompressedBytes, limit: limits.maxUncompressedBytes };
  const names = [...entries.keys()];
  const prefix = bundlePrefix(names);
  const plan = planBundle(names, prefix, inflateEntry(zip, entries.get(prefix + BUNDLE_YAML)!, budget));
  const archives = new Map<string, Buffer>();
  for (const file of plan.files)
    archives.set(file, inflateEntry(zip, entries.get(plan.prefix + file)!, budget));
  return { bundle: plan.bundle, archives, warnings: plan.warnings };
}

/**
 * Reads an unpacked bundle folder with the same checks as readBundle. Symbolic links are followed
 * only when they stay inside the folder; `maxBytes` does not apply (nothing is received).
 */
export async function readBundleDirectory(dir: string, limits: BundleLimits): Promise<ReadBundleResult> {
  const files = await folderFiles(dir, limits);
  const budget = { left: limits.maxUncompressedBytes, limit: limits.maxUncompressedBytes };
  const names = [...files.keys()];
  const prefix = bundlePrefix(names);
  const plan = planBundle(names, prefix, await readCounted(files.get(prefix + BUNDLE_YAML)!, budget));
  const archives = new Map<string, Buffer>();
  for (const file of plan.files)
    archives.set(file, await readCounted(files.get(plan.prefix + file)!, budget));
  return { bundle: plan.bundle, archives, warnings: plan.warnings };
}

interface BundlePlan {
  readonly bundle: ResolvedExerciseBundle;
  /** Archive files to read, as the yaml names them. */
  readonly files: string[];
  /** The one top-level folder the bundle was packed in ('' when none). */
  readonly prefix: string;
  readonly warnings: string[];
}

// Checks exercise.yaml and matches the files it names against the entries.
function planBundle(names: readonly string[], prefix: string, yaml: Buffer): BundlePlan {
  const bundle = resolveBundle(parseYaml(yaml));
  const files = referencedFiles(bundle);
  const present = new Set(names);
  const missing = files.filter((f) => !present.has(prefix + f));
  if (missing.length > 0) {
    throw new AppError(
      'invalid_input',
      `archives named in ${BUNDLE_YAML} are missing from the bundle: ${missing.join(', ')}`,
      {
        details: { reason: 'missing_archive', files: missing },
      },
    );
  }
  const wanted = new Set([BUNDLE_YAML, ...files].map((f) => prefix + f));
  const warnings = names
    .filter((n) => !wanted.has(n))
    .map((n) => `${JSON.stringify(n)} is not named in ${BUNDLE_YAML} and was ignored`);
  return { bundle, files, prefix, warnings };
}

// Where exercise.yaml is: at the root, or in the one top-level folder the whole bundle sits in
// (a folder zipped as a whole); '' or that folder with its '/'.
function bundlePrefix(names: readonly string[]): string {
  if (names.includes(BUNDLE_YAML)) return '';
  const relevant = names.filter((n) => !n.startsWith('__MACOSX/'));
  const prefix = `${relevant[0]?.split('/')[0] ?? ''}/`;
  if (prefix !== '/' && relevant.every((n) => n.startsWith(prefix)) && names.includes(prefix + BUNDLE_YAML)) {
    return prefix;
  }
  throw new AppError('invalid_input', `the bundle has no ${BUNDLE_YAML} at its root`, {
    details: { reason: 'missing_exercise_yaml' },
  });
}

function parseYaml(bytes: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AppError('invalid_input', `${BUNDLE_YAML} is not UTF-8 text`, {
      details: { reason: 'yaml_encoding' },
    });
  }
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: true, prettyErrors: true });
  const error = doc.errors[0];
  if (error !== undefined) {
    const at = error.linePos?.[0];
    const message = error.message.split('\n')[0] ?? error.message;
    const where = at === undefined ? '' : ` at line ${at.line}, column ${at.col}`;
    throw new AppError('invalid_input', `${BUNDLE_YAML} is not valid YAML${where}: ${message}`, {
      details: { reason: 'yaml_syntax', line: at?.line ?? null, column: at?.col ?? null, message },
    });
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new AppError('invalid_input', `${BUNDLE_YAML} is not valid YAML: ${message}`, {
      details: { reason: 'yaml_syntax', line: null, column: null, message },
    });
  }
}

function tooLarge(limit: keyof BundleLimits, max: number, what: string): AppError {
  return new AppError('payload_too_large', `${what}; the limit ${limit} is ${max}`, {
    details: { limit, max },
  });
}

function refused(reason: string, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('invalid_input', message, { details: { reason, ...details } });
}

/**
 * The name a bundle entry is known by (`.` and empty segments dropped), or a refusal naming it:
 * absolute paths, drive letters, `..`, backslashes and control characters (NUL included).
 */
function checkEntryName(name: string): string {
  const bad = (why: string) =>
    refused('unsafe_entry', `bundle entry ${JSON.stringify(name)} ${why}`, { entry: name });
  if (name.length === 0) throw bad('has an empty name');
  if (name.length > 1024) throw bad('has a name longer than 1024 characters');
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw bad('has a control character in its name');
  }
  if (name.includes('\\')) throw bad('has a backslash in its name');
  if (name.startsWith('/')) throw bad('has an absolute path');
  if (/^[A-Za-z]:/.test(name)) throw bad('has a drive letter');
  const segments = name.split('/');
  if (segments.includes('..')) throw bad('points outside the bundle (..)');
  return segments.filter((s) => s !== '' && s !== '.').join('/');
}

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly flags: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly dataStart: number;
}

const MAX_LENGTH = constants.MAX_LENGTH;
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

// The central directory's file entries by name (folders left out), every name checked.
function zipEntries(zip: Buffer, limits: BundleLimits): Map<string, ZipEntry> {
  const notZip = () => refused('not_a_zip', 'the bundle is not a zip file');
  const corrupt = (why: string) => refused('corrupt_zip', `the bundle zip is damaged: ${why}`);
  if (zip.length < 22) throw notZip();
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw notZip();
  const count = zip.readUInt16LE(eocd + 10);
  const directoryOffset = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) {
    throw refused('corrupt_zip', 'the bundle zip uses ZIP64, which bundles do not need');
  }
  if (count > limits.maxEntries) {
    throw tooLarge('maxEntries', limits.maxEntries, `the bundle has ${count} entries`);
  }
  const entries = new Map<string, ZipEntry>();
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > eocd || zip.readUInt32LE(at) !== CENTRAL) throw corrupt('bad central directory');
    const madeBy = zip.readUInt16LE(at + 4);
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const attributes = zip.readUInt32LE(at + 38);
    const local = zip.readUInt32LE(at + 42);
    if (at + 46 + nameLength > eocd) throw corrupt('bad central directory');
    const raw = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;

    const name = checkEntryName(raw);
    const fileType = (attributes >>> 16) & 0o170000;
    const unix = madeBy >>> 8 === 3 || madeBy >>> 8 === 19;
    if (unix && fileType === 0o120000) {
      throw refused('unsafe_entry', `bundle entry ${JSON.stringify(raw)} is a symbolic link`, { entry: raw });
    }
    if (raw.endsWith('/') || name === '') continue;
    if (entries.has(name)) {
      throw refused('duplicate_entry', `bundle entry ${JSON.stringify(name)} appears twice`, { entry: name });
    }
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL) {
      throw corrupt(`entry ${JSON.stringify(name)} has no local header`);
    }
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (dataStart + compressedSize > zip.length) {
      throw corrupt(`entry ${JSON.stringify(name)} runs past the end of the zip`);
    }
    entries.set(name, { name, method, flags, crc, compressedSize, size, dataStart });
  }
  return entries;
}

interface Budget {
  left: number;
  readonly limit: number;
}

function spend(budget: Budget, bytes: number): void {
  budget.left -= bytes;
  if (budget.left < 0) {
    throw tooLarge(
      'maxUncompressedBytes',
      budget.limit,
      'the bundle holds more uncompressed bytes than allowed',
    );
  }
}

// One entry's bytes. Deflated data is inflated with an output cap of what the budget has left, so
// a bomb stops at the cap whatever its header says; size and CRC-32 are checked afterwards.
function inflateEntry(zip: Buffer, entry: ZipEntry, budget: Budget): Buffer {
  const name = JSON.stringify(entry.name);
  if ((entry.flags & 1) !== 0) {
    throw refused('unsupported_entry', `bundle entry ${name} is encrypted`, { entry: entry.name });
  }
  const data = zip.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  let bytes: Buffer;
  if (entry.method === 0) {
    bytes = data;
  } else if (entry.method === 8) {
    try {
      bytes = inflateRawSync(data, { maxOutputLength: Math.min(MAX_LENGTH, Math.max(1, budget.left + 1)) });
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') spend(budget, budget.left + 1);
      throw refused('corrupt_entry', `bundle entry ${name} is corrupt: ${(err as Error).message}`, {
        entry: entry.name,
      });
    }
  } else {
    throw refused('unsupported_entry', `bundle entry ${name} uses compression method ${entry.method}`, {
      entry: entry.name,
    });
  }
  spend(budget, bytes.length);
  if (bytes.length !== entry.size || crc32(bytes) !== entry.crc) {
    throw refused('corrupt_entry', `bundle entry ${name} does not match its size or CRC-32`, {
      entry: entry.name,
    });
  }
  return bytes;
}

interface FolderFile {
  readonly path: string;
  readonly size: number;
}

// Every file under `dir` by its `/`-separated relative name, links inside the folder followed.
async function folderFiles(dir: string, limits: BundleLimits): Promise<Map<string, FolderFile>> {
  let root: string;
  try {
    root = await realpath(dir);
    if (!(await stat(root)).isDirectory()) throw new Error('not a folder');
  } catch {
    throw refused('not_a_folder', `the bundle folder ${JSON.stringify(dir)} cannot be read`, { folder: dir });
  }
  const files = new Map<string, FolderFile>();
  const visited = new Set<string>([root]);
  const inside = (target: string) => target === root || target.startsWith(root + path.sep);
  const walk = async (real: string, prefix: string): Promise<void> => {
    const names = (await readdir(real)).sort();
    for (const entry of names) {
      const name = checkEntryName(prefix + entry);
      const full = path.join(real, entry);
      let target = full;
      const info = await lstat(full);
      if (info.isSymbolicLink()) {
        target = await realpath(full).catch(() => '');
        if (target === '' || !inside(target)) {
          throw refused(
            'unsafe_entry',
            `bundle entry ${JSON.stringify(name)} is a symbolic link leaving the folder`,
            {
              entry: name,
            },
          );
        }
      }
      const resolved = target === full ? info : await stat(target);
      if (resolved.isDirectory()) {
        if (visited.has(target)) continue;
        visited.add(target);
        await walk(target, `${name}/`);
      } else if (resolved.isFile()) {
        files.set(name, { path: target, size: resolved.size });
        if (files.size > limits.maxEntries) {
          throw tooLarge(
            'maxEntries',
            limits.maxEntries,
            `the bundle folder has more than ${limits.maxEntries} files`,
          );
        }
      } else {
        throw refused('unsafe_entry', `bundle entry ${JSON.stringify(name)} is not a regular file`, {
          entry: name,
        });
      }
    }
  };
  await walk(root, '');
  return files;
}

async function readCounted(file: FolderFile, budget: Budget): Promise<Buffer> {
  if (file.size > budget.left) spend(budget, file.size);
  const bytes = await readFile(file.path);
  spend(budget, bytes.length);
  return bytes;
}
