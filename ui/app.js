// The dispatcher's page: sign in, stops (a file or clicks on the map), vehicles, a dispatch run as
// a job of the service (live progress, cancel), the plan drawn on the dataset's roads, per-route
// tables and directions, exports. No API key ever reaches this script: the session is an
// HttpOnly cookie set by /ui/login.
import * as api from './api.js';
import { clock, h, int, today } from './format.js';
import { PlanMap } from './map.js';
import { download, isVehicleEnd, makePlan, planCsv, planGeoJsonText, planJson, vehicleNamed } from './plan.js';
import { renderResults } from './results.js';
import { onDate } from './stops.js';
import { Linter, readStopsFile } from './check.js';
import { dayOf, setForm, Workday } from './workday.js';
import { renderTimeline } from './timeline.js';
import { attach as attachWork, EVALUATE_MAX_STOPS, routesOf } from './workplan.js';

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
/** The work tools (moves, locks, re-optimise, the stop's panel, undo/redo): workplan.js. */
let work;
/** The check under the Run button (check.js) and the keeper of the working day across reloads, per account (workday.js). */
let lint;
let workday;

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
  if ((account?.Name ?? null) !== workday.account) switchDay(account?.Name ?? null).catch((e) => toast(`The working day could not be restored: ${e.message}`));
  updateRunButton();
}

/** Another account (or none): the page's working day becomes the one kept for it (workday.js), the plan drawn again. */
async function switchDay(name) {
  workday.close();
  const day = name === null ? null : workday.open(name);
  workday.quietly(() => {
    setForm(day?.form);
    state.currentTime = day?.currentTime;
    setVehicles(day?.vehicles ?? []);
    setStops(day?.stops ?? []);
  });
  if (!day?.plan) return;
  await showResult(day.plan.specification, day.plan.result, day.plan.routeId, performance.now());
  if (state.plan) setRunState('idle', 'The last plan, kept from before the reload.');
}

/** The stops, vehicles or options changed: an old run's "Done" goes, the day is kept, the check looks again. */
function dayChanged() {
  if (!state.job) setRunState('idle', '');
  workday?.changed();
  lint?.schedule();
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
  lint.cancel();
  await api.logout();
  showAccount(null);
}

async function refreshCredit() {
  const account = await api.me();
  if (account) showAccount(account);
}

// -------------------------------------------------------------------------------- stops

function setStops(stops, { keepPlan = false } = {}) {
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
    h('td', { class: 'name', title: l.Name }, h('button', { type: 'button', class: 'link', title: `Open ${l.Name}`, onclick: () => work.openStop(l.Name) }, l.Name)),
    h('td', { class: 'num muted' }, l.Weight ? `${l.Weight}` : ''),
    h('td', {}, h('button', { type: 'button', class: 'link', title: `Remove ${l.Name}`, onclick: () => setStops(state.stops.filter((_, k) => k !== i)) }, '×'))));
  $('stop-table').tBodies[0].replaceChildren(...rows);
  if (!keepPlan) clearPlan();
  else map?.showStops(state.plan ? [] : state.stops);
  updateRunButton();
  dayChanged();
}

