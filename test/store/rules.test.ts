/**
 * The store's rules (src/store/rules.ts), once, with no database: table tests of each decision,
 * then fast-check properties over random sequences of grants, reservations, charges, settlements
 * and stale releases applied to an in-memory model the way both backends apply them (each
 * account's balance changed by `balanceChanges`, reservations moved only from the state the rule
 * saw). The backends' own behaviour is the shared suite's (store.suite.ts).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EngineError } from '../../src/core/errors.js';
import * as rules from '../../src/store/rules.js';
import {
  NEW_RESERVATION, balanceChanges, checkUsage, guardHolds, isStale, refusalError,
  type AccountFacts, type Refusal, type ReservationFacts, type StaleCandidate, type Writes,
} from '../../src/store/rules.js';
import type { NewRoute } from '../../src/store/types.js';

const acct = (balance: number, more: Partial<AccountFacts> = {}): AccountFacts => ({ id: 7, balance, blocked: false, expiresAt: null, ...more });
const res = (state: ReservationFacts['state'], amount = 10, cost: number | null = null): ReservationFacts => ({ id: 3, accountId: 7, amount, operation: 'Dispatch', state, cost });
const refusal = (d: { ok: boolean; refusal?: Refusal }): string | undefined => (d.ok ? undefined : d.refusal!.reason);
const ROUTE: NewRoute = { name: 'r', owner: 'o', distance: 1, time: 1, stops: 1, vehicles: 1, result: '{}' };

describe('rules: table tests', () => {
  it('grant: any amount on the account, a negative one only within the balance unless allowDebt; a grant that raises a negative balance is allowed', () => {
    const cases: [number, number, boolean, string | undefined, number | undefined][] = [
      // balance, amount, allowDebt → refusal, new balance
      [100, 50, false, undefined, 150],
      [100, -20, false, undefined, 80],
      [100, -100, false, undefined, 0],
      [100, -101, false, 'debt', undefined],
      [100, -101, true, undefined, -1],
      [0, 0, false, undefined, 0],
      [-5, 3, false, undefined, -2],
      [-5, -1, false, 'debt', undefined],
      [-5, -1, true, undefined, -6],
    ];
    for (const [balance, amount, allowDebt, why, after] of cases) {
      const d = rules.grant(acct(balance), { accountId: 7, amount, note: 'n', allowDebt });
      expect(refusal(d), `${balance} ${amount} ${allowDebt}`).toBe(why);
      if (d.ok) {
        expect(d.balance).toBe(after);
        expect(d.writes.entries).toEqual([{ accountId: 7, kind: 'grant', delta: amount, note: 'n', reservationId: null }]);
        expect(balanceChanges(d.writes)).toEqual(new Map([[7, amount]]));
      } else {
        expect(d.refusal).toEqual({ reason: 'debt', accountId: 7, balance, amount });
      }
    }
    expect(refusal(rules.grant(null, { accountId: 9, amount: 5, note: '' }))).toBe('no-account');
    // blocked or expired accounts can be granted credit
    expect(rules.grant(acct(0, { blocked: true, expiresAt: 1 }), { accountId: 7, amount: 5, note: '' }).ok).toBe(true);
  });

  it('the debt refusal names the balance (Conflict)', () => {
    const d = rules.grant(acct(30), { accountId: 7, amount: -50, note: '' });
    const e = refusalError((d as { refusal: Refusal }).refusal);
    expect(e).toBeInstanceOf(EngineError);
    expect(e.code).toBe('Conflict');
    expect(e.message).toContain('the balance is 30');
    expect(e.message).toContain('-20');
    expect(e.details).toEqual({ accountId: 7, balance: 30, amount: -50 });
  });

  it('maySpend: not blocked, not expired at now (expiry is exclusive), the balance covers the amount', () => {
    const cases: [AccountFacts | null, number, number, string | null][] = [
      [acct(10), 10, 5, null],
      [acct(10), 11, 5, 'short'],
      [acct(-3), 1, 5, 'short'],
      [acct(10, { blocked: true }), 1, 5, 'blocked'],
      [acct(10, { expiresAt: 5 }), 1, 5, 'expired'],
      [acct(10, { expiresAt: 6 }), 1, 5, null],
      [null, 1, 5, 'no-account'],
    ];
    for (const [a, amount, now, why] of cases) expect(rules.maySpend(a, { accountId: 7, amount, now })?.reason ?? null).toBe(why);
  });

  it('reserve: a new open reservation and its reserve entry; charge: one charge entry (with its usage); both guarded', () => {
    const r = rules.reserve(acct(50, { expiresAt: 99 }), { accountId: 7, amount: 20, operation: 'Dispatch', instance: 'i1', now: 5 });
    expect(r).toEqual({
      ok: true,
      writes: {
        guard: { accountId: 7, blocked: false, expiresAt: 99, minBalance: 20 },
        newReservation: { accountId: 7, amount: 20, operation: 'Dispatch', instance: 'i1' },
        reservations: [],
        entries: [{ accountId: 7, kind: 'reserve', delta: -20, note: 'Dispatch', reservationId: NEW_RESERVATION }],
      },
    });
    const c = rules.charge(acct(50), { accountId: 7, amount: 6, operation: 'Geocode', now: 5, usage: { operation: 'Geocode', units: 3, unitPrice: 2 } });
    expect(c.ok && c.writes.entries).toEqual([{ accountId: 7, kind: 'charge', delta: -6, note: 'Geocode', reservationId: null }]);
    expect(c.ok && c.writes.usage).toEqual({ operation: 'Geocode', units: 3, unitPrice: 2, accountId: 7, cost: 6, reservationId: null });
    expect(refusal(rules.charge(acct(5), { accountId: 7, amount: 6, operation: 'x', now: 5 }))).toBe('short');
  });

  it('settle: by the reservation\'s state and the cost', () => {
    type Row = [ReservationFacts | null, number, boolean, string | undefined, [string, number][], number | undefined];
    const cases: Row[] = [
      // reservation, cost, settledOk → refusal, entries [kind, delta], cost settled at
      [res('open'), 4, false, undefined, [['refund', 6]], 4],
      [res('open'), 10, false, undefined, [], 10],
      [res('open'), 0, false, undefined, [['refund', 10]], 0],
      [res('open'), 11, false, 'over-amount', [], undefined],
      [res('released'), 4, false, undefined, [['charge', -4]], 4],
      [res('released'), 0, false, undefined, [], 0],
      [res('released'), 11, false, 'over-amount', [], undefined],
      [res('settled', 10, 7), 4, false, 'settled', [], undefined],
      [res('settled', 10, 7), 4, true, undefined, [], 7],
      [res('settled', 10, 7), 11, true, 'over-amount', [], undefined],
      [null, 0, false, 'no-reservation', [], undefined],
    ];
    for (const [r, cost, settledOk, why, entries, at] of cases) {
      const d = rules.settle(r, { reservationId: 3, cost, settledOk });
      const label = `${r?.state} cost ${cost} settledOk ${settledOk}`;
      expect(refusal(d), label).toBe(why);
      if (!d.ok) continue;
      expect(d.writes.entries.map((e) => [e.kind, e.delta]), label).toEqual(entries);
      expect(d.writes.entries.every((e) => e.reservationId === 3 && e.accountId === 7 && e.note === 'Dispatch')).toBe(true);
      expect(d.cost, label).toBe(at);
      expect(d.writes.reservations, label).toEqual(r!.state === 'settled' ? [] : [{ id: 3, from: r!.state, to: 'settled', cost }]);
    }
  });

  it('settle records usage and the route only when it writes', () => {
    const usage = { operation: 'Dispatch', units: 4, unitPrice: 1 };
    const d = rules.settle(res('open'), { reservationId: 3, cost: 4, usage, route: ROUTE });
    expect(d.ok && d.writes.usage).toEqual({ ...usage, accountId: 7, cost: 4, reservationId: 3 });
    expect(d.ok && d.writes.route).toEqual({ accountId: 7, route: ROUTE });
    const late = rules.settle(res('released'), { reservationId: 3, cost: 4, usage });
    expect(late.ok && late.writes.usage).toMatchObject({ cost: 4, reservationId: 3 });
    const done = rules.settle(res('settled', 10, 2), { reservationId: 3, cost: 4, usage, settledOk: true });
    expect(done.ok && done.writes).toEqual({ reservations: [], entries: [] });
  });

  it('isStale: another instance\'s open reservation, not a job\'s, its instance silent for staleMs (else since its creation)', () => {
    const c = (more: Partial<StaleCandidate>): StaleCandidate => ({ ...res('open'), instance: 'dead', createdAt: 0, heartbeat: 100, ...more });
    const p = { instance: 'me', now: 1000, staleMs: 900 };
    const cases: [Partial<StaleCandidate>, boolean][] = [
      [{}, true],
      [{ heartbeat: 101 }, false],
      [{ heartbeat: null, createdAt: 100 }, true],
      [{ heartbeat: null, createdAt: 101 }, false],
      [{ instance: 'me' }, false],
      [{ instance: 'job:abc' }, false],
      [{ instance: 'JOB:abc' }, true],
      [{ instance: 'jobs' }, true],
      [{ state: 'released' }, false],
      [{ state: 'settled' }, false],
    ];
    for (const [more, stale] of cases) expect(isStale(c(more), p), JSON.stringify(more)).toBe(stale);
    const d = rules.releaseStale([c({ id: 1 }), c({ id: 2, instance: 'me' }), c({ id: 3, amount: 4 })], p);
    expect(d.released).toEqual([1, 3]);
    expect(d.writes.map((w) => w.reservations)).toEqual([[{ id: 1, from: 'open', to: 'released', cost: null }], [{ id: 3, from: 'open', to: 'released', cost: null }]]);
    expect(d.writes.map((w) => w.entries.map((e) => [e.kind, e.delta, e.reservationId]))).toEqual([[['refund', 10, 1]], [['refund', 4, 3]]]);
  });

  it('finishJob: once; the reservation settled by settle\'s rule; a free job costs nothing', () => {
    const job = (state: 'queued' | 'active' | 'completed', reservationId: number | null = 3) => ({ id: 'j', accountId: 7, state, reservationId });
    expect(rules.finishJob(null, null, { state: 'failed', cost: 0 })).toEqual({ ok: true, finished: false });
    expect(rules.finishJob(job('completed'), res('open'), { state: 'failed', cost: 0 })).toEqual({ ok: true, finished: false });
    const done = rules.finishJob(job('active'), res('open'), { state: 'completed', cost: 4, result: '{}', route: ROUTE });
    expect(done).toMatchObject({ ok: true, finished: true, cost: 4 });
    const w = (done as { writes: Writes }).writes;
    expect(w.entries.map((e) => [e.kind, e.delta])).toEqual([['refund', 6]]);
    expect(w.job).toEqual({ id: 'j', state: 'completed', cost: 4, result: '{}', error: null });
    expect(w.route).toEqual({ accountId: 7, route: ROUTE });
    const failedLate = rules.finishJob(job('queued'), res('released'), { state: 'failed', cost: 0, error: 'x' });
    expect(failedLate.ok && (failedLate as { writes: Writes }).writes.entries).toEqual([]);
    const pre = rules.finishJob(job('active'), res('settled', 10, 3), { state: 'completed', cost: 8 });
    expect(pre).toMatchObject({ finished: true, cost: 3 });
    expect(rules.finishJob(job('active'), res('settled', 10, 3), { state: 'cancelled', cost: 0 })).toMatchObject({ finished: true, cost: 0 });
    expect(refusal(rules.finishJob(job('active', null), null, { state: 'completed', cost: 1 }) as { ok: boolean; refusal?: Refusal })).toBe('no-reservation-cost');
    const free = rules.finishJob(job('active', null), null, { state: 'completed', cost: 0, usage: { operation: 'Dispatch', units: 5, unitPrice: 0 } });
    expect((free as { writes: Writes }).writes).toMatchObject({ entries: [], reservations: [], usage: { cost: 0, units: 5, reservationId: null } });
  });

  it('jobReservation: an open reservation of the job\'s account', () => {
    const p = { reservationId: 3, accountId: 7 };
    expect(rules.jobReservation({ accountId: 7, state: 'open' }, p)).toBeNull();
    expect(rules.jobReservation(null, p)?.reason).toBe('no-reservation');
    expect(rules.jobReservation({ accountId: 8, state: 'open' }, p)?.reason).toBe('reservation-account');
    expect(rules.jobReservation({ accountId: 7, state: 'settled' }, p)?.reason).toBe('reservation-closed');
    expect(rules.jobReservationError({ reason: 'no-reservation', reservationId: 3 }).code).toBe('InvalidInput');
  });

  it('checkUsage: whole units and unit price ≥ 0, cost = units × unitPrice, else InvalidInput', () => {
    expect(checkUsage(undefined, 5)).toBeNull();
    expect(checkUsage({ operation: 'Geocode', units: 5, unitPrice: 2 }, 10)).toEqual({ operation: 'Geocode', units: 5, unitPrice: 2 });
    expect(checkUsage({ operation: 'Geocode', units: 0, unitPrice: 2 }, 0)).not.toBeNull();
    const bad: [unknown, number][] = [
      [{ operation: 'Geocode', units: 5, unitPrice: 2 }, 9],
      [{ operation: 'Geocode', units: -1, unitPrice: 2 }, -2],
      [{ operation: 'Geocode', units: 1.5, unitPrice: 2 }, 3],
      [{ operation: 'Geocode', units: 1, unitPrice: 0.5 }, 0],
      [{ operation: '', units: 1, unitPrice: 1 }, 1],
      [{ units: 1, unitPrice: 1 }, 1],
      ['5', 5],
    ];
    for (const [u, cost] of bad) expect(() => checkUsage(u as rules.Usage, cost), JSON.stringify(u)).toThrow(expect.objectContaining({ code: 'InvalidInput' }));
  });

  it('audit: ok when balance = Σ ledger and net charged = Σ usage; older charges are a note, not a problem', () => {
    const f = (more: Partial<rules.AuditFacts> = {}): rules.AuditFacts => ({
      accountId: 1, name: 'acme', balance: 80, ledgerSum: 80,
      taken: { recorded: 30, before: 0 }, open: { recorded: 10, before: 0 }, usage: { recorded: 20, before: 0 }, ...more,
    });
    expect(rules.audit(f())).toMatchObject({ ok: true, problems: [], netCharged: 20, usageCost: 20, openReserved: 10 });
    const bad = rules.audit(f({ ledgerSum: 75, usage: { recorded: 15, before: 0 } }));
    expect(bad.ok).toBe(false);
    expect(bad.problems).toEqual([
      'balance 80 ≠ ledger sum 75 (+5)',
      'charged 20 credit(s) for operations but usage records account for 15: 5 charged without a usage record',
    ]);
    expect(rules.audit(f({ usage: { recorded: 25, before: 0 } })).problems[0]).toContain('5 recorded without a charge');
    const old = rules.audit(f({ taken: { recorded: 30, before: 12 }, usage: { recorded: 20, before: 2 } }));
    expect(old).toMatchObject({ ok: true, beforeUsage: { netCharged: 12, usageCost: 2 } });
    expect(old.notes[0]).toMatch(/^before usage was recorded: 12 credit\(s\) charged/);
    expect(rules.audit(f({ balance: -3, ledgerSum: -3 })).notes).toContain('the balance is negative (-3)');
  });

  it('retentionCutoffs: days → instants; suggested defaults', () => {
    expect(rules.SUGGESTED_RETENTION_DAYS).toEqual({ routes: 90, jobs: 30, tracks: 90 });
    expect(rules.retentionCutoffs(100 * 86_400_000, { routes: 90, jobs: 30 })).toEqual({ now: 100 * 86_400_000, routesBefore: 10 * 86_400_000, jobsBefore: 70 * 86_400_000 });
    expect(() => rules.retentionCutoffs(0, { tracks: -1 })).toThrow(expect.objectContaining({ code: 'InvalidInput' }));
  });
});

// ---------------------------------------------------------------- properties

/** The rows a backend holds, and the same application of writes as theirs. */
class Model {
  accounts = new Map<number, AccountFacts>();
  ledger: { accountId: number; kind: string; delta: number; reservationId: number | null }[] = [];
  reservations = new Map<number, ReservationFacts & { instance: string; createdAt: number }>();
  heartbeats = new Map<number | string, number>();
  settlements = new Map<number, number>();
  nextReservation = 1;

