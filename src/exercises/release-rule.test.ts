import { describe, expect, it } from 'vitest';
import {
  delayDueAt,
  evaluateRelease,
  type GateMode,
  MAX_DELAY_MINUTES,
  type ReleaseCondition,
  type ReleaseRule,
  type ReleaseState,
  releaseRuleProblem,
  releasesAtStart,
} from './release-rule.ts';

const STARTED = Date.UTC(2026, 0, 5, 9, 0, 0);
const DELAY_MINUTES = 10;
const DUE = STARTED + DELAY_MINUTES * 60_000;
const IDS = ['a1', 'a2', 'a3'];

const rule = (condition: ReleaseCondition, gate_mode: GateMode, over: Partial<ReleaseRule> = {}) => ({
  condition,
  gate_mode,
  delay_minutes: DELAY_MINUTES,
  artifact_ids: IDS,
  ...over,
});

type Delay = 'passed' | 'pending';
type Gates = 'met' | 'partial' | 'none';
const NOW: Record<Delay, number> = { passed: DUE, pending: DUE - 1 };
const FOUND: Record<Gates, ReadonlySet<string>> = {
  met: new Set(IDS),
  partial: new Set(['a2', 'elsewhere']),
  none: new Set(['elsewhere']),
};

const RELEASED: ReleaseState = { released: true };
const notDue = (waiting_for: string[]): ReleaseState => ({
  released: false,
  status: 'not_due',
  releases_at: DUE,
  waiting_for,
});
const onArtifact = (waiting_for: string[]): ReleaseState => ({
  released: false,
  status: 'waiting_on_artifact',
  waiting_for,
});
const MISSING = ['a1', 'a3'];

describe('evaluateRelease: every condition × gate mode × delay × gates', () => {
  it.each<[ReleaseCondition, GateMode, Delay, Gates, ReleaseState]>([
    ['delay_only', 'all', 'passed', 'met', RELEASED],
    ['delay_only', 'all', 'passed', 'partial', RELEASED],
    ['delay_only', 'all', 'passed', 'none', RELEASED],
    ['delay_only', 'all', 'pending', 'met', notDue([])],
    ['delay_only', 'all', 'pending', 'partial', notDue([])],
    ['delay_only', 'all', 'pending', 'none', notDue([])],
    ['delay_only', 'any', 'passed', 'met', RELEASED],
    ['delay_only', 'any', 'passed', 'partial', RELEASED],
    ['delay_only', 'any', 'passed', 'none', RELEASED],
    ['delay_only', 'any', 'pending', 'met', notDue([])],
    ['delay_only', 'any', 'pending', 'partial', notDue([])],
    ['delay_only', 'any', 'pending', 'none', notDue([])],

    ['artifacts_only', 'all', 'passed', 'met', RELEASED],
    ['artifacts_only', 'all', 'passed', 'partial', onArtifact(MISSING)],
    ['artifacts_only', 'all', 'passed', 'none', onArtifact(IDS)],
    ['artifacts_only', 'all', 'pending', 'met', RELEASED],
    ['artifacts_only', 'all', 'pending', 'partial', onArtifact(MISSING)],
    ['artifacts_only', 'all', 'pending', 'none', onArtifact(IDS)],
    ['artifacts_only', 'any', 'passed', 'met', RELEASED],
    ['artifacts_only', 'any', 'passed', 'partial', RELEASED],
    ['artifacts_only', 'any', 'passed', 'none', onArtifact(IDS)],
    ['artifacts_only', 'any', 'pending', 'met', RELEASED],
    ['artifacts_only', 'any', 'pending', 'partial', RELEASED],
    ['artifacts_only', 'any', 'pending', 'none', onArtifact(IDS)],

    ['delay_and_artifacts', 'all', 'passed', 'met', RELEASED],
    ['delay_and_artifacts', 'all', 'passed', 'partial', onArtifact(MISSING)],
    ['delay_and_artifacts', 'all', 'passed', 'none', onArtifact(IDS)],
    ['delay_and_artifacts', 'all', 'pending', 'met', notDue([])],
    ['delay_and_artifacts', 'all', 'pending', 'partial', notDue(MISSING)],
    ['delay_and_artifacts', 'all', 'pending', 'none', notDue(IDS)],
    ['delay_and_artifacts', 'any', 'passed', 'met', RELEASED],
    ['delay_and_artifacts', 'any', 'passed', 'partial', RELEASED],
    ['delay_and_artifacts', 'any', 'passed', 'none', onArtifact(IDS)],
    ['delay_and_artifacts', 'any', 'pending', 'met', notDue([])],
    ['delay_and_artifacts', 'any', 'pending', 'partial', notDue([])],
    ['delay_and_artifacts', 'any', 'pending', 'none', notDue(IDS)],

    ['delay_or_artifacts', 'all', 'passed', 'met', RELEASED],
    ['delay_or_artifacts', 'all', 'passed', 'partial', RELEASED],
    ['delay_or_artifacts', 'all', 'passed', 'none', RELEASED],
    ['delay_or_artifacts', 'all', 'pending', 'met', RELEASED],
    ['delay_or_artifacts', 'all', 'pending', 'partial', notDue(MISSING)],
    ['delay_or_artifacts', 'all', 'pending', 'none', notDue(IDS)],
    ['delay_or_artifacts', 'any', 'passed', 'met', RELEASED],
    ['delay_or_artifacts', 'any', 'passed', 'partial', RELEASED],
    ['delay_or_artifacts', 'any', 'passed', 'none', RELEASED],
    ['delay_or_artifacts', 'any', 'pending', 'met', RELEASED],
    ['delay_or_artifacts', 'any', 'pending', 'partial', RELEASED],
    ['delay_or_artifacts', 'any', 'pending', 'none', notDue(IDS)],
  ])('%s, gate %s, delay %s, gates %s', (condition, mode, delay, gates, expected) => {
    const state = evaluateRelease(rule(condition, mode), {
      startedAt: STARTED,
      now: NOW[delay],
      found: FOUND[gates],
    });
    expect(state).toStrictEqual(expected);
  });
});

