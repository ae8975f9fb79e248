import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkDeadlocks,
  type DeadlockProblem,
  type SectionArtifact,
  type StagedSection,
} from './deadlock-check.ts';
import { evaluateRelease, GATE_MODES, RELEASE_CONDITIONS, type ReleaseRule } from './release-rule.ts';

const sec = (id: string, position: number, release: ReleaseRule | null = null): StagedSection => ({
  id,
  name: `Section ${id}`,
  position,
  release,
});
const art = (id: string, section_id: string | null): SectionArtifact => ({
  id,
  name: `Artifact ${id}`,
  section_id,
});
const delayOnly = (delay_minutes: number): ReleaseRule => ({
  condition: 'delay_only',
  delay_minutes,
  artifact_ids: [],
  gate_mode: 'all',
});
const onlyArtifacts = (gate_mode: ReleaseRule['gate_mode'], artifact_ids: string[]): ReleaseRule => ({
  condition: 'artifacts_only',
  delay_minutes: 0,
  artifact_ids,
  gate_mode,
});

const NO_START: DeadlockProblem = {
  code: 'deadlock_no_start',
  message:
    'No section ships when an attempt starts: give at least one section no release rule, or a delay_only or delay_or_artifacts rule with a delay of 0 minutes',
};
const selfGate = (section: string, artifact: string): DeadlockProblem => ({
  code: 'deadlock_self_gate',
  message: `Section "Section ${section}" waits for "Artifact ${artifact}", which only its own logs contain: it cannot be found before the section ships`,
  section,
  artifact,
});
const unreachable = (section: string, why: string, artifacts: string[]): DeadlockProblem => ({
  code: 'deadlock_unreachable',
  message: `Section "Section ${section}" can never be released: ${why}`,
  section,
  artifacts,
});

