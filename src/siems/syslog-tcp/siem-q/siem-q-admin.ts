import type {
  ConsoleFailure,
  EnsureOutcome,
  LogSourceAdmin,
  LogSourceSpec,
  LogSourceState,
  OffenseCloseOutcome,
  OffenseSelection,
} from '../../log-source-admin.ts';
import { clip } from '../../shared/siem-message.ts';
import type { CheckStep } from '../../siem-client.ts';
import type { SiemQDestinationSettings } from '../syslog-tcp-settings.ts';
import { type ConsoleRefusal, filterString, type SiemQConsole } from './siem-q-console.ts';
import type { ResolvedSetup, SiemQSetupCache } from './siem-q-setup-cache.ts';

export type { ResolvedSetup } from './siem-q-setup-cache.ts';

const LOG_SOURCES = '/api/config/event_sources/log_source_management/log_sources';
const TYPES = '/api/config/event_sources/log_source_management/log_source_types';
const PROTOCOLS = '/api/config/event_sources/log_source_management/protocol_types';
const COLLECTORS = '/api/config/event_sources/event_collectors';
const OFFENSES = '/api/siem/offenses';
const CLOSING_REASONS = '/api/siem/offense_closing_reasons';
const LOG_SOURCE_FIELDS = 'id,name,enabled,requires_deploy,type_id,protocol_type_id,protocol_parameters';
/** A log source's name is at most 255 characters and holds no backslash (protocols 4.4: 1004, 1043). */
const MAX_NAME = 255;
/** Errors kept per cleanup. */
const MAX_ERRORS = 5;
/** Offenses closed at once. */
const CLOSE_CONCURRENCY = 4;

/** The settings the admin reads, and the destination's name and version for the cache. */
export interface SiemQAdminInput {
  readonly siem: string;
  /** Changes with every edit of the destination: cached resolutions of an older one are not used. */
  readonly revision: string;
  readonly settings: SiemQDestinationSettings;
  readonly provision: boolean;
  readonly offenseCleanup: boolean;
}

/**
 * SIEM Q's log sources and offenses through its console API (spec 2.6, 3.3, 3.4; protocols
 * 4.4–4.10): resolves collector, log source type and protocol by name (cached per destination
 * revision), ensures log sources idempotently, reads their deploy state, closes offenses.
 */
