// The plan as a day's work: moves checked on the roads before they are applied (EvaluatePlan),
// locks (a stop to its vehicle, a stop in its place, a whole route) and re-optimising the rest,
// a stop's panel (move, lock, edit, delete: the keyboard's way to everything a drag does), and
// undo/redo of the session's edits. The page (app.js) owns the state; this module changes it
// through `ctx` (see `attach`).
import * as api from './api.js';
import { clock, distance, duration, h } from './format.js';
import { makePlan } from './plan.js';

/** Plans of more stops than this are not checked move by move (the first check computes their whole matrix). */
export const EVALUATE_MAX_STOPS = 1000;

/** The plan's routes as EvaluatePlan takes them: per vehicle (trip), its Locations' names in order, ends left out. */
export function routesOf(plan) {
  return plan.routes.map((r) => ({ Vehicle: r.vehicle, Locations: r.rows.filter((x) => !x.end).map((x) => x.location.Name) }));
}

/**
 * `routes` with the stop `name` taken from wherever it is and put on `vehicle` before its
 * `position`-th stop (counting stops only: breaks and reloads keep their places); a vehicle with
 * no route gets one.
 */
export function movedRoutes(routes, name, vehicle, position, isStop = () => true) {
  const out = routes.map((r) => ({ Vehicle: r.Vehicle, Locations: r.Locations.filter((n) => n !== name) }));
  let target = out.find((r) => r.Vehicle === vehicle);
  if (!target) out.push((target = { Vehicle: vehicle, Locations: [] }));
  let k = 0, at = target.Locations.length;
  for (let i = 0; i < target.Locations.length; i++) {
    if (!isStop(target.Locations[i])) continue;
    if (k === position) { at = i; break; }
    k++;
  }
  target.Locations.splice(at, 0, name);
  return out;
}

/** The trip's vehicle: `Van_2` → `Van` when the specification has a `Van`. */
export function baseVehicle(spec, name) {
  if ((spec.Vehicles ?? []).some((v) => v.Name === name)) return name;
  const m = /^(.*)_(\d+)$/.exec(name ?? '');
  return m && (spec.Vehicles ?? []).some((v) => v.Name === m[1]) ? m[1] : name;
}

/**
 * The specification to re-optimise with the locks: whole locked routes leave it (they stay as they
 * are), a stop locked to its vehicle is pre-assigned to it (Location.Vehicle), a stop locked in
 * place also keeps its order among that vehicle's locked-in-place stops (KeepSameOrder, given in
 * route order). Returns {spec, kept} — kept: the locked routes' items, put back after the solve.
 */
export function lockedSpecification(spec, plan, locks) {
  const kept = plan.routes.filter((r) => locks.routes.has(r.vehicle));
  const keptStops = new Set(kept.flatMap((r) => r.rows.filter((x) => !x.end).map((x) => x.location.Name)));
  const keptVehicles = new Set(kept.map((r) => baseVehicle(spec, r.vehicle)));
  const where = new Map();
  for (const r of plan.routes) r.rows.forEach((x, i) => { if (!x.end) where.set(x.location.Name, { vehicle: r.vehicle, i }); });
  const locations = spec.Locations.filter((l) => !keptStops.has(l.Name)).map((l) => {
    const lock = locks.stops.get(l.Name);
    const w = where.get(l.Name);
    if (!lock || !w) return l;
    const v = baseVehicle(spec, w.vehicle);
    return lock === 'place' ? { ...l, Vehicle: v, KeepSameOrder: true } : { ...l, Vehicle: v };
  });
  // locked-in-place stops in their route order (KeepSameOrder keeps the order given)
  const placed = locations.filter((l) => l.KeepSameOrder && locks.stops.get(l.Name) === 'place')
    .sort((a, b) => (where.get(a.Name).vehicle === where.get(b.Name).vehicle ? where.get(a.Name).i - where.get(b.Name).i : 0));
  let k = 0;
  const ordered = locations.map((l) => (l.KeepSameOrder && locks.stops.get(l.Name) === 'place' ? placed[k++] : l));
  return {
    spec: { ...spec, Vehicles: spec.Vehicles.filter((v) => !keptVehicles.has(v.Name)), Locations: ordered },
    kept: kept.map((r) => plan.result.Items[r.index]),
  };
}