  apply(w: Writes, now: number): void {
    // one decision: at most one entry, one reservation change, one balance (PostgreSQL's write relies on it)
    expect(w.entries.length).toBeLessThanOrEqual(1);
    expect(w.reservations.length).toBeLessThanOrEqual(1);
    expect(balanceChanges(w).size).toBeLessThanOrEqual(1);
    for (const r of w.reservations) {
      const row = this.reservations.get(r.id)!;
      expect(row.state).toBe(r.from); // a backend's update is conditional on it
      row.state = r.to;
      row.cost = r.cost;
      if (r.to === 'settled') this.settlements.set(r.id, (this.settlements.get(r.id) ?? 0) + 1);
    }
    let id: number | null = null;
    if (w.newReservation) {
      id = this.nextReservation++;
      this.reservations.set(id, { id, ...w.newReservation, state: 'open', cost: null, createdAt: now });
    }
    for (const e of w.entries) this.ledger.push({ accountId: e.accountId, kind: e.kind, delta: e.delta, reservationId: e.reservationId === NEW_RESERVATION ? id : e.reservationId });
    for (const [a, d] of balanceChanges(w)) this.accounts.get(a)!.balance += d;
  }

  sum(a: number): number {
    return this.ledger.filter((e) => e.accountId === a).reduce((s, e) => s + e.delta, 0);
  }
}

