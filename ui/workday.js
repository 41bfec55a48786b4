// The working day kept across reloads, per account: the stops, the vehicles, the run form's
// options, the date and the last plan, in the browser's localStorage under the account's name.
// Another account signing in on the same browser starts from its own day (or an empty one);
// signing out keeps the day for when that account comes back. Nothing here is sent anywhere.

const PREFIX = 'dispatchkit.workday:';
/** Bumped when what is kept changes shape: an older day is then ignored, not misread. */
const VERSION = 1;
/** How long after a change the day is written (ms); a page that is left writes at once. */
const SAVE_DELAY_MS = 300;

const keyOf = (account) => `${PREFIX}${account}`;

/** The run form's fields kept with the day (element ids). */
const FORM = ['mode', 'optimization', 'unit', 'optimize', 'date'];
const formOf = () => Object.fromEntries(FORM.map((id) => [id, document.getElementById(id).value]));
/** The form as the page opened (an account without a kept day starts from it). */
let initialForm = null;

/** Sets the run form's fields from a kept day's `form` (the page's first values without one). */
export function setForm(form) {
  const values = { ...initialForm, ...(form ?? {}) };
  for (const id of FORM) if (values[id] !== undefined) document.getElementById(id).value = values[id];
}

/** What is kept of the page's `state`: the stops, vehicles, options and date, a loaded specification's CurrentTime, the last plan. */
export function dayOf(state) {
  return {
    stops: state.stops, vehicles: state.vehicles, form: formOf(), currentTime: state.currentTime,
    plan: state.plan ? { specification: state.plan.specification, result: state.plan.result, routeId: state.plan.routeId } : null,
  };
}

/** The day kept for `account`, or null. */
export function loadDay(account) {
  try {
    const text = localStorage.getItem(keyOf(account));
    const day = text ? JSON.parse(text) : null;
    return day && day.version === VERSION ? day : null;
  } catch {
    return null;
  }
}

/** Keeps `day` for `account`; a plan too large for the browser's storage is left out first. Returns whether it was kept. */
export function saveDay(account, day) {
  const write = (d) => localStorage.setItem(keyOf(account), JSON.stringify({ ...d, version: VERSION }));
  try {
    write(day);
    return true;
  } catch {
    try {
      if (day.plan) {
        write({ ...day, plan: null });
        console.warn('dispatchkit: the last plan is too large to keep across reloads; the stops and vehicles are kept.');
        return true;
      }
    } catch { /* too large even without the plan */ }
    console.warn("dispatchkit: the working day is too large for the browser's storage: it is not kept across reloads.");
    return false;
  }
}

/**
 * The page's keeper of the day: `open(account)` (on sign-in) returns the day kept for it and starts
 * keeping the page's day for it; `changed()` after each change writes it shortly after (`read()`
 * gives it); `close()` (on sign-out) writes what is pending and stops, so that clearing the page
 * does not touch the account's day.
 */
export class Workday {
  constructor(read) {
    initialForm ??= formOf();
    this.read = read;
    this.account = null;
    this.timer = null;
    this.dirty = false;
    // leaving the page writes the day as it is (a plan's edits included)
    addEventListener('pagehide', () => { this.dirty = true; this.flush(); });
  }

  open(account) {
    this.close();
    const day = loadDay(account);
    this.account = account;
    return day;
  }

  close() {
    this.flush();
    this.account = null;
  }

  /** Changes made while `fn` runs (restoring a day) are not written back. */
  quietly(fn) {
    const account = this.account;
    this.account = null;
    try {
      return fn();
    } finally {
      this.account = account;
    }
  }

  changed() {
    if (this.account === null) return;
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  flush() {
    clearTimeout(this.timer);
    if (this.account === null || !this.dirty) return;
    this.dirty = false;
    saveDay(this.account, this.read());
  }
}