/** What a move changes, in words: distance, driving time, the objective, and what it breaks. */
export function moveSummary(before, after, unit) {
  const dd = (after.Distance ?? 0) - (before.Distance ?? 0);
  const dt = (after.Time ?? 0) - (before.Time ?? 0);
  const sign = (x, f) => `${x >= 0 ? '+' : '−'}${f(Math.abs(x))}`;
  return {
    distance: sign(dd, (x) => distance(x, unit)), time: sign(dt, duration), cost: (after.Cost ?? 0) - (before.Cost ?? 0),
    violations: after.Violations ?? [],
    newViolations: (after.Violations ?? []).filter((v) => !(before.Violations ?? []).some((w) => w.Kind === v.Kind && w.Location === v.Location && w.Vehicle === v.Vehicle)),
  };
}

/**
 * Wires the work tools to the page. `ctx`: { state (app state: stops, vehicles, plan, locks,
 * history), specification(), planFrom(spec, result, routeId) → Promise<plan>, draw(plan),
 * setStops(stops, {keepPlan}), toast(msg, kind), map, runLocked(spec) → Promise<DispatchResult|null>,
 * $ }.
 */
export function attach(ctx) {
  const { state, $ } = ctx;
  state.locks ??= { stops: new Map(), routes: new Set() };
  state.history ??= { past: [], future: [] };
  let pending = null;

  const snapshot = () => ({ stops: state.stops, vehicles: state.vehicles, plan: state.plan, locks: { stops: new Map(state.locks.stops), routes: new Set(state.locks.routes) } });
  /** Records the state before an edit (undo goes back to it). */
  function remember() {
    state.history.past.push(snapshot());
    if (state.history.past.length > 100) state.history.past.shift();
    state.history.future = [];
    updateHistoryButtons();
  }
  function restore(s) {
    state.locks = s.locks;
    ctx.setStops(s.stops, { keepPlan: true });
    state.vehicles = s.vehicles;
    state.plan = s.plan;
    if (s.plan) ctx.draw(s.plan); else ctx.clearPlanView();
  }
  function undo() {
    const s = state.history.past.pop();
    if (!s) return;
    state.history.future.push(snapshot());
    restore(s);
    updateHistoryButtons();
    ctx.toast('Undone.', 'info');
  }
  function redo() {
    const s = state.history.future.pop();
    if (!s) return;
    state.history.past.push(snapshot());
    restore(s);
    updateHistoryButtons();
    ctx.toast('Redone.', 'info');
  }
  function updateHistoryButtons() {
    $('undo').disabled = state.history.past.length === 0;
    $('redo').disabled = state.history.future.length === 0;
  }

  const stopNames = () => new Set((state.plan?.specification.Locations ?? []).filter((l) => l.LocationType !== 'Break' && l.LocationType !== 'MidwayDrop').map((l) => l.Name));

  /** Evaluates `routes` on the current specification; the EvaluatePlanResult (thrown when Failed). */
  async function evaluate(routes, spec = state.plan.specification) {
    const r = await api.operation('evaluate', { Specification: spec, Routes: routes });
    if (r.Status === 'Failed') throw new Error((r.Errors ?? []).map((e) => e.Message).join('; ') || 'the plan could not be checked');
    return r;
  }

  /** A move proposed (a drop, or the panel's "Move"): checked on the roads, shown, applied on request. */
  async function propose(name, vehicle, position) {
    const plan = state.plan;
    if (!plan) return;
    if (state.locks.routes.has(vehicle)) { ctx.toast(`${vehicle}'s route is locked: unlock it first.`, 'warning'); return; }
    const from = plan.routes.find((r) => r.rows.some((x) => !x.end && x.location.Name === name));
    if (from && state.locks.routes.has(from.vehicle)) { ctx.toast(`${from.vehicle}'s route is locked: unlock it first.`, 'warning'); return; }
    if (plan.specification.Locations.length > EVALUATE_MAX_STOPS) { ctx.toast(`Moves are checked on plans of up to ${EVALUATE_MAX_STOPS} stops; re-optimise instead.`, 'warning'); return; }
    const started = performance.now();
    const names = stopNames();
    const routes = movedRoutes(routesOf(plan), name, vehicle, position, (n) => names.has(n));
    const panel = $('move-check');
    panel.hidden = false;
    panel.dataset.state = 'checking';
    panel.replaceChildren(h('p', {}, `Checking ${name} on ${vehicle}…`));
    let after;
    try {
      after = await evaluate(routes);
    } catch (e) {
      panel.dataset.state = 'failed';
      panel.replaceChildren(h('p', { class: 'error' }, e.message), h('div', { class: 'row' }, h('button', { type: 'button', 'data-testid': 'move-cancel', onclick: cancelMove }, 'Close')));
      return;
    }
    pending = { name, vehicle, position, result: after };
    const s = moveSummary(plan.result, after, plan.unit);
    const eta = after.Items?.flatMap((it) => it.Locations ?? []).find((l) => l.Name === name)?.TimeEstimatedArrival;
    panel.dataset.state = after.Feasible ? 'ok' : 'broken';
    panel.replaceChildren(
      h('p', {}, h('strong', {}, `${name} → ${vehicle}, stop ${position + 1}`), eta ? ` · ETA ${clock(eta)}` : '',
        ` · ${s.distance} · ${s.time} driving · cost ${s.cost >= 0 ? '+' : '−'}${Math.abs(Math.round(s.cost))}`),
      after.Feasible
        ? h('p', { class: 'ok' }, '✓ Every window, capacity and shift holds.')
        : h('ul', { class: 'violations' }, s.violations.map((v) => h('li', { 'data-kind': v.Kind, class: s.newViolations.includes(v) ? 'new' : '' }, v.Message))),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'primary', 'data-testid': 'move-commit', onclick: () => commit() }, after.Feasible ? 'Apply' : 'Apply anyway'),
        h('button', { type: 'button', 'data-testid': 'move-cancel', onclick: cancelMove }, 'Cancel')),
    );
    panel.querySelector('[data-testid="move-commit"]').focus();
    performance.clearMarks('dk-move-checked');
    performance.mark('dk-move-checked');
    panel.dataset.ms = String(Math.round(performance.now() - started));
  }

  function cancelMove() {
    pending = null;
    $('move-check').hidden = true;
  }

  async function commit() {
    if (!pending) return;
    const { result, name } = pending;
    pending = null;
    $('move-check').hidden = true;
    remember();
    await apply(state.plan.specification, result);
    ctx.toast(`${name} moved.`, 'info');
  }

  /** Shows an evaluated plan as the working plan (the map's lines redrawn). */
  async function apply(spec, result) {
    const plan = await ctx.planFrom(spec, result, state.plan?.routeId, { previous: state.plan });
    state.plan = plan;
    ctx.draw(plan);
    performance.clearMarks('dk-plan-updated');
    performance.mark('dk-plan-updated');
  }

  // ---- locks and re-optimise
  function lockStop(name, how) {
    remember();
    if (how) state.locks.stops.set(name, how); else state.locks.stops.delete(name);
    ctx.draw(state.plan);
  }
  function lockRoute(vehicle) {
    remember();
    if (state.locks.routes.has(vehicle)) state.locks.routes.delete(vehicle); else state.locks.routes.add(vehicle);
    ctx.draw(state.plan);
  }
  async function reoptimise() {
    const plan = state.plan;
    if (!plan) return;
    const { spec, kept } = lockedSpecification(plan.specification, plan, state.locks);
    if (spec.Vehicles.length === 0) { ctx.toast('Every route is locked: nothing to re-optimise.', 'warning'); return; }
    const result = await ctx.runLocked(spec);
    if (!result || result.Status === 'Failed') return;
    remember();
    // the locked routes back beside the new ones, then the whole plan checked and timed once
    const merged = { ...result, Items: [...kept, ...(result.Items ?? [])] };
    const whole = plan.specification;
    let final = merged;
    if (whole.Locations.length <= EVALUATE_MAX_STOPS) {
      final = await evaluate(routesOf(makePlan(whole, merged, null)), whole);
    }
    await apply(whole, final);
    const moved = countMoves(plan, state.plan);
    ctx.toast(`Re-optimised: ${moved} stop${moved === 1 ? '' : 's'} changed vehicle; ${state.locks.stops.size + kept.reduce((a, it) => a + (it.Locations?.length ?? 0), 0) > 0 ? 'locks kept.' : 'nothing was locked.'}`, 'info');
  }

  // ---- the stop's panel: what a drag does, from the keyboard too; lock, edit, delete
  function openStop(name) {
    const plan = state.plan;
    const spec = plan?.specification ?? { Locations: state.stops, Vehicles: state.vehicles };
    const i = state.stops.findIndex((l) => l.Name === name);
    const l = state.stops[i];
    if (!l) return;
    const route = plan?.routes.find((r) => r.rows.some((x) => !x.end && x.location.Name === name));
    const row = route?.rows.find((x) => !x.end && x.location.Name === name);
    const lock = state.locks.stops.get(name) ?? '';
    const vehicles = [...(plan?.routes.map((r) => r.vehicle) ?? []), ...(spec.Vehicles ?? []).map((v) => v.Name)].filter((v, k, a) => v && a.indexOf(v) === k);
    const dlg = $('stop-panel');
    const hm = (t) => (typeof t === 'string' ? (/T(\d\d:\d\d)/.exec(t)?.[1] ?? t) : '');
    const form = h('form', { class: 'grid-form', autocomplete: 'off' },
      h('label', {}, 'From', h('input', { name: 'from', type: 'time', value: hm(l.TimeConstraintArrival) })),
      h('label', {}, 'To', h('input', { name: 'to', type: 'time', value: hm(l.TimeConstraintDeparture) })),
      h('label', {}, 'Service (min)', h('input', { name: 'wait', type: 'number', min: '0', step: 'any', value: l.Wait ? String(l.Wait / 60) : '' })),
      h('label', {}, 'Weight', h('input', { name: 'weight', type: 'number', min: '0', step: 'any', value: l.Weight ?? '' })),
      h('label', {}, 'Priority', h('input', { name: 'priority', type: 'number', step: '1', value: l.Priority ?? '' })),
      h('label', {}, 'Vehicle (pre-assigned)', h('select', { name: 'vehicle' }, h('option', { value: '' }, 'any'),
        (spec.Vehicles ?? []).map((v) => h('option', { value: v.Name, selected: l.Vehicle === v.Name }, v.Name)))),
      h('div', { class: 'row wide' },
        h('button', { type: 'submit', class: 'primary', 'data-testid': 'stop-save' }, 'Save'),
        h('button', { type: 'button', class: 'danger', onclick: () => { close(); deleteStop(name); } }, 'Delete stop')));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const f = form.elements;
      const edit = {
        TimeConstraintArrival: f.from.value || undefined, TimeConstraintDeparture: f.to.value || undefined,
        Wait: f.wait.value === '' ? undefined : Math.round(Number(f.wait.value) * 60), Weight: f.weight.value === '' ? undefined : Number(f.weight.value),
        Priority: f.priority.value === '' ? undefined : Number(f.priority.value), Vehicle: f.vehicle.value || undefined,
      };
      close();
      ctx.guard(() => editStop(name, edit))();
    });
    const move = h('form', { class: 'row move-form' },
      h('label', {}, 'Move to ', h('select', { name: 'vehicle', 'aria-label': 'Vehicle' }, vehicles.map((v) => h('option', { value: v, selected: v === route?.vehicle }, v)))),
      h('label', {}, ' as stop ', h('input', { name: 'position', type: 'number', min: '1', step: '1', value: String(row?.visit ?? 1), style: 'width:5em', 'aria-label': 'Position' })),
      h('button', { type: 'submit', 'data-testid': 'move-to' }, 'Check'));
    move.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const f = move.elements;
      close();
      ctx.guard(() => propose(name, f.vehicle.value, Math.max(0, Number(f.position.value) - 1)))();
    });
    const close = () => { dlg.hidden = true; ctx.restoreFocus(); };
    dlg.replaceChildren(
      h('div', { class: 'dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'stop-panel-title' },
        h('h2', { id: 'stop-panel-title' }, name),
        h('p', { class: 'muted' }, route ? `${route.vehicle} · stop ${row.visit} · ETA ${clock(row.location.TimeEstimatedArrival)}` : plan ? 'Not served' : 'Not dispatched yet'),
        plan && route ? h('div', { class: 'row' },
          h('button', { type: 'button', 'data-testid': 'lock', 'data-stop': name, 'aria-pressed': String(lock === 'vehicle'), onclick: () => { close(); lockStop(name, lock === 'vehicle' ? null : 'vehicle'); } }, lock === 'vehicle' ? 'Unlock' : `Lock to ${route.vehicle}`),
          h('button', { type: 'button', 'data-testid': 'lock-place', 'data-stop': name, 'aria-pressed': String(lock === 'place'), onclick: () => { close(); lockStop(name, lock === 'place' ? null : 'place'); } }, lock === 'place' ? 'Unlock' : 'Lock in place')) : null,
        plan ? move : null,
        h('h3', {}, 'Edit'), form,
        h('div', { class: 'row end' }, h('button', { type: 'button', onclick: close }, 'Close'))));
    dlg.hidden = false;
    dlg.onkeydown = (ev) => { if (ev.key === 'Escape') close(); };
    (dlg.querySelector('select, input, button'))?.focus();
  }

  /** A stop's fields changed: the plan stays, re-timed on the roads with them. */
  async function editStop(name, edit) {
    remember();
    const stops = state.stops.map((l) => {
      if (l.Name !== name) return l;
      const next = { ...l, ...edit };
      for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
      return next;
    });
    ctx.setStops(stops, { keepPlan: true });
    await retime();
    ctx.toast(`${name} changed.`, 'info');
  }

  async function deleteStop(name) {
    remember();
    ctx.setStops(state.stops.filter((l) => l.Name !== name), { keepPlan: true });
    state.locks.stops.delete(name);
    await retime();
    ctx.toast(`${name} deleted.`, 'info');
  }

  /** After the stops changed: the working plan (if any) checked and timed again with them. */
  async function retime() {
    if (!state.plan) return;
    const spec = ctx.specification();
    const names = new Set(spec.Locations.map((l) => l.Name));
    const routes = routesOf(state.plan).map((r) => ({ ...r, Locations: r.Locations.filter((n) => names.has(n)) }));
    if (spec.Locations.length > EVALUATE_MAX_STOPS) { ctx.clearPlanView(); return; }
    await apply(spec, await evaluate(routes, spec));
  }

  /** A stop added (by address or on the map) while a plan is shown: it joins the plan as not served, with the vehicle closest to taking it. */
  async function added() {
    await retime();
  }

  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('reoptimise').addEventListener('click', ctx.guard(reoptimise));
  document.addEventListener('keydown', (ev) => {
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement?.tagName ?? '');
    if (typing || !(ev.ctrlKey || ev.metaKey) || ev.key.toLowerCase() !== 'z') return;
    ev.preventDefault();
    if (ev.shiftKey) redo(); else undo();
  });
  updateHistoryButtons();
  return { propose, openStop, lockRoute, lockStop, reoptimise, remember, retime, added, undo, redo, cancelMove };
}

function countMoves(before, after) {
  const where = new Map();
  for (const r of before.routes) for (const x of r.rows) if (!x.end) where.set(x.location.Name, r.vehicle);
  let n = 0;
  for (const r of after.routes) for (const x of r.rows) if (!x.end && where.has(x.location.Name) && where.get(x.location.Name) !== r.vehicle) n++;
  return n;
}
