/**
 * The SOAP face against real, independent SOAP clients, with no code of ours in between: each
 * client loads the WSDL this server serves, builds typed objects from it, and calls every
 * operation over HTTP; the scripts (test/server/soap-clients/) check the results themselves and
 * print one JSON line of per-operation outcomes, which the tests here assert.
 *
 * - python3-zeep (Debian's /usr/bin/python3): SOAP 1.1 through the TrackServiceSoap port and SOAP
 *   1.2 through client.bind('TrackService', 'TrackServiceSoap12');
 * - python3-suds: SOAP 1.1 (client.factory.create objects);
 * - PHP SoapClient (php-soap): SOAP_1_1 and SOAP_1_2, proxy classes generated from the WSDL and
 *   mapped with `classmap`.
 *
 * Each run has its own account (API key, Login password, 100,000 credits) so the credit checks,
 * route lists and Login sessions of concurrent runs do not meet. The error path: an unknown key,
 * and a Login key after Logout, make each client raise its own fault type (zeep Fault, suds
 * WebFault, PHP SoapFault) carrying the service's message.
 *
 * A client that is not installed skips its tests (CI installs them: python3-zeep, python3-suds,
 * php-cli, php-soap).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Engine } from '../../src/engine.js';
import { openStore } from '../../src/store/index.js';
import { hashPassword, keyHash, newApiKey } from '../../src/store/hash.js';
import type { Store } from '../../src/store/types.js';
import { Service } from '../../src/service/service.js';
import { operations } from '../../src/service/operations.js';

const SERVICE_OPERATION_NAMES = operations().filter((o) => o.faces.soap).map((o) => o.name);
import { buildServer } from '../../src/server/http.js';
import { fixtureDataset } from '../helpers/datasets.js';

const PYTHON = '/usr/bin/python3'; // Debian's, where apt installs python3-zeep and python3-suds (not a pyenv python3 on PATH)
const PHP = 'php';
const DIR = new URL('./soap-clients/', import.meta.url).pathname;

/** Probed before the server starts (spawnSync would block its event loop later). */
function works(cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { stdio: 'ignore', timeout: 30_000 });
  return r.status === 0;
}
const hasZeep = works(PYTHON, ['-c', 'import zeep']);
const hasSuds = works(PYTHON, ['-c', 'import suds.client']);
const hasPhpSoap = works(PHP, ['-r', 'exit(class_exists("SoapClient") ? 0 : 1);']);

/**
 * HTTP status of a refused call, per SOAP version. SOAP 1.1 §6.2 ("In case of a SOAP error while
 * processing the request, the SOAP HTTP server MUST issue an HTTP 500") and WS-I Basic Profile
 * R1126 require 500 for every SOAP 1.1 fault, and suds (like WCF and JAX-WS) reads a fault only
 * under 500 (or 200): under 401 it raises a bare Exception((401, 'Unauthorized')) and the
 * service's message is lost. SOAP 1.2 (Part 2, the HTTP binding) gives 401 its HTTP meaning.
 */
/**
 * A refused key is HTTP 401 in both versions: the contract's rule ("SOAP: SessionIDHeader or
 * SessionID absent or wrong → HTTP 401"), which the original's own clients depend on. SOAP 1.1
 * prefers 500 for faults; suds reads a fault only under 200 or 500 and so reports these as a plain
 * HTTP error (see the suds test), while zeep, PHP and .NET read the fault's message.
 */
const REFUSAL_STATUS = { '1.1': 401, '1.2': 401 } as const;
const FAULT_CODE = { '1.1': /^(\w+:)?Client$/, '1.2': /^(\w+:)?Sender$/ } as const;

type Version = '1.1' | '1.2';
interface Run {
  id: string;
  client: 'zeep' | 'suds' | 'php';
  version: Version;
  available: boolean;
}
const RUNS: Run[] = [
  { id: 'zeep-1.1', client: 'zeep', version: '1.1', available: hasZeep },
  { id: 'zeep-1.2', client: 'zeep', version: '1.2', available: hasZeep },
  { id: 'suds-1.1', client: 'suds', version: '1.1', available: hasSuds },
  { id: 'php-1.1', client: 'php', version: '1.1', available: hasPhpSoap },
  { id: 'php-1.2', client: 'php', version: '1.2', available: hasPhpSoap },
];

interface Refusal { operation: string; raised: string | null; message?: string; code?: string; status: number | null }
interface Report {
  client: string;
  soap: string;
  ops: Record<string, { ok: boolean; detail: string }>;
  refusals: Refusal[];
}

let engine: Engine;
let store: Store;
let service: Service;
let app: FastifyInstance;
let wsdl: string;
const unknownKey = newApiKey(); // well-formed, never issued
let refusalMessage: string;
const started = new Map<string, Promise<Report>>();

function command(run: Run, key: string, user: string, password: string): [string, string[]] {
  switch (run.client) {
    case 'zeep': return [PYTHON, [`${DIR}zeep_client.py`, wsdl, key, user, password, run.version, unknownKey]];
    case 'suds': return [PYTHON, [`${DIR}suds_client.py`, wsdl, key, user, password, unknownKey]];
    case 'php': return [PHP, [`${DIR}php_client.php`, wsdl, key, user, password, run.version, unknownKey]];
  }
}

/** Runs a client script (asynchronously: the server answers from this process) and parses its JSON line. */
function runClient(run: Run, key: string, user: string, password: string): Promise<Report> {
  const [cmd, args] = command(run, key, user, password);
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 90_000, maxBuffer: 16 << 20, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } }, (err, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as Report);
      } catch {
        reject(new Error(`${run.id} printed no report (${err?.message ?? 'exit 0'}):\nstdout: ${stdout.slice(-4000)}\nstderr: ${stderr.slice(-4000)}`));
      }
    });
  });
}

