import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { type Static, Type } from 'typebox';
import { answerRegexProblem } from '../../attempts/answer-regex.ts';
import { AppError } from '../../errors.ts';
import { GATE_MODES, RELEASE_CONDITIONS } from '../release-rule.ts';

// An exercise bundle's `exercise.yaml` (docs/exercise-bundle.md): the exercise without database
// ids. Sections and artifacts carry bundle-local refs for cross-references; archives name files
// inside the bundle. Fields with a default may be left out by authors; readers and writers fill
// them in (resolveBundle), so what a reader returns always has every field.

/** The schema version this build writes; it reads this one and every older one. */
export const BUNDLE_SCHEMA_VERSION = 1;

/** Schema versions this build reads. */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1];

/** Pattern of a section or artifact ref. */
export const REF_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';

/**
 * Pattern of an archive's `file`: under `archives/`, `/`-separated segments of letters, digits,
 * `.`, `_` and `-` that do not start with `.` or `-` (so no `..`, no dot-files, no options).
 */
export const ARCHIVE_FILE_PATTERN =
  '^archives/(?:[A-Za-z0-9_][A-Za-z0-9._-]{0,127}/){0,8}[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$';

const PATTERN_PROBLEMS: Record<string, string> = {
  [REF_PATTERN]: 'must be a ref: 1-64 lowercase letters, digits, "_" or "-", starting with a letter or digit',
  [ARCHIVE_FILE_PATTERN]:
    'must be a path under archives/ made of letters, digits, ".", "_" and "-" (no segment starting with "." or "-")',
};

const Ref = Type.String({ pattern: REF_PATTERN, description: 'bundle-local id, e.g. "phishing"' });
const PayloadFormat = Type.Enum(['leef', 'ecs']);

const ArchiveSchema = Type.Object(
  {
    format: PayloadFormat,
    file: Type.String({
      pattern: ARCHIVE_FILE_PATTERN,
      maxLength: 1024,
      description: 'path of the archive inside the bundle, e.g. archives/phishing/leef/mail.log',
    }),
    filename: Type.String({ minLength: 1, maxLength: 255, description: 'the name it was uploaded under' }),
    converted_from: Type.Optional(
      Type.Union([Type.Null(), PayloadFormat], {
        default: null,
        description: 'the format it was uploaded in, when converted on upload',
      }),
    ),
  },
  { additionalProperties: false },
);

const ReleaseSchema = Type.Object(
  {
    condition: Type.Enum([...RELEASE_CONDITIONS]),
    delay_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 525_600, default: 0 })),
    artifacts: Type.Optional(
      Type.Array(Ref, { maxItems: 100, default: [], description: 'refs of the artifacts that gate it' }),
    ),
    gate_mode: Type.Optional(Type.Enum([...GATE_MODES], { default: 'all' })),
  },
  { additionalProperties: false },
);

const SectionSchema = Type.Object(
  {
    ref: Ref,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    position: Type.Integer({ minimum: 1, maximum: 10_000, description: 'unique; sections ship in order' }),
    release: Type.Optional(
      Type.Union([Type.Null(), ReleaseSchema], { default: null, description: 'null: ships at start' }),
    ),
    archives: Type.Optional(Type.Array(ArchiveSchema, { maxItems: 100, default: [] })),
  },
  { additionalProperties: false },
);

const ArtifactSchema = Type.Object(
  {
    ref: Ref,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Enum(['ip', 'domain', 'url', 'hash', 'user', 'host', 'process', 'text']),
    values: Type.Array(Type.String({ maxLength: 1024 }), { minItems: 1, maxItems: 100 }),
    match: Type.Optional(
      Type.Enum(['exact', 'case_insensitive', 'normalized', 'regex'], {
        default: 'exact',
        description: 'regex: anchored RE2 syntax, at most 256 characters',
      }),
    ),
    points: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 10 })),
    section: Type.Optional(
      Type.Union([Type.Null(), Ref], { default: null, description: 'ref of the section it belongs to' }),
    ),
    hint: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 10_000 })], { default: null })),
    hint_penalty: Type.Optional(
      Type.Union([Type.Null(), Type.Integer({ minimum: 0, maximum: 100_000 })], { default: null }),
    ),
  },
  { additionalProperties: false },
);

const StepSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.Optional(Type.String({ maxLength: 100_000, default: '', description: 'Markdown' })),
  },
  { additionalProperties: false },
);

/** The TypeBox schema of `exercise.yaml` (defaulted fields optional, unknown fields refused). */
export const ExerciseBundleSchema = Type.Object(
  {
    schema_version: Type.Literal(BUNDLE_SCHEMA_VERSION),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 20_000, default: '' })),
    destinations: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 20,
        default: [],
        description: 'SIEM destination names; an importer may choose others',
      }),
    ),
    convert_to_leef: Type.Optional(Type.Boolean({ default: false })),
    deadlock_override: Type.Optional(Type.Boolean({ default: false })),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 50,
        default: [],
        description: 'e.g. ATT&CK technique ids such as T1566.001',
      }),
    ),
    steps: Type.Optional(Type.Array(StepSchema, { maxItems: 200, default: [] })),
    artifacts: Type.Optional(Type.Array(ArtifactSchema, { maxItems: 500, default: [] })),
    sections: Type.Optional(Type.Array(SectionSchema, { maxItems: 100, default: [] })),
    archives: Type.Optional(
      Type.Array(ArchiveSchema, { maxItems: 100, default: [], description: 'a sectionless exercise only' }),
    ),
  },
  { additionalProperties: false },
);

/** An exercise bundle as authored (fields with defaults may be absent). */
export type ExerciseBundle = Static<typeof ExerciseBundleSchema>;

type Resolved<T> = T extends readonly (infer U)[]
  ? Resolved<U>[]
  : T extends object
    ? { [K in keyof T]-?: Resolved<Exclude<T[K], undefined>> }
    : T;

/** An exercise bundle with every default filled in (what readBundle returns). */
export type ResolvedExerciseBundle = Resolved<ExerciseBundle>;
/** One archive entry of a resolved bundle. */
export type BundleArchive = ResolvedExerciseBundle['archives'][number];

/** One schema or reference problem: a JSON Pointer into exercise.yaml and what is wrong there. */
export interface BundleProblem {
  readonly path: string;
  readonly message: string;
}

/** The JSON Schema document of exercise.yaml, for editors and external validation. */
export function bundleJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `urn:socdrill:exercise-bundle:${BUNDLE_SCHEMA_VERSION}`,
    title: 'Socdrill exercise bundle (exercise.yaml)',
    ...(JSON.parse(JSON.stringify(ExerciseBundleSchema)) as Record<string, unknown>),
  };
}

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (compiled === undefined) {
    const ajv = new Ajv({
      allErrors: true,
      strict: false,
      coerceTypes: false,
      useDefaults: false,
      verbose: true,
    });
    compiled = ajv.compile(JSON.parse(JSON.stringify(ExerciseBundleSchema)) as object);
  }
  return compiled;
}

/**
 * Checks a parsed exercise.yaml and fills in its defaults. Throws `invalid_input` with
 * `details.reason` 'unsupported_schema_version', 'schema' (every problem in `details.problems`,
 * each with its JSON Pointer) or 'references' (duplicate refs or positions, unknown refs, invalid
 * regex values, legacy archives next to sections; also all of them in `details.problems`).
 */
export function resolveBundle(value: unknown): ResolvedExerciseBundle {
  checkVersion(value);
  const validate = validator();
  if (!validate(value)) {
    const problems = schemaProblems(validate.errors ?? []);
    throw new AppError(
      'invalid_input',
      `exercise.yaml does not match the bundle schema: ${summary(problems)}`,
      {
        details: { reason: 'schema', problems },
      },
    );
  }
  const bundle = fillDefaults(value as ExerciseBundle);
  const problems = referenceProblems(bundle);
  if (problems.length > 0) {
    throw new AppError('invalid_input', `exercise.yaml has reference problems: ${summary(problems)}`, {
      details: { reason: 'references', problems },
    });
  }
  return bundle;
}

