/**
 * The HTTP server (fastify): the REST face of the service, its OpenAPI document and schema
 * browser, liveness/readiness, and the hardening every face shares (body and depth limits,
 * timeouts, rate limits through the service, strict CORS off by default, keys never logged).
 *
 * The REST face does exactly what the original's clients need (docs/service.md): `POST
 * /rest/<op>` with case-insensitive paths and no redirects; JSON PascalCase in and out (property
 * names bind case-insensitively, unset fields omitted); enums as names or integers in, integers
 * out unless `?enums=name`; an empty body where the operation takes none; HTTP 200 for every
 * outcome of an operation (Failed / SuccessWithErrors in the body); 401 missing/unknown key, 403
 * blocked/expired/no credit, 429 with Retry-After, 400 unparseable body, 413 past the body limit.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Service } from '../service/service.js';
import { Ticker } from '../core/cancel.js';
import { parseJsonSliced } from '../records/index.js';
import { refuse, refusalOf } from '../service/refusals.js';
import { openApiDocument } from './openapi.js';
import { registerSoap } from './soap/soap.js';
import { registerUi } from './ui.js';
import { Jobs, LocalJobBackend } from '../service/jobs.js';
import { headerText, loggedUrl, normaliseContentType } from './http-util.js';
import { enumsOf, errorBody, header, registerOperations, sendRefusal } from './rest.js';

export { headerText, loggedUrl };

export interface ServerOptions {
  /** Largest request body in bytes (default 16 MiB — a 10,000-stop Dispatch is ~3 MB; larger bodies are read without holding the loop but cost it more): 413 past it. */
  bodyLimit?: number;
  /** Deepest JSON nesting accepted (default 64): 400 past it. */
  maxDepth?: number;
  /** Time to receive a whole request, ms (default 60 s). */
  requestTimeoutMs?: number;
  /** Origins allowed to call from a browser (exact matches); none by default (no CORS headers at all). */
  corsOrigins?: readonly string[];
  /** pino logger options, or false for none (default: info level to stdout). */
  logger?: boolean | Record<string, unknown>;
  /** Version string for the OpenAPI document. */
  version?: string;
  /** Extra readiness check (e.g. the engine loaded). */
  ready?: () => boolean;
  /** Where jobs run (default: in this process). */
  jobs?: Jobs;
  /** The SOAP endpoint's path (default /TrackService.asmx) and namespace (default the original service's). */
  soapPath?: string;
  soapNamespace?: string;
}

const require = createRequire(import.meta.url);

/** Default {@link ServerOptions.bodyLimit}. */
export const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

/** One step of the JSON depth scan: from `i`, at most `n` characters; the state carried between steps. */
function depthScan(text: string, limit: number, st: { i: number; depth: number; max: number }, n: number): void {
  const end = Math.min(text.length, st.i + n);
  let { i, depth, max } = st;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) { // "
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++; // backslash
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) { // { [
      if (++depth > max) { max = depth; if (max > limit) { i = text.length; break; } }
    } else if (c === 125 || c === 93) depth--;
  }
  st.i = i; st.depth = depth; st.max = max;
}

/** Depth of JSON nesting, scanning the text (strings skipped) — before JSON.parse and the schemas recurse; stops past `limit`. */
export function jsonDepthSync(text: string, limit: number): number {
  const st = { i: 0, depth: 0, max: 0 };
  depthScan(text, limit, st, text.length);
  return st.max;
}

/** {@link jsonDepthSync} handing the event loop back every 64 K characters (long bodies). */
export async function jsonDepth(text: string, limit: number): Promise<number> {
  const ticker = new Ticker();
  const st = { i: 0, depth: 0, max: 0 };
  while (st.i < text.length) {
    depthScan(text, limit, st, 0x10000);
    await ticker.tick();
  }
  return st.max;
}

class BodyError extends Error {
  constructor(readonly statusCode: number, message: string) { super(message); }
}