type Op =
  | { t: 'grant'; a: number; amount: number; allowDebt: boolean }
  | { t: 'reserve'; a: number; amount: number; instance: string }
  | { t: 'charge'; a: number; amount: number }
  | { t: 'settle'; r: number; cost: number }
  | { t: 'release'; instance: string; staleMs: number }
  | { t: 'heartbeat'; instance: string }
  | { t: 'block'; a: number; blocked: boolean };

const INSTANCES = ['i1', 'i2', 'job:x'];
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('grant' as const), a: fc.integer({ min: 1, max: 3 }), amount: fc.integer({ min: -60, max: 60 }), allowDebt: fc.boolean() }),
  fc.record({ t: fc.constant('reserve' as const), a: fc.integer({ min: 1, max: 3 }), amount: fc.integer({ min: 1, max: 40 }), instance: fc.constantFrom(...INSTANCES) }),
  fc.record({ t: fc.constant('charge' as const), a: fc.integer({ min: 1, max: 3 }), amount: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ t: fc.constant('settle' as const), r: fc.integer({ min: 1, max: 12 }), cost: fc.integer({ min: 0, max: 45 }) }),
  fc.record({ t: fc.constant('release' as const), instance: fc.constantFrom(...INSTANCES), staleMs: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ t: fc.constant('heartbeat' as const), instance: fc.constantFrom(...INSTANCES) }),
  fc.record({ t: fc.constant('block' as const), a: fc.integer({ min: 1, max: 3 }), blocked: fc.boolean() }),
);

