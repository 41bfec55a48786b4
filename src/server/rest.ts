/**
 * The REST faces, generated from the operation table: every row with a REST face answers at
 * `<method> /rest/<path>` with the API key (X-API-Key), and every row the page may call answers at
 * the same method and path under `/ui/rest/` with the page's session cookie. Thin: the request
 * becomes a raw specification (the JSON body; for GET and DELETE the query, and the path's JobID),
 * `Service.execute` does everything else, and the answer is encoded by its row — integers for
 * enums unless names are asked for (`?enums=name` / `X-Enums: name`; the page always gets names).
 * Refusals map through the one refusal table (status, Retry-After).
 */
import { Readable } from 'node:stream';
import { Ticker } from '../core/cancel.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerHead, answerJson, encodeAnswer, type Account, type Answer, type Service } from '../service/service.js';
import { operations, type ServiceOperation } from '../service/operations.js';
import { refusalOf, refusalRetryAfter, refusalStatus, type Refusal } from '../service/refusals.js';
import { joined, rawJsonSliced, ResultSchema, type Chunk } from '../records/index.js';
import { headerText } from './http-util.js';

/** A Result-shaped body for refusals and HTTP-level errors (Status Failed, one Error). */
export function errorBody(message: string, enums: 'int' | 'name' = 'int'): Record<string, unknown> {
  return ResultSchema.encode({ Status: 'Failed', Errors: [{ Message: message }] }, { enums });
}

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Enum encoding asked for: `?enums=name` or `X-Enums: name`, else integers (the original's clients). */
export function enumsOf(req: FastifyRequest): 'int' | 'name' {
  const q = (req.query as Record<string, unknown> | undefined)?.enums;
  const h = header(req, 'x-enums');
  const v = String(q ?? h ?? '').toLowerCase();
  return v === 'name' || v === 'names' ? 'name' : 'int';
}

/** Sends a refusal the way the refusal table says (status, Retry-After, a Result-shaped body). */
export function sendRefusal(reply: FastifyReply, r: Refusal, enums: 'int' | 'name'): FastifyReply {
  const retry = refusalRetryAfter(r);
  if (retry !== undefined) reply.header('Retry-After', String(retry));
  return reply.code(refusalStatus(r)).type('application/json; charset=utf-8').send(errorBody(r.message, enums));
}

/** How one mount of the operations admits callers. */
export interface Mount {
  /** `/rest` or `/ui/rest`. */
  prefix: string;
  /** Which rows it serves. */
  serves(row: ServiceOperation): boolean;
  /** The caller's key, as the service authenticates it. */
  keyOf(req: FastifyRequest): string | undefined;
  /** A refusal before the service is asked (e.g. the page's anti-CSRF header), or null. */
  precheck?(req: FastifyRequest): Refusal | null;
  enums(req: FastifyRequest): 'int' | 'name';
  /** Called on every call the service authorized (the page renews its session cookie here: the session slides with use). */
  authorized?(req: FastifyRequest, reply: FastifyReply): void;
  /** A refusal of the caller's key as this mount words it (the page speaks of its session, never of a key). */
  refusal?(r: Refusal): Refusal;
}

/** `jobs/:id` → fastify's `jobs/:id`; paths are matched case-insensitively by the server's router. */
const urlOf = (prefix: string, path: string): string => `${prefix}/${path}`;

/** The raw specification of a request: the JSON body (POST), or the query and the path's JobID (GET, DELETE). */
function rawSpec(row: ServiceOperation, req: FastifyRequest): unknown {
  if (row.faces.rest?.method === 'POST') return req.body;
  const params = (req.params ?? {}) as Record<string, string>;
  const query = { ...((req.query ?? {}) as Record<string, unknown>) };
  delete query.enums;
  return { ...query, ...(params.id !== undefined ? { [row.faces.rest?.param ?? 'JobID']: params.id } : {}) };
}

/** Registers every row `mount` serves. */
export function registerOperations(app: FastifyInstance, service: Service, mount: Mount): void {
  const accounts = new WeakMap<FastifyRequest, Account>();
  const byUrl = new Map<string, string[]>();
  for (const row of operations()) {
    const rest = row.faces.rest;
    if (!rest || !mount.serves(row)) continue;
    const url = urlOf(mount.prefix, rest.path);
    byUrl.set(url, [...(byUrl.get(url) ?? []), rest.method]);
    app.route({
      method: rest.method, url,
      // the key and the rate limit are checked before the body is read: a refused caller costs no parsing
      onRequest: async (req, reply) => {
        const pre = mount.precheck?.(req);
        if (pre) return sendRefusal(reply, pre, mount.enums(req));
        if (!row.auth) return;
        const a = await service.authorize(mount.keyOf(req));
        if ('kind' in a) return sendRefusal(reply, mount.refusal?.(a) ?? a, mount.enums(req));
        accounts.set(req, a);
        mount.authorized?.(req, reply);
      },
      handler: async (req, reply) => {
        const ac = new AbortController();
        const onClose = (): void => { if (!reply.raw.writableEnded) ac.abort(); };
        reply.raw.on('close', onClose);
        const enums = mount.enums(req);
        try {
          const o = await service.execute(row.auth ? accounts.get(req)! : null, row.name, rawSpec(row, req), {
            key: mount.keyOf(req), client: req.ip, signal: ac.signal, encodeFor: enums,
            routeName: headerText(header(req, 'x-route-name')), owner: headerText(header(req, 'x-route-owner')),
          });
          if (o.kind === 'refused') return sendRefusal(reply, o, enums);
          if (o.stream) return streamEvents(req, reply, o, enums, ac.signal);
          const head = answerHead(o);
          for (const [k, v] of Object.entries(head.headers)) reply.header(k, v);
          const text = await answerJson(o, enums);
          // a large answer goes out chunk by chunk (never one huge string to encode at once)
          return reply.code(head.status).type('application/json; charset=utf-8').send(typeof text === 'string' ? text : Readable.from(bytesOf(text)));
        } catch (e) {
          const r = refusalOf(e, req.id);
          req.log.error({ err: e }, r.code === 'Unavailable' ? 'database error' : 'internal error');
          return sendRefusal(reply, r, enums);
        } finally {
          reply.raw.off('close', onClose);
        }
      },
    });
  }
  // other methods on an operation's path: 405 naming the ones it takes
  for (const [url, methods] of byUrl) {
    const others = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((m) => !methods.includes(m) && !(m === 'HEAD' && methods.includes('GET')));
    app.route({
      method: others as never, url,
      handler: async (req, reply) => reply.code(405).header('Allow', methods.join(', '))
        .send(errorBody(`${url} takes ${methods.join(' or ')}.`, mount.enums(req))),
    });
  }
}

/** Chunks of an answer as bytes, one at a time with the event loop's turns between them (never megabytes encoded in one go). */
async function* bytesOf(chunks: readonly Chunk[]): AsyncGenerator<Buffer> {
  const ticker = new Ticker();
  for (const c of chunks) {
    // text is encoded here, a chunk at a time; bytes made on a worker go out as they are (a view, no copy)
    yield typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    await ticker.tick();
  }
}

/** Server-sent events: `event: update` with each result of a streaming operation, a keep-alive comment every ~7 s. */
async function streamEvents(req: FastifyRequest, reply: FastifyReply, o: Answer, enums: 'int' | 'name', signal: AbortSignal): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  // a cookie set before the stream (the page's renewed session) goes out with it
  const cookie = reply.getHeader('set-cookie');
  res.writeHead(200, { ...(cookie !== undefined ? { 'Set-Cookie': cookie as string | string[] } : {}), 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no', 'X-Content-Type-Options': 'nosniff' });
  const beat = setInterval(() => { if (!res.writableEnded) res.write(': keep-alive\n\n'); }, 7000);
  try {
    for await (const item of o.stream!) {
      if (signal.aborted || res.writableEnded) break;
      // written in slices: an update can carry a large result (a finished job's)
      res.write(`event: update\ndata: ${joined(await rawJsonSliced(encodeAnswer(o.row, item, enums)))}\n\n`);
    }
  } catch (e) {
    req.log.error({ err: e }, 'event stream error');
  } finally {
    clearInterval(beat);
    res.end();
  }
}
