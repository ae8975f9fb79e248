import type { Actor } from '../auth/sessions.ts';
import type { AppContext } from '../context.ts';
import { loadDestination } from '../destinations/destination-service.ts';
import { AppError, invalidInput } from '../errors.ts';
import { checkArchiveUrl, redactUrl } from '../net/archive-url.ts';
import { downloadArchive } from '../net/download-archive.ts';
import { syslogHostnameProblem } from '../pipeline/syslog/syslog-hostname.ts';
import type { ShipTarget } from '../shipping/ship.ts';
import { assertEnabled } from '../shipping/ship-target.ts';
import { sourceIdentityProblem } from '../shipping/source-identity.ts';
import { assertSiemQReady } from './siem-q-readiness.ts';

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
  'db' | 'secretBox' | 'siems' | 'shipping' | 'config' | 'clock' | 'audit' | 'stopping'
>;

/**
 * Downloads an exercise archive (SSRF-checked, in memory only), rebases it so the newest event is at
 * now + 2 h, and ships it to one SIEM. Everything that can be checked is checked before the
 * download; a shipment with failures is a 500 naming the SIEM, with the counts.
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
  try {
    const target = await checkStart(deps, input);
    const { destination, kind } = target;
    const data = await downloadArchive(input.archiveDownloadUrl, {
      allowHttp: deps.config.archiveAllowHttp,
      allowedHosts: deps.config.archiveAllowedHosts,
      maxBytes: deps.config.archiveMaxBytes,
      signal: deps.stopping,
    });
    const sources = await deps.shipping.prepare([{ data, kind: 'zip', label: urlLabel }], {
      format: destination.payload_format,
    });
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
    };
    if (result.failed > 0 || result.shipped !== shipment.events) {
      await deps.audit({
        ...auditBase,
        outcome: 'failure',
        details: { ...counts, errors: result.errors.slice(0, 5) },
      });
      audited = true;
      const cause = result.errors[0] ?? 'unknown cause';
      throw new AppError(
        'siem_error',
        `Shipping to SIEM "${destination.name}" (${destination.driver}) failed: ${result.failed} of ${shipment.events} events not delivered; ${cause}`,
        {
          details: {
            siem: destination.name,
            driver: destination.driver,
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
      await deps.audit({ ...auditBase, outcome: 'failure', details: { url: urlLabel, code, message } });
    }
    throw err;
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
  await assertSiemQReady(found.destination);
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
