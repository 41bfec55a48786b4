/**
 * The dispatcher's page and its API (`/` and `/ui/…`). The page signs in with a user name and
 * password (Login) and gets an HttpOnly, SameSite=Strict session cookie: it never sees an API key.
 * Every state-changing call must carry the header `X-DK-UI: 1` (a custom header a cross-site form
 * cannot send, and CORS is off), so a session cookie alone cannot be ridden (CSRF). Assets — the
 * page and Leaflet — are served from the package; the map's roads come from the dataset
 * (`/ui/roads`), no tile server.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DispatchResultSchema, ResultSchema } from '../records/index.js';
import { roadLayer } from '../render/index.js';
import type { Service } from '../service/service.js';
import { operationByRestPath, type ServiceOperationName } from '../service/operations.js';
import type { Account } from '../store/types.js';
import { headerText } from './http-util.js';
import type { Jobs, JobView } from '../service/jobs.js';
import { encodeJobView } from './job-json.js';

const require = createRequire(import.meta.url);
/** The package root (the page's files are in `ui/` there). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UI_DIR = existsSync(join(ROOT, 'ui')) ? join(ROOT, 'ui') : join(ROOT, '..', 'ui');
const COOKIE = 'dk_session';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'application/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.json': 'application/json; charset=utf-8',
};

function cookieOf(req: FastifyRequest, name: string): string | undefined {
  const raw = req.headers.cookie;
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try { return decodeURIComponent(part.slice(i + 1).trim()); } catch { return undefined; }
    }
  }
  return undefined;
}

/** A file below `dir` by a relative name from the URL, or null (no escaping the folder). */
function fileBelow(dir: string, rel: string): string | null {
  const p = normalize(join(dir, rel));
  return p.startsWith(dir + '/') && existsSync(p) ? p : null;
}

export interface UiOptions {
  /** Mark the cookie Secure (the page is served over HTTPS). */
  secureCookie?: boolean;
  /** The server's jobs (the page runs its dispatches as jobs: progress, cancel). */
  jobs: Jobs;
}

