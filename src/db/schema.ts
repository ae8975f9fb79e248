import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** A timestamptz column: read as Date, written as Date or ISO string, defaulted by the database. */
type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** A jsonb column holding T; written as a JSON string so pg and PGlite encode it alike. */
export type Json<T> = ColumnType<T, string, string>;

export interface UsersTable {
  id: string;
  email: string;
  display_name: string;
  password_hash: string;
  disabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface RolesTable {
  name: string;
  permissions: Json<string[]>;
  builtin: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface UserRolesTable {
  user_id: string;
  role_name: string;
}

export interface SessionsTable {
  /** SHA-256 of the session token; the token itself is never stored. */
  id_hash: string;
  user_id: string;
  created_at: CreatedAt;
  last_seen_at: ColumnType<Date, Date | string, Date | string>;
  /** Absolute expiry; idle expiry is last_seen_at + idle timeout. */
  expires_at: ColumnType<Date, Date | string, Date | string>;
  ip: string | null;
  user_agent: string | null;
}

export interface DestinationsTable {
  id: string;
  name: string;
  driver: string;
  payload_format: string;
  index_name: string | null;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** Driver settings without secrets. */
  settings: Json<Record<string, unknown>>;
  /** Secrets as one AES-256-GCM envelope (see secret-box.ts), or null when none are set. */
  secrets: string | null;
  /** Names of the secrets that are set (not sensitive; lets reads skip decryption). */
  secrets_set: Json<string[]>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface AuditLogTable {
  id: Generated<string>;
  at: CreatedAt;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target: string | null;
  ip: string | null;
  outcome: string;
  details: Json<Record<string, unknown>> | null;
}

/** A nullable timestamptz column that may be left out on insert. */
type OptionalTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface NoiseJobsTable {
  id: string;
  name: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** SIEM destination names. */
  targets: Json<string[]>;
  /** { kind, interval_seconds?, cron?, jitter_seconds? } (src/noise/schedule.ts). */
  schedule: Json<Record<string, unknown>>;
  propagate_on_wipe: ColumnType<boolean, boolean | undefined, boolean>;
  /** [{ position, storage_path, index_mode, index }] sorted by position. */
  archives: Json<Array<Record<string, unknown>>>;
  /** Null while disabled or when a cron expression has no future match. */
  next_run_at: OptionalTime;
  last_run_at: OptionalTime;
  /** Lease of the dispatch running the job (owner id and expiry); both null when idle. */
  lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  lease_until: OptionalTime;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface NoiseRunsTable {
  id: string;
  job_id: string;
  siem: string;
  trigger: string;
  status: string;
  events_shipped: ColumnType<number, number | undefined, number>;
  events_failed: ColumnType<number, number | undefined, number>;
  /**
   * Events of the run for this target, once its archives are prepared (null before, and on rows of
   * earlier versions): recovering a dead dispatch counts the ones not confirmed shipped failed.
   */
  events_total: ColumnType<number | null, number | null | undefined, number | null>;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  /** Lease owner of the dispatch that took the row; lets a crashed dispatch's rows be found. */
  owner: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  started_at: OptionalTime;
  finished_at: OptionalTime;
}

/** An object of the database storage (src/storage/database-storage.ts); its content is in storage_chunks. */
export interface StorageObjectsTable {
  /** One upload: a new id for every write, swapped in for the old object once complete. */
  id: string;
  bucket: string;
  key: string;
  /** Bytes (bigint: read as a string by pg). */
  size: ColumnType<string | number, number | undefined, number>;
  chunk_count: ColumnType<number, number | undefined, number>;
  /** Hex SHA-256 of the content, once complete. */
  sha256: ColumnType<string | null, string | null | undefined, string | null>;
  /** False while the upload is written; only committed objects are visible. */
  committed: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface StorageChunksTable {
  object_id: string;
  /** 0, 1, … in content order. */
  seq: number;
  bytes: Uint8Array;
}

/** A timestamptz column that must be written. */
type Time = ColumnType<Date, Date | string, Date | string>;
/** A bigint column: pg reads it as a string, PGlite as a number. */
type BigInt8 = ColumnType<string | number, number, number>;
/** A nullable bigint column. */
type OptionalBigInt8 = ColumnType<string | number | null, number | null | undefined, number | null>;
/** A nullable text column that may be left out on insert. */
type OptionalText = ColumnType<string | null, string | null | undefined, string | null>;
/** A nullable integer column that may be left out on insert. */
type OptionalInt = ColumnType<number | null, number | null | undefined, number | null>;

export interface ExercisesTable {
  id: string;
  title: string;
  description: ColumnType<string, string | undefined, string>;
  state: ColumnType<'draft' | 'active', 'draft' | 'active' | undefined, 'draft' | 'active'>;
  /** SIEM destination names. */
  destinations: Json<string[]>;
  convert_to_leef: ColumnType<boolean, boolean | undefined, boolean>;
  deadlock_override: ColumnType<boolean, boolean | undefined, boolean>;
  tags: Json<string[]>;
  /** Incremented by every change to the exercise or its children (If-Match). */
  version: ColumnType<number, number | undefined, number>;
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
  published_at: OptionalTime;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface ExerciseStepsTable {
  id: string;
  exercise_id: string;
  position: number;
  title: string;
  body: ColumnType<string, string | undefined, string>;
  created_at: CreatedAt;
}

export interface ExerciseSectionsTable {
  id: string;
  exercise_id: string;
  name: string;
  position: number;
  /** Null: ships at start; else a ReleaseRule (src/exercises/release-rule.ts). */
  release: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface ExerciseArtifactsTable {
  id: string;
  exercise_id: string;
  name: string;
  kind: string;
  values: Json<string[]>;
  match: string;
  points: ColumnType<number, number | undefined, number>;
  section_id: ColumnType<string | null, string | null | undefined, string | null>;
  hint: OptionalText;
  hint_penalty: OptionalInt;
  created_at: CreatedAt;
}

export interface ExerciseArchivesTable {
  id: string;
  exercise_id: string;
  /** Null: the legacy archive of a sectionless exercise. */
  section_id: ColumnType<string | null, string | null | undefined, string | null>;
  format: 'leef' | 'ecs';
  filename: string;
  /** Key in the exercise-archives bucket. */
  storage_key: string;
  /** How the stored object is read: zip, tar.gz or text. */
  archive_kind: string;
  files: number;
  events: number;
  size: BigInt8;
  latest_event_ms: OptionalBigInt8;
  converted_from: ColumnType<'leef' | 'ecs' | null, 'leef' | 'ecs' | null | undefined, 'leef' | 'ecs' | null>;
  created_at: CreatedAt;
}

export interface AttemptsTable {
  id: string;
  exercise_id: string;
  user_id: string;
  siem: string;
  state: 'running' | 'completed';
  started_at: Time;
  shift_ms: BigInt8;
  completed_at: OptionalTime;
  score: OptionalInt;
  max_score: OptionalInt;
  offense_cleanup: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface AttemptSectionsTable {
  attempt_id: string;
  /** A section id, or 'legacy' for a sectionless exercise's archive. */
  section_key: string;
  status: 'not_due' | 'waiting_on_artifact' | 'shipping' | 'shipped' | 'failed';
  events_shipped: ColumnType<number, number | undefined, number>;
  events_failed: ColumnType<number, number | undefined, number>;
  releases_at: OptionalTime;
  released_at: OptionalTime;
  last_try_at: OptionalTime;
  shipped_at: OptionalTime;
  error: OptionalText;
  lease_owner: OptionalText;
  lease_until: OptionalTime;
}

export interface AttemptSubmissionsTable {
  id: string;
  attempt_id: string;
  value: string;
  artifact_id: ColumnType<string | null, string | null | undefined, string | null>;
  matched: boolean;
  points: OptionalInt;
  submitted_at: Time;
}

export interface AttemptFindingsTable {
  attempt_id: string;
  artifact_id: string;
  points: number;
  found_at: Time;
}

export interface AttemptHintsTable {
  attempt_id: string;
  artifact_id: string;
  penalty: number;
  revealed_at: Time;
}

/** A SIEM Q log source of one exercise section (or a sectionless exercise) on one destination. */
export interface ExerciseLogSourcesTable {
  id: string;
  exercise_id: string;
  section_id: string | null;
  /** The section id, or 'legacy'. */
  section_key: string;
  siem: string;
  identifier: string;
  name: string;
  status: 'provisioned' | 'missing' | 'failed';
  log_source_id: OptionalBigInt8;
  requires_deploy: boolean;
  error: OptionalText;
  checked_at: Time;
  created_at: CreatedAt;
}

/** The whole database as Kysely sees it; feature issues add their tables here. */
export interface Database {
  users: UsersTable;
  roles: RolesTable;
  user_roles: UserRolesTable;
  sessions: SessionsTable;
  destinations: DestinationsTable;
  audit_log: AuditLogTable;
  noise_jobs: NoiseJobsTable;
  noise_runs: NoiseRunsTable;
  storage_objects: StorageObjectsTable;
  storage_chunks: StorageChunksTable;
  exercises: ExercisesTable;
  exercise_steps: ExerciseStepsTable;
  exercise_sections: ExerciseSectionsTable;
  exercise_artifacts: ExerciseArtifactsTable;
  exercise_archives: ExerciseArchivesTable;
  attempts: AttemptsTable;
  attempt_sections: AttemptSectionsTable;
  attempt_submissions: AttemptSubmissionsTable;
  attempt_findings: AttemptFindingsTable;
  attempt_hints: AttemptHintsTable;
  exercise_log_sources: ExerciseLogSourcesTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type RoleRow = Selectable<RolesTable>;
export type SessionRow = Selectable<SessionsTable>;
export type DestinationRow = Selectable<DestinationsTable>;
export type AuditRow = Selectable<AuditLogTable>;
export type NoiseJobRow = Selectable<NoiseJobsTable>;
export type NoiseRunRow = Selectable<NoiseRunsTable>;
