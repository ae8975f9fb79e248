import { type AuditEntry, recordAudit } from '../audit/audit-log.ts';
import type { Actor } from '../auth/sessions.ts';
import type { AppContext } from '../context.ts';
import { loadDestination } from '../destinations/destination-service.ts';
import { AppError, invalidInput } from '../errors.ts';
import { checkArchiveUrl, redactUrl } from '../net/archive-url.ts';
import { downloadArchive } from '../net/download-archive.ts';
import type { DownloadSlot } from '../net/download-gate.ts';
import { syslogHostnameProblem } from '../pipeline/syslog/syslog-hostname.ts';
import type { ShipTarget } from '../shipping/ship.ts';
import { assertEnabled } from '../shipping/ship-target.ts';
import { secondsSince } from '../shipping/shipping-observer.ts';
import { sourceIdentityProblem } from '../shipping/source-identity.ts';

/** Body of POST /api/sessions/start (spec 4.2). */
export interface StartSessionInput {
  archiveDownloadUrl: string;
  siem: string;
  indexName?: string;
  syslogSourceIdentity?: string;
}

/** Success answer of POST /api/sessions/start (spec 4.2). */
export interface StartSessionResult {
  ok: true;
  siem: string;
  driver: string;
  events: number;
  files: number;
  shiftDays: number;
}

type Deps = Pick<
  AppContext,
  | 'db'
  | 'secretBox'
  | 'siems'
  | 'shipping'
  | 'config'
  | 'clock'
  | 'audit'
  | 'stopping'
  | 'downloads'
  | 'logSources'
>;

/**
 * Downloads an exercise archive (SSRF-checked; in memory, or beyond ARCHIVE_MEMORY_BYTES in a file
 * removed at the end), rebases it so the newest event is at now + 2 h, and ships it to one SIEM.
 * Everything that can be checked is checked before the download; a shipment with failures is a 500
 * naming the SIEM, with the counts. At most ARCHIVE_MAX_CONCURRENT starts run at once (503 beyond).
 */
