// The plan as a timeline (a Gantt view): one row per vehicle (per trip), each stop a block at its
// ETA as long as its service, the drive before it as a thin bar, its window drawn behind, breaks
// and reloads marked, stops that break a rule in red; a last row holds the stops not served.
// Blocks are dragged onto rows (a move, checked before it is applied: see workplan.js) or, from
// the keyboard, opened with Enter (the stop's panel has "Move to…"). Hover links block and map.
import { clock, h, inkOn } from './format.js';

const MIN = 60_000;
/** A record dateTime as milliseconds on one clock (the page never mixes time zones). */
export const ms = (t) => (t && !t.startsWith('0001-') ? Date.parse(/[Zz]|[+-]\d\d:\d\d$/.test(t) ? t : `${t}Z`) : NaN);

/**
 * Draws `plan` (ui/plan.js makePlan) into `el`. `o`: { zoom (1 = the day fits the width),
 * locked(name) → 'vehicle' | 'place' | null, routeLocked(vehicle) → boolean,
 * onOpen(name), onDrop(name, vehicle, position), onHover(name | null), onLockRoute(vehicle) }.
 */
export function renderTimeline(el, plan, o) {
  const rows = timelineRows(plan);
  const times = rows.flatMap((r) => r.blocks.flatMap((b) => [b.start, b.end, b.windowStart, b.windowEnd]).concat([r.start, r.end])).filter(Number.isFinite);
  el.replaceChildren();
  if (times.length === 0) { el.append(h('p', { class: 'muted' }, 'No times to draw: the plan has no clock (give the vehicles a shift or the dispatch a CurrentTime).')); return; }
  // the day: whole hours around the work
  const t0 = Math.floor(Math.min(...times) / (60 * MIN)) * 60 * MIN;
  const t1 = Math.ceil(Math.max(...times) / (60 * MIN)) * 60 * MIN;
  const width = Math.max(400, (el.clientWidth || 900) - 140) * (o.zoom ?? 1);
  const x = (t) => ((t - t0) / (t1 - t0)) * width;
  const tAt = (px) => t0 + (px / width) * (t1 - t0);

  const axis = h('div', { class: 'tl-axis', style: `width:${width}px` });
  for (let t = t0; t <= t1; t += 60 * MIN) axis.append(h('span', { class: 'tl-hour', style: `left:${x(t)}px` }, clock(new Date(t).toISOString())));
  const body = h('div', { class: 'tl-body' }, h('div', { class: 'tl-row tl-head' }, h('div', { class: 'tl-label' }, ''), h('div', { class: 'tl-track' }, axis)));

  for (const r of rows) {
    const track = h('div', { class: 'tl-track', style: `width:${width}px` });
    for (const b of r.blocks) {
      if (Number.isFinite(b.windowStart) || Number.isFinite(b.windowEnd)) {
        const a = Number.isFinite(b.windowStart) ? b.windowStart : t0, z = Number.isFinite(b.windowEnd) ? b.windowEnd : t1;
        track.append(h('div', { class: 'tl-window', style: `left:${x(a)}px;width:${Math.max(2, x(z) - x(a))}px`, title: `${b.name}: window ${clock(iso(b.windowStart))}–${clock(iso(b.windowEnd))}` }));
      }
      if (Number.isFinite(b.driveFrom) && Number.isFinite(b.start) && b.start > b.driveFrom) {
        track.append(h('div', { class: 'tl-drive', style: `left:${x(b.driveFrom)}px;width:${Math.max(1, x(b.arrive) - x(b.driveFrom))}px` }));
      }
    }
    r.blocks.forEach((b, k) => {
      // stops not served have no time: side by side
      const left = r.unserved ? k * 24 : Number.isFinite(b.start) ? x(b.start) : 0;
      const lock = o.locked?.(b.name);
      const label = `${b.name}${r.unserved ? ' (not served)' : `, ${r.vehicle}, ${b.kind === 'stop' ? `stop ${b.visit}, ` : ''}ETA ${clock(iso(b.start))}`}${b.bad ? `: ${b.bad}` : ''}${lock ? `, locked${lock === 'place' ? ' in place' : ''}` : ''}`;
      const el2 = h('div', {
        class: `tl-block tl-${b.kind}${b.bad ? ' tl-bad' : ''}${lock ? ' tl-locked' : ''}`,
        style: `left:${left}px;width:${r.unserved ? 20 : Math.max(8, x(b.end) - x(b.start) || 0)}px;${b.kind === 'stop' && !r.unserved ? `--c:${r.color};color:${b.bad ? '#fff' : inkOn(r.color)}` : ''}`,
        title: label, 'aria-label': label,
        ...(b.kind === 'stop' ? { 'data-testid': 'timeline-stop', 'data-stop': b.name, draggable: 'true', tabindex: '0', role: 'button' } : {}),
      }, b.kind === 'stop' ? (r.unserved ? '×' : String(b.visit)) : b.kind === 'break' ? 'B' : 'R');
      if (b.kind === 'stop') {
        el2.addEventListener('dragstart', (ev) => { ev.dataTransfer.setData('text/plain', b.name); ev.dataTransfer.effectAllowed = 'move'; el2.classList.add('tl-dragging'); });
        el2.addEventListener('dragend', () => el2.classList.remove('tl-dragging'));
        el2.addEventListener('click', () => o.onOpen?.(b.name));
        el2.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); o.onOpen?.(b.name); } });
        el2.addEventListener('mouseenter', () => o.onHover?.(b.name));
        el2.addEventListener('mouseleave', () => o.onHover?.(null));
        el2.addEventListener('focus', () => o.onHover?.(b.name));
        el2.addEventListener('blur', () => o.onHover?.(null));
      }
      track.append(el2);
    });
    const row = h('div', { class: `tl-row${r.unserved ? ' tl-unserved' : ''}`, 'data-testid': r.unserved ? 'timeline-unserved' : 'timeline-row', ...(r.unserved ? {} : { 'data-vehicle': r.vehicle }) },
      h('div', { class: 'tl-label' },
        r.unserved ? h('span', {}, `Not served (${r.blocks.length})`) : [
          h('span', { class: 'swatch', style: `background:${r.color}` }),
          h('span', { class: 'tl-name', title: r.vehicle }, r.vehicle),
          h('button', {
            type: 'button', class: 'link tl-lock', 'data-testid': 'lock', 'data-vehicle': r.vehicle, 'aria-pressed': String(!!o.routeLocked?.(r.vehicle)),
            title: o.routeLocked?.(r.vehicle) ? `Unlock ${r.vehicle}'s route` : `Lock ${r.vehicle}'s route as it is (re-optimise leaves it)`,
            onclick: () => o.onLockRoute?.(r.vehicle),
          }, o.routeLocked?.(r.vehicle) ? 'locked' : 'lock'),
        ]),
      track);
    if (!r.unserved) {
      track.addEventListener('dragover', (ev) => {
        ev.preventDefault();
        ev.dataTransfer.dropEffect = 'move';
        row.classList.add('tl-over');
      });
      track.addEventListener('dragleave', () => row.classList.remove('tl-over'));
      track.addEventListener('drop', (ev) => {
        ev.preventDefault();
        row.classList.remove('tl-over');
        const name = ev.dataTransfer.getData('text/plain');
        if (!name) return;
        const rect = track.getBoundingClientRect();
        const t = tAt(ev.clientX - rect.left);
        // before the first stop of the row that starts after the drop point (the dragged one aside)
        const others = r.blocks.filter((b) => b.kind === 'stop' && b.name !== name);
        let position = others.findIndex((b) => b.start > t);
        if (position < 0) position = others.length;
        o.onDrop?.(name, r.vehicle, position);
      });
    }
    body.append(row);
  }
  el.append(body);
}

