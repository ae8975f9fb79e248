// Authoring-time check that every staged section of an exercise can ship in some attempt. A
// section gated on artifacts that only unreleased sections contain would leave a trainee waiting
// forever, and nothing at attempt time can tell that apart from a slow trainee.
import { conditionHasGates, type ReleaseRule, releasesAtStart } from './release-rule.ts';

/** A section as the checker needs it; no rule means it ships at start. */
export type StagedSection = {
  id: string;
  name: string;
  position: number;
  release?: ReleaseRule | null;
};

/** An artifact and the section whose logs hold it; null: tied to none, so findable from the start. */
// A section_id naming no section of the exercise is never findable: no attempt ships its logs.
export type SectionArtifact = { id: string; name: string; section_id: string | null };

/** Why an exercise's staging cannot work as authored. */
export type DeadlockCode = 'deadlock_no_start' | 'deadlock_self_gate' | 'deadlock_unreachable';

/** One staging problem; `section`, `artifact`, `artifacts` are ids, so forms can point at fields. */
export type DeadlockProblem = {
  code: DeadlockCode;
  message: string;
  section?: string;
  artifact?: string;
  /** For `deadlock_unreachable`: the gate's artifact ids that can never be found. */
  artifacts?: string[];
};

/** Every staging problem (artifacts with a null section count as findable from the start). */
// All problems at once, in a fixed order (no start, then self gates, then unreachable sections, each
// by position), so an author fixes them in one pass and the answer does not change between saves.
export function checkDeadlocks(
  sections: readonly StagedSection[],
  artifacts: readonly SectionArtifact[],
): DeadlockProblem[] {
  // A sectionless exercise ships everything at once: there is no staging to get stuck.
  if (sections.length === 0) return [];
  const ordered = [...sections].sort((a, b) => a.position - b.position || compareIds(a.id, b.id));
  const artifactById = new Map(artifacts.map((a) => [a.id, a]));
  const label = (id: string) => {
    const artifact = artifactById.get(id);
    return artifact === undefined ? `unknown artifact ${id}` : `"${artifact.name}"`;
  };
  const problems: DeadlockProblem[] = [];

  if (!ordered.some((s) => releasesAtStart(s.release))) {
    problems.push({
      code: 'deadlock_no_start',
      message:
        'No section ships when an attempt starts: give at least one section no release rule, or a delay_only or delay_or_artifacts rule with a delay of 0 minutes',
    });
  }

  for (const section of ordered) {
    const rule = section.release;
    if (rule == null || !conditionHasGates(rule.condition)) continue;
    for (const id of unique(rule.artifact_ids)) {
      if (artifactById.get(id)?.section_id !== section.id) continue;
      problems.push({
        code: 'deadlock_self_gate',
        message: `Section "${section.name}" waits for ${label(id)}, which only its own logs contain: it cannot be found before the section ships`,
        section: section.id,
        artifact: id,
      });
    }
  }

  const findable = findableArtifacts(ordered, artifacts);
  for (const section of ordered) {
    const rule = section.release;
    if (rule == null || eventuallyReleased(rule, findable)) continue;
    const never = unique(rule.artifact_ids).filter((id) => !findable.has(id));
    const names = never.map(label).join(', ');
    let why: string;
    if (rule.gate_mode === 'all') why = `${names} can never be found`;
    else if (never.length === 0) why = "its 'any' gate lists no artifacts";
    else why = `none of ${names} can ever be found`;
    problems.push({
      code: 'deadlock_unreachable',
      message: `Section "${section.name}" can never be released: ${why}`,
      section: section.id,
      artifacts: never,
    });
  }
  return problems;
}

/**
 * The artifacts some attempt can find: sections ship in waves, each wave opening the gates the
 * artifacts of the previous ones satisfy, until a wave ships nothing new. Delays always pass
 * eventually, so only gates can hold a section back for good.
 */
function findableArtifacts(
  sections: readonly StagedSection[],
  artifacts: readonly SectionArtifact[],
): Set<string> {
  const released = new Set(sections.filter((s) => releasesAtStart(s.release)).map((s) => s.id));
  const findable = new Set<string>();
  let grew = true;
  while (grew) {
    for (const a of artifacts) {
      if (a.section_id === null || released.has(a.section_id)) findable.add(a.id);
    }
    grew = false;
    for (const s of sections) {
      if (released.has(s.id) || (s.release != null && !eventuallyReleased(s.release, findable))) continue;
      released.add(s.id);
      grew = true;
    }
  }
  return findable;
}

/** Whether the rule holds once its delay has passed and every artifact in `findable` was found. */
function eventuallyReleased(rule: ReleaseRule, findable: ReadonlySet<string>): boolean {
  if (rule.condition === 'delay_only' || rule.condition === 'delay_or_artifacts') return true;
  // Same gate semantics as evaluateRelease: an empty 'all' list holds, an empty 'any' list never does.
  return rule.gate_mode === 'all'
    ? rule.artifact_ids.every((id) => findable.has(id))
    : rule.artifact_ids.some((id) => findable.has(id));
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** Code-unit order, so equal positions come out the same whatever the locale. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