describe('rules: properties', () => {
  it('over random sequences: balance = Σ ledger always; a reservation settles once, at no more than its amount; the balance goes below zero only by allowDebt or a late charge', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 3, maxLength: 3 }), fc.array(opArb, { maxLength: 60 }), (initial, ops) => {
        const m = new Model();
        initial.forEach((b, i) => {
          m.accounts.set(i + 1, { id: i + 1, balance: 0, blocked: false, expiresAt: null });
          const d = rules.grant(m.accounts.get(i + 1)!, { accountId: i + 1, amount: b, note: 'initial credit' });
          if (d.ok) m.apply(d.writes, 0);
        });
        let now = 1;
        for (const op of ops) {
          now++;
          const before = new Map([...m.accounts].map(([id, a]) => [id, a.balance]));
          let debtAllowed = false;
          let lateCharge = false;
          switch (op.t) {
            case 'grant': {
              const d = rules.grant(m.accounts.get(op.a)!, { accountId: op.a, amount: op.amount, note: '', allowDebt: op.allowDebt });
              if (d.ok) {
                m.apply(d.writes, now);
                debtAllowed = op.allowDebt;
                expect(m.accounts.get(op.a)!.balance).toBe(d.balance);
              } else expect(before.get(op.a)! + op.amount).toBeLessThan(0);
              break;
            }
            case 'reserve': {
              const d = rules.reserve(m.accounts.get(op.a)!, { accountId: op.a, amount: op.amount, operation: 'Dispatch', instance: op.instance, now });
              if (d.ok) m.apply(d.writes, now);
              else expect(['short', 'blocked']).toContain(d.refusal.reason);
              break;
            }
            case 'charge': {
              const d = rules.charge(m.accounts.get(op.a)!, { accountId: op.a, amount: op.amount, operation: 'Geocode', now });
              if (d.ok) m.apply(d.writes, now);
              break;
            }
            case 'settle': {
              const r = m.reservations.get(op.r) ?? null;
              const d = rules.settle(r ? { ...r } : null, { reservationId: op.r, cost: op.cost });
              if (d.ok) {
                lateCharge = r!.state === 'released';
                m.apply(d.writes, now);
              } else if (r && r.state === 'settled') expect(d.refusal.reason).toBe('settled');
              else if (r) expect(d.refusal).toMatchObject({ reason: 'over-amount' });
              break;
            }
            case 'release': {
              const candidates = [...m.reservations.values()].map((r) => ({ ...r, heartbeat: m.heartbeats.get(r.instance) ?? null }));
              const d = rules.releaseStale(candidates, { instance: op.instance, now, staleMs: op.staleMs });
              for (const id of d.released) {
                const r = m.reservations.get(id)!;
                expect(r.state).toBe('open');
                expect(r.instance.startsWith('job:') || r.instance === op.instance).toBe(false);
              }
              for (const w of d.writes) m.apply(w, now);
              break;
            }
            case 'heartbeat':
              m.heartbeats.set(op.instance, now);
              break;
            case 'block':
              m.accounts.get(op.a)!.blocked = op.blocked;
              break;
          }
          for (const [id, a] of m.accounts) {
            expect(a.balance).toBe(m.sum(id));
            const was = before.get(id)!;
            if (a.balance < 0 && a.balance < was) expect(debtAllowed || lateCharge, `${JSON.stringify(op)} took account ${id} from ${was} to ${a.balance}`).toBe(true);
          }
          for (const [id, n] of m.settlements) expect(n, `reservation ${id}`).toBe(1);
          for (const r of m.reservations.values()) if (r.state === 'settled') expect(r.cost!).toBeLessThanOrEqual(r.amount);
        }
      }),
      { seed: 20261125, numRuns: 400 },
    );
  });

  it('a decision holds wherever its guard does: the same writes on any account state satisfying the guard', () => {
    const facts = fc.record({
      id: fc.constant(7), balance: fc.integer({ min: -50, max: 200 }), blocked: fc.boolean(), expiresAt: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }),
    });
    const request = fc.record({ kind: fc.constantFrom('reserve', 'charge', 'grant'), amount: fc.integer({ min: -60, max: 60 }), allowDebt: fc.boolean(), now: fc.integer({ min: 0, max: 20 }) });
    const decide = (a: AccountFacts, q: { kind: string; amount: number; allowDebt: boolean; now: number }) => {
      if (q.kind === 'grant') return rules.grant(a, { accountId: 7, amount: q.amount, note: 'n', allowDebt: q.allowDebt });
      const amount = Math.max(1, Math.abs(q.amount));
      return q.kind === 'reserve'
        ? rules.reserve(a, { accountId: 7, amount, operation: 'op', instance: 'i', now: q.now })
        : rules.charge(a, { accountId: 7, amount, operation: 'op', now: q.now });
    };
    fc.assert(
      fc.property(facts, facts, request, (f, g, q) => {
        const d = decide(f, q);
        if (!d.ok) return;
        expect(d.writes.guard).toBeDefined();
        expect(guardHolds(d.writes.guard!, f)).toBe(true);
        // every entry of a guarded write is the guarded account's (the backends rely on it)
        expect(d.writes.entries.every((e) => e.accountId === d.writes.guard!.accountId)).toBe(true);
        if (!guardHolds(d.writes.guard!, g)) return;
        const e = decide(g, q);
        expect(e.ok).toBe(true);
        expect(e.ok && e.writes).toEqual(d.writes);
        if ('balance' in d) expect((e as typeof d).balance).toBe(d.balance); // what a grant reports
      }),
      { seed: 4242, numRuns: 2000 },
    );
  });
});