export function registerUi(app: FastifyInstance, service: Service, opts: UiOptions): void {
  const engine = service.engine;
  const leafletDir = dirname(require.resolve('leaflet/dist/leaflet.js'));
  /** Assets read once, each with a strong ETag (its SHA-1): `no-cache` revalidates, a match is a 304 without the body. */
  const cache = new Map<string, { body: Buffer; etag: string }>();
  const sendFile = (req: FastifyRequest, reply: FastifyReply, path: string): FastifyReply => {
    let f = cache.get(path);
    if (!f) {
      const body = readFileSync(path);
      f = { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
      cache.set(path, f);
    }
    const ext = path.slice(path.lastIndexOf('.'));
    reply.type(TYPES[ext] ?? 'application/octet-stream').header('Cache-Control', 'no-cache').header('ETag', f.etag);
    const match = req.headers['if-none-match'];
    if (match && match.split(',').some((t) => t.trim().replace(/^W\//, '') === f.etag)) return reply.code(304).send();
    return reply.send(f.body);
  };
  const fail = (reply: FastifyReply, status: number, message: string): FastifyReply =>
    reply.code(status).send(ResultSchema.encode({ Status: 'Failed', Errors: [{ Message: message }] }, { enums: 'name' }));

  // ------------------------------------------------------------------ the page and its assets
  app.get('/', async (req, reply) => {
    reply.header('Content-Security-Policy', "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'")
      .header('X-Frame-Options', 'DENY');
    return sendFile(req, reply, join(UI_DIR, 'index.html'));
  });
  app.get('/ui/assets/*', async (req, reply) => {
    const f = fileBelow(UI_DIR, (req.params as { '*': string })['*']);
    return f ? sendFile(req, reply, f) : fail(reply, 404, 'No such asset.');
  });
  app.get('/ui/vendor/leaflet/*', async (req, reply) => {
    const f = fileBelow(leafletDir, (req.params as { '*': string })['*']);
    return f ? sendFile(req, reply, f) : fail(reply, 404, 'No such asset.');
  });

  // ------------------------------------------------------------------ session
  const accountOf = new WeakMap<FastifyRequest, Account>();
  /** The signed-in account (cookie), and for state-changing calls the anti-CSRF header; else a refusal sent. */
  const signedIn = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (req.method !== 'GET' && req.headers['x-dk-ui'] !== '1') { fail(reply, 403, 'Missing the X-DK-UI header (requests from the page only).'); return; }
    const key = cookieOf(req, COOKIE);
    const a = await service.authorize(key);
    if ('kind' in a) { fail(reply, a.code === 'Unauthorized' ? 401 : a.code === 'Forbidden' ? 403 : 429, a.message); return; }
    accountOf.set(req, a);
  };
  const cookie = (value: string, maxAge: number): string =>
    `${COOKIE}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${opts.secureCookie ? '; Secure' : ''}`;

  app.post('/ui/login', async (req, reply) => {
    if (req.headers['x-dk-ui'] !== '1') return fail(reply, 403, 'Missing the X-DK-UI header (requests from the page only).');
    const b = (req.body ?? {}) as { UserName?: unknown; Password?: unknown };
    const o = await service.login(typeof b.UserName === 'string' ? b.UserName : undefined, typeof b.Password === 'string' ? b.Password : undefined);
    if (o.result.Status !== 'Success') return fail(reply, 401, String(o.result.Message));
    const a = await service.authorize(String(o.result.Key));
    if ('kind' in a) return fail(reply, 401, a.message);
    reply.header('Set-Cookie', cookie(String(o.result.Key), 4 * 3600));
    return { Name: a.name, Credit: a.balance };
  });
  app.post('/ui/logout', async (req, reply) => {
    if (req.headers['x-dk-ui'] !== '1') return fail(reply, 403, 'Missing the X-DK-UI header (requests from the page only).');
    const key = cookieOf(req, COOKIE);
    if (key) await service.call('Logout', undefined, { key });
    reply.header('Set-Cookie', cookie('', 0));
    return { Status: 'Success' };
  });
  // Without a session cookie the page is simply signed out: {Name: null}, not a 401 (a stale or ended session is one).
  app.get('/ui/me', { onRequest: async (req, reply) => { if (cookieOf(req, COOKIE)) await signedIn(req, reply); } }, async (req) => {
    const a = accountOf.get(req);
    if (!a) return { Name: null, Credit: null };
    return { Name: a.name, Credit: (await service.store.balance(a.id)) ?? 0 };
  });

  // ------------------------------------------------------------------ the map
  // the dataset's extent, computed once (RoadGraph.bbox walks every geometry point)
  let datasetInfo: { Name: string; Attribution: string; Bounds: number[]; Center: number[] } | null = null;
  app.get('/ui/dataset', async () => {
    if (!datasetInfo) {
      const m = engine.dataset.meta;
      const b = engine.dataset.graph.bbox();
      datasetInfo = {
        Name: m.name, Attribution: m.attribution, Bounds: [b.minLon, b.minLat, b.maxLon, b.maxLat],
        Center: [(b.minLat + b.maxLat) / 2, (b.minLon + b.maxLon) / 2],
      };
    }
    return datasetInfo;
  });
  app.get('/ui/roads', async (req, reply) => {
    const q = req.query as { bbox?: string; zoom?: string };
    const b = String(q.bbox ?? '').split(',').map(Number);
    const zoom = Number(q.zoom);
    if (b.length !== 4 || b.some((x) => !Number.isFinite(x)) || !(zoom >= 0 && zoom <= 22)) return fail(reply, 400, 'bbox=west,south,east,north and zoom=0…22 are required.');
    const [west, south, east, north] = b;
    const styles = roadLayer(engine.dataset.graph, { west, south, east, north }, zoom);
    return {
      type: 'FeatureCollection',
      features: styles.map((st) => ({ type: 'Feature', properties: { color: st.color, width: st.width, dash: st.dash ?? null }, geometry: { type: 'MultiLineString', coordinates: st.lines } })),
    };
  });

  // ------------------------------------------------------------------ operations, as the signed-in account
  app.post('/ui/rest/:op', { onRequest: signedIn }, async (req, reply) => {
    const op = operationByRestPath((req.params as { op: string }).op);
    if (!op || !op.auth || op.name === 'Logout') return fail(reply, 404, 'No such operation.');
    const ac = new AbortController();
    const onClose = (): void => { if (!reply.raw.writableEnded) ac.abort(); };
    reply.raw.on('close', onClose);
    try {
      const o = await service.execute(accountOf.get(req)!, op.name as ServiceOperationName, req.body, {
        key: cookieOf(req, COOKIE), signal: ac.signal, routeName: headerText(req.headers['x-route-name'] as string | undefined),
      });
      if (o.kind === 'refused') return fail(reply, o.code === 'Forbidden' ? 403 : o.code === 'RateLimited' ? 429 : 401, o.message);
      if (o.routeId !== undefined) reply.header('X-Route-ID', String(o.routeId));
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(o.schema.encode(o.result as never, { enums: 'name' })));
    } finally {
      reply.raw.off('close', onClose);
    }
  });

  // ------------------------------------------------------------------ jobs (the page's dispatches: progress and cancel)
  const jobs = opts.jobs;
  app.post('/ui/jobs', { onRequest: signedIn }, async (req, reply) => {
    const b = (req.body ?? {}) as { Operation?: unknown; Specification?: unknown };
    const r = await jobs.submit(accountOf.get(req)!, String(b.Operation ?? ''), b.Specification);
    if ('invalid' in r) return fail(reply, 400, r.invalid);
    if ('kind' in r) return fail(reply, r.code === 'Forbidden' ? 403 : r.code === 'RateLimited' ? 429 : 401, r.message);
    return reply.code(202).send(r);
  });
  app.get('/ui/jobs/:id', { onRequest: signedIn }, async (req, reply) => {
    const v = await jobs.get(accountOf.get(req)!, (req.params as { id: string }).id);
    return v ? reply.send(encodeJobView(v, 'name')) : fail(reply, 404, 'No such job.');
  });
  app.delete('/ui/jobs/:id', { onRequest: signedIn }, async (req, reply) => {
    const v = await jobs.cancel(accountOf.get(req)!, (req.params as { id: string }).id);
    return v ? reply.send(encodeJobView(v, 'name')) : fail(reply, 404, 'No such job.');
  });
  /** Server-sent events: `event: update` with the job as GET answers it, on every change, until it ends. */
  app.get('/ui/jobs/:id/events', { onRequest: signedIn }, async (req, reply) => {
    const account = accountOf.get(req)!;
    const id = (req.params as { id: string }).id;
    const first = await jobs.get(account, id);
    if (!first) return fail(reply, 404, 'No such job.');
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    let last = '';
    let open = true;
    res.on('close', () => { open = false; });
    const final = (s: string): boolean => s === 'completed' || s === 'failed' || s === 'cancelled';
    let v: JobView | null = first;
    let beat = 0;
    while (open && v) {
      const text = JSON.stringify(encodeJobView(v, 'name'));
      if (text !== last) { res.write(`event: update\ndata: ${text}\n\n`); last = text; beat = 0; }
      else if (++beat % 50 === 0) res.write(': keep-alive\n\n');
      if (final(v.State)) break;
      await new Promise((r) => setTimeout(r, 150));
      v = await jobs.get(account, id).catch(() => v);
    }
    res.end();
  });

  /** A dispatch plan drawn on the roads: each vehicle's path as the dispatch routed it, and its stops. */
  app.post('/ui/plan-geojson', { onRequest: signedIn }, async (req, reply) => {
    const b = (req.body ?? {}) as { Specification?: unknown; Result?: unknown };
    const r = DispatchResultSchema.safeParse(b.Result);
    if (!r.ok) return fail(reply, 400, `Result: ${r.issues[0]?.path} ${r.issues[0]?.message}`);
    return engine.dispatchGeoJson(b.Specification, r.value);
  });
}