function checkVersion(value: unknown): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  const version = (value as Record<string, unknown>).schema_version;
  if (typeof version === 'number' && Number.isInteger(version) && version > BUNDLE_SCHEMA_VERSION) {
    throw new AppError(
      'invalid_input',
      `exercise.yaml has schema_version ${version}; this build reads schema_version ${READABLE_SCHEMA_VERSIONS.join(', ')}`,
      {
        details: {
          reason: 'unsupported_schema_version',
          schema_version: version,
          supported: READABLE_SCHEMA_VERSIONS,
        },
      },
    );
  }
}

function summary(problems: readonly BundleProblem[]): string {
  const shown = problems.slice(0, 5).map((p) => `${p.path || '(root)'} ${p.message}`);
  if (problems.length > shown.length) shown.push(`and ${problems.length - shown.length} more`);
  return shown.join('; ');
}

function fillDefaults(b: ExerciseBundle): ResolvedExerciseBundle {
  const archive = (a: Static<typeof ArchiveSchema>): BundleArchive => ({
    format: a.format,
    file: a.file,
    filename: a.filename,
    converted_from: a.converted_from ?? null,
  });
  return {
    schema_version: b.schema_version,
    title: b.title,
    description: b.description ?? '',
    destinations: [...(b.destinations ?? [])],
    convert_to_leef: b.convert_to_leef ?? false,
    deadlock_override: b.deadlock_override ?? false,
    tags: [...(b.tags ?? [])],
    steps: (b.steps ?? []).map((s) => ({ title: s.title, body: s.body ?? '' })),
    artifacts: (b.artifacts ?? []).map((a) => ({
      ref: a.ref,
      name: a.name,
      kind: a.kind,
      values: [...a.values],
      match: a.match ?? 'exact',
      points: a.points ?? 10,
      section: a.section ?? null,
      hint: a.hint ?? null,
      hint_penalty: a.hint_penalty ?? null,
    })),
    sections: (b.sections ?? []).map((s) => ({
      ref: s.ref,
      name: s.name,
      position: s.position,
      release:
        s.release === undefined || s.release === null
          ? null
          : {
              condition: s.release.condition,
              delay_minutes: s.release.delay_minutes ?? 0,
              artifacts: [...(s.release.artifacts ?? [])],
              gate_mode: s.release.gate_mode ?? 'all',
            },
      archives: (s.archives ?? []).map(archive),
    })),
    archives: (b.archives ?? []).map(archive),
  };
}

function referenceProblems(b: ResolvedExerciseBundle): BundleProblem[] {
  const problems: BundleProblem[] = [];
  const sectionRefs = new Map<string, number>();
  const positions = new Map<number, number>();
  b.sections.forEach((s, i) => {
    const first = sectionRefs.get(s.ref);
    if (first === undefined) sectionRefs.set(s.ref, i);
    else
      problems.push({
        path: `/sections/${i}/ref`,
        message: `duplicates the ref "${s.ref}" of /sections/${first}`,
      });
    const samePosition = positions.get(s.position);
    if (samePosition === undefined) positions.set(s.position, i);
    else {
      problems.push({
        path: `/sections/${i}/position`,
        message: `duplicates position ${s.position} of /sections/${samePosition}`,
      });
    }
  });
  const artifactRefs = new Map<string, number>();
  b.artifacts.forEach((a, i) => {
    const first = artifactRefs.get(a.ref);
    if (first === undefined) artifactRefs.set(a.ref, i);
    else
      problems.push({
        path: `/artifacts/${i}/ref`,
        message: `duplicates the ref "${a.ref}" of /artifacts/${first}`,
      });
    if (a.section !== null && !sectionRefs.has(a.section)) {
      problems.push({ path: `/artifacts/${i}/section`, message: `refers to unknown section "${a.section}"` });
    }
    if (a.match === 'regex') {
      a.values.forEach((v, j) => {
        const problem = answerRegexProblem(v);
        if (problem !== null) problems.push({ path: `/artifacts/${i}/values/${j}`, message: problem });
      });
    }
  });
  b.sections.forEach((s, i) => {
    s.release?.artifacts.forEach((ref, j) => {
      if (!artifactRefs.has(ref)) {
        problems.push({
          path: `/sections/${i}/release/artifacts/${j}`,
          message: `refers to unknown artifact "${ref}"`,
        });
      }
    });
  });
  if (b.sections.length > 0 && b.archives.length > 0) {
    problems.push({
      path: '/archives',
      message: 'holds the archives of a sectionless exercise; with sections, archives belong to sections',
    });
  }
  return problems;
}