export function createSiemQAdmin(
  input: SiemQAdminInput,
  api: SiemQConsole,
  cache: SiemQSetupCache,
): LogSourceAdmin {
  const { settings } = input;
  const cacheKey = [
    input.siem,
    input.revision,
    settings.console_url,
    settings.event_collector_id ?? '',
    settings.log_source_type,
    settings.log_source_protocol,
  ].join('\u0000');
  const live = (signal?: AbortSignal) => signal ?? new AbortController().signal;

  async function setup(
    signal?: AbortSignal,
    options: { fresh?: boolean } = {},
  ): Promise<ResolvedSetup | ConsoleFailure> {
    const cached = options.fresh ? undefined : cache.get(cacheKey);
    if (cached !== undefined) {
      api.version = cached.apiVersion;
      return cached;
    }
    const resolved = await resolveSetup(api, settings, live(signal));
    if (resolved.ok) cache.set(cacheKey, resolved);
    else cache.forget(cacheKey);
    return resolved;
  }

  // A refusal that says an id the cache holds is gone: forget the cache so the next call resolves again.
  function forgetOnStaleIds(failure: ConsoleRefusal): void {
    if (failure.code === 1007 || failure.code === 1025 || failure.code === 1011) cache.forget(cacheKey);
  }

  return {
    provision: input.provision,
    offenseCleanup: input.offenseCleanup,
    console: api.label,
    setup,

    async ensure(spec: LogSourceSpec, signal?: AbortSignal): Promise<EnsureOutcome> {
      const s = live(signal);
      const resolved = await setup(s);
      if (!resolved.ok) return resolved;
      if (spec.knownId !== undefined && spec.knownId !== null) {
        const known = await readOne(api, spec.knownId, resolved, s);
        if (!known.ok && known.status !== 404) return known;
        if (known.ok && known.source.identifier === spec.identifier) {
          return adopted(await adopt(api, known.source, resolved, s));
        }
        if (known.ok) {
          // Ours with an old identifier (the section moved): changed in place (protocols 4.10),
          // with the whole parameter list (a console may replace it as a whole).
          const updated = await api.call({
            method: 'POST',
            path: `${LOG_SOURCES}/${known.source.id}`,
            body: {
              enabled: true,
              type_id: resolved.logSourceType.id,
              protocol_type_id: resolved.protocol.id,
              protocol_parameters: protocolParameters(resolved, spec.identifier),
            },
            signal: s,
          });
          const source = updated.ok ? toState(updated.body, resolved) : null;
          if (source !== null && source.identifier === spec.identifier) {
            return { ok: true, source, created: false };
          }
          if (!updated.ok && updated.status !== 409 && updated.status !== 404) return updated;
        }
      }
      let name = logSourceName(spec.name);
      // Three looks: the name, again after a 1001 race, then the name carrying the identifier.
      for (let round = 0; round < 3; round++) {
        const byName = await findByName(api, name, resolved, s);
        if (!byName.ok) return byName;
        if (byName.source !== null) {
          if (byName.source.identifier === spec.identifier) {
            return adopted(await adopt(api, byName.source, resolved, s));
          }
          // The name belongs to another log source (another exercise of the same title): never
          // reuse it, take a name that carries our identifier.
          name = logSourceName(spec.name, spec.identifier);
          continue;
        }
        const created = await api.call({
          method: 'POST',
          path: LOG_SOURCES,
          body: {
            name,
            description: spec.description.slice(0, 255),
            type_id: resolved.logSourceType.id,
            protocol_type_id: resolved.protocol.id,
            target_event_collector_id: resolved.collector.id,
            enabled: true,
            // One event per line in the SIEM, as sent: no coalescing, payload kept (protocols 3.9).
            coalesce_events: false,
            store_event_payload: true,
            protocol_parameters: protocolParameters(resolved, spec.identifier),
          },
          signal: s,
        });
        if (created.ok) {
          const source = toState(created.body, resolved);
          if (source === null) return bad(api, LOG_SOURCES, 'the created log source has no id');
          return { ok: true, source, created: true };
        }
        forgetOnStaleIds(created);
        if (created.status === 409 && created.code === 1002) {
          // Type + protocol + identifier taken: the log source exists under another name. Ours,
          // since the identifier carries the exercise (decisions.md §7).
          const byIdentifier = await findByIdentifier(api, spec.identifier, resolved, s);
          if (!byIdentifier.ok) return byIdentifier;
          if (byIdentifier.source !== null) {
            return adopted(await adopt(api, byIdentifier.source, resolved, s));
          }
          return created;
        }
        // 1001: the name was taken between our look and the create; look again.
        if (created.status === 409 && created.code === 1001) continue;
        return created;
      }
      return bad(api, LOG_SOURCES, `the log source name "${clip(name, 80)}" stays taken`);
    },

    async find(identifiers, signal) {
      const s = live(signal);
      const resolved = await setup(s);
      if (!resolved.ok) return resolved;
      const listed = await listOfType(api, resolved, s);
      if (!listed.ok) return listed;
      const wanted = new Set(identifiers);
      const sources = new Map<string, LogSourceState>();
      for (const source of listed.sources) {
        if (source.identifier !== null && wanted.has(source.identifier) && !sources.has(source.identifier)) {
          sources.set(source.identifier, source);
        }
      }
      return { ok: true, sources };
    },

    async read(ids, signal) {
      const s = live(signal);
      const resolved = await setup(s);
      if (!resolved.ok) return resolved;
      const sources = new Map<number, LogSourceState>();
      const unique = [...new Set(ids)].filter((id) => Number.isInteger(id));
      for (let i = 0; i < unique.length; i += 50) {
        const chunk = unique.slice(i, i + 50);
        const listed = await api.list(
          LOG_SOURCES,
          { filter: `id in (${chunk.join(', ')})`, fields: LOG_SOURCE_FIELDS },
          s,
        );
        if (!listed.ok) return listed;
        for (const item of listed.items) {
          const state = toState(item, resolved);
          if (state !== null) sources.set(state.id, state);
        }
      }
      return { ok: true, sources };
    },

    async closeOffenses(selection: OffenseSelection, signal?: AbortSignal): Promise<OffenseCloseOutcome> {
      const s = live(signal);
      const ids = new Set(selection.logSourceIds);
      const failedList = (message: string): OffenseCloseOutcome => ({
        found: 0,
        closed: 0,
        failed: 0,
        errors: [message],
        listFailed: true,
      });
      if (ids.size === 0) return { found: 0, closed: 0, failed: 0, errors: [], listFailed: false };
      const resolved = await setup(s);
      if (!resolved.ok) return failedList(resolved.message);
      const reason = await closingReason(api, settings.closing_reason, s);
      if (!reason.ok) return failedList(reason.message);
      // Open and hidden ones: an offense an analyst hid during the exercise is still the exercise's.
      const clauses = ['(status="OPEN" or status="HIDDEN")'];
      if (selection.openedFrom !== undefined)
        clauses.push(`start_time >= ${Math.floor(selection.openedFrom)}`);
      if (selection.openedUntil !== undefined)
        clauses.push(`start_time <= ${Math.ceil(selection.openedUntil)}`);
      const listed = await api.list(
        OFFENSES,
        { filter: clauses.join(' and '), fields: 'id,status,start_time,log_sources(id)', sort: '+id' },
        s,
      );
      if (!listed.ok) return failedList(listed.message);
      // Linked to one of ours (the console's `contains` filter is not relied on: protocols 4.2).
      const offenses = [
        ...new Set(
          listed.items
            .filter((o) => linkedIds(o).some((id) => ids.has(id)))
            .map((o) => o.id)
            .filter((id): id is number => typeof id === 'number'),
        ),
      ];
      let closed = 0;
      let failed = 0;
      let stopped = 0;
      const errors: string[] = [];
      const note = (message: string) => {
        if (errors.length < MAX_ERRORS && !errors.includes(message)) errors.push(message);
      };
      // A few closes at a time: many offenses close in seconds, a slow console is not hammered.
      let next = 0;
      const worker = async () => {
        while (next < offenses.length) {
          const id = offenses[next++] as number;
          if (s.aborted) {
            stopped++;
            continue;
          }
          try {
            const outcome = await closeOne(api, id, reason.id, s);
            if (outcome === 'closed') closed++;
            else if (outcome !== 'gone') {
              failed++;
              note(outcome.message);
            }
          } catch (err) {
            // Cancelled or out of time (the caller's signal) while closing this one.
            if (!s.aborted) throw err;
            stopped++;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CLOSE_CONCURRENCY, offenses.length) }, worker));
      if (stopped > 0) {
        failed += stopped;
        note(
          api.describe(
            OFFENSES,
            `stopped (out of time or shutting down) with ${stopped} of ${offenses.length} offenses not closed`,
          ),
        );
      }
      return { found: offenses.length, closed, failed, errors, listFailed: false };
    },

    async check(signal?: AbortSignal): Promise<CheckStep[]> {
      const s = live(signal);
      cache.forget(cacheKey);
      const endpoint = api.label;
      const steps: CheckStep[] = [];
      const version = await api.negotiateVersion(s);
      if (!version.ok) {
        steps.push({ name: 'siem_q_console', ok: false, message: version.message, endpoint });
        return steps;
      }
      const resolved = await resolveSetup(api, settings, s);
      if (!resolved.ok) {
        // The token is proved by the first authenticated call: a refusal there says so.
        const tokenOk = resolved.reason !== 'auth' && resolved.reason !== 'unreachable';
        steps.push({
          name: 'siem_q_console',
          ok: tokenOk,
          message: tokenOk ? `token accepted; API version ${version.version}` : resolved.message,
          endpoint,
        });
        if (tokenOk) steps.push({ name: 'siem_q_setup', ok: false, message: resolved.message, endpoint });
        return steps;
      }
      cache.set(cacheKey, resolved);
      steps.push(
        {
          name: 'siem_q_console',
          ok: true,
          message: `token accepted; API version ${resolved.apiVersion}`,
          endpoint,
        },
        {
          name: 'siem_q_event_collector',
          ok: true,
          message: `event collector "${resolved.collector.name}" (id ${resolved.collector.id})`,
          endpoint,
        },
        {
          name: 'siem_q_log_source_type',
          ok: true,
          message: `log source type "${resolved.logSourceType.name}" (id ${resolved.logSourceType.id}), protocol "${resolved.protocol.name}" (id ${resolved.protocol.id})`,
          endpoint,
        },
      );
      const reason = await closingReason(api, settings.closing_reason, s);
      steps.push({
        name: 'siem_q_closing_reason',
        ok: reason.ok || !input.offenseCleanup,
        message: reason.ok
          ? `offense closing reason "${settings.closing_reason}" (id ${reason.id})`
          : `${reason.message}${input.offenseCleanup ? '' : ' (offense_cleanup is off, so nothing needs it)'}`,
        endpoint,
      });
      return steps;
    },
  };
}

