import { randomBytes } from 'node:crypto';
import { dispatchState, jobContent, runSearch, type SearchJob } from './hec-search-jobs.ts';
import type { HecIndexInfo, HecStore } from './hec-store.ts';
import type { SimRequest, SimResponse } from './sim-http-server.ts';
import { type SplunkdEntry, type SplunkdPayload, splunkdAnswer } from './splunkd-output.ts';

/** A management API user; `can_delete` among the roles grants `delete_by_keyword`. */
export interface ManagementUser {
  readonly username: string;
  readonly password: string;
  readonly roles: readonly string[];
}

/** Everything the management API reads and changes. */
export interface HecManagementState {
  readonly indexes: Map<string, HecIndexInfo>;
  readonly store: HecStore;
  readonly users: readonly ManagementUser[];
  /** `Authorization: Bearer <token>` → user name. */
  readonly bearerTokens: ReadonlyMap<string, string>;
  /** Session keys from `/services/auth/login` (`Authorization: Splunk <key>`) → user name. */
  readonly sessions: Map<string, string>;
  readonly jobs: Map<string, SearchJob>;
  readonly pollsUntilDone: number;
  readonly serverName: string;
  readonly version: string;
  readonly build: string;
  readonly baseUrl: () => string;
  readonly now: () => number;
}

/** Arguments splunkd's index handler accepts on create (others are refused by name). */
const INDEX_ARGS = new Set([
  'name',
  'datatype',
  'homePath',
  'coldPath',
  'thawedPath',
  'maxTotalDataSizeMB',
  'frozenTimePeriodInSecs',
  'maxDataSize',
  'maxHotBuckets',
  'maxWarmDBCount',
  'quarantinePastSecs',
  'quarantineFutureSecs',
  'coldToFrozenDir',
  'enableDataIntegrityControl',
  'repFactor',
]);
/** Read by splunkd's REST framework wherever they appear, so no handler refuses them. */
const FRAMEWORK_ARGS = new Set(['output_mode', 'count', 'offset', 'f', 'sort_key', 'sort_dir']);

/** Answers one management API request (port 8089 style). */
export function handleManagement(state: HecManagementState, req: SimRequest): SimResponse {
  const args = formArgs(req);
  const json = args.get('output_mode') === 'json';
  const answer = (status: number, payload: SplunkdPayload, headers?: Record<string, string>) =>
    splunkdAnswer(status, payload, json, ctx(state), headers);
  const message = (status: number, type: string, text: string, headers?: Record<string, string>) =>
    answer(status, { messages: [{ type, text }] }, headers);
  const path = normalizePath(req.path);

  if (path === '/services/auth/login' && req.method === 'POST') {
    const user = state.users.find(
      (u) => u.username === args.get('username') && u.password === args.get('password'),
    );
    if (!user) return message(401, 'WARN', 'Login failed');
    const key = randomBytes(24).toString('base64url');
    state.sessions.set(key, user.username);
    return answer(200, { sessionKey: key });
  }
  const auth = authenticate(state, req.headers.authorization);
  if ('refused' in auth) {
    return message(401, auth.refused.type, auth.refused.text, {
      'www-authenticate': 'Basic realm="/splunk"',
    });
  }
  const user = auth.user;

  if (path === '/services/server/info' && req.method === 'GET') {
    return answer(200, feed('server/info', [serverInfoEntry(state)]));
  }
  if (path === '/services/data/indexes') {
    if (req.method === 'GET') return answer(200, listIndexes(state, args));
    if (req.method === 'POST') return createIndex(state, args, answer, message);
  }
  const indexMatch = /^\/services\/data\/indexes\/([^/]+)$/.exec(path);
  if (indexMatch) {
    const name = indexMatch[1]!;
    if (!state.indexes.has(name)) return message(404, 'ERROR', `Could not find object id=${name}`);
    if (req.method === 'GET') return answer(200, feed('data/indexes', [indexEntry(state, name)]));
    if (req.method === 'DELETE') {
      state.indexes.delete(name);
      return answer(200, listIndexes(state, new URLSearchParams()));
    }
  }
  if (path === '/services/search/jobs') {
    if (req.method === 'POST') return createJob(state, user, args, answer, message);
    if (req.method === 'GET') return answer(200, feed('search/jobs', [...state.jobs.values()].map(jobEntry)));
  }
  const jobMatch = /^\/services\/search\/jobs\/([^/]+)(\/results)?$/.exec(path);
  if (jobMatch) {
    const job = state.jobs.get(jobMatch[1]!);
    // splunkd links every answer under a job back to it, relative to the request path.
    const link = { link: `<${jobMatch[2] ? '../' : ''}${jobMatch[1]}>; rel=info` };
    if (!job) return message(404, 'FATAL', 'Unknown sid.', link);
    if (!jobMatch[2]) {
      if (req.method === 'DELETE') {
        state.jobs.delete(job.sid);
        return message(200, 'INFO', 'Search job cancelled.', link);
      }
      if (req.method === 'GET') {
        job.polls++;
        return answer(200, feed('search/jobs', [jobEntry(job)]), link);
      }
    } else if (req.method === 'GET' || req.method === 'POST') {
      if (dispatchState(job) !== 'DONE') return { status: 204, headers: link };
      return answer(200, { results: job.rows, fields: job.fields }, link);
    }
  }
  return message(404, 'ERROR', 'Not Found');
}

