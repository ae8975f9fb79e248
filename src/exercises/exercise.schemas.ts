import { Type } from 'typebox';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** Artifact kinds (decisions.md §6). */
export const ArtifactKind = Type.Union([
  Type.Literal('ip'),
  Type.Literal('domain'),
  Type.Literal('url'),
  Type.Literal('hash'),
  Type.Literal('user'),
  Type.Literal('host'),
  Type.Literal('process'),
  Type.Literal('text'),
]);
/** How a submitted answer is compared with an artifact's values. */
export const MatchRule = Type.Union(
  [
    Type.Literal('exact'),
    Type.Literal('case_insensitive'),
    Type.Literal('normalized'),
    Type.Literal('regex'),
  ],
  {
    description:
      'exact; case_insensitive; normalized (trimmed, case-folded, IPs/hashes/domains/URLs canonicalised); ' +
      'regex (anchored, RE2 syntax: no backreferences or lookaround, at most 256 characters)',
  },
);
const ReleaseCondition = Type.Union([
  Type.Literal('delay_only'),
  Type.Literal('artifacts_only'),
  Type.Literal('delay_and_artifacts'),
  Type.Literal('delay_or_artifacts'),
]);
const PayloadFormat = Type.Union([Type.Literal('leef'), Type.Literal('ecs')]);

const releaseFields = {
  condition: ReleaseCondition,
  delay_minutes: Type.Integer({ minimum: 0, maximum: 525_600, default: 0 }),
  artifact_ids: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100, default: [] }),
  gate_mode: Type.Union([Type.Literal('all'), Type.Literal('any')], { default: 'all' }),
};

/** A section's release block; absent or null ships at start. */
export const ReleaseRuleSchema = Type.Object(releaseFields, { additionalProperties: false });

/**
 * A release block as sent: only `condition` is required. Defaults inside `release: … | null` are
 * never filled in by the validator (it skips defaults under a union), so the others are optional
 * here and the service fills them in.
 */
export const ReleaseRuleInput = Type.Object(
  {
    condition: releaseFields.condition,
    delay_minutes: Type.Optional(releaseFields.delay_minutes),
    artifact_ids: Type.Optional(releaseFields.artifact_ids),
    gate_mode: Type.Optional(releaseFields.gate_mode),
  },
  { additionalProperties: false },
);

const title = Type.String({ minLength: 1, maxLength: 200 });
const description = Type.String({ maxLength: 20_000 });
const destinations = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 20,
  description: 'SIEM destination names the exercise can run on',
});
const tags = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 50,
  description: 'e.g. ATT&CK technique ids',
});

/** POST /api/exercises: a draft needs only a title. */
export const ExerciseCreateBody = Type.Object(
  {
    title,
    description: Type.Optional(description),
    destinations: Type.Optional(destinations),
    convert_to_leef: Type.Optional(Type.Boolean()),
    deadlock_override: Type.Optional(Type.Boolean()),
    tags: Type.Optional(tags),
  },
  { additionalProperties: false },
);
/** PATCH /api/exercises/:id: any subset. */
export const ExercisePatchBody = Type.Partial(ExerciseCreateBody, { additionalProperties: false });

/** POST …/steps. */
export const StepCreateBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.Optional(Type.String({ maxLength: 100_000, description: 'Markdown' })),
    position: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'default: last' })),
  },
  { additionalProperties: false },
);
export const StepPatchBody = Type.Partial(StepCreateBody, { additionalProperties: false });

/** POST …/artifacts. */
export const ArtifactCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: ArtifactKind,
    values: Type.Array(Type.String({ maxLength: 1024 }), { minItems: 1, maxItems: 100 }),
    match: Type.Optional(MatchRule),
    points: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, description: 'default 10' })),
    section_id: Type.Optional(nullable(Type.String({ maxLength: 64 }))),
    hint: Type.Optional(nullable(Type.String({ maxLength: 10_000 }))),
    hint_penalty: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: 100_000 }))),
  },
  { additionalProperties: false },
);
export const ArtifactPatchBody = Type.Partial(ArtifactCreateBody, { additionalProperties: false });

/** POST …/sections. */
export const SectionCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    position: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'default: last' })),
    release: Type.Optional(nullable(ReleaseRuleInput)),
  },
  { additionalProperties: false },
);
export const SectionPatchBody = Type.Partial(SectionCreateBody, { additionalProperties: false });

/** A stored archive of a section (or the legacy exercise archive). */
export const ArchiveView = Type.Object({
  format: PayloadFormat,
  filename: Type.String(),
  files: Type.Integer(),
  events: Type.Integer(),
  size: Type.Integer(),
  converted_from: Type.Optional(PayloadFormat),
  uploaded_at: Type.String({ format: 'date-time' }),
});

export const StepView = Type.Object({
  id: Type.String(),
  position: Type.Integer(),
  title: Type.String(),
  body: Type.String(),
});

export const ArtifactView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: ArtifactKind,
  values: Type.Array(Type.String()),
  match: MatchRule,
  points: Type.Integer(),
  section_id: nullable(Type.String()),
  hint: nullable(Type.String()),
  hint_penalty: nullable(Type.Integer()),
});

export const SectionView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  position: Type.Integer(),
  release: nullable(ReleaseRuleSchema),
  archives: Type.Array(ArchiveView),
});

const summaryFields = {
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  state: Type.Union([Type.Literal('draft'), Type.Literal('active')]),
  destinations: Type.Array(Type.String()),
  convert_to_leef: Type.Boolean(),
  deadlock_override: Type.Boolean(),
  tags: Type.Array(Type.String()),
  version: Type.Integer({ description: 'send as If-Match to refuse a stale update (412)' }),
  updated_at: Type.String({ format: 'date-time' }),
};

/** GET /api/exercises rows. */
export const ExerciseSummary = Type.Object(summaryFields);

/** GET /api/exercises/:id. */
export const ExerciseView = Type.Object({
  ...summaryFields,
  steps: Type.Array(StepView),
  artifacts: Type.Array(ArtifactView),
  sections: Type.Array(SectionView),
  archives: Type.Array(ArchiveView, { description: 'legacy archives of a sectionless exercise' }),
});

export const ChildParams = Type.Object({ id: Type.String(), childId: Type.String() });
export const SectionParams = Type.Object({ id: Type.String(), sectionId: Type.String() });
export const FilenameQuery = Type.Object(
  { filename: Type.String({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: true },
);

/** `If-Match: <version>` (a bare integer or a quoted one). */
export const IfMatchHeaders = Type.Object(
  { 'if-match': Type.Optional(Type.String({ maxLength: 40 })) },
  { additionalProperties: true },
);

/** One problem found by publish (decisions.md §6). */
export const PublishProblem = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    siem: Type.Optional(Type.String()),
    section: Type.Optional(Type.String()),
    format: Type.Optional(Type.String()),
    artifact: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** POST /api/exercises/:id/publish answers. */
export const PublishResult = Type.Object({
  ok: Type.Boolean(),
  state: Type.Union([Type.Literal('draft'), Type.Literal('active')]),
  problems: Type.Optional(Type.Array(PublishProblem)),
  warnings: Type.Array(
    Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: true }),
  ),
});