describe('evaluateRelease: edges', () => {
  const at = (now: number, found: string[] = []) => ({ startedAt: STARTED, now, found: new Set(found) });

  it.each<[string, ReleaseRule | null | undefined, ReturnType<typeof at>, ReleaseState]>([
    ['no rule ships at start', null, at(STARTED), RELEASED],
    ['an absent rule ships at start', undefined, at(STARTED), RELEASED],
    ['delay 0 ships at start', rule('delay_only', 'all', { delay_minutes: 0 }), at(STARTED), RELEASED],
    [
      'delay_and_artifacts with delay 0 still waits for its gate',
      rule('delay_and_artifacts', 'all', { delay_minutes: 0 }),
      at(STARTED, ['a1']),
      onArtifact(['a2', 'a3']),
    ],
    [
      'a passed delay is not reported as releases_at',
      rule('delay_and_artifacts', 'any'),
      at(DUE + 60_000),
      onArtifact(IDS),
    ],
    ['an empty all list holds', rule('artifacts_only', 'all', { artifact_ids: [] }), at(STARTED), RELEASED],
    [
      'an empty any list never holds',
      rule('artifacts_only', 'any', { artifact_ids: [] }),
      at(Number.POSITIVE_INFINITY, ['a1']),
      onArtifact([]),
    ],
    [
      'a stored duplicate is reported once',
      rule('artifacts_only', 'all', { artifact_ids: ['a1', 'a2', 'a1'] }),
      at(STARTED),
      onArtifact(['a1', 'a2']),
    ],
    [
      'delay_only ignores its artifacts',
      rule('delay_only', 'any', { artifact_ids: ['x'] }),
      at(DUE - 1, ['x']),
      notDue([]),
    ],
    [
      'an unbounded now passes every delay',
      rule('delay_only', 'all'),
      at(Number.POSITIVE_INFINITY),
      RELEASED,
    ],
  ])('%s', (_name, r, when, expected) => {
    expect(evaluateRelease(r, when)).toStrictEqual(expected);
  });
});

