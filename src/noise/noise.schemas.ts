import { Type } from 'typebox';

const IndexMode = Type.Union([Type.Literal('default'), Type.Literal('existing'), Type.Literal('new')], {
  description: 'default: the destination index; existing: an index the SIEM has; new: created on save',
});

const RunStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('running'),
  Type.Literal('succeeded'),
  Type.Literal('partial'),
  Type.Literal('failed'),
  Type.Literal('skipped'),
]);

const ScheduleFields = {
  kind: Type.Union([Type.Literal('interval'), Type.Literal('cron')]),
  interval_seconds: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], {
      description: 'kind interval: seconds from the end of a run to the next (1 … 31 622 400)',
    }),
  ),
  cron: Type.Optional(
    Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
      description: 'kind cron: 5 fields, or 6 with seconds first; evaluated in UTC',
    }),
  ),
  jitter_seconds: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], {
      description: 'a random 0 … jitter_seconds added to each next run',
    }),
  ),
};

/** The schedule object (spec 2.3) in a request. */
export const ScheduleInput = Type.Object(ScheduleFields, { additionalProperties: false });

const ArchiveInput = Type.Object(
  {
    position: Type.Integer({ minimum: 0, description: 'zero-based; orders dispatch' }),
    storage_path: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'path in the noise-archives bucket',
    }),
    index_mode: Type.Optional(IndexMode),
    index: Type.Optional(
      Type.Union([Type.String({ maxLength: 120 }), Type.Null()], {
        description: 'required for index_mode existing and new; at most 120 characters',
      }),
    ),
  },
  { additionalProperties: false },
);

const jobFields = {
  name: Type.String({ minLength: 1, maxLength: 120 }),
  enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
  targets: Type.Array(Type.String({ maxLength: 64 }), {
    maxItems: 20,
    description: 'SIEM destination names',
  }),
  schedule: ScheduleInput,
  propagate_on_wipe: Type.Optional(
    Type.Boolean({ description: 're-fire after a wipe of a SIEM it targets; default false' }),
  ),
  archives: Type.Array(ArchiveInput, { maxItems: 100 }),
};

/** POST /api/noise/jobs body. */
export const JobCreateBody = Type.Object(jobFields, { additionalProperties: false });

/** PATCH /api/noise/jobs/:id body: any subset of the create fields. */
export const JobPatchBody = Type.Object(
  {
    name: Type.Optional(jobFields.name),
    enabled: Type.Optional(Type.Boolean()),
    targets: Type.Optional(jobFields.targets),
    schedule: Type.Optional(ScheduleInput),
    propagate_on_wipe: Type.Optional(Type.Boolean()),
    archives: Type.Optional(jobFields.archives),
  },
  { additionalProperties: false },
);

const ScheduleOut = Type.Object({
  kind: Type.String(),
  interval_seconds: Type.Optional(Type.Number()),
  cron: Type.Optional(Type.String()),
  jitter_seconds: Type.Optional(Type.Number()),
});

const jobViewFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  enabled: Type.Boolean(),
  targets: Type.Array(Type.String()),
  schedule: ScheduleOut,
  propagate_on_wipe: Type.Boolean(),
  archives: Type.Array(
    Type.Object({
      position: Type.Integer(),
      storage_path: Type.String(),
      index_mode: Type.String(),
      index: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  next_run_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'null while disabled',
  }),
  last_run_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  running: Type.Boolean({ description: 'a dispatch of this job is in progress' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

/** A job as returned by reads. */
export const JobView = Type.Object(jobViewFields);

/** A job as returned by create and update. */
export const SavedJobView = Type.Object({
  ...jobViewFields,
  warnings: Type.Array(Type.String(), {
    description: 'indexes that were not created (syslog_tcp targets, or the SIEM refused)',
  }),
});

/** A run row (decisions.md §4). */
export const RunView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  job_id: Type.String({ format: 'uuid' }),
  siem: Type.String(),
  trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual')]),
  status: RunStatus,
  events_shipped: Type.Integer(),
  events_failed: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  started_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** GET /api/noise/runs query. */
export const RunsQuery = Type.Object(
  {
    job_id: Type.Optional(Type.String({ format: 'uuid' })),
    siem: Type.Optional(Type.String({ maxLength: 64 })),
    status: Type.Optional(RunStatus),
    before: Type.Optional(Type.String({ format: 'uuid', description: 'a run id: rows created before it' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  },
  // Other query parameters are ignored, never refused (decisions.md §2 on tokens in the query).
  { additionalProperties: true },
);

/** POST /api/noise/jobs/:id/runs body. */
export const CreateRunsBody = Type.Object(
  {
    dispatch: Type.Optional(
      Type.Boolean({
        description:
          'default true: also dispatch now; false only creates pending rows, which take the trigger of ' +
          'the POST /api/noise/run that dispatches them',
      }),
    ),
  },
  { additionalProperties: false },
);

/** An object in the noise-archives bucket. */
export const ArchiveView = Type.Object({
  storage_path: Type.String(),
  size: Type.Integer(),
  modified_at: Type.String({ format: 'date-time' }),
  used_by: Type.Array(Type.String(), { description: 'names of the jobs that use it' }),
});

/** Route parameter of the archive routes: the rest of the path. */
export const ArchivePathParams = Type.Object({ '*': Type.String({ title: 'storage_path' }) });