export function buildServer(service: Service, opts: ServerOptions = {}): FastifyInstance {
  const maxDepth = opts.maxDepth ?? 64;
  const cors = new Set(opts.corsOrigins ?? []);
  let closing = false;
  const app = Fastify({
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    requestTimeout: opts.requestTimeoutMs ?? 60_000,
    connectionTimeout: 0,
    keepAliveTimeout: 65_000,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // path parameters up to 2 KB reach the records' checks, which name the field (JobID, RouteID…): Fastify's own 100-character cut answered 414 with its own body
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 2048 },
    logger: opts.logger === false ? false : {
      level: 'info',
      ...(typeof opts.logger === 'object' ? opts.logger : {}),
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.cookie', 'req.headers.authorization'], remove: true },
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: loggedUrl(req.url), remoteAddress: req.ip }),
      },
    },
  });

  // ------------------------------------------------------------------ malformed HTTP (before fastify sees a request)
  app.server.removeAllListeners('clientError');
  app.server.on('clientError', (err: Error & { code?: string }, socket) => {
    if (!socket.writable) { socket.destroy(); return; }
    const [status, text] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout'] : [400, 'Bad Request'];
    const body = JSON.stringify(errorBody(status === 431 ? 'The request headers are too large.' : status === 408 ? 'The request took too long to arrive.' : 'The request is not valid HTTP.'));
    socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });

  // ------------------------------------------------------------------ bodies: JSON with depth limit, empty allowed
  app.removeAllContentTypeParsers();
  const soapPath = (opts.soapPath ?? '/TrackService.asmx').toLowerCase();
  /** Bodies from this many characters are checked and parsed in slices (records/json-sliced.ts). */
  const SLICED_FROM = 64 * 1024;
  const parseJson = (req: FastifyRequest, body: Buffer, done: (err: Error | null, v?: unknown) => void): void => {
    // the SOAP face reads its own bodies (XML, forms)
    if (req.url.toLowerCase().startsWith(soapPath)) { done(null, body); return; }
    let text = body.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') { done(null, undefined); return; }
    if (text.length < SLICED_FROM) {
      if (jsonDepthSync(text, maxDepth) > maxDepth) { done(new BodyError(400, `The JSON body is nested deeper than ${maxDepth} levels.`)); return; }
      try {
        done(null, JSON.parse(text));
      } catch (e) {
        done(new BodyError(400, `The body is not valid JSON: ${(e as Error).message}`));
      }
      return;
    }
    // a long body is checked and parsed in slices: the event loop keeps answering meanwhile
    void (async () => {
      if ((await jsonDepth(text, maxDepth)) > maxDepth) throw new BodyError(400, `The JSON body is nested deeper than ${maxDepth} levels.`);
      try {
        return await parseJsonSliced(text);
      } catch (e) {
        throw new BodyError(400, `The body is not valid JSON: ${(e as Error).message}`);
      }
    })().then((v) => done(null, v), (e: Error) => done(e));
  };
  app.addContentTypeParser('*', { parseAs: 'buffer' }, parseJson);

  // ------------------------------------------------------------------ CORS: only for listed origins
  // REST takes any Content-Type (the original's clients send what they like), an empty or malformed
  // one included; the SOAP face still sees what was sent and answers it with a SOAP fault
  app.addHook('onRequest', async (req) => { normaliseContentType(req); });
  app.addHook('onRequest', async (req, reply) => {
    if (closing) {
      reply.header('Connection', 'close');
      return sendRefusal(reply, refuse('Stopping', 'The server is stopping; retry on another instance or in a moment.'), enumsOf(req));
    }
    const origin = req.headers.origin;
    if (origin && cors.has(origin)) {
      reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
      if (req.method === 'OPTIONS') {
        reply.header('Access-Control-Allow-Methods', 'POST, GET, OPTIONS')
          .header('Access-Control-Allow-Headers', 'Content-Type, X-API-Key, X-Route-Name, X-Route-Owner')
          .header('Access-Control-Max-Age', '600').code(204).send();
      }
    }
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    // stopping: the connection closes after this response instead of idling until its keep-alive ends
    if (closing) reply.header('Connection', 'close');
    return payload;
  });

  // ------------------------------------------------------------------ errors: Result-shaped bodies
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    const enums = enumsOf(req);
    if (err instanceof BodyError) return sendRefusal(reply, refuse('BadRequest', err.message), enums);
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendRefusal(reply, refuse('TooLarge', `The body is larger than the limit (${opts.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes).`), enums);
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return reply.code(err.statusCode).send(errorBody(err.message, enums));
    const r = refusalOf(err, req.id);
    req.log.error({ err }, r.code === 'Unavailable' ? 'database error' : 'internal error');
    return sendRefusal(reply, r, enums);
  });
  app.setNotFoundHandler((req, reply) => {
    sendRefusal(reply, refuse('NotFound', `No such path: ${req.method} ${req.url.split('?')[0]}. REST operations are POST /rest/<operation>; see /openapi.json.`), enumsOf(req));
  });

  // ------------------------------------------------------------------ REST operations, generated from the operation table
  registerOperations(app, service, {
    prefix: '/rest', serves: (row) => row.faces.rest !== undefined,
    keyOf: (req) => header(req, 'x-api-key'), enums: enumsOf,
  });
  const jobs = opts.jobs ?? new Jobs(service, new LocalJobBackend(service));
  app.addHook('onClose', async () => { if (!opts.jobs) await jobs.close(); });

  // ------------------------------------------------------------------ SOAP 1.1 / 1.2, the WSDL, plain HTTP GET/POST
  registerSoap(app, service, { path: opts.soapPath, namespace: opts.soapNamespace });

  // ------------------------------------------------------------------ OpenAPI and the schema browser
  const doc = openApiDocument({ prices: service.prices, version: opts.version });
  const docText = JSON.stringify(doc);
  app.get('/openapi.json', async (_req, reply) => reply.type('application/json; charset=utf-8').send(docText));
  const uiDir: string = require('swagger-ui-dist').getAbsoluteFSPath();
  const assets: Record<string, [string, string]> = {
    'swagger-ui.css': ['text/css; charset=utf-8', 'swagger-ui.css'],
    'swagger-ui-bundle.js': ['application/javascript; charset=utf-8', 'swagger-ui-bundle.js'],
    'swagger-ui-standalone-preset.js': ['application/javascript; charset=utf-8', 'swagger-ui-standalone-preset.js'],
    'favicon-32x32.png': ['image/png', 'favicon-32x32.png'],
  };
  const cache = new Map<string, Buffer>();
  app.get('/docs/:asset', async (req, reply) => {
    const a = assets[(req.params as { asset: string }).asset];
    if (!a) return reply.code(404).send(errorBody('No such asset.'));
    let b = cache.get(a[1]);
    if (!b) { b = readFileSync(join(uiDir, a[1])); cache.set(a[1], b); }
    return reply.type(a[0]).header('Cache-Control', 'public, max-age=3600').send(b);
  });
  app.get('/docs/init.js', async (_req, reply) => reply.type('application/javascript; charset=utf-8').send(DOCS_INIT));
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8')
    .header('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'")
    .send(DOCS_HTML));
  // ------------------------------------------------------------------ the dispatcher's page (/ and /ui/…)
  registerUi(app, service);

  // ------------------------------------------------------------------ health
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    if (closing) return reply.code(503).send({ status: 'closing' });
    if (opts.ready && !opts.ready()) return reply.code(503).send({ status: 'starting' });
    try {
      await service.ready();
    } catch (e) {
      return reply.code(503).send({ status: 'database unavailable', message: (e as Error).message });
    }
    return { status: 'ready', inFlight: service.inFlight };
  });
  app.addHook('preClose', async () => { closing = true; });
  return app;
}

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dispatchkit REST API</title>
<link rel="icon" href="/docs/favicon-32x32.png"><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script><script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script></body></html>`;

const DOCS_INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true,
    persistAuthorization: false, validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'BaseLayout',
  });
};`;
