import type { Wait } from '../shared/backoff.ts';
import type { HttpAnswer, HttpEndpoint } from '../shared/http-endpoint.ts';
import type { NetworkFailure } from '../shared/network-failure.ts';
import type { IndexOutcome } from '../siem-client.ts';
import { deletedCount, firstEntryContent, splunkdMessages } from './splunkd-answer.ts';

/** What the management calls need from the driver. */
export interface ManagementContext {
  readonly endpoint: HttpEndpoint;
  /** `Bearer <token>` or `Basic <base64>`. */
  readonly authorization: string;
  /** A full message naming the SIEM and the endpoint of `path`. */
  readonly describe: (path: string, cause: string) => string;
  readonly wait: Wait;
  readonly pollMs: number;
  readonly jobTimeoutMs: number;
}

const FORM = 'application/x-www-form-urlencoded';
/** The end of Splunk's 32-bit time: nothing later can be indexed, so the range covers every event. */
const LATEST_INDEXABLE = '2147483647';

/** Creates the index through `POST /services/data/indexes` unless `GET …/<name>` finds it. */
export async function ensureHecIndex(
  ctx: ManagementContext,
  index: string,
  signal: AbortSignal,
): Promise<IndexOutcome> {
  const one = `/services/data/indexes/${encodeURIComponent(index)}?output_mode=json`;
  const found = await call(ctx, { method: 'GET', path: one, signal });
  if (found.kind === 'network') return failed(ctx, index, one, found.message);
  if (found.status === 200) return { ok: true, index, created: false };
  if (found.status !== 404) return failed(ctx, index, one, httpCause(found));
  const list = '/services/data/indexes';
  const body = new URLSearchParams({ name: index, output_mode: 'json' }).toString();
  const created = await call(ctx, { method: 'POST', path: list, body, signal });
  if (created.kind === 'network') return failed(ctx, index, list, created.message);
  if (created.status === 200 || created.status === 201) return { ok: true, index, created: true };
  // Someone created it between the two calls.
  if (created.status === 409) return { ok: true, index, created: false };
  return failed(ctx, index, list, httpCause(created));
}

/**
 * Wipes an index with the search `search index=<name> | delete` (protocols-hec-bulk.md 2.4): a
 * normal search job over all time up to Splunk's last indexable second (rebased events lie in the
 * future, so `latest_time=now` would leave them), polled until done within `jobTimeoutMs`, then its
 * per-index `deleted` count read from the results.
 */
export async function wipeHecIndex(
  ctx: ManagementContext,
  index: string,
  signal: AbortSignal,
): Promise<IndexOutcome> {
  const jobs = '/services/search/jobs';
  const body = new URLSearchParams({
    search: `search index=${index} | delete`,
    exec_mode: 'normal',
    earliest_time: '0',
    latest_time: LATEST_INDEXABLE,
    output_mode: 'json',
  }).toString();
  const created = await call(ctx, { method: 'POST', path: jobs, body, signal });
  if (created.kind === 'network') return failed(ctx, index, jobs, created.message);
  if (created.status !== 200 && created.status !== 201) {
    const cause = httpCause(created);
    return failed(ctx, index, jobs, `search job refused: ${cause}${privilegeHint(cause)}`);
  }
  let sid: string | undefined;
  try {
    const parsed = JSON.parse(created.text) as { sid?: unknown };
    sid = typeof parsed.sid === 'string' ? parsed.sid : undefined;
  } catch {
    sid = undefined;
  }
  if (!sid) return failed(ctx, index, jobs, 'the search job answer carries no sid');
  const job = `${jobs}/${encodeURIComponent(sid)}`;
  let waited = 0;
  let interval = ctx.pollMs;
  const next = async (): Promise<boolean> => {
    if (waited >= ctx.jobTimeoutMs) return false;
    const ok = await ctx.wait(interval, signal);
    waited += interval;
    interval = Math.min(2_000, Math.round(interval * 1.5));
    return ok;
  };
  for (;;) {
    const status = await call(ctx, { method: 'GET', path: `${job}?output_mode=json`, signal });
    if (status.kind === 'network') return failed(ctx, index, job, status.message);
    if (status.status !== 200) return failed(ctx, index, job, httpCause(status));
    const content = firstEntryContent(status.text) ?? {};
    const state = String(content.dispatchState ?? '');
    if (content.isFailed === true || state === 'FAILED') {
      return failed(ctx, index, job, `search job failed: ${jobMessages(content) || state}`);
    }
    if (content.isDone === true || state === 'DONE') {
      // A search Splunk refuses to run as asked (no delete capability, a time range it rejects)
      // can still end DONE, with the reason as a FATAL or ERROR message (protocols 2.4).
      const fatal = errorMessages(content.messages);
      if (fatal !== '')
        return failed(ctx, index, job, `search job ended with errors: ${fatal}${privilegeHint(fatal)}`);
      break;
    }
    if (!(await next())) return failed(ctx, index, job, timedOutOrCancelled(signal, ctx.jobTimeoutMs, sid));
  }
  const results = `${job}/results?output_mode=json&count=0`;
  for (;;) {
    const answer = await call(ctx, { method: 'GET', path: results, signal });
    if (answer.kind === 'network') return failed(ctx, index, results, answer.message);
    if (answer.status === 204) {
      if (!(await next()))
        return failed(ctx, index, results, timedOutOrCancelled(signal, ctx.jobTimeoutMs, sid));
      continue;
    }
    if (answer.status !== 200) return failed(ctx, index, results, httpCause(answer));
    const fatal = resultsErrorMessages(answer.text);
    if (fatal !== '')
      return failed(
        ctx,
        index,
        results,
        `the delete search reported errors: ${fatal}${privilegeHint(fatal)}`,
      );
    const count = deletedCount(answer.text, index);
    if (!count) return failed(ctx, index, results, 'the delete results could not be read');
    if (count.errors > 0) {
      return failed(
        ctx,
        index,
        results,
        `${count.errors} events could not be deleted (${count.deleted} were)`,
      );
    }
    return { ok: true, index, deleted: count.deleted };
  }
}

