// The dispatcher's page: sign in, stops (a file or clicks on the map), vehicles, a dispatch run as
// a job of the service (live progress, cancel), the plan drawn on the dataset's roads, per-route
// tables and directions, exports. No API key ever reaches this script: the session is an
// HttpOnly cookie set by /ui/login.
import * as api from './api.js';
import { clock, h, int, today } from './format.js';
import { PlanMap } from './map.js';
import { download, isVehicleEnd, makePlan, planCsv, planGeoJsonText, planJson, vehicleNamed } from './plan.js';
import { renderResults } from './results.js';
import { onDate, stopsFromFile } from './stops.js';

/** The contract's DispatchModes (docs/dispatch-modes.md) with their numbers, in the order the page lists them. */
const DISPATCH_MODES = {
  Auto: 0, Optima: 8, EqualStop: 1, BalanceLocation: 9, EqualHour: 4, BalanceTime: 10, EqualDistance: 5, TimeWindow: 6,
  TimeWindowDepot: 7, MinimumVehicles: 11, SingleRegion: 2, MultipleRegion: 3,
};

const $ = (id) => document.getElementById(id);

const state = {
  account: null,
  /** The Locations of the next dispatch. */
  stops: [],
  /** The Vehicles of the next dispatch (shift times as "HH:MM" until the date is applied). */
  vehicles: [],
  /** What a click on the map does: null, 'stops' (add one) or 'start' (the vehicle form's start). */
  clickMode: null,
  /** The running dispatch: {done, cancel} (api.dispatchJob). */
  job: null,
  plan: null,
  /** CurrentTime from a loaded DispatchSpecification, if any. */
  currentTime: undefined,
};
let map;

// -------------------------------------------------------------------------------- messages

let toastTimer;
/** A message in the corner; kind 'error' (a failed action), 'warning' or 'info'. */
function toast(message, kind = 'error') {
  // failures and warnings are logged too, where developers (and the browser tests) look for them
  if (kind === 'error') console.error(`dispatchkit: ${message}`);
  else if (kind === 'warning') console.warn(`dispatchkit: ${message}`);
  const el = $('toast');
  el.textContent = message;
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, kind === 'info' ? 4000 : 8000);
}

/** Runs an event handler, showing its failure on the page (a signed-out session shows the sign-in form instead). */
const guarded = (fn) => async (...args) => {
  try {
    await fn(...args);
  } catch (e) {
    if (e instanceof api.ApiError && e.status === 401) return;
    toast(e.message || String(e));
  }
};

// -------------------------------------------------------------------------------- session

function showAccount(account) {
  state.account = account;
  $('account').hidden = !account;
  $('signin').hidden = !!account;
  if (account) {
    $('account-name').textContent = account.Name;
    $('account-credit').textContent = int(account.Credit);
  } else {
    $('password').value = '';
    $('username').focus();
  }
  updateRunButton();
}

async function signIn(ev) {
  ev.preventDefault();
  $('signin-error').textContent = '';
  try {
    showAccount(await api.login($('username').value, $('password').value));
  } catch (e) {
    $('signin-error').textContent = e.message;
  }
}

async function signOut() {
  await api.logout();
  showAccount(null);
}

async function refreshCredit() {
  const account = await api.me();
  if (account) showAccount(account);
}

// -------------------------------------------------------------------------------- stops

function setStops(stops) {
  const names = new Set();
  state.stops = stops.map((l, i) => {
    // every stop gets a unique name: the plan's tables and the result refer to stops by name
    let name = String(l.Name ?? '').trim() || `Stop ${i + 1}`;
    for (let k = 2; names.has(name); k++) name = `${String(l.Name ?? '').trim() || `Stop ${i + 1}`} (${k})`;
    names.add(name);
    return { ...l, Name: name };
  });
  $('stop-count').textContent = String(state.stops.length);
  const rows = state.stops.map((l, i) => h('tr', {},
    h('td', { class: 'num' }, i + 1),
    h('td', { class: 'name', title: l.Name }, l.Name),
    h('td', { class: 'num muted' }, l.Weight ? `${l.Weight}` : ''),
    h('td', {}, h('button', { type: 'button', class: 'link', title: `Remove ${l.Name}`, onclick: () => setStops(state.stops.filter((_, k) => k !== i)) }, '×'))));
  $('stop-table').tBodies[0].replaceChildren(...rows);
  clearPlan();
  updateRunButton();
}