describe('releasesAtStart', () => {
  it.each<[string, ReleaseRule | null | undefined, boolean]>([
    ['no rule', null, true],
    ['absent rule', undefined, true],
    ['delay_only 0', rule('delay_only', 'all', { delay_minutes: 0 }), true],
    ['delay_only 1', rule('delay_only', 'all', { delay_minutes: 1 }), false],
    ['delay_or_artifacts 0', rule('delay_or_artifacts', 'any', { delay_minutes: 0 }), true],
    ['delay_or_artifacts 5', rule('delay_or_artifacts', 'any', { delay_minutes: 5 }), false],
    ['delay_and_artifacts 0 (needs gates)', rule('delay_and_artifacts', 'all', { delay_minutes: 0 }), false],
    ['artifacts_only', rule('artifacts_only', 'any', { delay_minutes: 0 }), false],
    [
      'artifacts_only with an empty all list (refused by releaseRuleProblem)',
      rule('artifacts_only', 'all', { delay_minutes: 0, artifact_ids: [] }),
      false,
    ],
  ])('%s → %s', (_name, r, expected) => {
    expect(releasesAtStart(r)).toBe(expected);
  });
});

describe('delayDueAt', () => {
  it.each<[string, ReleaseRule | null, number | null]>([
    ['no rule', null, null],
    ['delay_only', rule('delay_only', 'all'), DUE],
    ['delay_and_artifacts', rule('delay_and_artifacts', 'all'), DUE],
    ['delay_or_artifacts', rule('delay_or_artifacts', 'any'), DUE],
    ['delay_or_artifacts 0', rule('delay_or_artifacts', 'any', { delay_minutes: 0 }), STARTED],
    ['artifacts_only has no delay part', rule('artifacts_only', 'all'), null],
    [
      'one year',
      rule('delay_only', 'all', { delay_minutes: MAX_DELAY_MINUTES }),
      STARTED + 365 * 24 * 3_600_000,
    ],
  ])('%s', (_name, r, expected) => {
    expect(delayDueAt(r, STARTED)).toBe(expected);
  });
});

describe('releaseRuleProblem', () => {
  it.each<[string, ReleaseRule, string | null]>([
    ['a plain delay', rule('delay_only', 'all', { artifact_ids: [] }), null],
    ['delay_only with artifact ids (ignored)', rule('delay_only', 'any'), null],
    [
      'delay_only with duplicate ids (ignored)',
      rule('delay_only', 'any', { artifact_ids: ['x', 'x'] }),
      null,
    ],
    ['delay 0', rule('delay_or_artifacts', 'any', { delay_minutes: 0 }), null],
    ['one year', rule('delay_and_artifacts', 'all', { delay_minutes: MAX_DELAY_MINUTES }), null],
    ['artifacts_only with ids', rule('artifacts_only', 'all'), null],
    [
      'negative delay',
      rule('delay_only', 'all', { delay_minutes: -1 }),
      'delay_minutes must be a whole number of minutes, 0 or more (got -1)',
    ],
    [
      'fractional delay',
      rule('delay_or_artifacts', 'all', { delay_minutes: 1.5 }),
      'delay_minutes must be a whole number of minutes, 0 or more (got 1.5)',
    ],
    [
      'NaN delay',
      rule('delay_only', 'all', { delay_minutes: Number.NaN }),
      'delay_minutes must be a whole number of minutes, 0 or more (got NaN)',
    ],
    [
      'over a year',
      rule('delay_only', 'all', { delay_minutes: MAX_DELAY_MINUTES + 1 }),
      'delay_minutes must be at most 525600 (one year), got 525601',
    ],
    [
      'artifacts_only without ids',
      rule('artifacts_only', 'all', { artifact_ids: [] }),
      'condition artifacts_only needs at least one artifact id',
    ],
    [
      'delay_and_artifacts without ids',
      rule('delay_and_artifacts', 'any', { artifact_ids: [] }),
      'condition delay_and_artifacts needs at least one artifact id',
    ],
    [
      'delay_or_artifacts without ids',
      rule('delay_or_artifacts', 'all', { artifact_ids: [] }),
      'condition delay_or_artifacts needs at least one artifact id',
    ],
    [
      'duplicate ids',
      rule('artifacts_only', 'any', { artifact_ids: ['a1', 'a2', 'a1'] }),
      'artifact id a1 is listed more than once',
    ],
  ])('%s', (_name, r, expected) => {
    expect(releaseRuleProblem(r)).toBe(expected);
  });
});