/** Closes one offense: closed, gone (404, or closed by someone else meanwhile), or the refusal. */
async function closeOne(
  api: SiemQConsole,
  id: number,
  reasonId: number,
  signal: AbortSignal,
): Promise<'closed' | 'gone' | ConsoleRefusal> {
  const path = `${OFFENSES}/${id}`;
  const answer = await api.call({
    method: 'POST',
    path,
    query: { status: 'CLOSED', closing_reason_id: String(reasonId) },
    signal,
  });
  if (answer.ok) return 'closed';
  if (answer.status === 404) return 'gone';
  if (answer.status === 409) {
    const now = await api.call({ method: 'GET', path, query: { fields: 'id,status' }, signal });
    if (now.ok && (now.body as { status?: unknown } | null)?.status === 'CLOSED') return 'gone';
  }
  return answer;
}

/** Version, collector, log source type and protocol, by name (decisions.md §7), never hard-coded. */
async function resolveSetup(
  api: SiemQConsole,
  settings: SiemQDestinationSettings,
  signal: AbortSignal,
): Promise<ResolvedSetup | ConsoleFailure> {
  const version = await api.negotiateVersion(signal);
  if (!version.ok) return version;

  let collector: { id: number; name: string };
  if (settings.event_collector_id !== null && settings.event_collector_id !== undefined) {
    const path = `${COLLECTORS}/${settings.event_collector_id}`;
    const one = await api.call({ method: 'GET', path, signal });
    if (!one.ok) {
      if (one.status === 404) {
        return failure(
          'not_found',
          api.describe(
            path,
            `event collector ${settings.event_collector_id} does not exist (siem_q.event_collector_id)`,
          ),
        );
      }
      return one;
    }
    collector = { id: settings.event_collector_id, name: nameOf(one.body) };
  } else {
    const all = await api.list(COLLECTORS, { fields: 'id,name' }, signal);
    if (!all.ok) return all;
    const found = all.items.filter((c) => typeof c.id === 'number');
    if (found.length !== 1) {
      const names = found.map((c) => `"${nameOf(c)}" (id ${c.id})`).join(', ');
      return failure(
        found.length === 0 ? 'not_found' : 'refused',
        api.describe(
          COLLECTORS,
          found.length === 0
            ? 'the console lists no event collector'
            : `${found.length} event collectors: ${clip(names, 200)}; set siem_q.event_collector_id to one of them`,
        ),
      );
    }
    const only = found[0] as Record<string, unknown>;
    collector = { id: only.id as number, name: nameOf(only) };
  }

  const types = await api.list(
    TYPES,
    { filter: `name=${filterString(settings.log_source_type)}`, fields: 'id,name' },
    signal,
  );
  if (!types.ok) return types;
  const type = types.items.find((t) => t.name === settings.log_source_type && typeof t.id === 'number');
  if (type === undefined) {
    return failure(
      'not_found',
      api.describe(
        TYPES,
        `no log source type is named "${settings.log_source_type}" (siem_q.log_source_type)`,
      ),
    );
  }

  const protocols = await api.list(PROTOCOLS, { fields: 'id,name,parameters' }, signal);
  if (!protocols.ok) return protocols;
  const wanted = settings.log_source_protocol.toLowerCase();
  const protocol = protocols.items.find(
    (p) => typeof p.name === 'string' && p.name.toLowerCase() === wanted && typeof p.id === 'number',
  );
  if (protocol === undefined) {
    return failure(
      'not_found',
      api.describe(
        PROTOCOLS,
        `no protocol is named "${settings.log_source_protocol}" (siem_q.log_source_protocol)`,
      ),
    );
  }
  const params = Array.isArray(protocol.parameters) ? (protocol.parameters as Record<string, unknown>[]) : [];
  const paramId = (name: string): number | null => {
    const p = params.find((x) => typeof x?.name === 'string' && x.name.toLowerCase() === name.toLowerCase());
    return typeof p?.id === 'number' ? p.id : null;
  };
  return {
    ok: true,
    apiVersion: version.version,
    collector,
    logSourceType: { id: type.id as number, name: String(type.name) },
    protocol: { id: protocol.id as number, name: String(protocol.name) },
    // The Syslog protocol's identifier is parameter 0 and its encoding 1 (protocols 4.4) when the
    // console does not list them.
    identifierParam: paramId('identifier') ?? 0,
    encodingParam: paramId('incomingPayloadEncoding') ?? (params.length === 0 ? 1 : null),
  };
}