async function loadStopsFile(ev) {
  const file = ev.target.files?.[0];
  ev.target.value = '';
  if (!file) return;
  const parsed = stopsFromFile(file.name, await file.text());
  const locations = parsed.locations;
  const notes = [...parsed.errors];
  const unplaced = locations.filter((l) => !l.LatLong && l.Address);
  if (unplaced.length > 0) notes.push(...await geocode(unplaced));
  if (parsed.vehicles) setVehicles(parsed.vehicles);
  state.currentTime = undefined;
  if (parsed.options) applyOptions(parsed.options);
  setStops(locations);
  const placed = locations.filter((l) => l.LatLong);
  map.fitTo([...placed.map((l) => [l.LatLong.Latitude, l.LatLong.Longitude]), ...depotPoints()]);
  if (notes.length > 0) toast(`${file.name}: ${locations.length} stops; ${notes.length} note${notes.length === 1 ? '' : 's'}: ${notes.slice(0, 3).join('; ')}${notes.length > 3 ? '; …' : ''}`, 'warning');
  else toast(`${file.name}: ${locations.length} stops`, 'info');
}

/** Places stops given by address (one Geocode call); returns notes for those not found. */
async function geocode(locations) {
  const res = await api.operation('geocode', { IsNeedMatchCode: true, Addresses: locations.map((l) => l.Address) });
  const notes = [];
  locations.forEach((l, i) => {
    const best = res.Items?.[i]?.Locations?.[0];
    if (best?.LatLong) {
      l.LatLong = best.LatLong;
      l.MatchCode = best.MatchCode;
    } else notes.push(`no place found for ${l.Name ?? Object.values(l.Address).join(', ')}`);
  });
  await refreshCredit();
  return notes;
}

function setClickMode(mode) {
  state.clickMode = state.clickMode === mode ? null : mode;
  $('click-mode').setAttribute('aria-pressed', String(state.clickMode === 'stops'));
  $('pick-start').setAttribute('aria-pressed', String(state.clickMode === 'start'));
  $('add-order').setAttribute('aria-pressed', String(state.clickMode === 'order'));
  map.setPicking(state.clickMode !== null);
}

function mapClicked(latlng) {
  const LatLong = { Latitude: round6(latlng.lat), Longitude: round6(latlng.lng) };
  if (state.clickMode === 'stops') {
    setStops([...state.stops, { Name: `Stop ${state.stops.length + 1}`, LatLong, Weight: 1 }]);
  } else if (state.clickMode === 'start') {
    $('vehicle-form').elements.start.value = `${LatLong.Latitude}, ${LatLong.Longitude}`;
    setClickMode('start');
  } else if (state.clickMode === 'order' && state.live) {
    const taken = new Set([...state.live.spec.Locations.map((l) => l.Name), ...state.live.orders.map((o) => o.Name)]);
    let k = state.live.orders.length + 1;
    while (taken.has(`Order ${k}`)) k++;
    state.live.orders.push({ Name: `Order ${k}`, LatLong, Wait: 300, Weight: 1 });
    showLive(state.live.last);
    toast(`Order ${k} added: it joins the plan at the next re-plan.`, 'info');
  }
}

const round6 = (x) => Math.round(x * 1e6) / 1e6;

// -------------------------------------------------------------------------------- vehicles

function setVehicles(vehicles) {
  state.vehicles = vehicles;
  $('vehicle-count').textContent = String(vehicles.length);
  $('vehicle-list').replaceChildren(...vehicles.map((v, i) => {
    const p = v.StartLocation?.LatLong;
    const facts = [
      p ? `from ${p.Latitude.toFixed(4)}, ${p.Longitude.toFixed(4)}` : 'no start',
      v.FinishLocation ? 'returns' : null,
      v.MaxWeight ? `capacity ${v.MaxWeight}` : null,
      v.MaxStops ? `≤ ${v.MaxStops} stops` : null,
      v.Tin || v.Tout ? `${shiftText(v.Tin)}–${shiftText(v.Tout)}` : null,
      v.Roles ? `roles: ${v.Roles}` : null,
    ].filter(Boolean).join(' · ');
    return h('li', { dataset: { vehicle: v.Name } },
      h('strong', {}, v.Name), h('span', { class: 'muted' }, ` ${facts}`),
      h('button', { type: 'button', class: 'link remove', title: `Remove ${v.Name}`, onclick: () => setVehicles(state.vehicles.filter((_, k) => k !== i)) }, '×'));
  }));
  $('vehicle-form').elements.name.placeholder = `Van ${vehicles.length + 1}`;
  clearPlan();
  map.showDepots(vehicles);
  updateRunButton();
}

