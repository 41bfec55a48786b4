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
import { toErrorRecord } from '../core/errors.js';
import { ResultSchema } from '../records/index.js';
import type { Service, Refusal } from '../service/service.js';
import type { Account } from '../store/types.js';
import { SERVICE_OPERATIONS, type ServiceOperationName } from '../service/operations.js';
import { openApiDocument } from './openapi.js';
import { registerSoap } from './soap/soap.js';
import { registerUi } from './ui.js';
import { Jobs, LocalJobBackend, type JobView } from '../service/jobs.js';
import { encodeJobView } from './job-json.js';
import { headerText, loggedUrl } from './http-util.js';

export { headerText, loggedUrl };

export interface ServerOptions {
  /** Largest request body in bytes (default 32 MiB): 413 past it. */
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

/** Depth of JSON nesting, scanning the text (strings skipped) — before JSON.parse and the schemas recurse. */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0, max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) { // "
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++; // backslash
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) { // { [
      if (++depth > max) { max = depth; if (max > limit) return max; }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

class BodyError extends Error {
  constructor(readonly statusCode: number, message: string) { super(message); }
}

/** A Result-shaped body for refusals and HTTP-level errors (Status Failed, one Error). */
function errorBody(message: string, enums: 'int' | 'name' = 'int'): Record<string, unknown> {
  return ResultSchema.encode({ Status: 'Failed', Errors: [{ Message: message }] }, { enums });
}

export function buildServer(service: Service, opts: ServerOptions = {}): FastifyInstance {
  const maxDepth = opts.maxDepth ?? 64;
  const cors = new Set(opts.corsOrigins ?? []);
  let closing = false;
  const app = Fastify({
    bodyLimit: opts.bodyLimit ?? 32 * 1024 * 1024,
    requestTimeout: opts.requestTimeoutMs ?? 60_000,
    connectionTimeout: 0,
    keepAliveTimeout: 65_000,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
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
  const parseJson = (req: FastifyRequest, body: Buffer, done: (err: Error | null, v?: unknown) => void): void => {
    // the SOAP face reads its own bodies (XML, forms)
    if (req.url.toLowerCase().startsWith(soapPath)) { done(null, body); return; }
    let text = body.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') { done(null, undefined); return; }
    if (jsonDepth(text, maxDepth) > maxDepth) { done(new BodyError(400, `The JSON body is nested deeper than ${maxDepth} levels.`)); return; }
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(new BodyError(400, `The body is not valid JSON: ${(e as Error).message}`));
    }
  };
  app.addContentTypeParser('*', { parseAs: 'buffer' }, parseJson);

  // ------------------------------------------------------------------ CORS: only for listed origins
  app.addHook('onRequest', async (req, reply) => {
    if (closing) {
      return reply.code(503).header('Retry-After', '5').header('Connection', 'close').send(errorBody('The server is stopping; retry on another instance or in a moment.', enumsOf(req)));
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
    if (err instanceof BodyError) return reply.code(err.statusCode).send(errorBody(err.message, enums));
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send(errorBody(`The body is larger than the limit (${opts.bodyLimit ?? 32 * 1024 * 1024} bytes).`, enums));
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return reply.code(err.statusCode).send(errorBody(err.message, enums));
    const r = toErrorRecord(err);
    if (r.code === 'Storage') {
      req.log.error({ err }, 'database error');
      return reply.code(503).header('Retry-After', '5').send(errorBody(`The service's database is not available: ${r.message}`, enums));
    }
    req.log.error({ err }, 'internal error');
    return reply.code(500).send(errorBody(`Internal error (request ${req.id}); the operation was not charged.`, enums));
  });
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(`No such path: ${req.method} ${req.url.split('?')[0]}. REST operations are POST /rest/<operation>; see /openapi.json.`, enumsOf(req)));
  });

  // ------------------------------------------------------------------ REST operations
  const refusal = (req: FastifyRequest, reply: FastifyReply, o: Refusal): FastifyReply => {
    const status = o.code === 'Unauthorized' ? 401 : o.code === 'Forbidden' ? 403 : 429;
    if (o.retryAfter !== undefined) reply.header('Retry-After', String(o.retryAfter));
    return reply.code(status).send(errorBody(o.message, enumsOf(req)));
  };
  const accounts = new WeakMap<FastifyRequest, Account>();
  for (const [name, op] of Object.entries(SERVICE_OPERATIONS) as [ServiceOperationName, (typeof SERVICE_OPERATIONS)[ServiceOperationName]][]) {
    const path = `/rest/${op.rest}`;
    app.post(path, {
      // the key and the rate limit are checked before the body is read: a refused caller costs no parsing
      onRequest: op.auth ? async (req, reply) => {
        const a = await service.authorize(header(req, 'x-api-key'));
        if ('kind' in a) return refusal(req, reply, a);
        accounts.set(req, a);
      } : undefined,
    }, async (req, reply) => {
      const ac = new AbortController();
      const onClose = (): void => { if (!reply.raw.writableEnded) ac.abort(); };
      reply.raw.on('close', onClose);
      try {
        const o = await service.execute(op.auth ? accounts.get(req)! : null, name, req.body, {
          key: header(req, 'x-api-key'), signal: ac.signal,
          routeName: headerText(header(req, 'x-route-name')), owner: headerText(header(req, 'x-route-owner')),
        });
        if (o.kind === 'refused') return refusal(req, reply, o);
        if (o.routeId !== undefined) reply.header('X-Route-ID', String(o.routeId));
        return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(o.schema.encode(o.result as never, { enums: enumsOf(req) })));
      } finally {
        reply.raw.off('close', onClose);
      }
    });
    app.route({
      method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH'], url: path,
      handler: async (req, reply) => reply.code(405).header('Allow', 'POST').send(errorBody(`${op.name} is POST ${path}.`, enumsOf(req))),
    });
  }

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
  // ------------------------------------------------------------------ jobs: POST /rest/jobs, GET and DELETE /rest/jobs/{id}
  const jobs = opts.jobs ?? new Jobs(service, new LocalJobBackend(service));
  const authorized = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const a = await service.authorize(header(req, 'x-api-key'));
    if ('kind' in a) { refusal(req, reply, a); return; }
    accounts.set(req, a);
  };
  const jobBody = (req: FastifyRequest, v: JobView): string => JSON.stringify(encodeJobView(v, enumsOf(req)));
  app.post('/rest/jobs', { onRequest: authorized }, async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const pick = (k: string): unknown => Object.entries(b).find(([x]) => x.toLowerCase() === k.toLowerCase())?.[1];
    const r = await jobs.submit(accounts.get(req)!, String(pick('Operation') ?? ''), pick('Specification'));
    if ('invalid' in r) return reply.code(400).send(errorBody(r.invalid, enumsOf(req)));
    if ('kind' in r) return refusal(req, reply, r);
    return reply.code(202).header('Location', `/rest/jobs/${r.JobID}`).send(r);
  });
  app.get('/rest/jobs/:id', { onRequest: authorized }, async (req, reply) => {
    const v = await jobs.get(accounts.get(req)!, (req.params as { id: string }).id);
    if (!v) return reply.code(404).send(errorBody('No such job in this account.', enumsOf(req)));
    return reply.type('application/json; charset=utf-8').send(jobBody(req, v));
  });
  app.delete('/rest/jobs/:id', { onRequest: authorized }, async (req, reply) => {
    const v = await jobs.cancel(accounts.get(req)!, (req.params as { id: string }).id);
    if (!v) return reply.code(404).send(errorBody('No such job in this account.', enumsOf(req)));
    return reply.type('application/json; charset=utf-8').send(jobBody(req, v));
  });
  app.addHook('onClose', async () => { if (!opts.jobs) await jobs.close(); });

  // ------------------------------------------------------------------ the dispatcher's page (/ and /ui/…)
  registerUi(app, service, { jobs });

  // ------------------------------------------------------------------ health
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    if (closing) return reply.code(503).send({ status: 'closing' });
    if (opts.ready && !opts.ready()) return reply.code(503).send({ status: 'starting' });
    try {
      await service.store.ping();
    } catch (e) {
      return reply.code(503).send({ status: 'database unavailable', message: (e as Error).message });
    }
    return { status: 'ready', inFlight: service.inFlight };
  });
  app.addHook('preClose', async () => { closing = true; });
  return app;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function enumsOf(req: FastifyRequest): 'int' | 'name' {
  const q = (req.query as Record<string, unknown> | undefined)?.enums;
  const h = header(req, 'x-enums');
  const v = String(q ?? h ?? '').toLowerCase();
  return v === 'name' || v === 'names' ? 'name' : 'int';
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
