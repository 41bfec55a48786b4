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
import type { Service } from '../service/service.js';
import { isRefusal, refuse, type Refusal } from '../service/refusals.js';
import { errorBody, registerOperations, sendRefusal } from './rest.js';

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
}

/** Every state-changing call from the page carries this header (a cross-site form cannot). */
const csrf = (req: FastifyRequest): Refusal | null =>
  req.method !== 'GET' && req.headers['x-dk-ui'] !== '1' ? refuse('Forbidden', 'Missing the X-DK-UI header (requests from the page only).') : null;

/** Session lifetime of the page's cookie: as long as the service's Login session (which slides with use; the cookie is renewed with it). */
export function registerUi(app: FastifyInstance, service: Service, opts: UiOptions = {}): void {
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
  const fail = (reply: FastifyReply, status: number, message: string): FastifyReply => reply.code(status).send(errorBody(message, 'name'));

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
  const cookie = (value: string, maxAge: number): string =>
    `${COOKIE}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${opts.secureCookie ? '; Secure' : ''}`;
  const sessionSeconds = Math.round(service.sessionTtlMs / 1000);

  app.post('/ui/login', async (req, reply) => {
    const pre = csrf(req);
    if (pre) return sendRefusal(reply, pre, 'name');
    const b = (req.body ?? {}) as { UserName?: unknown; Password?: unknown };
    const o = await service.login(typeof b.UserName === 'string' ? b.UserName : undefined, typeof b.Password === 'string' ? b.Password : undefined, req.ip);
    if (o.result.Status !== 'Success') return fail(reply, 401, String(o.result.Message));
    const a = await service.authorize(String(o.result.Key));
    if (isRefusal(a)) return sendRefusal(reply, a, 'name');
    reply.header('Set-Cookie', cookie(String(o.result.Key), sessionSeconds));
    return { Name: a.name, Credit: a.balance };
  });
  app.post('/ui/logout', async (req, reply) => {
    const pre = csrf(req);
    if (pre) return sendRefusal(reply, pre, 'name');
    const key = cookieOf(req, COOKIE);
    if (key) await service.call('Logout', undefined, { key });
    reply.header('Set-Cookie', cookie('', 0));
    return { Status: 'Success' };
  });
  // Without a session cookie the page is simply signed out: {Name: null}, not a 401 (a stale or ended session is one).
  app.get('/ui/me', async (req, reply) => {
    const key = cookieOf(req, COOKIE);
    if (!key) return { Name: null, Credit: null };
    const a = await service.authorize(key);
    if (isRefusal(a)) return sendRefusal(reply, a.code === 'Unauthorized' ? { ...a, message: 'You are signed out (your session ended): sign in again.' } : a, 'name');
    const o = await service.execute(a, 'CreditRemaining', undefined, { key });
    // the session slides with use: so does the cookie
    reply.header('Set-Cookie', cookie(key, sessionSeconds));
    return { Name: a.name, Credit: isRefusal(o) ? null : o.result.Credit ?? 0 };
  });

  // ------------------------------------------------------------------ operations as the signed-in account, generated from the operation table
  registerOperations(app, service, {
    prefix: '/ui/rest', serves: (row) => row.faces.page === true && row.faces.rest !== undefined,
    keyOf: (req) => cookieOf(req, COOKIE), precheck: csrf, enums: () => 'name',
  });
}