const shiftText = (t) => (!t ? '' : /T(\d\d:\d\d)/.exec(t)?.[1] ?? t);

function addVehicle(ev) {
  ev.preventDefault();
  const f = ev.target.elements;
  const name = f.name.value.trim() || f.name.placeholder;
  if (state.vehicles.some((v) => v.Name === name)) throw new Error(`There is a vehicle named ${name} already.`);
  let start = null;
  if (f.start.value.trim()) {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*[,; ]\s*(-?\d+(?:\.\d+)?)\s*$/.exec(f.start.value);
    if (!m || Math.abs(Number(m[1])) > 90 || Math.abs(Number(m[2])) > 180) throw new Error('Start: type "latitude, longitude", or pick it on the map.');
    start = { Latitude: Number(m[1]), Longitude: Number(m[2]) };
  } else start = state.vehicles.at(-1)?.StartLocation?.LatLong ?? null;
  if (!start) throw new Error('Start: pick the vehicle\'s start on the map or type "latitude, longitude".');
  const vehicle = { Name: name, StartLocation: { Name: `${name} start`, LatLong: start } };
  if (f.returns.checked) vehicle.FinishLocation = { Name: `${name} finish`, LatLong: start };
  if (f.capacity.value) vehicle.MaxWeight = Number(f.capacity.value);
  if (f.maxStops.value) vehicle.MaxStops = Number(f.maxStops.value);
  if (f.tin.value) vehicle.Tin = f.tin.value;
  if (f.tout.value) vehicle.Tout = f.tout.value;
  if (f.roles.value.trim()) vehicle.Roles = f.roles.value.trim();
  setVehicles([...state.vehicles, vehicle]);
  f.name.value = '';
}

function depotPoints() {
  return state.vehicles.flatMap((v) => [v.StartLocation, v.FinishLocation]).filter((l) => l?.LatLong).map((l) => [l.LatLong.Latitude, l.LatLong.Longitude]);
}

// -------------------------------------------------------------------------------- the dispatch

/** The options of a loaded DispatchSpecification into the form (enums as names or numbers). */
function applyOptions(o) {
  if (o.DispatchMode !== undefined) {
    const given = String(o.DispatchMode).toLowerCase() === 'central' ? 'EqualDistance' : o.DispatchMode;
    $('mode').value = Object.keys(DISPATCH_MODES).find((m) => DISPATCH_MODES[m] === given || m.toLowerCase() === String(given).toLowerCase()) ?? 'Auto';
  }
  if (o.MinimumOptimization !== undefined) $('optimization').value = String(o.MinimumOptimization);
  if (o.DistanceUnit !== undefined) $('unit').value = o.DistanceUnit === 0 || /^mile$/i.test(o.DistanceUnit) ? 'Mile' : 'Kilometer';
  if (o.RouteOptimize !== undefined) $('optimize').value = o.RouteOptimize === 1 || /^minimizedistance$/i.test(o.RouteOptimize) ? 'MinimizeDistance' : 'MinimizeTime';
  state.currentTime = o.CurrentTime;
  if (typeof o.CurrentTime === 'string' && /^\d{4}-\d\d-\d\d/.test(o.CurrentTime)) $('date').value = o.CurrentTime.slice(0, 10);
}

/** The DispatchSpecification of the page's stops, vehicles and options (times of day put on the chosen date). */
function specification() {
  const date = $('date').value || today();
  const vehicles = state.vehicles.map((v) => ({ ...v, Tin: onDate(v.Tin, date), Tout: onDate(v.Tout, date) }));
  const spec = {
    DispatchMode: $('mode').value,
    MinimumOptimization: Math.max(1, Math.round(Number($('optimization').value) || 4)),
    DistanceUnit: $('unit').value,
    RouteOptimize: $('optimize').value,
    Vehicles: vehicles,
    Locations: state.stops.map((l) => ({
      ...l, TimeConstraintArrival: onDate(l.TimeConstraintArrival, date), TimeConstraintDeparture: onDate(l.TimeConstraintDeparture, date),
    })),
  };
  if (state.currentTime) spec.CurrentTime = state.currentTime;
  else if (!vehicles.some((v) => v.Tin)) spec.CurrentTime = `${date}T08:00:00`;
  return spec;
}