async function loadStopsFile(ev) {
  const file = ev.target.files?.[0];
  ev.target.value = '';
  if (!file) return;
  // read through the API's record rules (check.js): refused whole, or taken whole
  const parsed = await readStopsFile(file, $('date').value || today());
  const locations = parsed.locations;
  const notes = [...parsed.notes];
  const what = parsed.encoding === 'UTF-8' ? file.name : `${file.name} (read as ${parsed.encoding})`;
  const unplaced = locations.filter((l) => !l.LatLong && l.Address);
  if (unplaced.length > 0) notes.push(...await geocode(unplaced));
  if (parsed.vehicles) setVehicles(parsed.vehicles);
  state.currentTime = undefined;
  if (parsed.options) applyOptions(parsed.options);
  setStops(locations);
  const placed = locations.filter((l) => l.LatLong);
  map.fitTo([...placed.map((l) => [l.LatLong.Latitude, l.LatLong.Longitude]), ...depotPoints()]);
  if (notes.length > 0) toast(`${what}: ${locations.length} stops; ${notes.length} note${notes.length === 1 ? '' : 's'}: ${notes.slice(0, 3).join('; ')}${notes.length > 3 ? '; …' : ''}`, 'warning');
  else toast(`${what}: ${locations.length} stops`, 'info');
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

/** Add by address: the geocoder's candidates listed; the one picked becomes a stop (joining a plan on show as not served). */
async function findAddress(ev) {
  ev.preventDefault();
  const text = $('address').value.trim();
  if (!text) return;
  const list = $('address-candidates');
  list.replaceChildren(h('li', { class: 'muted' }, 'Looking…'));
  const res = await api.operation('geocode', { IsNeedMatchCode: true, Addresses: [{ Street: text }] });
  await refreshCredit();
  const cands = (res.Items?.[0]?.Locations ?? []).filter((l) => l.LatLong).slice(0, 5);
  if (cands.length === 0) { list.replaceChildren(h('li', { class: 'muted' }, `Nothing found for "${text}".`)); return; }
  list.replaceChildren(...cands.map((c) => {
    const a = c.Address ?? {};
    const label = [a.Street, a.PostalCode, a.City].filter(Boolean).join(', ') || `${c.LatLong.Latitude}, ${c.LatLong.Longitude}`;
    return h('li', {}, h('button', {
      type: 'button', class: 'link', 'data-testid': 'address-candidate',
      onclick: guarded(async () => {
        work.remember();
        const name = a.Street || text;
        setStops([...state.stops, { Name: name, LatLong: c.LatLong, Address: c.Address, Weight: 1 }], { keepPlan: !!state.plan });
        list.replaceChildren();
        $('address').value = '';
        map.showPlace(c.LatLong.Latitude, c.LatLong.Longitude, 17);
        if (state.plan) await work.added();
        toast(`${name} added${state.plan ? ': not served until it is placed (see Not served)' : ''}.`, 'info');
      }),
    }, label), h('span', { class: 'muted' }, ` ${c.MatchCode ?? ''}`));
  }));
}

function setClickMode(mode) {
  state.clickMode = state.clickMode === mode ? null : mode;
  $('click-mode').setAttribute('aria-pressed', String(state.clickMode === 'stops'));
  $('pick-start').setAttribute('aria-pressed', String(state.clickMode === 'start'));
  $('add-order').setAttribute('aria-pressed', String(state.clickMode === 'order'));
  map.setPicking(state.clickMode !== null);
}

async function mapClicked(latlng) {
  const LatLong = { Latitude: round6(latlng.lat), Longitude: round6(latlng.lng) };
  if (state.clickMode === 'stops') {
    // with a plan on show, the stop joins it as not served (with the vehicle closest to taking it)
    if (state.plan) work.remember();
    setStops([...state.stops, { Name: `Stop ${state.stops.length + 1}`, LatLong, Weight: 1 }], { keepPlan: !!state.plan });
    if (state.plan) await work.added();
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
      p ? `from ${Number(p.Latitude).toFixed(4)}, ${Number(p.Longitude).toFixed(4)}` : 'no start',
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
  dayChanged();
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
  // the check's Errors block a run (its warnings never do)
  const blocked = lint?.blocking() ?? '';
  $('run').disabled = busy || !state.account || state.stops.length === 0 || state.vehicles.length === 0 || blocked !== '';
  $('run').title = !state.account ? 'Sign in first' : state.stops.length === 0 ? 'Add stops first' : state.vehicles.length === 0 ? 'Add a vehicle first' : blocked;
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

/**
 * The plan of a result (a DispatchResult, or an EvaluatePlanResult), drawn on the roads. A
 * dispatch's result is checked once more by EvaluatePlan (the same Items) for what the page shows
 * beyond it: the rules a plan breaks and, for each stop left out, the vehicle closest to taking it.
 */
async function planFrom(spec, result, routeId, { explain = false, previous = null } = {}) {
  if (explain && !Array.isArray(result.Unserved) && (spec.Locations?.length ?? 0) <= EVALUATE_MAX_STOPS) {
    const routes = routesOf(makePlan(spec, result, null));
    const checked = await api.operation('evaluate', { Specification: spec, Routes: routes }).catch(() => null);
    if (checked && checked.Status !== 'Failed') result = { ...checked, Items: result.Items };
  }
  const geojson = await planGeometry(spec, result, previous);
  return makePlan(spec, result, geojson, routeId);
}

/** A route's identity for its drawing: the vehicle, its places and times. */
const itemKey = (it) => JSON.stringify([it.Vehicle?.Name, (it.Locations ?? []).map((l) => [l.Name, l.LatLong?.Latitude, l.LatLong?.Longitude, l.TimeEstimatedArrival])]);

/**
 * The plan drawn on the roads. Routes unchanged since `previous` (a move changes one or two)
 * keep their drawing; only the others are asked of the server. Each vehicle keeps its colour.
 */
async function planGeometry(spec, result, previous) {
  const items = result.Items ?? [];
  const old = new Map();
  const colorOf = new Map();
  if (previous?.geojson) {
    previous.result.Items?.forEach((it, i) => old.set(itemKey(it), i));
    for (const f of previous.geojson.features) if (f.properties.kind === 'vehicle-route') colorOf.set(f.properties.vehicle, f.properties.color);
  }
  const fresh = items.map((it, i) => (old.has(itemKey(it)) ? -1 : i)).filter((i) => i >= 0);
  if (!previous?.geojson || fresh.length === items.length) return api.planGeoJson(spec, result);
  const drawn = fresh.length > 0 ? await api.planGeoJson(spec, { ...result, Items: fresh.map((i) => items[i]) }) : { features: [] };
  const features = [];
  items.forEach((it, i) => {
    const was = old.get(itemKey(it));
    const from = was !== undefined ? previous.geojson.features.filter((f) => f.properties.index === was && f.properties.kind !== 'unserved')
      : drawn.features.filter((f) => f.properties.index === fresh.indexOf(i));
    for (const f of from) {
      const color = f.properties.kind === 'vehicle-route' ? colorOf.get(f.properties.vehicle) ?? f.properties.color : f.properties.color;
      features.push({ ...f, properties: { ...f.properties, index: i, ...(color ? { color } : {}) } });
    }
  });
  return { ...drawn, type: 'FeatureCollection', features };
}

/** Shows `plan` as the working plan: the map, the timeline, the route tables. */
function draw(plan) {
  const spec = plan.specification;
  map.showPlan(plan.geojson, plan.unserved, (f) => isDepotFeature(spec, plan.result, f));
  map.onStopHover = (name) => highlightStop(name);
  renderResults(plan, map, (e) => toast(e.message), work);
  drawTimeline();
  $('results').hidden = false;
  $('timeline-panel').hidden = false;
  map.map.invalidateSize();
}

function drawTimeline() {
  if (!state.plan) return;
  renderTimeline($('timeline'), state.plan, {
    zoom: Number($('timeline-zoom').value) || 1,
    locked: (name) => state.locks?.stops.get(name) ?? null,
    routeLocked: (v) => state.locks?.routes.has(v) ?? false,
    onOpen: (name) => { lastFocus = document.activeElement; work.openStop(name); },
    onDrop: guarded((name, vehicle, position) => work.propose(name, vehicle, position)),
    onHover: (name) => { map.highlightStop(name); },
    onLockRoute: (v) => work.lockRoute(v),
  });
}

/** A stop hovered on the map: its block on the timeline stands out. */
function highlightStop(name) {
  for (const el of document.querySelectorAll('.tl-block.tl-hover')) el.classList.remove('tl-hover');
  if (name) for (const el of document.querySelectorAll('.tl-block[data-stop]')) if (el.dataset.stop === name) el.classList.add('tl-hover');
}

let lastFocus = null;
function restoreFocus() {
  if (lastFocus && document.contains(lastFocus)) lastFocus.focus();
  else {
    // the element was redrawn: the same stop's block, if any
    const name = lastFocus?.dataset?.stop;
    const again = name && [...document.querySelectorAll('[data-testid="timeline-stop"]')].find((e) => e.dataset.stop === name);
    again?.focus();
  }
}

/** Re-optimise: a dispatch of `spec` (the locks applied) as a job, with progress and cancel; its result, or null. */
async function runLocked(spec) {
  if (state.job) return null;
  const started = performance.now();
  $('progress').hidden = false;
  $('cancel').disabled = false;
  setRunState('running', 'Re-optimising…');
  const job = api.dispatchJob({ ...spec, MinimumOptimization: Math.max(1, Math.round(Number($('optimization').value) || 4)) }, (j) => showProgress(j, started));
  state.job = job;
  updateRunButton();
  try {
    const final = await job.done;
    if (final.State === 'completed') {
      setRunState('completed', `Re-optimised in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
      return final.Result;
    }
    setRunState(final.State === 'cancelled' ? 'cancelled' : 'failed', final.State === 'cancelled' ? 'Cancelled: the plan is as it was.' : `Failed: ${final.Error ?? 'the re-optimisation did not finish.'}`);
    return null;
  } finally {
    state.job = null;
    $('progress').hidden = true;
    updateRunButton();
    await refreshCredit();
  }
}

async function showResult(spec, result, routeId, started) {
  if (result.Status === 'Failed') {
    setRunState('failed', `Failed: ${(result.Errors ?? []).map((e) => e.Message).join('; ') || 'no reason given'}`);
    return;
  }
  const plan = await planFrom(spec, result, routeId, { explain: true });
  const geojson = plan.geojson;
  state.plan = plan;
  state.locks = { stops: new Map(), routes: new Set() };
  draw(plan);
  map.fitTo([...geojson.features.filter((f) => f.geometry?.type === 'LineString').flatMap((f) => f.geometry.coordinates.map(([lon, lat]) => [lat, lon])),
    ...plan.unserved.filter((u) => u.location.LatLong).map((u) => [u.location.LatLong.Latitude, u.location.LatLong.Longitude])]);
  performance.clearMarks('dk-plan-drawn');
  performance.mark('dk-plan-drawn');
  if (routeId !== undefined && routeId !== null) followLive(spec, routeId);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  setRunState('completed', `Done in ${seconds} s: ${plan.served} of ${spec.Locations.length} stops served${plan.unserved.length ? `, ${plan.unserved.length} not served` : ''}.`);
  workday.changed();
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
  work?.cancelMove();
  const tl = $('timeline-panel');
  if (tl) tl.hidden = true;
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
  workday = new Workday(() => dayOf(state));
  lint = new Linter($('lint'), { specification, ready: () => !!state.account && (state.stops.length > 0 || state.vehicles.length > 0), onChange: updateRunButton });
  api.whenSignedOut((message) => {
    showAccount(null);
    $('signin-error').textContent = message;
  });
  for (const kind of ['input', 'change']) $('run-form').addEventListener(kind, dayChanged);

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

  work = attachWork({
    state, $, specification, planFrom, draw, toast, runLocked, restoreFocus,
    guard: guarded,
    setStops: (stops, o) => setStops(stops, o),
    clearPlanView: () => clearPlan(),
  });
  $('timeline-zoom').addEventListener('change', drawTimeline);
  $('address-form').addEventListener('submit', guarded(findAddress));
  window.addEventListener('resize', () => { if (state.plan && !$('timeline-panel').hidden) drawTimeline(); });

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
