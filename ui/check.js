// The page reads its files through the API's own record rules (CheckSpecification, POST
// /ui/rest/check), never its own: what a file means on the page is what it means to the API —
// "Latitude": "43.73" becomes a number, a bad value is refused with the API's message naming the
// field, and a file is taken whole or not at all. The same operation lints the working day
// (stops, vehicles, options) before a run: its warnings are listed under the Run button, its
// errors block the run.
import * as api from './api.js';
import { h } from './format.js';
import { readFileText } from './decode.js';
import { onDate, stopsFromFile } from './stops.js';

const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields that may hold a time of day ("09:30") on the page until a date is applied (lower case). */
const TIME_FIELDS = new Set(['timeconstraintarrival', 'timeconstraintdeparture', 'timeconstraintarrival2', 'timeconstraintdeparture2', 'tin', 'tout']);
const isTimeOfDay = (v) => typeof v === 'string' && /^\s*\d{1,2}:\d\d(:\d\d)?\s*$/.test(v);

/** A copy of `v` with every time of day of a time field put on `date` (the API reads date-times only). */
export function onDateDeep(v, date) {
  if (Array.isArray(v)) return v.map((x) => onDateDeep(x, date));
  if (!isObj(v)) return v;
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = TIME_FIELDS.has(k.toLowerCase()) && isTimeOfDay(x) ? onDate(x.trim(), date) : onDateDeep(x, date);
  return out;
}

/**
 * The record as the API read it (`checked`), cut to the fields `given` names (case-insensitively,
 * recursively): values as the API coerced them, names as the contract spells them, properties the
 * records do not know dropped, defaults the file did not give left out. A time of day the file
 * gave stays one (the page puts it on its date when it runs).
 */
export function asGiven(checked, given) {
  if (Array.isArray(checked)) return checked.map((c, i) => asGiven(c, Array.isArray(given) ? given[i] : undefined));
  if (!isObj(checked) || !isObj(given)) return checked;
  const lower = new Map(Object.keys(given).map((k) => [k.toLowerCase(), k]));
  const out = {};
  for (const [k, v] of Object.entries(checked)) {
    const g = lower.get(k.toLowerCase());
    if (g === undefined || given[g] === null || given[g] === undefined) continue;
    out[k] = TIME_FIELDS.has(k.toLowerCase()) && isTimeOfDay(given[g]) ? given[g].trim() : asGiven(v, given[g]);
  }
  return out;
}

/** CheckSpecification of a DispatchSpecification: `{ Status, Errors, Warnings, Specification? }`. */
export function checkDispatch(specification, { withSpecification = true } = {}) {
  return api.operation('check', { Kind: 'Dispatch', Specification: specification, ReturnSpecification: withSpecification });
}

/** The API's Errors as one message; Locations[i] of a CSV named by its line too. */
function errorText(errors, lines) {
  const messages = (errors ?? []).map((e) => {
    const m = e.Message ?? '';
    const at = lines ? /^Locations\[(\d+)\]/.exec(m) : null;
    return at && lines[Number(at[1])] !== undefined ? `line ${lines[Number(at[1])]} (${m.replace(/:\s/, '): ')}` : m;
  });
  return `${messages.slice(0, 3).join('; ')}${messages.length > 3 ? `; and ${messages.length - 3} more` : ''}`;
}

const OPTIONS = ['DispatchMode', 'MinimumOptimization', 'DistanceUnit', 'RouteOptimize', 'CurrentTime'];

/**
 * A stops file as the API reads it: `{ locations, vehicles?, options?, notes, encoding, warnings }`
 * — CSV rows and JSON Locations (a list, GeoJSON points, or a whole DispatchSpecification with its
 * Vehicles and options) sent through CheckSpecification, its record used. Throws an Error naming
 * the fields (and a CSV's lines) when the API refuses the file: nothing of it is taken.
 */
export async function readStopsFile(file, date) {
  const { text, encoding } = await readFileText(file);
  const parsed = stopsFromFile(file.name, text);
  const raw = parsed.specification ?? { Locations: parsed.locations };
  const res = await checkDispatch(onDateDeep(raw, date));
  if (res.Status === 'Failed') throw new Error(`${file.name}: refused by the API's rules: ${errorText(res.Errors, parsed.lines)}`);
  const record = asGiven(res.Specification ?? {}, raw);
  const options = {};
  for (const k of OPTIONS) if (record[k] !== undefined) options[k] = record[k];
  return {
    locations: record.Locations ?? [],
    vehicles: parsed.specification && Array.isArray(record.Vehicles) ? record.Vehicles : undefined,
    options: parsed.specification ? options : undefined,
    notes: parsed.errors ?? [],
    encoding,
    warnings: res.Warnings ?? [],
  };
}

// ------------------------------------------------------------------------------------ the linter

/** How long the working day must stay unchanged before it is checked (ms). */
const LINT_DELAY_MS = 400;
/** Warnings listed at most (a count says how many more). */
const LINT_SHOWN = 12;

/**
 * Lints the working day under the Run button (`el`, the list `data-testid="lint"`): `schedule()`
 * after each change, debounced; the answer of the latest change only is shown. `specification()`
 * gives the DispatchSpecification to check, `ready()` whether to check at all (signed in, stops
 * or vehicles), `onChange()` is told when the errors (which block a run) change.
 */
export class Linter {
  constructor(el, { specification, ready, onChange }) {
    this.el = el;
    this.specification = specification;
    this.ready = ready;
    this.onChange = onChange;
    this.timer = null;
    this.seq = 0;
    this.errors = [];
    this.warnings = [];
  }

  schedule() {
    clearTimeout(this.timer);
    this.seq++;
    if (!this.ready()) {
      this.show([], []);
      return;
    }
    this.el.dataset.state = 'pending';
    this.timer = setTimeout(() => { this.run().catch((e) => this.failed(e)); }, LINT_DELAY_MS);
  }

  /** Drops a check on its way (signing out: it would meet the ended session). */
  cancel() {
    clearTimeout(this.timer);
    this.seq++;
  }

  async run() {
    const seq = ++this.seq;
    const res = await checkDispatch(this.specification(), { withSpecification: false });
    if (seq !== this.seq) return; // a later change is on its way
    this.show(res.Status === 'Failed' ? (res.Errors ?? []).map((e) => e.Message ?? '') : [], res.Warnings ?? []);
  }

  failed(e) {
    if (e instanceof api.ApiError && e.status === 401) return;
    this.el.dataset.state = 'idle';
    console.warn(`dispatchkit: the check before running failed: ${e.message}`);
  }

  /** The message that blocks a run, or ''. */
  blocking() {
    return this.errors.length ? `Fix first: ${this.errors[0]}` : '';
  }

  show(errors, warnings) {
    this.errors = errors;
    this.warnings = warnings;
    this.el.dataset.state = 'done';
    const items = [
      ...errors.map((m) => h('li', { class: 'error', 'data-error': '' }, m)),
      ...warnings.slice(0, LINT_SHOWN).map((w) => h('li', { 'data-code': w.Code, 'data-path': w.Path, title: w.Code }, `${w.Path ? `${w.Path}: ` : ''}${w.Message}`)),
    ];
    if (warnings.length > LINT_SHOWN) items.push(h('li', { class: 'muted' }, `… and ${warnings.length - LINT_SHOWN} more warnings`));
    this.el.replaceChildren(...items);
    this.el.hidden = items.length === 0;
    this.onChange?.();
  }
}