function updateRunButton() {
  const busy = state.job !== null;
  $('run').disabled = busy || !state.account || state.stops.length === 0 || state.vehicles.length === 0;
  $('run').title = !state.account ? 'Sign in first' : state.stops.length === 0 ? 'Add stops first' : state.vehicles.length === 0 ? 'Add a vehicle first' : '';
}

function setRunState(kind, text) {
  if (kind === 'failed') console.error(`dispatchkit: ${text}`);
  const el = $('run-state');
  el.dataset.state = kind;
  el.textContent = text;
  document.body.dataset.run = kind;
}

function showProgress(job, started) {
  const bar = $('progress-bar');
  const p = job.Progress;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  let text;
  if (job.State === 'queued') text = 'Queued…';
  else if (!p) text = 'Starting…';
  else if (p.phase === 'dispatch-mode') text = `Mode ${p.info?.mode ?? ''}${p.info?.reason ? ` (${p.info.reason})` : ''}`;
  else if (p.phase === 'dispatch' && p.total > 0) {
    text = `Optimising: ${Math.min(100, Math.round((100 * p.done) / p.total))} %${p.info?.bestCost !== undefined ? ` · best cost ${int(Number(p.info.bestCost))}` : ''}`;
  } else text = `${p.phase}${p.total > 0 ? `: ${p.done} / ${p.total}` : ''}`;
  if (p && p.total > 0 && p.phase !== 'dispatch-mode') {
    bar.max = p.total;
    bar.value = Math.min(p.done, p.total);
  } else bar.removeAttribute('value');
  $('progress-text').textContent = `${text} · ${seconds} s`;
}

async function run(ev) {
  ev.preventDefault();
  if (state.job) return;
  performance.clearMarks('dk-run');
  performance.mark('dk-run');
  const spec = specification();
  clearPlan();
  const started = performance.now();
  $('progress').hidden = false;
  $('cancel').disabled = false;
  setRunState('running', 'Dispatching…');
  const job = api.dispatchJob(spec, (j) => showProgress(j, started));
  state.job = job;
  updateRunButton();
  try {
    const final = await job.done;
    performance.clearMarks('dk-solved');
    performance.mark('dk-solved');
    if (final.State === 'completed') await showResult(spec, final.Result, final.RouteID, started);
    else if (final.State === 'cancelled') setRunState('cancelled', 'Cancelled: nothing was charged.');
    else setRunState('failed', `Failed: ${final.Error ?? 'the dispatch did not finish.'}`);
  } catch (e) {
    setRunState('failed', `Failed: ${e.message}`);
  } finally {
    state.job = null;
    $('progress').hidden = true;
    updateRunButton();
  }
  await refreshCredit();
}

async function showResult(spec, result, routeId, started) {
  if (result.Status === 'Failed') {
    setRunState('failed', `Failed: ${(result.Errors ?? []).map((e) => e.Message).join('; ') || 'no reason given'}`);
    return;
  }
  const geojson = await api.planGeoJson(spec, result);
  const plan = makePlan(spec, result, geojson, routeId);
  state.plan = plan;
  map.showPlan(geojson, plan.unserved, (f) => isDepotFeature(spec, result, f));
  renderResults(plan, map, (e) => toast(e.message));
  $('results').hidden = false;
  map.map.invalidateSize();
  map.fitTo([...geojson.features.filter((f) => f.geometry?.type === 'LineString').flatMap((f) => f.geometry.coordinates.map(([lon, lat]) => [lat, lon])),
    ...plan.unserved.filter((u) => u.location.LatLong).map((u) => [u.location.LatLong.Latitude, u.location.LatLong.Longitude])]);
  performance.clearMarks('dk-plan-drawn');
  performance.mark('dk-plan-drawn');
  if (routeId !== undefined && routeId !== null) followLive(spec, routeId);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  setRunState('completed', `Done in ${seconds} s: ${plan.served} of ${spec.Locations.length} stops served${plan.unserved.length ? `, ${plan.unserved.length} not served` : ''}.`);
}

