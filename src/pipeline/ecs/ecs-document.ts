import { type EcsDocument, isPlainObject } from './ecs-fields.ts';
import { EcsTimeScratch, readEcsTimeValue, shiftEcsTimeValue } from './ecs-time.ts';

/** Event time of an ECS document: `@timestamp` decides (decisions.md §5); null when unreadable. */
export function readEcsTime(doc: EcsDocument, scratch: EcsTimeScratch = new EcsTimeScratch()): number | null {
  return readEcsTimeValue(doc['@timestamp'], scratch);
}

/**
 * Moves the time fields of a document by `shiftMs`, in place, and returns the same object:
 * `@timestamp` and `event.created|start|end|ingested`, nested or dotted, each written back in its
 * own notation (see shiftEcsTimeValue). A document whose `@timestamp` is unreadable has no event
 * time and is left entirely unchanged, as are individual fields that are not readable dates.
 */
export function shiftEcsDocument(
  doc: EcsDocument,
  shiftMs: number,
  scratch: EcsTimeScratch = new EcsTimeScratch(),
): EcsDocument {
  if (readEcsTime(doc, scratch) === null) return doc;
  shiftField(doc, '@timestamp', shiftMs, scratch);
  for (const name of EVENT_TIME_NAMES) shiftField(doc, `event.${name}`, shiftMs, scratch);
  const event = doc.event;
  if (isPlainObject(event)) for (const name of EVENT_TIME_NAMES) shiftField(event, name, shiftMs, scratch);
  return doc;
}

const EVENT_TIME_NAMES = ['created', 'start', 'end', 'ingested'] as const;

function shiftField(
  holder: Record<string, unknown>,
  key: string,
  shiftMs: number,
  scratch: EcsTimeScratch,
): void {
  if (!Object.hasOwn(holder, key)) return;
  const shifted = shiftEcsTimeValue(holder[key], shiftMs, scratch);
  if (shifted !== null) holder[key] = shifted;
}