/** The closing reason's id, looked up by its text (ids differ between consoles: protocols 4.8). */
async function closingReason(
  api: SiemQConsole,
  text: string,
  signal: AbortSignal,
): Promise<{ ok: true; id: number } | ConsoleFailure> {
  const listed = await api.list(
    CLOSING_REASONS,
    { filter: `text=${filterString(text)}`, fields: 'id,text,is_deleted,is_reserved' },
    signal,
  );
  if (!listed.ok) return listed;
  const found = listed.items.find(
    (r) => r.text === text && typeof r.id === 'number' && r.is_deleted !== true && r.is_reserved !== true,
  );
  if (found === undefined) {
    return failure(
      'not_found',
      api.describe(
        CLOSING_REASONS,
        `no usable offense closing reason reads "${text}" (siem_q.closing_reason)`,
      ),
    );
  }
  return { ok: true, id: found.id as number };
}

async function readOne(
  api: SiemQConsole,
  id: number,
  resolved: ResolvedSetup,
  signal: AbortSignal,
): Promise<{ ok: true; source: LogSourceState } | ConsoleRefusal> {
  const path = `${LOG_SOURCES}/${id}`;
  const answer = await api.call({ method: 'GET', path, query: { fields: LOG_SOURCE_FIELDS }, signal });
  if (!answer.ok) return answer;
  const source = toState(answer.body, resolved);
  return source === null ? bad(api, path, 'the log source has no id') : { ok: true, source };
}

