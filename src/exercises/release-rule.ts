// When a staged section of an exercise ships during an attempt: a delay after the attempt starts,
// artifacts the trainee has found, or both. Pure, so the release ticker, the attempt API (what a
// section waits for) and authoring checks (deadlock-check.ts) all read one definition.

/** Every release condition, in the order forms offer them (schemas take their enum from here). */
export const RELEASE_CONDITIONS = [
  'delay_only',
  'artifacts_only',
  'delay_and_artifacts',
  'delay_or_artifacts',
] as const;

/** Which parts of a rule must hold for its section to ship. */
export type ReleaseCondition = (typeof RELEASE_CONDITIONS)[number];

/** Every gate mode (schemas take their enum from here). */
export const GATE_MODES = ['all', 'any'] as const;

/** Whether every listed artifact must be found, or one of them suffices. */
export type GateMode = (typeof GATE_MODES)[number];

/** A section's release rule as authored; `artifact_ids` is ignored by `delay_only`. */
export type ReleaseRule = {
  condition: ReleaseCondition;
  delay_minutes: number;
  artifact_ids: string[];
  gate_mode: GateMode;
};

/** Where a section stands in one attempt; an unreleased one says what it still waits for. */
export type ReleaseState =
  | { released: true }
  | {
      released: false;
      /** `not_due`: the delay still counts; `waiting_on_artifact`: only findings are missing. */
      status: 'not_due' | 'waiting_on_artifact';
      /** Epoch ms when the delay passes, present only while a delay still counts. */
      releases_at?: number;
      /** Artifact ids still needed ('all': the missing ones, 'any': all); empty when only time is missing. */
      waiting_for: string[];
    };

/** The longest delay an author may set: an attempt is not expected to last beyond a year. */
export const MAX_DELAY_MINUTES = 525_600;

const MINUTE_MS = 60_000;

/** Whether a condition looks at found artifacts at all (`delay_only` ignores its list). */
export function conditionHasGates(condition: ReleaseCondition): boolean {
  return condition !== 'delay_only';
}

/** Epoch ms when the rule's delay part passes in an attempt started at `startedAt`; null without one. */
export function delayDueAt(rule: ReleaseRule | null | undefined, startedAt: number): number | null {
  if (rule == null || rule.condition === 'artifacts_only') return null;
  return startedAt + rule.delay_minutes * MINUTE_MS;
}

/** Whether the section ships the moment an attempt starts, whatever is found. */
export function releasesAtStart(rule: ReleaseRule | null | undefined): boolean {
  if (rule == null) return true;
  // A gate alone never counts: an empty 'all' list would hold vacuously, but authoring refuses it
  // (releaseRuleProblem), so no exercise should lean on it to get started.
  return (
    (rule.condition === 'delay_only' || rule.condition === 'delay_or_artifacts') && rule.delay_minutes === 0
  );
}

/** Why an authored rule cannot be saved, or null; the first problem only, as forms show one per field. */
export function releaseRuleProblem(rule: ReleaseRule): string | null {
  const delay = rule.delay_minutes;
  if (!Number.isInteger(delay) || delay < 0) {
    return `delay_minutes must be a whole number of minutes, 0 or more (got ${delay})`;
  }
  if (delay > MAX_DELAY_MINUTES) {
    return `delay_minutes must be at most ${MAX_DELAY_MINUTES} (one year), got ${delay}`;
  }
  // delay_only ignores its list, so what the list holds cannot stop the section.
  if (!conditionHasGates(rule.condition)) return null;
  if (rule.artifact_ids.length === 0) {
    return `condition ${rule.condition} needs at least one artifact id`;
  }
  const seen = new Set<string>();
  for (const id of rule.artifact_ids) {
    if (seen.has(id)) return `artifact id ${id} is listed more than once`;
    seen.add(id);
  }
  return null;
}

/** What a gate still needs; `met` with an empty list of 'any' is false so such a gate never opens. */
function gate(rule: ReleaseRule, found: ReadonlySet<string>): { met: boolean; waitingFor: string[] } {
  // Duplicates are refused at authoring; deduplicated here so a stored one is not reported twice.
  const ids = [...new Set(rule.artifact_ids)];
  const missing = ids.filter((id) => !found.has(id));
  if (rule.gate_mode === 'all') return { met: missing.length === 0, waitingFor: missing };
  const met = missing.length < ids.length;
  return { met, waitingFor: met ? [] : ids };
}

/** Whether the section ships at `now` in an attempt started at `startedAt` with `found` artifacts. */
export function evaluateRelease(
  rule: ReleaseRule | null | undefined,
  at: { startedAt: number; now: number; found: ReadonlySet<string> },
): ReleaseState {
  if (rule == null) return { released: true };
  const due = delayDueAt(rule, at.startedAt);
  const delayPassed = due !== null && at.now >= due;

  if (rule.condition === 'delay_only') {
    if (delayPassed || due === null) return { released: true };
    return { released: false, status: 'not_due', releases_at: due, waiting_for: [] };
  }

  const { met, waitingFor } = gate(rule, at.found);
  if (rule.condition === 'artifacts_only' || due === null) {
    return met
      ? { released: true }
      : { released: false, status: 'waiting_on_artifact', waiting_for: waitingFor };
  }
  if (rule.condition === 'delay_or_artifacts') {
    if (delayPassed || met) return { released: true };
    return { released: false, status: 'not_due', releases_at: due, waiting_for: waitingFor };
  }
  // delay_and_artifacts: time first, so a trainee who found everything early still sees the countdown.
  if (!delayPassed) return { released: false, status: 'not_due', releases_at: due, waiting_for: waitingFor };
  return met
    ? { released: true }
    : { released: false, status: 'waiting_on_artifact', waiting_for: waitingFor };
}
