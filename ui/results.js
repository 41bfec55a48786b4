// The plan's panel under the map: a summary, the stops left out with their reasons, and per
// route a table (ETAs, distances, loads) and, on request, its turn-by-turn directions.
import * as api from './api.js';
import { clock, distance, duration, h, num } from './format.js';
import { openSheet } from './sheet.js';

/**
 * Fills `#results` with `plan`. `map` is the PlanMap (for highlighting and panning),
 * `onError` shows a failed directions request.
 */
export function renderResults(plan, map, onError, work = null) {
  const total = plan.specification.Locations?.length ?? 0;
  const dist = plan.routes.reduce((a, r) => a + r.distance, 0);
  const time = plan.routes.reduce((a, r) => a + r.time, 0);
  const used = plan.routes.filter((r) => r.stops > 0).length;
  document.getElementById('summary').textContent = [
    `${plan.served} of ${total} stops on ${used} vehicle${used === 1 ? '' : 's'}`,
    distance(dist, plan.unit), `${duration(time)} driving`,
    plan.routeId !== undefined ? `stored as route ${plan.routeId}` : null,
  ].filter(Boolean).join(' · ');

  const unserved = document.getElementById('unserved');
  unserved.replaceChildren();
  unserved.hidden = plan.unserved.length === 0 && plan.notes.length === 0;
  if (plan.unserved.length > 0) {
    // each with why, and (from EvaluatePlan) the vehicle closest to taking it: one click checks that move
    unserved.append(h('h3', {}, `Not served (${plan.unserved.length})`), h('ul', {}, plan.unserved.map((u) => h('li', { 'data-stop': u.location.Name },
      h('button', {
        type: 'button', class: 'link', disabled: !u.location.LatLong,
        onclick: () => u.location.LatLong && map.showPlace(u.location.LatLong.Latitude, u.location.LatLong.Longitude),
      }, u.location.Name ?? `Locations[${u.index}]`),
      ': ', u.reason,
      work && u.fit?.Vehicle ? [' ', h('button', {
        type: 'button', class: 'link', 'data-testid': 'try-fit',
        onclick: () => work.propose(u.location.Name, u.fit.Vehicle, u.fit.Position ?? 0),
      }, u.fit.Fits ? `Put it on ${u.fit.Vehicle}` : `Try ${u.fit.Vehicle} anyway`)] : null))));
  }
  if (plan.notes.length > 0) unserved.append(h('h3', {}, 'Notes'), h('ul', {}, plan.notes.map((n) => h('li', {}, n))));

  const routes = document.getElementById('routes');
  routes.replaceChildren(...plan.routes.map((r, i) => routeSection(plan, r, map, onError, i === 0, work)));
}

function routeSection(plan, r, map, onError, open, work) {
  const loadText = r.capacity > 0 ? `load ${num(r.weight)} / ${num(r.capacity)}` : `load ${num(r.weight)}`;
  const directions = h('div', { class: 'directions' });
  const button = h('button', { type: 'button', class: 'directions-button' }, 'Directions');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      directions.replaceChildren(h('p', { class: 'muted' }, 'Routing…'));
      directions.replaceChildren(await directionsOf(plan, r, map));
    } catch (e) {
      directions.replaceChildren();
      onError(e);
    } finally {
      button.disabled = false;
    }
  });
  const section = h('details', { class: 'route', open, dataset: { vehicle: r.vehicle, index: String(r.index) } },
    h('summary', {},
      h('span', { class: 'swatch', style: `background:${r.color}` }),
      h('strong', {}, r.vehicle),
      h('span', { class: 'muted' }, ` ${r.stops} stop${r.stops === 1 ? '' : 's'} · ${distance(r.distance, plan.unit)} · ${duration(r.time)} · ${loadText}${r.start ? ` · ${clock(r.start)}–${clock(r.end)}` : ''}`)),
    h('div', { class: 'route-body' }, routeTable(plan, r, map, work), h('div', { class: 'row' }, button,
      h('button', { type: 'button', 'data-testid': 'driver-sheet', 'data-vehicle': r.vehicle, onclick: () => openSheet(plan, r, { culture: navigator.language || 'en-US' }) }, 'Driver sheet')), directions));
  section.addEventListener('mouseenter', () => map.highlight(r.index));
  section.addEventListener('mouseleave', () => map.highlight(null));
  if (work) {
    // a stop dragged from a table (or the timeline) onto another route's table: before the row it is dropped on, or last
    section.addEventListener('dragover', (ev) => { ev.preventDefault(); section.classList.add('drop-over'); });
    section.addEventListener('dragleave', () => section.classList.remove('drop-over'));
    section.addEventListener('drop', (ev) => {
      ev.preventDefault();
      section.classList.remove('drop-over');
      const name = ev.dataTransfer.getData('text/plain');
      if (!name) return;
      const target = ev.target.closest?.('tr[data-stop]');
      const stops = r.rows.filter((x) => !x.end && x.location.Name !== name && (x.location.LocationType ?? 'Midway') !== 'Break' && x.location.LocationType !== 'MidwayDrop');
      const k = target ? stops.findIndex((x) => x.location.Name === target.dataset.stop) : -1;
      work.propose(name, r.vehicle, k >= 0 ? k : stops.length);
    });
  }
  return section;
}

