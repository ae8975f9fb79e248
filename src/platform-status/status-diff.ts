import type { StatusChange, StatusComponent, StatusReading } from './status-types.ts';

/** Longest reason kept; monitoring error texts can be long and every client receives them. */
export const MAX_REASON_LENGTH = 500;

/** The next state and the changes that lead to it. */
export interface Diff {
  readonly next: Map<string, StatusComponent>;
  /** Sorted by component id. */
  readonly changes: StatusChange[];
}

/**
 * Folds one poll's readings into the current state. A component keeps its `since` while its state
 * stays the same (a new reason alone is still reported); components no longer read are removed.
 * Duplicate ids in one poll: the first reading wins.
 */
export function diffReadings(
  current: ReadonlyMap<string, StatusComponent>,
  readings: readonly StatusReading[],
  now: number,
): Diff {
  const at = new Date(now).toISOString();
  const next = new Map<string, StatusComponent>();
  const changes: StatusChange[] = [];
  for (const raw of readings) {
    if (next.has(raw.id)) continue;
    const reading = normalize(raw);
    const before = current.get(reading.id);
    const since = before && before.state === reading.state ? before.since : at;
    const component: StatusComponent = { ...reading, since };
    next.set(component.id, component);
    if (!before) {
      changes.push({ change: 'added', at, component, previous: null });
    } else if (!sameReading(before, component)) {
      changes.push({
        change: 'changed',
        at,
        component,
        previous: { state: before.state, reason: before.reason, since: before.since },
      });
    }
  }
  for (const [id, before] of current) {
    if (!next.has(id)) changes.push({ change: 'removed', at, component: before, previous: null });
  }
  changes.sort((a, b) => compare(a.component.id, b.component.id));
  return { next, changes };
}

/** Components of a state, sorted by id. */
export function sortedComponents(state: ReadonlyMap<string, StatusComponent>): StatusComponent[] {
  return [...state.values()].sort((a, b) => compare(a.id, b.id));
}

function normalize(r: StatusReading): StatusReading {
  const reason = r.reason === null || r.reason === '' ? null : r.reason.slice(0, MAX_REASON_LENGTH);
  const labels: Record<string, string> = {};
  for (const key of Object.keys(r.labels).sort()) labels[key] = String(r.labels[key]);
  return { id: r.id, kind: r.kind, name: r.name, state: r.state, reason, labels };
}

function sameReading(a: StatusReading, b: StatusReading): boolean {
  if (a.kind !== b.kind || a.name !== b.name || a.state !== b.state || a.reason !== b.reason) return false;
  const ak = Object.keys(a.labels);
  const bk = Object.keys(b.labels);
  return ak.length === bk.length && ak.every((k) => a.labels[k] === b.labels[k]);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
