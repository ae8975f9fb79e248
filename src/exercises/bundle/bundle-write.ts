import { type ZipOptions, zipSync } from 'fflate';
import { stringify } from 'yaml';
import { AppError } from '../../errors.ts';
import {
  BUNDLE_SCHEMA_VERSION,
  type BundleArchive,
  type ExerciseBundle,
  type ResolvedExerciseBundle,
  resolveBundle,
} from './bundle-schema.ts';

/** Name of the exercise description inside a bundle. */
export const BUNDLE_YAML = 'exercise.yaml';

/** First line of every exercise.yaml this build writes. */
export const BUNDLE_HEADER = `# Socdrill exercise bundle, schema_version ${BUNDLE_SCHEMA_VERSION}\n`;

// Entries are dated 1980-01-01 (the zip epoch, in local time as zip dates are) so that the same
// exercise always gives the same bytes.
const ZIP_EPOCH = new Date(1980, 0, 1, 0, 0, 0);
const ALREADY_COMPRESSED = /\.(?:zip|gz|tgz)$/i;

/**
 * A bundle as zip bytes: `exercise.yaml` first (defaults filled in, stable key order, header
 * comment), then every archive in the order the yaml names them. `archives` maps each `file` of the
 * yaml to its bytes; a missing or unreferenced file is refused (`invalid_input`), as is a bundle
 * resolveBundle refuses.
 */
export function writeBundle(bundle: ExerciseBundle, archives: ReadonlyMap<string, Buffer>): Buffer {
  const resolved = resolveBundle(bundle);
  const files = referencedFiles(resolved);
  const missing = files.filter((f) => !archives.has(f));
  if (missing.length > 0) {
    throw new AppError('invalid_input', `bundle archives missing: ${missing.join(', ')}`, {
      details: { reason: 'missing_archive', files: missing },
    });
  }
  const unreferenced = [...archives.keys()].filter((f) => !files.includes(f));
  if (unreferenced.length > 0) {
    throw new AppError(
      'invalid_input',
      `bundle archives not named in the exercise: ${unreferenced.join(', ')}`,
      {
        details: { reason: 'unreferenced_archive', files: unreferenced },
      },
    );
  }
  const entries: Record<string, [Uint8Array, ZipOptions]> = {
    [BUNDLE_YAML]: [Buffer.from(bundleYaml(resolved)), { level: 6, mtime: ZIP_EPOCH }],
  };
  for (const file of files) {
    const level = ALREADY_COMPRESSED.test(file) ? 0 : 6;
    entries[file] = [archives.get(file) as Buffer, { level, mtime: ZIP_EPOCH }];
  }
  const zip = zipSync(entries);
  return Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
}

/** The text of exercise.yaml for a resolved bundle: header comment, then keys in a stable order. */
export function bundleYaml(bundle: ResolvedExerciseBundle): string {
  return (
    BUNDLE_HEADER +
    stringify(canonical(bundle), {
      lineWidth: 0,
      blockQuote: 'literal',
      aliasDuplicateObjects: false,
    })
  );
}

/** Every archive file a bundle names, sections in position order first, each once. */
export function referencedFiles(bundle: ResolvedExerciseBundle): string[] {
  const sections = [...bundle.sections].sort((a, b) => a.position - b.position);
  const files = [...sections.flatMap((s) => s.archives), ...bundle.archives].map((a) => a.file);
  return [...new Set(files)];
}

/**
 * A safe path for an archive inside a bundle: `archives/<section ref or "exercise">/<format>/<name>`,
 * the name being the upload name's last segment with anything but letters, digits, `.`, `_` and `-`
 * replaced by `_`. A path already in `taken` gets a `-2`, `-3`, … before its extension.
 */
export function bundleFilePath(
  sectionRef: string | null,
  format: 'leef' | 'ecs',
  filename: string,
  taken: ReadonlySet<string> = new Set(),
): string {
  const folder = `archives/${sectionRef ?? 'exercise'}/${format}/`;
  const name = sanitiseFilename(filename);
  if (!taken.has(folder + name)) return folder + name;
  const dot = extensionStart(name);
  for (let n = 2; ; n++) {
    const candidate = `${folder}${name.slice(0, dot)}-${n}${name.slice(dot)}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function sanitiseFilename(filename: string): string {
  const last = filename.split(/[/\\]/).pop() ?? '';
  let name = last
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[.-]+/, '');
  if (name === '' || /^[._-]*$/.test(name)) name = `archive${name}`;
  if (name.length > 120) {
    const dot = extensionStart(name);
    const ext = name.slice(dot).slice(0, 20);
    name = name.slice(0, 120 - ext.length) + ext;
  }
  return name;
}

// Where a name's extension starts (`.tar.gz` counts as one), or its length when it has none.
function extensionStart(name: string): number {
  const match = /(?:\.tar)?\.[A-Za-z0-9]{1,10}$/.exec(name);
  return match === null || match.index === 0 ? name.length : match.index;
}

function canonical(b: ResolvedExerciseBundle): Record<string, unknown> {
  const archive = (a: BundleArchive) => ({
    format: a.format,
    file: a.file,
    filename: a.filename,
    ...(a.converted_from === null ? {} : { converted_from: a.converted_from }),
  });
  return {
    schema_version: b.schema_version,
    title: b.title,
    description: b.description,
    destinations: b.destinations,
    convert_to_leef: b.convert_to_leef,
    deadlock_override: b.deadlock_override,
    tags: b.tags,
    steps: b.steps.map((s) => ({ title: s.title, body: s.body })),
    artifacts: b.artifacts.map((a) => ({
      ref: a.ref,
      name: a.name,
      kind: a.kind,
      values: a.values,
      match: a.match,
      points: a.points,
      section: a.section,
      ...(a.hint === null ? {} : { hint: a.hint }),
      ...(a.hint_penalty === null ? {} : { hint_penalty: a.hint_penalty }),
    })),
    sections: b.sections.map((s) => ({
      ref: s.ref,
      name: s.name,
      position: s.position,
      release:
        s.release === null
          ? null
          : {
              condition: s.release.condition,
              delay_minutes: s.release.delay_minutes,
              artifacts: s.release.artifacts,
              gate_mode: s.release.gate_mode,
            },
      archives: s.archives.map(archive),
    })),
    archives: b.archives.map(archive),
  };
}
