import type { SimResponse } from './sim-http-server.ts';

/** One entry of a splunkd Atom/JSON collection. */
export interface SplunkdEntry {
  readonly name: string;
  /** Path below the management root, e.g. `/servicesNS/nobody/search/data/indexes/main`. */
  readonly path: string;
  readonly author: string;
  readonly content: Readonly<Record<string, unknown>>;
  readonly acl?: Readonly<Record<string, unknown>>;
}

/** The payloads the management simulator answers with. */
export type SplunkdPayload =
  | { readonly messages: ReadonlyArray<{ readonly type: string; readonly text: string }> }
  | { readonly sid: string }
  | { readonly sessionKey: string }
  | {
      readonly feed: string;
      readonly entries: readonly SplunkdEntry[];
      readonly total: number;
      readonly offset: number;
      readonly perPage: number;
    }
  | {
      readonly results: ReadonlyArray<Readonly<Record<string, string>>>;
      readonly fields: readonly string[];
    };

/** Context for building ids and the generator stanza. */
export interface SplunkdContext {
  readonly baseUrl: string;
  readonly version: string;
  readonly build: string;
  readonly now: Date;
}

/**
 * Renders a payload as splunkd does: JSON with `output_mode=json`, otherwise its XML (Atom feeds,
 * `<response>` documents, `<results>`), which is splunkd's default.
 */
export function splunkdAnswer(
  status: number,
  payload: SplunkdPayload,
  json: boolean,
  ctx: SplunkdContext,
  headers: Readonly<Record<string, string>> = {},
): SimResponse {
  if (json) return { status, headers, body: toJson(payload, ctx) };
  return {
    status,
    headers: { 'content-type': 'text/xml; charset=utf-8', ...headers },
    body: toXml(payload, ctx),
  };
}

function toJson(payload: SplunkdPayload, ctx: SplunkdContext): object {
  if (!('feed' in payload)) {
    if ('results' in payload) {
      return {
        preview: false,
        init_offset: 0,
        messages: [],
        fields: payload.fields.map((name) => ({ name })),
        results: payload.results,
        highlighted: {},
      };
    }
    return payload;
  }
  const updated = ctx.now.toISOString();
  return {
    links: { create: `/services/${payload.feed}/_new` },
    origin: `${ctx.baseUrl}/services/${payload.feed}`,
    updated,
    generator: { build: ctx.build, version: ctx.version },
    entry: payload.entries.map((e) => ({
      name: e.name,
      id: `${ctx.baseUrl}${e.path}`,
      updated,
      links: { alternate: e.path, list: e.path, edit: e.path, remove: e.path },
      author: e.author,
      acl: e.acl ?? defaultAcl(e.author),
      content: e.content,
    })),
    paging: { total: payload.total, perPage: payload.perPage, offset: payload.offset },
    messages: [],
  };
}

function toXml(payload: SplunkdPayload, ctx: SplunkdContext): string {
  const head = '<?xml version="1.0" encoding="UTF-8"?>\n';
  if ('messages' in payload) {
    const msgs = payload.messages
      .map((m) => `    <msg type="${esc(m.type)}">${esc(m.text)}</msg>\n`)
      .join('');
    return `${head}<response>\n  <messages>\n${msgs}  </messages>\n</response>\n`;
  }
  if ('sid' in payload) return `${head}<response>\n  <sid>${esc(payload.sid)}</sid>\n</response>\n`;
  if ('sessionKey' in payload) {
    return `${head}<response>\n  <sessionKey>${esc(payload.sessionKey)}</sessionKey>\n</response>\n`;
  }
  if ('results' in payload) {
    const order = payload.fields.map((f) => `<field>${esc(f)}</field>`).join('');
    const rows = payload.results
      .map(
        (row, i) =>
          `<result offset='${i}'>${Object.entries(row)
            .map(([k, v]) => `<field k='${esc(k)}'><value><text>${esc(v)}</text></value></field>`)
            .join('')}</result>`,
      )
      .join('\n');
    return `${head}<results preview='0'>\n<meta><fieldOrder>${order}</fieldOrder></meta>\n${rows}\n</results>\n`;
  }
  const updated = ctx.now.toISOString();
  const entries = payload.entries
    .map(
      (e) =>
        `  <entry>\n    <title>${esc(e.name)}</title>\n    <id>${esc(ctx.baseUrl + e.path)}</id>\n` +
        `    <updated>${updated}</updated>\n    <link href="${esc(e.path)}" rel="alternate"/>\n` +
        `    <author><name>${esc(e.author)}</name></author>\n    <content type="text/xml">\n      <s:dict>\n` +
        Object.entries(e.content)
          .map(([k, v]) => `        <s:key name="${esc(k)}">${esc(xmlValue(v))}</s:key>\n`)
          .join('') +
        '      </s:dict>\n    </content>\n  </entry>\n',
    )
    .join('');
  return (
    `${head}<feed xmlns="http://www.w3.org/2005/Atom" xmlns:s="http://dev.splunk.com/ns/rest" ` +
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">\n' +
    `  <title>${esc(payload.feed)}</title>\n  <id>${esc(`${ctx.baseUrl}/services/${payload.feed}`)}</id>\n` +
    `  <updated>${updated}</updated>\n  <generator build="${esc(ctx.build)}" version="${esc(ctx.version)}"/>\n` +
    `  <author><name>Splunk</name></author>\n  <opensearch:totalResults>${payload.total}</opensearch:totalResults>\n` +
    `  <opensearch:itemsPerPage>${payload.perPage}</opensearch:itemsPerPage>\n` +
    `  <opensearch:startIndex>${payload.offset}</opensearch:startIndex>\n${entries}</feed>\n`
  );
}

function defaultAcl(owner: string): Record<string, unknown> {
  return {
    app: 'search',
    can_change_perms: true,
    can_list: true,
    can_share_app: true,
    can_share_global: true,
    can_share_user: false,
    can_write: true,
    modifiable: true,
    owner,
    perms: { read: ['*'], write: ['admin'] },
    removable: true,
    sharing: 'system',
  };
}

function xmlValue(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
