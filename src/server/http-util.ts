/** Small helpers of the HTTP faces: log-safe URLs and header text. */

/** Query keys whose values are secrets in logs (SessionID, key, password), matched after percent-decoding. */
const SECRET_QUERY = /^(sessionid|key|apikey|api_key|x-api-key|password)$/i;

/** A URL for the logs: the path, and the query with secret values masked (names compared decoded). */
export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&').map((kv) => {
    const eq = kv.indexOf('=');
    const rawName = eq < 0 ? kv : kv.slice(0, eq);
    let name = rawName;
    try { name = decodeURIComponent(rawName.replace(/\+/g, ' ')); } catch { /* keep it as sent */ }
    return SECRET_QUERY.test(name.trim()) ? `${rawName}=***` : kv;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/** A header value as text: HTTP carries bytes (read by Node as Latin-1); UTF-8 bytes are decoded as UTF-8. */
export function headerText(v: string | undefined): string | undefined {
  if (v === undefined || !/[\u0080-\u00ff]/.test(v)) return v;
  const bytes = Buffer.from(v, 'latin1');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : v;
}

const SENT_TYPE = Symbol('dk.sentContentType');

/**
 * The Content-Type the client sent (before the server made an empty or malformed one readable:
 * REST takes any Content-Type, see http.ts); '' when none.
 */
export function sentContentType(req: { headers: Record<string, unknown> } & object): string {
  const own = (req as { [SENT_TYPE]?: string })[SENT_TYPE];
  if (own !== undefined) return own;
  const h = req.headers['content-type'];
  return typeof h === 'string' ? h : '';
}

/** Remembers what the client sent and replaces an empty or malformed Content-Type by application/octet-stream. */
export function normaliseContentType(req: { headers: Record<string, unknown> } & object): void {
  const h = req.headers['content-type'];
  if (h === undefined) return;
  const sent = typeof h === 'string' ? h : String(h);
  if (/^\s*[\w.+-]+\/[\w.+-]+\s*(;.*)?$/.test(sent)) return;
  (req as { [SENT_TYPE]?: string })[SENT_TYPE] = sent;
  req.headers['content-type'] = 'application/octet-stream';
}