async function findByName(
  api: SiemQConsole,
  name: string,
  resolved: ResolvedSetup,
  signal: AbortSignal,
): Promise<{ ok: true; source: LogSourceState | null } | ConsoleRefusal> {
  const listed = await api.list(
    LOG_SOURCES,
    { filter: `name=${filterString(name)}`, fields: LOG_SOURCE_FIELDS },
    signal,
  );
  if (!listed.ok) return listed;
  const match = listed.items.map((i) => toState(i, resolved)).find((s) => s?.name === name) ?? null;
  return { ok: true, source: match };
}

/** The log source of this type and protocol whose identifier is `identifier` (listed by type: protocols 4.10). */
async function findByIdentifier(
  api: SiemQConsole,
  identifier: string,
  resolved: ResolvedSetup,
  signal: AbortSignal,
): Promise<{ ok: true; source: LogSourceState | null } | ConsoleRefusal> {
  const listed = await listOfType(api, resolved, signal);
  if (!listed.ok) return listed;
  return { ok: true, source: listed.sources.find((s) => s.identifier === identifier) ?? null };
}

/** Every log source of the configured type and protocol (the console cannot filter on parameters). */
async function listOfType(
  api: SiemQConsole,
  resolved: ResolvedSetup,
  signal: AbortSignal,
): Promise<{ ok: true; sources: LogSourceState[] } | ConsoleRefusal> {
  const listed = await api.list(
    LOG_SOURCES,
    {
      filter: `type_id=${resolved.logSourceType.id} and protocol_type_id=${resolved.protocol.id}`,
      fields: LOG_SOURCE_FIELDS,
      sort: '+id',
    },
    signal,
  );
  if (!listed.ok) return listed;
  const sources = listed.items
    .map((i) => toState(i, resolved))
    .filter((x): x is LogSourceState => x !== null);
  return { ok: true, sources };
}