beforeAll(async () => {
  if (!RUNS.some((r) => r.available)) return;
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2, offload: true });
  store = await openStore('sqlite::memory:');
  service = new Service(engine, store, { rateLimit: { perSecond: 0 } });
  await service.start();
  app = buildServer(service, { logger: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  wsdl = `${url}/TrackService.asmx?WSDL`;
  const refused = await service.call('CreditRemaining', undefined, { key: unknownKey });
  if (refused.kind !== 'refused') throw new Error('an unknown key was not refused');
  refusalMessage = refused.message;
  // every available client at once: they mostly wait for the server
  for (const run of RUNS.filter((r) => r.available)) {
    const key = newApiKey();
    const user = `soap-${run.id}`;
    const password = randomBytes(12).toString('base64url');
    await store.createAccount({ name: user, keyHash: keyHash(key), passwordHash: await hashPassword(password), credit: 100_000, now: Date.now() });
    const p = runClient(run, key, user, password);
    p.catch(() => { /* reported by the test that awaits it */ });
    started.set(run.id, p);
  }
});

afterAll(async () => {
  await Promise.allSettled(started.values());
  await app?.close();
  await service?.close();
  await store?.close();
  await engine?.close();
});

/** Every one of the 12 operations succeeded, with the script's own checks; the failures listed with their details. */
function expectEveryOperation(r: Report): void {
  expect(Object.keys(r.ops).sort()).toEqual([...SERVICE_OPERATION_NAMES].sort());
  const failed = Object.entries(r.ops).filter(([, o]) => !o.ok).map(([op, o]) => `${op}: ${o.detail}`);
  expect(failed, `${r.client} SOAP ${r.soap}`).toEqual([]);
}

/** An unknown key (a free and a paid operation) and a Login key after Logout: the client's own fault type, the service's message. */
function expectRefusals(r: Report, faultType: string, version: Version): void {
  expect(r.refusals.map((x) => x.operation)).toEqual(['CreditRemaining', 'CalculateDistance', 'CreditRemaining after Logout']);
  for (const x of r.refusals) {
    const what = `${r.client} SOAP ${version}, ${x.operation}: ${JSON.stringify(x)}`;
    expect(x.raised, what).toBe(faultType);
    expect(x.message, what).toBe(refusalMessage);
    expect(x.code, what).toMatch(FAULT_CODE[version]);
    expect(x.status, what).toBe(REFUSAL_STATUS[version]);
  }
}

function run(id: string): Promise<Report> {
  const p = started.get(id);
  if (!p) throw new Error(`${id} was not started`);
  return p;
}

describe.skipIf(!hasZeep)(hasZeep ? 'zeep (python3-zeep, /usr/bin/python3)' : 'zeep (skipped: python3-zeep is not installed for /usr/bin/python3)', () => {
  it('SOAP 1.1 (port TrackServiceSoap): every operation with typed objects (client.type_factory), results as documented', async () => {
    expectEveryOperation(await run('zeep-1.1'));
  });
  it('SOAP 1.1: an unknown key, and a Login key after Logout, raise zeep.exceptions.Fault with the service\'s message', async () => {
    expectRefusals(await run('zeep-1.1'), 'zeep.exceptions.Fault', '1.1');
  });
  it('SOAP 1.2 (client.bind(\'TrackService\', \'TrackServiceSoap12\')): every operation with typed objects, results as documented', async () => {
    expectEveryOperation(await run('zeep-1.2'));
  });
  it('SOAP 1.2: an unknown key, and a Login key after Logout, raise zeep.exceptions.Fault with the service\'s message, HTTP 401', async () => {
    expectRefusals(await run('zeep-1.2'), 'zeep.exceptions.Fault', '1.2');
  });
});

describe.skipIf(!hasSuds)(hasSuds ? 'suds (python3-suds, /usr/bin/python3)' : 'suds (skipped: python3-suds is not installed for /usr/bin/python3)', () => {
  it('SOAP 1.1: every operation with client.factory.create objects, results as documented', async () => {
    expectEveryOperation(await run('suds-1.1'));
  });
  it('SOAP 1.1: an unknown key, and a Login key after Logout, are refused with HTTP 401 (suds reports the status, not the fault: it reads faults under 200/500 only)', async () => {
    const r = await run('suds-1.1');
    expect(r.refusals.map((x) => x.operation)).toEqual(['CreditRemaining', 'CalculateDistance', 'CreditRemaining after Logout']);
    for (const x of r.refusals) {
      expect(x.status, JSON.stringify(x)).toBe(401);
      expect(x.raised, JSON.stringify(x)).toBe('builtins.Exception');
      expect(x.message, JSON.stringify(x)).toContain('401');
    }
  });
});

describe.skipIf(!hasPhpSoap)(hasPhpSoap ? 'PHP SoapClient (php-cli, php-soap)' : 'PHP SoapClient (skipped: php-cli with php-soap is not installed)', () => {
  it('SOAP_1_1: the proxy generated from the WSDL (classmap) calls every operation, results as documented', async () => {
    expectEveryOperation(await run('php-1.1'));
  });
  it('SOAP_1_1: an unknown key, and a Login key after Logout, raise SoapFault with the service\'s message', async () => {
    expectRefusals(await run('php-1.1'), 'SoapFault', '1.1');
  });
  it('SOAP_1_2: the proxy generated from the WSDL (classmap) calls every operation, results as documented', async () => {
    expectEveryOperation(await run('php-1.2'));
  });
  it('SOAP_1_2: an unknown key, and a Login key after Logout, raise SoapFault with the service\'s message, HTTP 401', async () => {
    expectRefusals(await run('php-1.2'), 'SoapFault', '1.2');
  });
});