// -------------------------------------------------------------------------------- live

/** Follows the stored route's live state (vans, stops done, late ones); the re-plan button re-dispatches it from now. */
function followLive(spec, routeId) {
  if (state.live?.routeId === routeId) return;
  state.live?.stop?.();
  state.live = { routeId, spec, orders: [], last: null, stop: null };
  $('live').hidden = false;
  $('changes').hidden = true;
  $('live-state').textContent = 'waiting for the vehicles…';
  state.live.stop = api.followLive(routeId, (live) => showLive(live), (e) => { $('live-state').textContent = e.message; });
}

function showLive(live) {
  const L = state.live;
  if (!L) return;
  L.last = live;
  const where = (name) => {
    const l = [...L.spec.Locations, ...L.orders].find((x) => x.Name === name);
    return l?.LatLong ? [l.LatLong.Latitude, l.LatLong.Longitude] : null;
  };
  map.showLive(live, where, L.orders);
  if (!live) return;
  const vehicles = live.Vehicles ?? [];
  const done = vehicles.reduce((a, v) => a + (v.Done?.length ?? 0), 0);
  const late = vehicles.reduce((a, v) => a + (v.Remaining ?? []).filter((r) => r.Late).length, 0);
  $('live-state').textContent = `version ${live.Version} · as of ${clock(live.AsOf)} · ${done} done · ${late} late${L.orders.length ? ` · ${L.orders.length} new order${L.orders.length === 1 ? '' : 's'} waiting` : ''}`;
  $('live-vehicles').replaceChildren(...vehicles.map((v) => {
    const lateHere = (v.Remaining ?? []).filter((r) => r.Late);
    return h('li', { 'data-vehicle': v.Name }, [
      h('strong', {}, v.Name), ` · ${v.Done?.length ?? 0} done`,
      v.Next ? ` · next ${v.Next} ${clock(v.Remaining?.[0]?.TimeEstimatedArrival)}` : ' · finished',
      v.Position ? '' : ' · no position yet',
      lateHere.length ? h('span', { class: 'late' }, ` · ${lateHere.length} late: ${lateHere.map((r) => r.Name).join(', ')}`) : '',
      // what the driver reports, when the van sends no track (a stop event overrides the track)
      v.Next ? h('span', { class: 'stop-events' },
        h('button', { type: 'button', class: 'link', 'data-event': 'Done', title: `Mark ${v.Next} done`, onclick: guarded(() => stopEvent(v.Name, v.Next, 'Done')) }, 'done'),
        h('button', { type: 'button', class: 'link', 'data-event': 'Skipped', title: `Skip ${v.Next}`, onclick: guarded(() => stopEvent(v.Name, v.Next, 'Skipped')) }, 'skip')) : '',
    ]);
  }));
}

/** A stop event for the route (POST /ui/rest/stopevents): the live state follows. */
async function stopEvent(vehicle, location, event) {
  const L = state.live;
  if (!L) return;
  const r = await api.operation('stopevents', { RouteID: L.routeId, Events: [{ Vehicle: vehicle, Location: location, Event: event, TimeStamp: new Date().toISOString().slice(0, 19) + 'Z' }] });
  if (r.Status === 'Failed') throw new Error((r.Errors ?? []).map((e) => e.Message).join('; '));
  showLive(await api.live(L.routeId));
}