export async function startSession(
  deps: Deps,
  actor: Actor | null,
  ip: string | null,
  input: StartSessionInput,
): Promise<StartSessionResult> {
  const started = deps.clock.now();
  // Every start is audited, refused ones included (an unknown SIEM as much as a failed download).
  const auditBase = { actor, ip, action: 'session.start', target: input.siem };
  let urlLabel = 'archive';
  try {
    urlLabel = redactUrl(new URL(input.archiveDownloadUrl));
  } catch {
    // checkArchiveUrl names the reason
  }
  let audited = false;
  // The `started` record's id once written; the start's end names it (details.started_id).
  let startedId: string | undefined;
  const ofStart = () => (startedId === undefined ? {} : { started_id: startedId });
  // ARCHIVE_MAX_CONCURRENT starts at once (503 beyond), each holding its archive until it ends.
  let slot: DownloadSlot | undefined;
  try {
    const target = await checkStart(deps, input);
    const { destination, kind } = target;
    deps.shipping.warmFor(destination.payload_format);
    slot = deps.downloads.enter();
    startedId = await auditStart(deps, {
      ...auditBase,
      details: { url: urlLabel, driver: destination.driver },
    });
    const downloadStartedAt = performance.now();
    const data = await downloadArchive(input.archiveDownloadUrl, {
      allowHttp: deps.config.archiveAllowHttp,
      allowedHosts: deps.config.archiveAllowedHosts,
      maxBytes: deps.config.archiveMaxBytes,
      signal: deps.stopping,
      spill: slot,
    });
    deps.shipping.observer.archivesDownloaded('session_start', secondsSince(downloadStartedAt));
    // Reading the archive (pass 1) is held to the shipment deadline too: 4 GiB of short lines
    // would otherwise take minutes under no limit, holding its download slot.
    const preparing = AbortSignal.any([
      deps.stopping,
      AbortSignal.timeout(deps.config.shipmentDeadlineSeconds * 1000),
    ]);
    const prepareStartedAt = performance.now();
    const sources = await prepareWithin(deps, destination, () =>
      deps.shipping.prepare([{ data, kind: 'zip', label: urlLabel }], {
        format: destination.payload_format,
        signal: preparing,
      }),
    );
    deps.shipping.observer.archivesInflated('session_start', secondsSince(prepareStartedAt));
    const shipment = sources.shipment;
    const identity = requestIdentity(kind.capabilities.sourceIdentity, input.syslogSourceIdentity);
    const missing = await sourceIdentityProblem(target, sources, identity, deps.stopping);
    if (missing !== undefined) {
      throw new AppError('source_identity_required', `SIEM "${destination.name}": ${missing.message}`, {
        details: { siem: destination.name, lines: missing.lines, events: missing.events },
      });
    }
    const native = kind.capabilities.indexes === 'native';
    const result = await deps.shipping.ship({
      target,
      sources,
      routing: [
        native && input.indexName !== undefined ? { index_mode: 'existing', index: input.indexName } : null,
      ],
      ...(identity !== undefined ? { identity } : {}),
      signal: deps.stopping,
    });
    const counts = {
      files: shipment.files,
      events: shipment.events,
      events_shipped: result.shipped,
      events_failed: result.failed,
      unreadable_times: shipment.unreadable,
      shift_days: shipment.shiftDays,
      url: urlLabel,
      duration_ms: deps.clock.now() - started,
      ...ofStart(),
    };
    if (result.failed > 0 || result.shipped !== shipment.events) {
      await deps.audit({
        ...auditBase,
        outcome: 'failure',
        details: { ...counts, errors: result.errors.slice(0, 5) },
      });
      audited = true;
      const cause = result.errors[0] ?? 'unknown cause';
      // Stopped at SHIPMENT_DEADLINE_SECONDS: the same 500 with counts, its own code and reason.
      const deadline = result.stopped?.reason === 'deadline' ? result.stopped : null;
      throw new AppError(
        deadline ? 'shipment_deadline' : 'siem_error',
        deadline
          ? `Shipping to SIEM "${destination.name}" (${destination.driver}) stopped at its ${deadline.deadlineMs / 1000} s deadline (SHIPMENT_DEADLINE_SECONDS): ${result.shipped} of ${shipment.events} events shipped`
          : `Shipping to SIEM "${destination.name}" (${destination.driver}) failed: ${result.failed} of ${shipment.events} events not delivered; ${cause}`,
        {
          details: {
            siem: destination.name,
            driver: destination.driver,
            ...(deadline ? { reason: 'deadline', deadline_seconds: deadline.deadlineMs / 1000 } : {}),
            events_shipped: result.shipped,
            events_failed: shipment.events - result.shipped,
            errors: result.errors.slice(0, 10),
            failures: result.failures.map((f) => ({
              reason: f.reason,
              ...(f.index === undefined ? {} : { index: f.index }),
              events: f.events,
            })),
          },
        },
      );
    }
    await deps.audit({ ...auditBase, outcome: 'success', details: counts });
    return {
      ok: true,
      siem: destination.name,
      driver: destination.driver,
      events: result.shipped,
      files: shipment.files,
      shiftDays: shipment.shiftDays,
    };
  } catch (err) {
    if (!audited) {
      const code = err instanceof AppError ? err.code : 'internal';
      const message = err instanceof Error ? err.message : String(err);
      await deps.audit({
        ...auditBase,
        outcome: 'failure',
        details: { url: urlLabel, code, message, ...ofStart() },
      });
    }
    throw err;
  } finally {
    // Frees the slot and removes the archive's file, if the download went to one.
    await slot?.release();
  }
}

/**
 * Runs an archive's preparation, turning its deadline into `500 shipment_deadline` (nothing sent)
 * and a shutdown into `503 unavailable`.
 */
async function prepareWithin<T>(
  deps: Pick<Deps, 'config' | 'stopping'>,
  destination: { name: string; driver: string },
  prepare: () => Promise<T>,
): Promise<T> {
  try {
    return await prepare();
  } catch (err) {
    if (deps.stopping.aborted) {
      throw new AppError(
        'unavailable',
        'Socdrill is shutting down; the session start was stopped before sending',
      );
    }
    if (err instanceof DOMException && err.name === 'TimeoutError') {
      const seconds = deps.config.shipmentDeadlineSeconds;
      throw new AppError(
        'shipment_deadline',
        `Reading the archive for SIEM "${destination.name}" (${destination.driver}) took longer than its ${seconds} s deadline (SHIPMENT_DEADLINE_SECONDS); nothing was sent`,
        {
          details: {
            siem: destination.name,
            driver: destination.driver,
            reason: 'deadline',
            deadline_seconds: seconds,
            events_shipped: 0,
            events_failed: 0,
          },
        },
      );
    }
    throw err;
  }
}

/**
 * The `started` record of a start that passed its checks, written before the download: a start
 * whose process dies on the way (download, preparation, shipment) stays in the audit log as begun
 * and never ended. Like a wipe's, it fails closed: without the record, nothing is downloaded or sent.
 */
