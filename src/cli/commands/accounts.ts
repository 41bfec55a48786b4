/**
 * `dispatchkit accounts …`: the service's accounts from the command line, on either backend
 * (`--db sqlite:<file>` | `postgres://…`; default: the SQLite file beside the demo dataset).
 */
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { EngineError } from '../../core/errors.js';
import { openStore } from '../../store/index.js';
import { hashPassword, keyHash, newApiKey } from '../../store/hash.js';
import type { Account, Store } from '../../store/types.js';
import { PACKAGE_ROOT, parseCommandArgs, printJson } from '../io.js';

/** The database a dataset's server uses by default: `<dataset without .dkds>.db` beside it. */
export function defaultDbFor(datasetPath: string): string {
  return `sqlite:${datasetPath.replace(/\.dkds$/i, '')}.db`;
}

/** The default database of the CLI: the one beside the demo dataset. */
export function defaultDb(): string {
  return defaultDbFor(fileURLToPath(new URL('data/monaco-latest.dkds', PACKAGE_ROOT)));
}

const NAME_RE = /^[\p{L}\p{N}][\p{L}\p{N} ._@-]{0,99}$/u;

export function checkAccountName(name: string | undefined): string {
  if (!name || !NAME_RE.test(name)) {
    throw new EngineError('InvalidInput', `account name: 1–100 letters, digits, spaces, '.', '_', '@' or '-', starting with a letter or digit (got ${JSON.stringify(name ?? '')})`, { path: 'name' });
  }
  return name;
}

/** Reads a password: one line from standard input (not echoed when it is a terminal). */
async function readPassword(): Promise<string> {
  const input = process.stdin;
  let line: string;
  if (input.isTTY) {
    process.stderr.write('Password: ');
    input.setRawMode(true);
    input.resume();
    line = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const onData = (d: Buffer): void => {
        for (const ch of d.toString('utf8')) {
          if (ch === '\r' || ch === '\n') { finish(); resolve(buf); return; }
          if (ch === '\u0003') { finish(); reject(new EngineError('Cancelled', 'cancelled')); return; }
          if (ch === '\u007f' || ch === '\b') buf = buf.slice(0, -1);
          else buf += ch;
        }
      };
      const finish = (): void => { input.off('data', onData); input.setRawMode(false); input.pause(); process.stderr.write('\n'); };
      input.on('data', onData);
    });
  } else {
    const rl = createInterface({ input, terminal: false });
    line = await new Promise<string>((resolve) => {
      let done = false;
      rl.once('line', (l) => { done = true; resolve(l); });
      rl.once('close', () => { if (!done) resolve(''); });
    });
    rl.close();
  }
  if (line.length < 4) throw new EngineError('InvalidInput', 'password: at least 4 characters (read from standard input)', { path: 'password' });
  return line;
}

function parseCredit(s: string | undefined, option: string, signed: boolean): number {
  const ok = s !== undefined && (signed ? /^[+-]?\d{1,15}$/ : /^\d{1,15}$/).test(s.trim());
  if (!ok) throw new EngineError('InvalidInput', `${option} must be a whole number${signed ? ' with a sign (+100, -20)' : ' ≥ 0'} (got ${JSON.stringify(s ?? '')})`, { path: option.replace(/^-+/, '') });
  return Number(s!.trim());
}

function parseDate(s: string, option: string): number {
  const t = Date.parse(/Z|[+-]\d\d:?\d\d$/.test(s) || s.length === 10 ? s : `${s}Z`);
  if (Number.isNaN(t)) throw new EngineError('InvalidInput', `${option}: not a date (2027-01-01 or 2027-01-01T00:00:00Z; got ${JSON.stringify(s)})`, { path: option.replace(/^-+/, '') });
  return t;
}

function row(a: Account): Record<string, unknown> {
  return {
    Name: a.name, Credit: a.balance, Blocked: a.blocked, Password: a.hasPassword,
    Expires: a.expiresAt === null ? null : new Date(a.expiresAt).toISOString(), Created: new Date(a.createdAt).toISOString(),
  };
}

async function must(store: Store, name: string): Promise<Account & { passwordHash: string | null }> {
  const a = await store.accountByName(name);
  if (!a) throw new EngineError('InvalidInput', `no account named '${name}'`, { path: 'name' });
  return a;
}

const USAGE = 'dispatchkit accounts <add|list|credit|block|unblock|rotate-key|password|check|audit> … [--db sqlite:<file> | postgres://…]';