/** Ajv's errors as problems, one per field, without the noise of `null | X` unions. */
function schemaProblems(errors: readonly ErrorObject[]): BundleProblem[] {
  const dropped = new Set<ErrorObject>();
  const replaced = new Map<ErrorObject, BundleProblem>();
  for (const union of errors) {
    if (union.keyword !== 'anyOf') continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const e of errors) {
      if (!e.schemaPath.startsWith(prefix)) continue;
      const branch = e.schemaPath.slice(prefix.length).split('/')[0] ?? '';
      branches.set(branch, [...(branches.get(branch) ?? []), e]);
    }
    // A branch whose only complaint is the value's type (or constant) at the union itself did
    // not apply; the errors of a branch that did apply say what is wrong.
    const typeOnly = (list: ErrorObject[]) =>
      list.every(
        (e) => e.instancePath === union.instancePath && ['type', 'const', 'enum'].includes(e.keyword),
      );
    const applied = [...branches.values()].filter((list) => !typeOnly(list));
    for (const list of branches.values()) if (typeOnly(list)) for (const e of list) dropped.add(e);
    if (applied.length > 0) dropped.add(union);
    else {
      const options = (Array.isArray(union.schema) ? (union.schema as Record<string, unknown>[]) : []).map(
        describeType,
      );
      replaced.set(union, { path: union.instancePath, message: `must be ${options.join(' or ')}` });
    }
  }
  const problems: BundleProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (dropped.has(e)) continue;
    const problem = replaced.get(e) ?? describeError(e);
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function describeType(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.join(', ')}`;
  if ('const' in schema) return JSON.stringify(schema.const);
  switch (schema.type) {
    case 'null':
      return 'null';
    case 'object':
      return 'an object';
    case 'array':
      return 'a list';
    case 'integer':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    default:
      return `a ${String(schema.type)}`;
  }
}

function describeError(e: ErrorObject): BundleProblem {
  const params = e.params as Record<string, unknown>;
  const at = (name: unknown) =>
    `${e.instancePath}/${String(name).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  switch (e.keyword) {
    case 'required':
      return { path: at(params.missingProperty), message: 'is required' };
    case 'additionalProperties':
      return { path: at(params.additionalProperty), message: 'is not a known field' };
    case 'enum':
      return {
        path: e.instancePath,
        message: `must be one of ${(params.allowedValues as unknown[]).join(', ')}`,
      };
    case 'const':
      return { path: e.instancePath, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'type':
      return { path: e.instancePath, message: `must be ${describeType({ type: params.type })}` };
    case 'pattern':
      return {
        path: e.instancePath,
        message: PATTERN_PROBLEMS[String(params.pattern)] ?? `must match ${String(params.pattern)}`,
      };
    case 'minLength':
      return {
        path: e.instancePath,
        message:
          Number(params.limit) === 1
            ? 'must not be empty'
            : `must be at least ${String(params.limit)} characters`,
      };
    case 'maxLength':
      return { path: e.instancePath, message: `must be at most ${String(params.limit)} characters` };
    case 'minItems':
      return { path: e.instancePath, message: `must have at least ${String(params.limit)} items` };
    case 'maxItems':
      return { path: e.instancePath, message: `must have at most ${String(params.limit)} items` };
    case 'minimum':
      return { path: e.instancePath, message: `must be at least ${String(params.limit)}` };
    case 'maximum':
      return { path: e.instancePath, message: `must be at most ${String(params.limit)}` };
    default:
      return { path: e.instancePath, message: e.message ?? 'is not valid' };
  }
}