async function auditStart(
  deps: Pick<Deps, 'db' | 'clock'>,
  entry: Omit<AuditEntry, 'outcome'>,
): Promise<string> {
  try {
    return await recordAudit(deps.db, deps.clock.now(), { ...entry, outcome: 'started' });
  } catch (err) {
    throw new AppError('internal', 'The session start was not begun: its audit record could not be written', {
      cause: err,
    });
  }
}

/**
 * A start the body schema refused (the route attaches the validation error instead of answering
 * at once): the URL's syntax is checked too, so the 400 names every bad field, and the refusal is
 * audited like every other start. Returns the error to throw.
 */
export async function refusedStart(
  deps: Pick<Deps, 'config' | 'audit'>,
  actor: Actor | null,
  ip: string | null,
  body: unknown,
  schemaError: AppError,
): Promise<AppError> {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const fields = { ...(fieldsOf(schemaError) ?? {}) };
  if (typeof input.archiveDownloadUrl === 'string' && fields.archiveDownloadUrl === undefined) {
    try {
      checkArchiveUrl(
        input.archiveDownloadUrl,
        { allowHttp: deps.config.archiveAllowHttp, allowedHosts: deps.config.archiveAllowedHosts },
        { requireZip: true },
      );
    } catch (err) {
      const problem = err instanceof AppError ? fieldsOf(err)?.archiveDownloadUrl : undefined;
      if (problem !== undefined) fields.archiveDownloadUrl = problem;
    }
  }
  const error =
    Object.keys(fields).length > 0
      ? new AppError('invalid_input', `Invalid body: ${Object.keys(fields).join(', ')}`, {
          details: { in: 'body', fields },
        })
      : schemaError;
  let url = 'archive';
  try {
    if (typeof input.archiveDownloadUrl === 'string') url = redactUrl(new URL(input.archiveDownloadUrl));
  } catch {
    // not a URL: named in the fields
  }
  await deps.audit({
    actor,
    ip,
    action: 'session.start',
    target: typeof input.siem === 'string' ? input.siem.slice(0, 64) : '(none)',
    outcome: 'failure',
    details: { url, code: error.code, message: error.message },
  });
  return error;
}

/**
 * Everything about a start that can be checked before the download, every bad field named at once
 * (decisions §3): the URL's syntax, the SIEM, and the fields its kind reads (an index name on a
 * SIEM with native indexes, a source identity on one that takes it; fields a kind ignores are not
 * checked, spec 4.2). Then the destination must be enabled and, for SIEM Q provisioning, ready.
 */
async function checkStart(deps: Deps, input: StartSessionInput): Promise<ShipTarget> {
  const bad: Record<string, string> = {};
  try {
    checkArchiveUrl(
      input.archiveDownloadUrl,
      { allowHttp: deps.config.archiveAllowHttp, allowedHosts: deps.config.archiveAllowedHosts },
      { requireZip: true },
    );
  } catch (err) {
    const fields = err instanceof AppError ? fieldsOf(err) : undefined;
    if (fields?.archiveDownloadUrl === undefined) throw err;
    bad.archiveDownloadUrl = fields.archiveDownloadUrl;
  }
  let target: ShipTarget | null = null;
  try {
    const destination = await loadDestination(deps, input.siem);
    target = { destination, kind: deps.siems.kindOf(destination) };
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'not_found')) throw err;
    bad.siem = `no destination is named "${input.siem}"`;
  }
  if (target !== null) {
    const { capabilities } = target.kind;
    if (capabilities.indexes === 'native' && input.indexName !== undefined) {
      const problem = target.kind.indexNameProblem(input.indexName);
      if (problem) bad.indexName = problem;
    }
    if (capabilities.sourceIdentity && input.syslogSourceIdentity !== undefined) {
      const problem = syslogHostnameProblem(input.syslogSourceIdentity);
      if (problem) bad.syslogSourceIdentity = problem;
    }
  }
  if (Object.keys(bad).length > 0) {
    throw invalidInput(bad.siem !== undefined ? 'Unknown SIEM destination' : 'Invalid session start', bad);
  }
  const found = target as ShipTarget;
  assertEnabled(found.destination);
  // Spec 4.2: with provisioning on, an unreachable console or collector fails the start at once.
  await deps.logSources.assertConsoleReady(found.destination);
  return found;
}

/** The request's source identity, for a kind that takes one (spec 4.2: ignored by the others). */
function requestIdentity(takesIdentity: boolean, identity: string | undefined): string | undefined {
  return takesIdentity && identity !== undefined && identity !== '' ? identity : undefined;
}

/** The per-field messages of an invalidInput error. */
function fieldsOf(err: AppError): Record<string, string> | undefined {
  const details = err.details as { fields?: Record<string, string> } | undefined;
  return details?.fields;
}