type Answer = (status: number, payload: SplunkdPayload, headers?: Record<string, string>) => SimResponse;
type Message = (status: number, type: string, text: string, headers?: Record<string, string>) => SimResponse;

function authenticate(
  state: HecManagementState,
  header: string | undefined,
): { user: ManagementUser } | { refused: { type: string; text: string } } {
  // splunkd words a failed token scheme differently from anything Basic-shaped or unknown.
  const basicRefusal = { refused: { type: 'ERROR', text: 'Unauthorized' } };
  const tokenRefusal = { refused: { type: 'WARN', text: 'call not properly authenticated' } };
  if (!header) return basicRefusal;
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const value = space < 0 ? '' : header.slice(space + 1).trim();
  const byName = (name: string | undefined) => state.users.find((u) => u.username === name);
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? undefined : byName(decoded.slice(0, colon));
    return user && user.password === decoded.slice(colon + 1) ? { user } : basicRefusal;
  }
  if (scheme === 'bearer' || scheme === 'splunk') {
    const user = byName(scheme === 'bearer' ? state.bearerTokens.get(value) : state.sessions.get(value));
    return user ? { user } : tokenRefusal;
  }
  return basicRefusal;
}

function createIndex(
  state: HecManagementState,
  args: URLSearchParams,
  answer: Answer,
  message: Message,
): SimResponse {
  for (const key of args.keys()) {
    if (!INDEX_ARGS.has(key) && !FRAMEWORK_ARGS.has(key)) {
      return message(400, 'ERROR', `Argument "${key}" is not supported by this handler.`);
    }
  }
  const name = args.get('name') ?? '';
  if (name === '')
    return message(400, 'ERROR', 'Cannot perform action "POST" without a target name to act on.');
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name) || name.includes('kvstore')) {
    return message(
      400,
      'ERROR',
      `In handler 'indexes': Index Names may contain only lowercase letters, numbers, underscores, or hyphens. ` +
        'They must begin with a lowercase letter or number.',
    );
  }
  if (state.indexes.has(name)) return message(409, 'ERROR', `Index '${name}' already exists`);
  const datatype = args.get('datatype') ?? 'event';
  if (datatype !== 'event' && datatype !== 'metric') {
    return message(400, 'ERROR', `In handler 'indexes': Invalid datatype: ${datatype}`);
  }
  const settings: Record<string, string> = {};
  for (const [k, v] of args) if (INDEX_ARGS.has(k) && k !== 'name' && k !== 'datatype') settings[k] = v;
  state.indexes.set(name, { datatype, createdAt: state.now(), settings });
  return answer(201, feed('data/indexes', [indexEntry(state, name)]));
}

function listIndexes(state: HecManagementState, args: URLSearchParams): SplunkdPayload {
  const wanted = args.get('datatype') ?? 'event';
  const names = [...state.indexes]
    .filter(([, info]) => wanted === 'all' || info.datatype === wanted)
    .map(([name]) => name)
    .sort();
  const offset = Math.max(0, Number(args.get('offset') ?? 0) || 0);
  const count = Number(args.get('count') ?? 30);
  const page = count > 0 ? names.slice(offset, offset + count) : names.slice(offset);
  return {
    ...feed(
      'data/indexes',
      page.map((n) => indexEntry(state, n)),
    ),
    total: names.length,
    offset,
    perPage: count,
  };
}

