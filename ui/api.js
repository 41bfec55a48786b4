// The page's calls to the service (/ui/…). The session is an HttpOnly cookie the browser sends by
// itself; every state-changing call carries `X-DK-UI: 1`, the header the server requires of the
// page (a cross-site form cannot send it).

/** An answer that is not 2xx: `status` is the HTTP status, the message the server's first Error. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Called on every 401 (the session ended) with the server's words for it; the page shows its sign-in form. */
let onSignedOut = () => {};
export function whenSignedOut(fn) {
  onSignedOut = fn;
}

async function call(method, path, body, { signal } = {}) {
  const headers = { Accept: 'application/json' };
  if (method !== 'GET') headers['X-DK-UI'] = '1';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method, headers, signal, credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const message = data?.Errors?.[0]?.Message ?? `${method} ${path}: HTTP ${res.status}`;
    if (res.status === 401 && path !== '/ui/login') onSignedOut(message);
    throw new ApiError(res.status, message);
  }
  return { data, headers: res.headers };
}

export const login = async (userName, password) => (await call('POST', '/ui/login', { UserName: userName, Password: password })).data;
export const logout = async () => (await call('POST', '/ui/logout')).data;
/** The signed-in account {Name, Credit}, or null. */
export async function me() {
  try {
    const data = (await call('GET', '/ui/me')).data;
    return data?.Name ? data : null;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

export const dataset = async () => (await call('GET', '/ui/rest/dataset')).data;
/** The dataset's roads in a box at a zoom level, as GeoJSON. */
export const roads = async (bbox, zoom, signal) => (await call('GET', `/ui/rest/roads?bbox=${bbox.map((x) => x.toFixed(5)).join(',')}&zoom=${zoom}`, undefined, { signal })).data.GeoJson;

/** An operation as the signed-in account (`op`: the REST path, e.g. 'route'); the result record, enums by name. */
export async function operation(op, spec, opts) {
  return (await call('POST', `/ui/rest/${op}`, spec, opts)).data;
}

/** The plan drawn on the roads: GeoJSON of each vehicle's path and its stops. */
export const planGeoJson = async (specification, result) => (await call('POST', '/ui/rest/plan', { Specification: specification, Result: result })).data.GeoJson;

/**
 * Runs a dispatch as a job of the service, reporting each change of state to `onUpdate`
 * ({JobID, State, Progress, Result?, Error?, RouteID?}) from the job's event stream. Resolves
 * with the final state. `cancel()` asks the service to stop it.
 */
export function dispatchJob(specification, onUpdate) {
  let jobId = null;
  let cancelled = false;
  const done = (async () => {
    const started = (await call('POST', '/ui/rest/jobs', { Operation: 'Dispatch', Specification: specification })).data;
    jobId = started.JobID;
    if (cancelled) await cancelJob(jobId);
    return followJob(jobId, onUpdate);
  })();
  return {
    done,
    cancel: async () => {
      cancelled = true;
      if (jobId !== null) await cancelJob(jobId);
    },
  };
}

const FINAL = new Set(['completed', 'failed', 'cancelled']);

/** Follows a job's server-sent events until it ends; reads the job once more if the stream breaks. */
function followJob(jobId, onUpdate) {
  return new Promise((resolve, reject) => {
    const source = new EventSource(`/ui/rest/jobs/${encodeURIComponent(jobId)}/events`);
    let last = null;
    let ended = false;
    const finish = async () => {
      if (ended) return;
      ended = true;
      source.close();
      try {
        const job = last && FINAL.has(last.State) ? last : (await call('GET', `/ui/rest/jobs/${encodeURIComponent(jobId)}`)).data;
        if (!FINAL.has(job.State)) return resolve(followJob(jobId, onUpdate));
        if (job !== last) onUpdate(job);
        resolve(job);
      } catch (e) {
        reject(e);
      }
    };
    source.addEventListener('update', (ev) => {
      last = JSON.parse(ev.data);
      onUpdate(last);
      if (FINAL.has(last.State)) finish();
    });
    // the stream ended or broke: the job's state says what happened
    source.addEventListener('error', () => finish());
  });
}

async function cancelJob(jobId) {
  await call('DELETE', `/ui/rest/jobs/${encodeURIComponent(jobId)}`);
}

/** The live state of a stored route (GET /ui/rest/routes/{id}/live), enums by name. */
export const live = async (routeId) => (await call('GET', `/ui/rest/routes/${routeId}/live?enums=name`)).data;

/**
 * Follows a stored route's live state as server-sent events; `onState(LiveResult)` on each change.
 * Returns a function that stops following.
 */
export function followLive(routeId, onState, onError) {
  const es = new EventSource(`/ui/rest/routes/${routeId}/live/events?enums=name`);
  es.addEventListener('update', (ev) => {
    try { onState(JSON.parse(ev.data)); } catch (e) { onError?.(e); }
  });
  es.onerror = () => { if (es.readyState === EventSource.CLOSED) onError?.(new Error('the live stream ended')); };
  return () => es.close();
}

/** Re-dispatches a stored route from now (POST /ui/rest/redispatch): the RedispatchResult, enums by name. */
export const redispatch = async (spec) => (await call('POST', '/ui/rest/redispatch?enums=name', spec)).data;
