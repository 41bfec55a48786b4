// A dispatch's plan as the page uses it: the routes of a DispatchResult with their figures, the
// stops left out with their reasons, and the exports (the DispatchResult as JSON, CSV, GeoJSON).

/**
 * Whether a VehicleItem's Location is the vehicle's own start (first) or finish (last), not a
 * stop: the result repeats them under their names (unnamed ones without a name; the page names
 * every stop, so an unnamed first or last Location is the vehicle's own).
 */
export function isVehicleEnd(locations, k, vehicle) {
  const l = locations[k];
  if (l.LocationType === 'Start' || l.LocationType === 'Finish') return true;
  if (k === 0 && vehicle?.StartLocation && l.Name === vehicle.StartLocation.Name) return true;
  return k === locations.length - 1 && k > 0 && !!vehicle?.FinishLocation && l.Name === vehicle.FinishLocation.Name;
}

/** The vehicle of the specification a VehicleItem belongs to (a trip is named `<Name>_k`). */
export function vehicleNamed(vehicles, name) {
  return vehicles.find((v) => v.Name === name) ?? vehicles.find((v) => v.Name !== undefined && name?.startsWith(`${v.Name}_`) && /^\d+$/.test(name.slice(v.Name.length + 1)));
}

/**
 * The plan of `result` (made from `specification`), with the GeoJSON the server drew it as.
 * routes: per VehicleItem {index, vehicle, spec (the Vehicle), color, rows, stops, distance, time, weight, capacity};
 * rows: per Location {location, end (the vehicle's start/finish), visit (1, 2, … for stops), load (weight delivered so far)};
 * unserved: [{index, location, reason}] (from the result's Errors, which name Locations[i]); notes: the other Errors.
 */
export function makePlan(specification, result, geojson, routeId) {
  const vehicles = specification.Vehicles ?? [];
  const colors = new Map();
  for (const f of geojson?.features ?? []) if (f.properties.kind === 'vehicle-route') colors.set(f.properties.index, f.properties.color);
  const routes = (result.Items ?? []).map((item, index) => {
    const spec = vehicleNamed(vehicles, item.Vehicle?.Name);
    const locations = item.Locations ?? [];
    let visit = 0;
    let load = 0;
    const rows = locations.map((location, k) => {
      const end = isVehicleEnd(locations, k, spec);
      if (!end) {
        visit++;
        load += location.Weight ?? 0;
      }
      return { location, end, visit: end ? null : visit, load };
    });
    return {
      index, vehicle: item.Vehicle?.Name ?? `Vehicle ${index + 1}`, spec, color: colors.get(index) ?? '#555',
      rows, stops: visit, weight: load, capacity: spec?.MaxWeight ?? 0,
      distance: locations.reduce((a, l) => a + (l.Distance ?? 0), 0),
      time: locations.reduce((a, l) => a + (l.Time ?? 0), 0),
      start: clockOf(locations[0]?.TimeEstimatedArrival), end: clockOf(locations.at(-1)?.TimeEstimatedArrival),
    };
  });
  const unserved = [];
  const notes = [];
  if (Array.isArray(result.Unserved)) {
    // an EvaluatePlanResult: each stop left out with what would make it fit; the other Errors are notes
    for (const u of result.Unserved) {
      const location = specification.Locations?.[u.Index];
      if (location) unserved.push({ index: u.Index, location, reason: u.Message ?? '', fit: u });
    }
    const out = new Set(result.Unserved.map((u) => u.Location));
    for (const e of result.Errors ?? []) if (![...out].some((n) => (e.Message ?? '').includes(`'${n}'`))) notes.push(e.Message ?? '');
  } else for (const e of result.Errors ?? []) {
    const message = e.Message ?? '';
    // a dispatch names Locations[i]; a re-dispatch names its stops (the route's) by Name
    const m = /\(Locations\[(\d+)\]\)/.exec(message);
    const byName = !m && /^'(.*?)' was not dispatched/.exec(message);
    const i = m ? Number(m[1]) : byName ? (specification.Locations ?? []).findIndex((l) => l.Name === byName[1]) : -1;
    const location = specification.Locations?.[i];
    if (location) unserved.push({ index: i, location, reason: message.replace(/^.*? was not dispatched: /, '') });
    else notes.push(message);
  }
  return {
    specification, result, geojson, routeId, routes, unserved, notes,
    unit: specification.DistanceUnit === 'Mile' ? 'Mile' : 'Kilometer',
    served: routes.reduce((a, r) => a + r.stops, 0),
  };
}

const clockOf = (t) => (t && !t.startsWith('0001-') ? t : undefined);

// ---------------------------------------------------------------------------------------- exports

/** The DispatchResult as the service answered it (enum names). */
export function planJson(plan) {
  return JSON.stringify(plan.result, null, 2);
}

/**
 * One CSV field, quoted when it holds a separator, quote or line break; text a spreadsheet would
 * run as a formula (it begins with = + - @, a tab or a carriage return: OWASP's "CSV injection")
 * gets a leading ', numbers (-8.61) stay numbers — the rule of the CLI's csvField (src/cli/csv.ts).
 */
export const csvField = (v) => {
  const s = v === undefined || v === null ? '' : String(v);
  const t = typeof v !== 'number' && /^[=+\-@\t\r]/.test(s) && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? `'${s}` : s;
  return /[",;\t\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
};

/** One row per Location of every route in order, then the stops left out with their reasons. */
export function planCsv(plan) {
  const head = ['Vehicle', 'Sequence', 'Name', 'LocationType', 'Latitude', 'Longitude', 'TimeEstimatedArrival',
    `Distance (${plan.unit === 'Mile' ? 'mi' : 'km'})`, 'Time (s)', 'Wait (s)', 'Weight', 'Load', 'Served', 'Reason'];
  const lines = [head];
  for (const r of plan.routes) {
    r.rows.forEach(({ location: l, visit, load }, k) => {
      lines.push([r.vehicle, k, l.Name, visit === null ? (k === 0 ? 'Start' : 'Finish') : l.LocationType, l.LatLong?.Latitude, l.LatLong?.Longitude,
        clockOf(l.TimeEstimatedArrival) ?? '', l.Distance, l.Time, l.Wait, l.Weight, load, 'yes', '']);
    });
  }
  for (const u of plan.unserved) {
    const l = u.location;
    lines.push(['', '', l.Name, l.LocationType ?? 'Midway', l.LatLong?.Latitude, l.LatLong?.Longitude, '', '', '', l.Wait, l.Weight, '', 'no', u.reason]);
  }
  return lines.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** The plan drawn on the roads (vehicle routes and stops, as /ui/plan-geojson gives it) and the stops left out (kind 'unserved'). */
export function planGeoJsonText(plan) {
  const unserved = plan.unserved.filter((u) => u.location.LatLong).map((u) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [u.location.LatLong.Longitude, u.location.LatLong.Latitude] },
    properties: { kind: 'unserved', Name: u.location.Name, reason: u.reason, Locations: u.index },
  }));
  return JSON.stringify({ type: 'FeatureCollection', features: [...(plan.geojson?.features ?? []), ...unserved] });
}

/** Saves text as a file (a download the browser names `name`). */
export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