function routeTable(plan, r, map, work) {
  let cumulative = 0;
  const body = r.rows.map(({ location: l, visit, load }) => {
    cumulative += l.Distance ?? 0;
    const tr = h('tr', { class: visit === null ? 'end' : undefined },
      h('td', { class: 'num' }, visit ?? '—'),
      h('td', {}, l.Name ?? ''),
      h('td', {}, clock(l.TimeEstimatedArrival)),
      h('td', { class: 'num' }, distance(l.Distance ?? 0, plan.unit)),
      h('td', { class: 'num' }, distance(cumulative, plan.unit)),
      h('td', { class: 'num' }, duration(l.Time ?? 0)),
      h('td', { class: 'num' }, l.Wait ? duration(l.Wait) : ''),
      h('td', { class: 'num' }, l.Weight ? num(l.Weight) : ''),
      h('td', { class: 'num' }, visit === null ? '' : num(load)));
    if (l.LatLong) tr.addEventListener('click', () => map.showPlace(l.LatLong.Latitude, l.LatLong.Longitude));
    if (work && visit !== null && (l.LocationType ?? 'Midway') !== 'Break' && l.LocationType !== 'MidwayDrop') {
      tr.dataset.stop = l.Name;
      tr.draggable = true;
      tr.addEventListener('dragstart', (ev) => { ev.dataTransfer.setData('text/plain', l.Name); ev.dataTransfer.effectAllowed = 'move'; });
    }
    return tr;
  });
  return h('div', { class: 'table-scroll' }, h('table', { class: 'route-table' },
    h('thead', {}, h('tr', {}, ['#', 'Stop', 'ETA', 'Leg', 'Total', 'Driving', 'Service', 'Weight', 'Σ Weight'].map((t) => h('th', {}, t)))),
    h('tbody', {}, body)));
}

/** The route's turn-by-turn directions (CalculateRoute through its Locations in order). */
async function directionsOf(plan, r, map) {
  const locations = r.rows.map(({ location: l }) => ({ Name: l.Name, LatLong: l.LatLong })).filter((l) => l.LatLong);
  if (locations.length < 2) return h('p', { class: 'muted' }, 'This route has no leg to drive.');
  const res = await api.operation('route', {
    Locations: locations,
    RouteOptions: { DistanceUnit: plan.unit, RouteOptimize: plan.specification.RouteOptimize ?? 'MinimizeTime', Culture: navigator.language || 'en-US' },
  });
  if (res.Status === 'Failed') throw new Error(res.Errors?.[0]?.Message ?? 'CalculateRoute failed.');
  const legs = res.Route?.RouteLegs ?? [];
  return h('ol', { class: 'legs' }, legs.map((leg, k) => h('li', {},
    h('div', { class: 'leg-head' }, `${locations[k].Name ?? `Stop ${k}`} → ${locations[k + 1]?.Name ?? `Stop ${k + 1}`}`,
      h('span', { class: 'muted' }, ` ${distance(leg.Distance, plan.unit)} · ${duration(leg.Time)}`)),
    h('ol', { class: 'steps' }, (leg.Itinerary?.Items ?? []).map((it) => {
      const li = h('li', {}, it.Text ?? '',
        it.Distance > 0 ? h('span', { class: 'muted' }, ` ${distance(it.Distance, plan.unit)}`) : null,
        (it.Warnings ?? []).map((w) => h('span', { class: `warning ${String(w.Severity).toLowerCase()}` }, w.Text)));
      if (it.LatLong) li.addEventListener('click', () => map.showPlace(it.LatLong.Latitude, it.LatLong.Longitude));
      return li;
    })))));
}