const iso = (t) => (Number.isFinite(t) ? new Date(t).toISOString() : undefined);

/**
 * The rows of the timeline: per route {vehicle, color, start, end, blocks}, then the vehicles of
 * the specification with no route (empty rows: a stop can be dropped there), then the stops not
 * served (`unserved: true`). A block: {name, kind ('stop' | 'break' | 'reload'), visit, arrive,
 * start, end, driveFrom, windowStart, windowEnd, bad (what it breaks, in words)}.
 */
export function timelineRows(plan) {
  const bad = new Map();
  for (const v of plan.result.Violations ?? []) if (v.Location) bad.set(v.Location, [bad.get(v.Location), v.Message].filter(Boolean).join('; '));
  const rows = plan.routes.map((r) => {
    const blocks = [];
    let prevEnd = NaN;
    for (const { location: l, end, visit } of r.rows) {
      const eta = ms(l.TimeEstimatedArrival);
      if (end) { prevEnd = eta; continue; }
      const type = l.LocationType ?? 'Midway';
      const kind = type === 'Break' ? 'break' : type === 'MidwayDrop' ? 'reload' : 'stop';
      const service = (l.Wait ?? 0) * 1000;
      // the ETA is the arrival (CanArriveEarly) or the start of service: service starts at the window's opening at the earliest
      const open = ms(l.TimeConstraintArrival);
      const start = Number.isFinite(open) && open > eta ? open : eta;
      blocks.push({
        name: l.Name ?? '', kind, visit, arrive: eta, start, end: start + service, driveFrom: prevEnd - 0,
        windowStart: open, windowEnd: ms(l.TimeConstraintDeparture), bad: bad.get(l.Name) ?? null,
      });
      // the drive to the next stop starts when this one is over
      prevEnd = start + service;
    }
    const first = ms(r.rows[0]?.location.TimeEstimatedArrival);
    const last = ms(r.rows.at(-1)?.location.TimeEstimatedArrival);
    return { vehicle: r.vehicle, color: r.color, start: first, end: last, blocks };
  });
  const used = new Set(plan.routes.map((r) => r.vehicle));
  for (const v of plan.specification.Vehicles ?? []) {
    if (!v?.Name || used.has(v.Name)) continue;
    rows.push({ vehicle: v.Name, color: '#999', start: ms(v.Tin), end: ms(v.Tout), blocks: [] });
  }
  if (plan.unserved.length > 0) {
    rows.push({
      vehicle: null, unserved: true, color: '#c4281c', start: NaN, end: NaN,
      blocks: plan.unserved.map((u, i) => ({
        name: u.location.Name ?? '', kind: 'stop', visit: i + 1, arrive: NaN, start: NaN, end: NaN, driveFrom: NaN,
        windowStart: ms(u.location.TimeConstraintArrival), windowEnd: ms(u.location.TimeConstraintDeparture), bad: u.reason,
      })),
    });
  }
  return rows;
}