describe('checkDeadlocks', () => {
  it.each<[string, StagedSection[], SectionArtifact[], DeadlockProblem[]]>([
    ['no sections: nothing is staged', [], [art('x', null)], []],
    ['one section without a rule', [sec('S', 1)], [], []],
    [
      'every section delayed: no start, though all ship eventually',
      [sec('A', 1, delayOnly(5))],
      [],
      [NO_START],
    ],
    [
      'delay_or_artifacts with delay 0 starts',
      [
        sec('A', 1, {
          condition: 'delay_or_artifacts',
          delay_minutes: 0,
          artifact_ids: ['x'],
          gate_mode: 'any',
        }),
      ],
      [art('x', null)],
      [],
    ],
    [
      'delay_and_artifacts with delay 0 does not start, even on a finding open from the start',
      [
        sec('A', 1, {
          condition: 'delay_and_artifacts',
          delay_minutes: 0,
          artifact_ids: ['x'],
          gate_mode: 'all',
        }),
      ],
      [art('x', null)],
      [NO_START],
    ],
    [
      'self gate on artifacts_only: also unreachable',
      [sec('S', 1), sec('B', 2, onlyArtifacts('all', ['b1']))],
      [art('b1', 'B')],
      [selfGate('B', 'b1'), unreachable('B', '"Artifact b1" can never be found', ['b1'])],
    ],
    [
      'self gate on delay_or_artifacts: the delay still ships it',
      [
        sec('S', 1),
        sec('B', 2, {
          condition: 'delay_or_artifacts',
          delay_minutes: 30,
          artifact_ids: ['b1'],
          gate_mode: 'any',
        }),
      ],
      [art('b1', 'B'), art('s1', 'S')],
      [selfGate('B', 'b1')],
    ],
    [
      'self gate next to a findable artifact in an any gate: reachable, still reported',
      [
        sec('S', 1),
        sec('B', 2, {
          condition: 'delay_and_artifacts',
          delay_minutes: 5,
          artifact_ids: ['s1', 'b1'],
          gate_mode: 'any',
        }),
      ],
      [art('b1', 'B'), art('s1', 'S')],
      [selfGate('B', 'b1')],
    ],
    [
      'one problem per self-gated artifact',
      [sec('S', 1), sec('B', 2, onlyArtifacts('any', ['b1', 's1', 'b2']))],
      [art('b1', 'B'), art('b2', 'B'), art('s1', 'S')],
      [selfGate('B', 'b1'), selfGate('B', 'b2')],
    ],
    [
      'a delay_only rule listing its own artifact is no self gate (the list is ignored)',
      [sec('S', 1), sec('B', 2, { ...delayOnly(5), artifact_ids: ['b1'] })],
      [art('b1', 'B')],
      [],
    ],
    [
      'two-section cycle',
      [sec('S', 1), sec('A', 2, onlyArtifacts('all', ['b1'])), sec('B', 3, onlyArtifacts('all', ['a1']))],
      [art('a1', 'A'), art('b1', 'B'), art('s1', 'S')],
      [
        unreachable('A', '"Artifact b1" can never be found', ['b1']),
        unreachable('B', '"Artifact a1" can never be found', ['a1']),
      ],
    ],
    [
      'a cycle through delay_and_artifacts: the delay passes, the gate never opens',
      [
        sec('S', 1),
        sec('A', 2, {
          condition: 'delay_and_artifacts',
          delay_minutes: 5,
          artifact_ids: ['b1'],
          gate_mode: 'all',
        }),
        sec('B', 3, onlyArtifacts('any', ['a1'])),
      ],
      [art('a1', 'A'), art('b1', 'B')],
      [
        unreachable('A', '"Artifact b1" can never be found', ['b1']),
        unreachable('B', 'none of "Artifact a1" can ever be found', ['a1']),
      ],
    ],
    [
      'three-section cycle',
      [
        sec('S', 1),
        sec('A', 2, onlyArtifacts('all', ['c1'])),
        sec('B', 3, onlyArtifacts('any', ['a1'])),
        sec('C', 4, onlyArtifacts('all', ['b1'])),
      ],
      [art('a1', 'A'), art('b1', 'B'), art('c1', 'C')],
      [
        unreachable('A', '"Artifact c1" can never be found', ['c1']),
        unreachable('B', 'none of "Artifact a1" can ever be found', ['a1']),
        unreachable('C', '"Artifact b1" can never be found', ['b1']),
      ],
    ],
    [
      'a chain through the start releases in waves',
      [
        sec('C', 4, onlyArtifacts('all', ['b1'])),
        sec('B', 3, onlyArtifacts('all', ['a1'])),
        sec('A', 2, onlyArtifacts('all', ['s1'])),
        sec('S', 1),
      ],
      [art('a1', 'A'), art('b1', 'B'), art('s1', 'S')],
      [],
    ],
    [
      'a gate on an artifact of a delay-only section is reachable',
      [sec('S', 1), sec('D', 2, delayOnly(60)), sec('G', 3, onlyArtifacts('all', ['d1']))],
      [art('d1', 'D')],
      [],
    ],
    [
      'a gate on an artifact of a delay_or_artifacts section that waits on a cycle is reachable',
      [
        sec('S', 1),
        sec('D', 2, {
          condition: 'delay_or_artifacts',
          delay_minutes: 60,
          artifact_ids: ['g1'],
          gate_mode: 'all',
        }),
        sec('G', 3, onlyArtifacts('all', ['d1'])),
      ],
      [art('d1', 'D'), art('g1', 'G')],
      [],
    ],
    [
      'any is met by one findable artifact, all is not',
      [
        sec('S', 1),
        sec('X', 2, onlyArtifacts('all', ['y1'])),
        sec('Y', 3, onlyArtifacts('all', ['x1'])),
        sec('ANY', 4, onlyArtifacts('any', ['x1', 's1'])),
        sec('ALL', 5, onlyArtifacts('all', ['x1', 's1', 'y1'])),
      ],
      [art('s1', 'S'), art('x1', 'X'), art('y1', 'Y')],
      [
        unreachable('X', '"Artifact y1" can never be found', ['y1']),
        unreachable('Y', '"Artifact x1" can never be found', ['x1']),
        unreachable('ALL', '"Artifact x1", "Artifact y1" can never be found', ['x1', 'y1']),
      ],
    ],
    [
      'unknown artifact ids are never found',
      [
        sec('S', 1),
        sec('U', 2, onlyArtifacts('all', ['s1', 'ghost'])),
        sec('V', 3, onlyArtifacts('any', ['ghost', 'phantom'])),
        sec('W', 4, onlyArtifacts('any', ['ghost', 's1'])),
      ],
      [art('s1', 'S')],
      [
        unreachable('U', 'unknown artifact ghost can never be found', ['ghost']),
        unreachable('V', 'none of unknown artifact ghost, unknown artifact phantom can ever be found', [
          'ghost',
          'phantom',
        ]),
      ],
    ],
    [
      'an artifact of a section the exercise does not have is never found',
      [sec('S', 1), sec('G', 2, onlyArtifacts('all', ['lost']))],
      [art('lost', 'gone')],
      [unreachable('G', '"Artifact lost" can never be found', ['lost'])],
    ],
    [
      'artifacts with a null section are findable from the start',
      [sec('S', 1), sec('N', 2, onlyArtifacts('all', ['brief']))],
      [art('brief', null)],
      [],
    ],
    [
      'a null-section artifact opens a gate even with no section at start',
      [sec('N', 1, onlyArtifacts('all', ['brief'])), sec('M', 2, onlyArtifacts('all', ['n1']))],
      [art('brief', null), art('n1', 'N')],
      [NO_START],
    ],
    [
      'an empty any gate never opens',
      [sec('S', 1), sec('E', 2, onlyArtifacts('any', []))],
      [],
      [unreachable('E', "its 'any' gate lists no artifacts", [])],
    ],
    [
      'an empty all gate holds (authoring refuses it; the checker agrees with evaluateRelease)',
      [sec('S', 1), sec('E', 2, onlyArtifacts('all', []))],
      [],
      [],
    ],
    [
      'every problem, in order, whatever order the sections come in',
      [
        sec('B', 30, onlyArtifacts('all', ['a1'])),
        sec('Z', 40, onlyArtifacts('all', ['z1'])),
        sec('A', 20, onlyArtifacts('all', ['b1'])),
        sec('D', 10, delayOnly(1)),
      ],
      [art('a1', 'A'), art('b1', 'B'), art('z1', 'Z'), art('d1', 'D')],
      [
        NO_START,
        selfGate('Z', 'z1'),
        unreachable('A', '"Artifact b1" can never be found', ['b1']),
        unreachable('B', '"Artifact a1" can never be found', ['a1']),
        unreachable('Z', '"Artifact z1" can never be found', ['z1']),
      ],
    ],
    [
      'equal positions break ties by id',
      [sec('b', 1, onlyArtifacts('all', ['x'])), sec('a', 1, onlyArtifacts('all', ['x']))],
      [],
      [
        NO_START,
        unreachable('a', 'unknown artifact x can never be found', ['x']),
        unreachable('b', 'unknown artifact x can never be found', ['x']),
      ],
    ],
  ])('%s', (_name, sections, artifacts, expected) => {
    expect(checkDeadlocks(sections, artifacts)).toStrictEqual(expected);
  });
});

