/**
 * `dispatchkit accounts …` as a user runs it, on SQLite and (with DATABASE_URL, set by the global
 * setup test/setup/services.ts when the local PostgreSQL answers) PostgreSQL: the
 * key printed once works, credit moves through the ledger (never below zero without --allow-debt),
 * block and rotate-key take effect.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore } from '../../src/store/index.js';
import { keyHash } from '../../src/store/hash.js';
import { runCli } from '../helpers/cli.js';

const PG = process.env.DATABASE_URL;
const tmp = mkdtempSync(join(tmpdir(), 'dk-accounts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function backends(): [string, string | null][] {
  const pg = PG ? new URL(PG) : null;
  pg?.searchParams.set('schema', `dk_test_${randomBytes(6).toString('hex')}`);
  return [['SQLite', `sqlite:${join(tmp, 'accounts.db')}`], [`PostgreSQL${PG ? '' : ' (skipped: DATABASE_URL is not set)'}`, pg ? pg.toString() : null]];
}

describe.each(backends())('accounts on %s', (_name, db) => {
  it.skipIf(db === null)('add (key printed once, --json), list, credit (--allow-debt), block/unblock, rotate-key, password, check, audit', async () => {
    const run = (...args: string[]) => runCli(['accounts', ...args, '--db', db!]);
    const add = run('add', 'acme', '--credit', '500', '--json');
    expect(add.status, add.stderr).toBe(0);
    const { Name, Key } = JSON.parse(add.stdout);
    expect(Name).toBe('acme');
    expect(Key).toMatch(/^dk_[A-Za-z0-9_-]{40,}$/);
    const store = await openStore(db!);
    try {
      const a = await store.accountByKeyHash(keyHash(Key));
      expect(a).toMatchObject({ name: 'acme', balance: 500, blocked: false, hasPassword: false });
      expect(run('add', 'ACME', '--credit', '1').status).not.toBe(0); // names are unique, ignoring case
      const human = runCli(['accounts', 'add', 'dispatcher', '--credit', '10', '--password', '--db', db!], 'pa55word\n');
      expect(human.status, human.stderr).toBe(0);
      expect(human.stdout).toMatch(/API key \(shown once; keep it secret\): dk_/);
      expect((await store.accountByName('dispatcher'))!.hasPassword).toBe(true);

      const list = JSON.parse(run('list', '--json').stdout);
      expect(list.map((x: { Name: string }) => x.Name).sort()).toEqual(['acme', 'dispatcher']);
      expect(run('list').stdout).toContain('acme');

      const credit = run('credit', 'acme', '+250', '--note', 'invoice 42', '--json');
      expect(JSON.parse(credit.stdout)).toEqual({ Name: 'acme', Credit: 750 });
      expect(JSON.parse(run('credit', 'acme', '-50', '--json').stdout).Credit).toBe(700);
      expect(run('credit', 'acme', '12.5').status).toBe(2);
      expect(run('credit', 'nobody', '+1').status).toBe(2);
      const ledger = await store.ledger(a!.id, 10);
      expect(ledger.map((e) => [e.kind, e.delta])).toEqual([['grant', -50], ['grant', 250], ['grant', 500]]);
      expect(ledger[1].note).toBe('invoice 42');
      // no debt by accident: taking more than the balance is refused, naming it, unless --allow-debt
      const short = run('credit', 'acme', '-701');
      expect(short.status).toBe(1);
      expect(short.stderr).toContain("Account 'acme' has 700 credits: taking 701 would leave -1");
      expect(short.stderr).toContain('--allow-debt');
      expect((await store.accountByName('acme'))!.balance).toBe(700);
      expect(JSON.parse(run('credit', 'acme', '-701', '--allow-debt', '--json').stdout).Credit).toBe(-1);
      expect(JSON.parse(run('credit', 'acme', '+1', '--json').stdout).Credit).toBe(0);

      expect(run('block', 'acme').status).toBe(0);
      expect((await store.accountByName('acme'))!.blocked).toBe(true);
      expect(run('unblock', 'acme').status).toBe(0);
      expect((await store.accountByName('acme'))!.blocked).toBe(false);

      const rot = JSON.parse(run('rotate-key', 'acme', '--json').stdout);
      expect(rot.Key).not.toBe(Key);
      expect(await store.accountByKeyHash(keyHash(Key))).toBeNull();
      expect((await store.accountByKeyHash(keyHash(rot.Key)))!.name).toBe('acme');

      const check = run('check', '--json');
      expect(check.status).toBe(0);
      expect(JSON.parse(check.stdout)).toMatchObject({ Accounts: 2, Mismatches: [], OpenReservations: 0 });

      // audit: every account ok (only grants so far); then a charge written without its usage is a problem (exit 1)
      const audit = run('audit', '--json');
      expect(audit.status, audit.stderr).toBe(0);
      expect(JSON.parse(audit.stdout)).toMatchObject({ Accounts: 2, WithProblems: 0, Audit: [{ Name: 'acme', Ok: true, Balance: 0, NetCharged: 0 }, { Name: 'dispatcher', Ok: true }] });
      const acme = (await store.accountByName('acme'))!;
      await store.grantCredit({ accountId: acme.id, amount: 10, note: 'x', now: Date.now() });
      await store.charge({ accountId: acme.id, amount: 3, operation: 'Geocode', now: Date.now(), usage: { operation: 'Geocode', units: 3, unitPrice: 1 } });
      expect(run('audit').status).toBe(0);
      await store.charge({ accountId: acme.id, amount: 2, operation: 'Geocode', now: Date.now() });
      const bad = run('audit');
      expect(bad.status).toBe(1);
      expect(bad.stdout).toContain('acme: PROBLEM — balance 5, ledger 5; charged 5, usage 3');
      expect(bad.stdout).toContain('problem: charged 5 credit(s) for operations but usage records account for 3: 2 charged without a usage record');
      expect(bad.stdout).toContain('dispatcher: ok');
      expect(bad.stdout).toContain('2 account(s) audited: 1 with problems.');
    } finally {
      await (store as unknown as { dropSchema?: () => Promise<void> }).dropSchema?.();
      await store.close();
    }
  }, 240_000); // about 20 CLI processes, each starting Node and tsx
});

describe('accounts: usage errors', () => {
  it('refuses bad names, credits and sub-commands with exit code 2 before touching a database', () => {
    const db = `sqlite:${join(tmp, 'never', 'x.db')}`; // its folder does not exist: never opened
    for (const args of [['add', '', '--credit', '1'], ['add', 'x', '--credit', '-5'], ['add', 'bad/name'], ['frobnicate'], []]) {
      const r = runCli(['accounts', ...args, '--db', db]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/error \[InvalidInput\]|Usage: dispatchkit accounts/);
    }
  }, 120_000);
});