export const accountsCommand: Command = {
  name: 'accounts',
  summary: "Manage the service's accounts: add, list, credit, block, rotate-key (SQLite or PostgreSQL)",
  usage: USAGE,
  options: [
    { flag: '--db <sqlite:file | postgres://…>', description: 'the database', default: 'sqlite:data/monaco-latest.db (beside the demo dataset)' },
    { flag: 'add <name> --credit N [--password] [--expires DATE]', description: 'new account; prints its API key once (--password reads a Login password from standard input)' },
    { flag: 'list', description: 'every account with its credit and state' },
    { flag: 'credit <name> +N|-N [--note TEXT] [--allow-debt]', description: 'add or take credit (a ledger entry); taking more than the balance is refused unless --allow-debt (the balance may then go below zero)' },
    { flag: 'block <name> / unblock <name>', description: 'refuse (403) or accept the account again' },
    { flag: 'rotate-key <name>', description: 'a new API key (printed once); the old one stops working at once' },
    { flag: 'password <name> [--clear]', description: 'set (from standard input) or remove the Login password' },
    { flag: 'check', description: 'ledger against balances for every account, and open reservations (exit 1 when they differ)' },
    { flag: 'audit', description: 'per account: balance against its ledger, and the credits charged for operations against the usage recorded with them (exit 1 when an account has a problem)' },
    { flag: '--json', description: 'machine-readable output' },
  ],
  examples: [
    'dispatchkit accounts add acme --credit 100000 --json',
    'echo s3cret | dispatchkit accounts add dispatcher --credit 500 --password',
    'dispatchkit accounts credit acme +5000 --note "invoice 42"',
    'dispatchkit accounts list --db postgres://localhost/dispatch',
    'dispatchkit accounts audit --json',
  ],
  async run(argv) {
    // `credit <name> -50`: a signed amount is a positional, not an option
    const signed = argv.findIndex((a, i) => i > 0 && /^[+-]\d+$/.test(a) && argv[i - 1] !== '--credit' && argv[i - 1] !== '--note');
    const amountArg = signed >= 0 ? argv[signed] : undefined;
    if (signed >= 0) argv = [...argv.slice(0, signed), ...argv.slice(signed + 1)];
    const { values, positionals } = parseCommandArgs(argv, {
      db: { type: 'string' }, credit: { type: 'string' }, password: { type: 'boolean' }, json: { type: 'boolean' },
      note: { type: 'string' }, expires: { type: 'string' }, clear: { type: 'boolean' }, 'allow-debt': { type: 'boolean' },
    });
    const [sub, name] = positionals;
    const amount = amountArg ?? positionals[2];
    if (!sub) throw new EngineError('InvalidInput', `a sub-command is required: ${USAGE}`, { path: 'accounts' });
    const subs = ['add', 'list', 'credit', 'block', 'unblock', 'rotate-key', 'password', 'check', 'audit'];
    if (!subs.includes(sub)) throw new EngineError('InvalidInput', `unknown sub-command '${sub}' (one of ${subs.join(', ')})`, { path: 'accounts' });
    // validate every argument before opening the database
    const credit = sub === 'add' ? parseCredit(values.credit ?? '0', '--credit', false) : 0;
    const delta = sub === 'credit' ? parseCredit(amount, 'amount', true) : 0;
    const expires = values.expires !== undefined ? parseDate(values.expires, '--expires') : null;
    if (!['list', 'check', 'audit'].includes(sub)) checkAccountName(name);
    const password = (sub === 'add' && values.password) || (sub === 'password' && !values.clear) ? await readPassword() : null;
    const store = await openStore(values.db ?? defaultDb());
    const now = Date.now();
    const out = (json: unknown, text: string): void => {
      if (values.json) printJson(json);
      else process.stdout.write(text + '\n');
    };
    try {
      switch (sub) {
        case 'add': {
          const key = newApiKey();
          const a = await store.createAccount({
            name: name!, keyHash: keyHash(key), passwordHash: password ? await hashPassword(password) : null, credit, expiresAt: expires, now,
          });
          out({ Name: a.name, Key: key }, `Account '${a.name}' created with ${a.balance} credits${a.hasPassword ? ' and a Login password' : ''}.\nAPI key (shown once; keep it secret): ${key}`);
          return EXIT.ok;
        }
        case 'list': {
          const all = await store.listAccounts();
          if (values.json) printJson(all.map(row));
          else if (all.length === 0) process.stdout.write('No accounts.\n');
          else {
            const lines = all.map((a) => `${a.name.padEnd(24)} ${String(a.balance).padStart(12)}  ${a.blocked ? 'blocked' : 'active '}  ${a.hasPassword ? 'password' : '        '}  ${a.expiresAt === null ? '' : `expires ${new Date(a.expiresAt).toISOString()}`}`);
            process.stdout.write(`${'name'.padEnd(24)} ${'credit'.padStart(12)}\n${lines.join('\n')}\n`);
          }
          return EXIT.ok;
        }
        case 'credit': {
          const a = await must(store, name!);
          const allowDebt = values['allow-debt'] === true;
          let balance: number | null;
          try {
            balance = await store.grantCredit({ accountId: a.id, amount: delta, note: values.note ?? 'accounts credit', allowDebt, now });
          } catch (e) {
            const d = (e as EngineError).details;
            if (!(e instanceof EngineError) || e.code !== 'Conflict' || typeof d?.balance !== 'number') throw e;
            throw new EngineError('Conflict', `Account '${a.name}' has ${d.balance} credits: taking ${-delta} would leave ${d.balance + delta}. Nothing was changed; give --allow-debt to let the balance go below zero.`, { details: d });
          }
          out({ Name: a.name, Credit: balance }, `Account '${a.name}': ${delta >= 0 ? '+' : ''}${delta} → ${balance} credits.`);
          return EXIT.ok;
        }
        case 'block':
        case 'unblock': {
          const a = await store.updateAccount(name!, { blocked: sub === 'block' });
          if (!a) throw new EngineError('InvalidInput', `no account named '${name}'`, { path: 'name' });
          out(row(a), `Account '${a.name}' is ${a.blocked ? 'blocked' : 'active'}.`);
          return EXIT.ok;
        }
        case 'rotate-key': {
          const key = newApiKey();
          const a = await store.updateAccount(name!, { keyHash: keyHash(key) });
          if (!a) throw new EngineError('InvalidInput', `no account named '${name}'`, { path: 'name' });
          out({ Name: a.name, Key: key }, `Account '${a.name}': new API key (shown once; the old one no longer works): ${key}`);
          return EXIT.ok;
        }
        case 'password': {
          const a = await store.updateAccount(name!, { passwordHash: password ? await hashPassword(password) : null });
          if (!a) throw new EngineError('InvalidInput', `no account named '${name}'`, { path: 'name' });
          out(row(a), `Account '${a.name}': Login password ${password ? 'set' : 'removed'}.`);
          return EXIT.ok;
        }
        case 'check': {
          const all = await store.listAccounts();
          const bad: string[] = [];
          for (const a of all) {
            const sum = await store.ledgerSum(a.id);
            if (sum !== a.balance) bad.push(`${a.name}: balance ${a.balance}, ledger ${sum}`);
          }
          const open = await store.openReservations();
          out({ Accounts: all.length, Mismatches: bad, OpenReservations: open },
            bad.length === 0 ? `${all.length} account(s): every balance equals its ledger; ${open} reservation(s) open.` : `Ledger mismatches:\n${bad.join('\n')}`);
          return bad.length === 0 ? EXIT.ok : EXIT.failed;
        }
        case 'audit': {
          const all = await store.audit();
          const failing = all.filter((a) => !a.ok);
          if (values.json) {
            printJson({
              Accounts: all.length,
              WithProblems: failing.length,
              Audit: all.map((a) => ({
                Name: a.name, Ok: a.ok, Balance: a.balance, LedgerSum: a.ledgerSum, NetCharged: a.netCharged, UsageCost: a.usageCost,
                OpenReserved: a.openReserved, BeforeUsage: { NetCharged: a.beforeUsage.netCharged, UsageCost: a.beforeUsage.usageCost },
                Problems: a.problems, Notes: a.notes,
              })),
            });
          } else {
            const lines = all.map((a) => [
              `${a.name}: ${a.ok ? 'ok' : 'PROBLEM'} — balance ${a.balance}, ledger ${a.ledgerSum}; charged ${a.netCharged}, usage ${a.usageCost}`,
              ...a.problems.map((p) => `  problem: ${p}`),
              ...a.notes.map((n) => `  note: ${n}`),
            ].join('\n'));
            lines.push(`${all.length} account(s) audited: ${failing.length === 0 ? 'no problems' : `${failing.length} with problems`}.`);
            process.stdout.write(lines.join('\n') + '\n');
          }
          return failing.length === 0 ? EXIT.ok : EXIT.failed;
        }
      }
      return EXIT.usage;
    } finally {
      await store.close();
    }
  },
};