async function replan() {
  const L = state.live;
  if (!L) return;
  $('replan').disabled = true;
  $('live-state').textContent = 'Re-planning…';
  try {
    const orders = L.orders;
    const r = await api.redispatch({ RouteID: L.routeId, CurrentTime: new Date().toISOString().slice(0, 19) + 'Z', Locations: orders });
    if (r.Status === 'Failed') throw new Error((r.Errors ?? []).map((e) => e.Message).join('; ') || 'the re-plan failed');
    L.orders = [];
    const spec = { ...L.spec, Locations: [...L.spec.Locations, ...orders] };
    L.spec = spec;
    // the plan drawn is what is left to do: stops over or cancelled are not "not served"
    const over = new Set([...(L.last?.Vehicles ?? []).flatMap((v) => v.Done ?? []), ...(r.Changes ?? []).filter((c) => c.Change === 'Served' || c.Change === 'Cancelled').map((c) => c.Location)]);
    await showResult({ ...spec, Locations: spec.Locations.filter((l) => !over.has(l.Name)) }, r, r.RouteID, performance.now());
    const changes = (r.Changes ?? []).filter((c) => c.Change !== 'Served');
    $('changes').replaceChildren(
      h('p', {}, `Version ${r.Version}: ${changes.length ? `${changes.length} change${changes.length === 1 ? '' : 's'}` : 'nothing changed'}`),
      h('ul', {}, changes.map((c) => h('li', { 'data-change': c.Change }, `${c.Location}: ${c.Change}${c.FromVehicle && c.ToVehicle && c.FromVehicle !== c.ToVehicle ? ` ${c.FromVehicle} → ${c.ToVehicle}` : c.ToVehicle ? ` on ${c.ToVehicle}` : ''}${c.EtaShift ? ` (${c.EtaShift > 0 ? '+' : ''}${Math.round(c.EtaShift / 60)} min)` : ''}${c.Reason ? ` — ${c.Reason}` : ''}`))),
    );
    $('changes').hidden = false;
    showLive(await api.live(L.routeId));
  } finally {
    $('replan').disabled = false;
  }
}

/** Whether a 'stop' feature of the plan is its vehicle's own start or finish (drawn as a depot). */
function isDepotFeature(spec, result, f) {
  const locations = result.Items?.[f.properties.index]?.Locations ?? [];
  return isVehicleEnd(locations, f.properties.sequence, vehicleNamed(spec.Vehicles, f.properties.vehicle));
}

async function cancel() {
  if (!state.job) return;
  $('cancel').disabled = true;
  $('progress-text').textContent = 'Cancelling…';
  await state.job.cancel();
}

function clearPlan() {
  state.plan = null;
  state.live?.stop?.();
  state.live = null;
  $('live').hidden = true;
  $('results').hidden = true;
  if (!map) return;
  map.map.invalidateSize();
  map.clearPlan();
  map.showStops(state.stops);
}

function exportPlan(kind) {
  const plan = state.plan;
  if (!plan) return;
  const stamp = plan.routeId !== undefined ? `route-${plan.routeId}` : 'dispatch';
  if (kind === 'json') download(`${stamp}.json`, 'application/json', planJson(plan));
  else if (kind === 'csv') download(`${stamp}.csv`, 'text/csv', planCsv(plan));
  else download(`${stamp}.geojson`, 'application/geo+json', planGeoJsonText(plan));
}

// -------------------------------------------------------------------------------- start

async function start() {
  $('mode').replaceChildren(...Object.keys(DISPATCH_MODES).map((m) => h('option', { value: m }, m)));
  $('date').value = today();
  api.whenSignedOut(() => showAccount(null));

  $('signin-form').addEventListener('submit', guarded(signIn));
  $('sign-out').addEventListener('click', guarded(signOut));
  $('stops-file').addEventListener('change', guarded(loadStopsFile));
  $('click-mode').addEventListener('click', () => setClickMode('stops'));
  $('pick-start').addEventListener('click', () => setClickMode('start'));
  $('clear-stops').addEventListener('click', () => setStops([]));
  $('vehicle-form').addEventListener('submit', (ev) => { try { addVehicle(ev); } catch (e) { toast(e.message); } });
  $('run-form').addEventListener('submit', guarded(run));
  $('cancel').addEventListener('click', guarded(cancel));
  $('export-json').addEventListener('click', () => exportPlan('json'));
  $('export-csv').addEventListener('click', () => exportPlan('csv'));
  $('export-geojson').addEventListener('click', () => exportPlan('geojson'));
  $('add-order').addEventListener('click', () => setClickMode('order'));
  $('replan').addEventListener('click', guarded(replan));
  // a date chosen here replaces a loaded specification's CurrentTime
  $('date').addEventListener('change', () => { state.currentTime = undefined; });
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape' && state.clickMode) setClickMode(state.clickMode); });

  const [dataset, account] = await Promise.all([api.dataset(), api.me()]);
  $('dataset-name').textContent = dataset.Name;
  map = new PlanMap($('map'), dataset);
  map.onClick = guarded(mapClicked);
  map.onError = (e) => toast(`The roads could not be drawn: ${e.message}`);
  showAccount(account);
  await map.roadsReady;
  performance.mark('dk-map-ready');
  document.body.dataset.ready = 'true';
}

start().catch((e) => toast(`The page could not start: ${e.message}`));