/** The sections some attempt ships: evaluateRelease in waves, every findable artifact found, no time limit. */
function releasedByEvaluation(sections: StagedSection[], artifacts: SectionArtifact[]): Set<string> {
  const released = new Set<string>();
  for (;;) {
    const found = new Set(
      artifacts.filter((a) => a.section_id === null || released.has(a.section_id)).map((a) => a.id),
    );
    const next = sections.filter(
      (s) =>
        !released.has(s.id) &&
        evaluateRelease(s.release, { startedAt: 0, now: Number.POSITIVE_INFINITY, found }).released,
    );
    if (next.length === 0) return released;
    for (const s of next) released.add(s.id);
  }
}

const exercise = fc
  .record({
    sectionCount: fc.integer({ min: 1, max: 7 }),
    artifactCount: fc.integer({ min: 0, max: 8 }),
  })
  .chain(({ sectionCount, artifactCount }) => {
    const sectionIds = Array.from({ length: sectionCount }, (_, i) => `s${i}`);
    const artifactIds = Array.from({ length: artifactCount }, (_, i) => `a${i}`);
    const rule: fc.Arbitrary<ReleaseRule> = fc.record({
      condition: fc.constantFrom(...RELEASE_CONDITIONS),
      delay_minutes: fc.constantFrom(0, 0, 5, 600),
      artifact_ids: fc.uniqueArray(fc.constantFrom(...artifactIds, 'ghost'), { maxLength: 4 }),
      gate_mode: fc.constantFrom(...GATE_MODES),
    });
    return fc.record({
      sections: fc.tuple(
        ...sectionIds.map((id) =>
          fc.record({
            id: fc.constant(id),
            name: fc.constant(`Section ${id}`),
            position: fc.integer({ min: 0, max: 20 }),
            release: fc.option(rule, { freq: 4 }),
          }),
        ),
      ),
      artifacts: fc.tuple(
        ...artifactIds.map((id) =>
          fc.record({
            id: fc.constant(id),
            name: fc.constant(`Artifact ${id}`),
            section_id: fc.option(fc.constantFrom(...sectionIds, 'gone'), { freq: 5 }),
          }),
        ),
      ),
    });
  });

describe('checkDeadlocks: reachability agrees with evaluateRelease', () => {
  it('reports exactly the sections that never ship, with artifacts that are never found', () => {
    fc.assert(
      fc.property(exercise, ({ sections, artifacts }) => {
        const problems = checkDeadlocks(sections, artifacts);
        const released = releasedByEvaluation(sections, artifacts);
        const unreachable = problems.filter((p) => p.code === 'deadlock_unreachable');
        const reported = new Set(unreachable.map((p) => p.section));
        for (const s of sections) expect(reported.has(s.id), s.id).toBe(!released.has(s.id));
        expect(reported.size).toBe(unreachable.length);

        const findable = new Set(
          artifacts.filter((a) => a.section_id === null || released.has(a.section_id)).map((a) => a.id),
        );
        for (const p of unreachable) {
          for (const id of p.artifacts ?? []) expect(findable.has(id), id).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});
