import type { Static } from 'typebox';
import type {
  ArchiveView,
  ArtifactView,
  ExerciseSummary,
  ExerciseView,
  SectionView,
  StepView,
} from './exercise.schemas.ts';
import type { ReleaseRule } from './release-rule.ts';

/** An exercise as the API shows it, with its children. */
export type Exercise = Omit<Static<typeof ExerciseView>, 'sections'> & { sections: Section[] };
export type ExerciseListItem = Static<typeof ExerciseSummary>;
export type Step = Static<typeof StepView>;
export type Artifact = Static<typeof ArtifactView>;
export type Section = Omit<Static<typeof SectionView>, 'release'> & { release: ReleaseRule | null };
export type ArchiveInfo = Static<typeof ArchiveView>;

/** An archive row with what shipping needs (storage key, container kind, latest event time). */
export interface StoredArchive {
  readonly id: string;
  readonly exerciseId: string;
  readonly sectionId: string | null;
  readonly format: 'leef' | 'ecs';
  readonly filename: string;
  readonly storageKey: string;
  readonly archiveKind: 'zip' | 'tar.gz' | 'text';
  readonly files: number;
  readonly events: number;
  readonly size: number;
  readonly latestEventMs: number | null;
  readonly convertedFrom: 'leef' | 'ecs' | null;
  readonly createdAt: Date;
}

/** The key under which a sectionless exercise's legacy archive ships in an attempt. */
export const LEGACY_SECTION = 'legacy';