function createJob(
  state: HecManagementState,
  user: ManagementUser,
  args: URLSearchParams,
  answer: Answer,
  message: Message,
): SimResponse {
  const search = args.get('search') ?? '';
  const execMode = args.get('exec_mode') ?? 'normal';
  const earliestTime = args.get('earliest_time') ?? undefined;
  const latestTime = args.get('latest_time') ?? undefined;
  const run = runSearch(state.store, {
    search,
    earliestTime,
    latestTime,
    canDelete: user.roles.includes('can_delete'),
    nowSeconds: state.now() / 1000,
    serverName: state.serverName,
    indexExists: (name) => state.indexes.has(name),
  });
  if ('message' in run) return message(400, 'FATAL', run.message);
  if (execMode === 'oneshot') {
    // splunkd sends an empty body, not an empty result set, when a oneshot search finds nothing.
    if (run.rows.length === 0) return { status: 200, body: '' };
    return answer(200, { results: run.rows, fields: run.fields });
  }
  const sid = `${Math.floor(state.now() / 1000)}.${state.jobs.size + 1}`;
  state.jobs.set(sid, {
    sid,
    search,
    owner: user.username,
    execMode,
    earliestTime,
    latestTime,
    createdAt: state.now(),
    polls: 0,
    pollsUntilDone: execMode === 'blocking' ? 0 : state.pollsUntilDone,
    eventCount: run.eventCount,
    fields: run.fields,
    rows: run.rows,
  });
  return answer(201, { sid });
}

function indexEntry(state: HecManagementState, name: string): SplunkdEntry {
  const info = state.indexes.get(name)!;
  const events = state.store.events.filter((e) => e.index === name);
  const times = events.map((e) => e.time);
  const iso = (t: number) => new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
  return {
    name,
    path: `/servicesNS/nobody/search/data/indexes/${name}`,
    author: 'nobody',
    content: {
      datatype: info.datatype,
      disabled: false,
      homePath: `$SPLUNK_DB/${name}/db`,
      coldPath: `$SPLUNK_DB/${name}/colddb`,
      thawedPath: `$SPLUNK_DB/${name}/thaweddb`,
      maxTotalDataSizeMB: 500000,
      frozenTimePeriodInSecs: 188697600,
      quarantinePastSecs: 77760000,
      quarantineFutureSecs: 2592000,
      // Deleted events still count: `| delete` masks them without freeing anything.
      totalEventCount: events.length,
      currentDBSizeMB: Math.ceil(events.reduce((n, e) => n + e.raw.length, 0) / 1_048_576),
      minTime: times.length > 0 ? iso(Math.min(...times)) : '',
      maxTime: times.length > 0 ? iso(Math.max(...times)) : '',
      ...numericSettings(info.settings),
    },
  };
}

function serverInfoEntry(state: HecManagementState): SplunkdEntry {
  return {
    name: 'server-info',
    path: '/services/server/info/server-info',
    author: 'system',
    content: {
      serverName: state.serverName,
      version: state.version,
      build: state.build,
      product_type: 'enterprise',
      os_name: 'Linux',
      server_roles: ['indexer', 'search_head'],
      isFree: false,
    },
  };
}

function jobEntry(job: SearchJob): SplunkdEntry {
  return {
    name: job.search,
    path: `/services/search/jobs/${job.sid}`,
    author: job.owner,
    content: jobContent(job),
  };
}

function feed(name: string, entries: SplunkdEntry[]) {
  return { feed: name, entries, total: entries.length, offset: 0, perPage: 30 };
}

function numericSettings(settings: Readonly<Record<string, string>>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(settings)) out[k] = /^\d+$/.test(v) ? Number(v) : v;
  return out;
}

function ctx(state: HecManagementState) {
  return { baseUrl: state.baseUrl(), version: state.version, build: state.build, now: new Date(state.now()) };
}

/** Query string and form body together, as splunkd reads arguments from both. */
function formArgs(req: SimRequest): URLSearchParams {
  const args = new URLSearchParams(req.query);
  const type = String(req.headers['content-type'] ?? '');
  if (req.body.length > 0 && (type === '' || type.includes('x-www-form-urlencoded'))) {
    for (const [k, v] of new URLSearchParams(req.body.toString('utf8'))) args.append(k, v);
  }
  return args;
}

/** `/servicesNS/<owner>/<app>/x` and `/services/search/v2/jobs` to one form; trailing slash ignored. */
function normalizePath(raw: string): string {
  let path = raw
    .split('/')
    .map((s) => safeDecode(s))
    .join('/');
  path = path.replace(/^\/servicesNS\/[^/]+\/[^/]+\//, '/services/').replace(/\/+$/, '');
  return path.replace(/^\/services\/search\/v2\/jobs/, '/services/search/jobs');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