/**
 * A found log source made fit to route our events: enabled, of the configured type and protocol
 * (changed in place when not, protocols 4.10); the console's refusal when it cannot be.
 */
async function adopt(
  api: SiemQConsole,
  source: LogSourceState,
  resolved: ResolvedSetup,
  signal: AbortSignal,
): Promise<{ ok: true; source: LogSourceState } | ConsoleRefusal> {
  const fit =
    source.enabled &&
    (source.typeId === null || source.typeId === resolved.logSourceType.id) &&
    (source.protocolTypeId === null || source.protocolTypeId === resolved.protocol.id);
  if (fit) return { ok: true, source };
  const path = `${LOG_SOURCES}/${source.id}`;
  const answer = await api.call({
    method: 'POST',
    path,
    body: {
      enabled: true,
      type_id: resolved.logSourceType.id,
      protocol_type_id: resolved.protocol.id,
      ...(source.identifier !== null
        ? { protocol_parameters: protocolParameters(resolved, source.identifier) }
        : {}),
    },
    signal,
  });
  if (!answer.ok) {
    return {
      ...answer,
      message: `${answer.message} (log source ${source.id} "${clip(source.name, 80)}" is disabled or not of type "${resolved.logSourceType.name}" over "${resolved.protocol.name}", and could not be changed)`,
    };
  }
  const updated = toState(answer.body, resolved);
  return updated === null
    ? bad(api, path, 'the updated log source has no id')
    : { ok: true, source: updated };
}

function adopted(outcome: { ok: true; source: LogSourceState } | ConsoleRefusal): EnsureOutcome {
  return outcome.ok ? { ok: true, source: outcome.source, created: false } : outcome;
}

/** The Syslog protocol's parameters of a log source: its identifier, and UTF-8 when the protocol has an encoding. */
function protocolParameters(
  resolved: ResolvedSetup,
  identifier: string,
): Array<{ id: number; name: string; value: string }> {
  return [
    { id: resolved.identifierParam, name: 'identifier', value: identifier },
    ...(resolved.encodingParam !== null
      ? [{ id: resolved.encodingParam, name: 'incomingPayloadEncoding', value: 'UTF-8' }]
      : []),
  ];
}

function toState(body: unknown, resolved: Pick<ResolvedSetup, 'identifierParam'>): LogSourceState | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  if (typeof b.id !== 'number') return null;
  const params = Array.isArray(b.protocol_parameters)
    ? (b.protocol_parameters as Record<string, unknown>[])
    : [];
  const param =
    params.find((p) => p?.name === 'identifier') ?? params.find((p) => p?.id === resolved.identifierParam);
  return {
    id: b.id,
    name: typeof b.name === 'string' ? b.name : '',
    identifier: typeof param?.value === 'string' ? param.value : null,
    enabled: b.enabled !== false,
    typeId: typeof b.type_id === 'number' ? b.type_id : null,
    protocolTypeId: typeof b.protocol_type_id === 'number' ? b.protocol_type_id : null,
    requiresDeploy: b.requires_deploy === true,
  };
}

/** The name a log source gets: no backslash, at most 255 characters, optionally made unique by the identifier. */
export function logSourceName(name: string, identifier?: string): string {
  const clean = name.replace(/\\/g, '/').replace(/\s+/g, ' ').trim();
  if (identifier === undefined) return clean.slice(0, MAX_NAME);
  const suffix = ` (${identifier})`;
  return `${clean.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

function linkedIds(offense: Record<string, unknown>): number[] {
  const sources = Array.isArray(offense.log_sources) ? offense.log_sources : [];
  return sources
    .map((s) => (s !== null && typeof s === 'object' ? (s as { id?: unknown }).id : undefined))
    .filter((id): id is number => typeof id === 'number');
}

function nameOf(body: unknown): string {
  const name = (body as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : '';
}

function failure(reason: ConsoleFailure['reason'], message: string): ConsoleFailure {
  return { ok: false, reason, message };
}

function bad(api: SiemQConsole, path: string, cause: string): ConsoleRefusal {
  return { ok: false, reason: 'refused', message: api.describe(path, cause) };
}
