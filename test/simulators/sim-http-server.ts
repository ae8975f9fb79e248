import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type HttpFault, HttpFaults } from './http-faults.ts';

/** Certificate and key (PEM) for a simulator that serves HTTPS. */
export interface SimTls {
  readonly cert: string;
  readonly key: string;
}

/** One request as a simulator saw it, kept so tests can assert on exactly what arrived. */
export interface RecordedRequest {
  /** 1, 2, 3 … per server. */
  readonly seq: number;
  readonly method: string;
  /** Path without the query string, percent-decoding left to the handler. */
  readonly path: string;
  /** The request target as sent (path and query). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Body bytes exactly as received (still gzip-compressed if the sender compressed). */
  body: Buffer;
  /** Status sent back; undefined when a fault dropped the connection instead. */
  status?: number;
  /** Text of the answer body. */
  responseBody?: string;
  /** Which injected fault hit this request, if any (`status 503`, `close mid-body`, …). */
  fault?: string;
  readonly receivedAt: number;
}

/** What a simulator handler gets. */
export interface SimRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly record: RecordedRequest;
}

/** Response headers; an array sends the header once per value (e.g. several WWW-Authenticate). */
export type SimHeaders = Readonly<Record<string, string | readonly string[]>>;

/** What a simulator handler answers; an object body is sent as JSON. */
export interface SimResponse {
  readonly status: number;
  readonly headers?: SimHeaders;
  readonly body?: string | Buffer | object;
}

/** Options of {@link startSimHttpServer}. */
export interface SimHttpServerOptions {
  readonly host?: string;
  readonly port?: number;
  readonly tls?: SimTls;
  /** Largest body accepted; a larger declared or received body gets `tooLarge` and the connection closes. */
  readonly maxBodyBytes: number;
  readonly tooLarge: (length: number) => SimResponse;
  /** The product's answer for an injected status fault. */
  readonly faultResponse: (fault: Extract<HttpFault, { status: number }>, req: SimRequest) => SimResponse;
  readonly handle: (req: SimRequest) => SimResponse | Promise<SimResponse>;
  /** Headers added to every answer (e.g. a product header or the simulator marker). */
  readonly commonHeaders?: (status: number, req: SimRequest | undefined) => SimHeaders;
}

/** A running simulator HTTP(S) server. */
export interface SimHttpServer {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly faults: HttpFaults;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts an HTTP or HTTPS server that records requests and applies the fault switches around `handle`. */
export async function startSimHttpServer(options: SimHttpServerOptions): Promise<SimHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key })
    : http.createServer();
  let port = options.port ?? 0;
  const faults = new HttpFaults({
    async stopListening() {
      if (!server.listening) return;
      server.close();
      server.closeIdleConnections();
    },
    async resumeListening() {
      if (!server.listening) await listen(server, port, host);
    },
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void serve(req, res, { options, faults, requests }).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`simulator error: ${String(err)}`);
      }
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await listen(server, port, host);
  port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${hostInUrl}:${port}`,
    port,
    host,
    faults,
    requests,
    async close() {
      faults.stallReads = false;
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ServeContext {
  options: SimHttpServerOptions;
  faults: HttpFaults;
  requests: RecordedRequest[];
}

async function serve(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): Promise<void> {
  const { options, faults } = ctx;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const method = req.method ?? 'GET';
  const record: RecordedRequest = {
    seq: ctx.requests.length + 1,
    method,
    path,
    url,
    headers: req.headers,
    body: Buffer.alloc(0),
    receivedAt: Date.now(),
  };
  ctx.requests.push(record);
  if (faults.resetConnections) {
    record.fault = 'reset';
    req.socket.resetAndDestroy();
    return;
  }
  const fault = faults.take(method, path);
  if (fault) record.fault = describe(fault);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > options.maxBodyBytes) {
    await send(res, record, options.tooLarge(declared), ctx, true);
    return;
  }
  const closeAt =
    fault && 'close' in fault && fault.close === 'mid-body' ? (fault.afterBytes ?? 0) : undefined;
  // Leaving the body iterator early destroys the request and detaches its socket: keep a handle.
  const socket = req.socket;
  const drop = () => {
    if (fault && 'reset' in fault && fault.reset) socket.resetAndDestroy();
    else socket.destroy();
  };
  const body = await readBody(req, faults, options.maxBodyBytes, closeAt, drop);
  if (body === 'dropped') return;
  if (body === 'too-large') {
    await send(res, record, options.tooLarge(options.maxBodyBytes + 1), ctx, true);
    return;
  }
  record.body = body;
  const request: SimRequest = {
    method,
    path,
    query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
    headers: req.headers,
    body,
    record,
  };
  if (fault && 'status' in fault) {
    if (fault.delayMs) await sleep(fault.delayMs);
    await send(res, record, options.faultResponse(fault, request), ctx, false, request);
    return;
  }
  const response = await options.handle(request);
  if (fault && 'close' in fault && fault.close === 'after-processing') {
    if (fault.delayMs) await sleep(fault.delayMs);
    drop();
    return;
  }
  await send(res, record, response, ctx, false, request);
}

async function send(
  res: ServerResponse,
  record: RecordedRequest,
  response: SimResponse,
  ctx: ServeContext,
  closeAfter: boolean,
  request?: SimRequest,
): Promise<void> {
  if (ctx.faults.delayMs > 0) await sleep(ctx.faults.delayMs);
  if (res.destroyed) return;
  let body: string | Buffer;
  const headers: Record<string, string | readonly string[]> = {
    ...ctx.options.commonHeaders?.(response.status, request),
  };
  if (response.body === undefined) body = '';
  else if (typeof response.body === 'string' || Buffer.isBuffer(response.body)) body = response.body;
  else {
    body = JSON.stringify(response.body);
    headers['content-type'] = 'application/json; charset=UTF-8';
  }
  Object.assign(headers, response.headers);
  headers['content-length'] = String(Buffer.byteLength(body));
  if (closeAfter) headers.connection = 'close';
  record.status = response.status;
  record.responseBody = body.toString();
  res.writeHead(response.status, headers as Record<string, string | string[]>);
  res.end(body);
}

async function readBody(
  req: IncomingMessage,
  faults: HttpFaults,
  max: number,
  closeAt: number | undefined,
  drop: () => void,
): Promise<Buffer | 'dropped' | 'too-large'> {
  const chunks: Buffer[] = [];
  let total = 0;
  if (closeAt === 0) {
    drop();
    return 'dropped';
  }
  await faults.whileStalled();
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (closeAt !== undefined && total + chunk.length >= closeAt) {
      drop();
      return 'dropped';
    }
    total += chunk.length;
    if (total > max) return 'too-large';
    chunks.push(chunk);
    await faults.whileStalled();
    const rate = faults.readBytesPerSecond;
    if (rate) await sleep((chunk.length / rate) * 1000);
  }
  // A body shorter than closeAt means the drop point was never reached: drop at the end.
  if (closeAt !== undefined) {
    drop();
    return 'dropped';
  }
  return Buffer.concat(chunks);
}

function describe(fault: HttpFault): string {
  if ('status' in fault) return `status ${fault.status}${fault.errorType ? ` ${fault.errorType}` : ''}`;
  return `close ${fault.close}${fault.reset ? ' reset' : ''}`;
}

async function listen(server: http.Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