/** `GET /services/server/info`: proves the management credentials and names the version. */
export async function serverInfo(
  ctx: ManagementContext,
  signal: AbortSignal,
): Promise<{ ok: true; message: string } | { ok: false; message: string }> {
  const answer = await call(ctx, { method: 'GET', path: '/services/server/info?output_mode=json', signal });
  if (answer.kind === 'network') return { ok: false, message: answer.message };
  if (answer.status !== 200) return { ok: false, message: httpCause(answer) };
  const content = firstEntryContent(answer.text) ?? {};
  const version = typeof content.version === 'string' ? ` ${content.version}` : '';
  const server = typeof content.serverName === 'string' ? ` on ${content.serverName}` : '';
  return { ok: true, message: `management API answered: Splunk${version}${server}` };
}

/** `GET /services/data/indexes/<name>`: whether the index exists (true/false) or why we cannot tell. */
export async function hecIndexExists(
  ctx: ManagementContext,
  index: string,
  signal: AbortSignal,
): Promise<boolean | string> {
  const answer = await call(ctx, {
    method: 'GET',
    path: `/services/data/indexes/${encodeURIComponent(index)}?output_mode=json`,
    signal,
  });
  if (answer.kind === 'network') return answer.message;
  if (answer.status === 200) return true;
  if (answer.status === 404) return false;
  return httpCause(answer);
}

function call(
  ctx: ManagementContext,
  req: { method: 'GET' | 'POST'; path: string; body?: string; signal: AbortSignal },
): Promise<HttpAnswer | NetworkFailure> {
  return ctx.endpoint.request({
    method: req.method,
    path: req.path,
    signal: req.signal,
    headers: {
      authorization: ctx.authorization,
      accept: 'application/json',
      ...(req.body !== undefined ? { 'content-type': FORM } : {}),
    },
    ...(req.body !== undefined ? { body: req.body } : {}),
  });
}

/** HTTP status and splunkd's messages; names the credential problem on 401/403. */
export function httpCause(answer: HttpAnswer): string {
  const text = splunkdMessages(answer.text);
  const auth =
    answer.status === 401
      ? ' (management credentials refused)'
      : answer.status === 403
        ? ' (the management user lacks a capability)'
        : '';
  return `HTTP ${answer.status}${text ? ` ${text}` : ''}${auth}`;
}

function failed(ctx: ManagementContext, index: string, path: string, cause: string): IndexOutcome {
  return { ok: false, index, error: ctx.describe(path, cause) };
}

/** Names the missing role when splunkd's text speaks of privileges. */
function privilegeHint(text: string): string {
  return /privilege/i.test(text)
    ? '; the management user needs the can_delete role (delete_by_keyword), which admin lacks by default'
    : '';
}

/** The texts of the FATAL and ERROR entries of a splunkd `messages` array, joined; '' when none. */
function errorMessages(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  return messages
    .filter((m): m is { type?: unknown; text?: unknown } => typeof m === 'object' && m !== null)
    .filter((m) => typeof m.type === 'string' && /^(FATAL|ERROR)$/i.test(m.type))
    .map((m) => `${String(m.type)} ${String(m.text ?? '')}`.trim())
    .join('; ');
}

/** errorMessages of a results body (`{"messages":[…],"results":[…]}`); '' when it has none or is not JSON. */
function resultsErrorMessages(body: string): string {
  if (body.trim() === '') return '';
  try {
    return errorMessages((JSON.parse(body) as { messages?: unknown }).messages);
  } catch {
    return '';
  }
}

function jobMessages(content: Record<string, unknown>): string {
  const messages = content.messages;
  if (!Array.isArray(messages)) return '';
  return messages
    .map((m) => (typeof m === 'object' && m !== null ? String((m as { text?: unknown }).text ?? '') : ''))
    .filter((t) => t !== '')
    .join('; ');
}

function timedOutOrCancelled(signal: AbortSignal, timeoutMs: number, sid: string): string {
  return signal.aborted
    ? `cancelled while waiting for search job ${sid}`
    : `search job ${sid} not done after ${Math.round(timeoutMs / 1000)} s`;
}
