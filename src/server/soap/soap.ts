/**
 * The SOAP face (ASMX-compatible): `POST <path>` answers SOAP 1.1 (`text/xml`, SOAPAction) and
 * SOAP 1.2 (`application/soap+xml`, optional `action` parameter), each in its own version; `GET
 * <path>?WSDL` serves the WSDL with this server's address; `GET`/`POST <path>/Login`, `/Logout`
 * and `/CreditRemaining` are the plain HTTP calls. The key travels in SessionIDHeader/SessionID
 * (SOAP), or as the X-API-Key header or a SessionID query/form parameter (plain HTTP). Thin: parse
 * → Service.call → encode; the records' schemas drive reading and writing (codec.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Service } from '../../service/service.js';
import { operations, type ServiceOperation } from '../../service/operations.js';
import { REFUSALS, refusalOf, refusalRetryAfter, refusalStatus, type Refusal } from '../../service/refusals.js';
import { readValue, writeFields } from './codec.js';
import { sentContentType } from '../http-util.js';
import { escapeText, parseXml, parseXmlYielding, XmlError, XmlWriter, XSI, type XmlElement, type XmlLimits } from './xml.js';
import { DEFAULT_NAMESPACE, httpOperations, soapParams, wsdlDocument } from './wsdl.js';

export const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';

export interface SoapOptions {
  /** The endpoint path (default /TrackService.asmx; matched case-insensitively). */
  path?: string;
  /** The service namespace (default {@link DEFAULT_NAMESPACE}). */
  namespace?: string;
  limits?: XmlLimits;
}

type Version = 11 | 12;

class Fault extends Error {
  constructor(readonly who: 'client' | 'server', message: string, readonly status?: number, readonly version?: Version, readonly retryAfter?: number) {
    super(message);
  }
}

const ENVELOPE_NS = (v: Version): string => (v === 11 ? SOAP11 : SOAP12);
const CONTENT_TYPE = (v: Version): string => (v === 11 ? 'text/xml; charset=utf-8' : 'application/soap+xml; charset=utf-8');

function envelopeOpen(v: Version): string {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ENVELOPE_NS(v)}" xmlns:xsi="${XSI}" xmlns:xsd="http://www.w3.org/2001/XMLSchema">`;
}

/** A fault in the version's own format. */
export function faultXml(v: Version, who: 'client' | 'server', message: string): string {
  const w = new XmlWriter().raw(envelopeOpen(v)).open('soap:Body').open('soap:Fault');
  if (v === 11) w.leaf('faultcode', who === 'client' ? 'soap:Client' : 'soap:Server').leaf('faultstring', message).empty('detail');
  else {
    w.open('soap:Code').leaf('soap:Value', who === 'client' ? 'soap:Sender' : 'soap:Receiver').close('soap:Code')
      .open('soap:Reason').raw(`<soap:Text xml:lang="en">${escapeText(message)}</soap:Text>`).close('soap:Reason')
      .empty('soap:Detail');
  }
  return w.close('soap:Fault').close('soap:Body').close('soap:Envelope').toString();
}

/** The request body as text: UTF-8 (a BOM is dropped) or, when the charset says so, UTF-16. */
function bodyText(body: unknown, contentType: string): string {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : '');
  const utf16 = /charset\s*=\s*"?utf-16/i.test(contentType) || (buf[0] === 0xff && buf[1] === 0xfe);
  let text = utf16 ? buf.toString('utf16le') : buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

/** Bodies up to this many characters are parsed at once (a few ms); longer ones in slices. */
const SLICED_FROM = 256 * 1024;
/** Sliced parses running at once: each holds a body and its growing tree, so their number is capped. */
const SLICED_AT_ONCE = 2;

/**
 * Parses a request body without holding the event loop: a short body at once, a long one in
 * slices that hand the loop back every ~10 ms (a 1,000,000-element envelope is ~1-2 s of work),
 * at most {@link SLICED_AT_ONCE} of them at a time (the others wait their turn).
 */
function sliceGate(): (text: string, limits?: XmlLimits) => Promise<XmlElement> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (text, limits) => {
    if (text.length < SLICED_FROM) return parseXml(text, limits);
    if (running >= SLICED_AT_ONCE) await new Promise<void>((r) => waiting.push(r));
    else running++;
    try {
      return await parseXmlYielding(text, limits);
    } finally {
      const next = waiting.shift();
      if (next) next(); // the slot passes straight to the next in line
      else running--;
    }
  };
}

const child = (el: XmlElement | undefined, uri: string, local: string): XmlElement | undefined => el?.children.find((c) => c.uri === uri && c.local === local);

/** A refusal as a SOAP fault: the side the refusal table blames, its HTTP status and Retry-After. */
function faultOf(r: Refusal, v: Version): Fault {
  return new Fault(REFUSALS[r.code].soap, r.message, refusalStatus(r), v, refusalRetryAfter(r));
}

export function registerSoap(app: FastifyInstance, service: Service, opts: SoapOptions = {}): void {
  const path = opts.path ?? '/TrackService.asmx';
  const ns = opts.namespace ?? DEFAULT_NAMESPACE;
  const ops = new Map<string, ServiceOperation>(operations().filter((o) => o.faces.soap).map((o) => [o.name, o]));
  const parseBody = sliceGate();

  const sendFault = (reply: FastifyReply, v: Version, f: Fault): FastifyReply => {
    const status = f.status ?? (v === 11 || f.who === 'server' ? 500 : 400);
    if (f.retryAfter !== undefined) reply.header('Retry-After', String(f.retryAfter));
    return reply.code(status).type(CONTENT_TYPE(v)).send(faultXml(v, f.who, f.message));
  };

  app.post(path, async (req, reply) => {
    const ct = sentContentType(req).toLowerCase();
    const v: Version | null = ct.startsWith('application/soap+xml') ? 12 : ct.startsWith('text/xml') ? 11 : null;
    if (v === null) return sendFault(reply, 11, new Fault('client', `Content-Type must be text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2); got "${ct || 'none'}".`, 415));
    try {
      let env: XmlElement;
      try {
        env = await parseBody(bodyText(req.body, ct), opts.limits);
      } catch (e) {
        if (e instanceof XmlError) throw new Fault('client', e.message);
        throw e;
      }
      if (env.local !== 'Envelope' || (env.uri !== SOAP11 && env.uri !== SOAP12)) throw new Fault('client', 'The root element is not a SOAP Envelope.');
      if (env.uri !== ENVELOPE_NS(v)) {
        throw new Fault('client', `A SOAP ${env.uri === SOAP11 ? '1.1' : '1.2'} envelope under the SOAP ${v === 11 ? '1.1' : '1.2'} Content-Type (${v === 11 ? 'text/xml' : 'application/soap+xml'}).`);
      }
      const body = child(env, env.uri, 'Body');
      if (!body) throw new Fault('client', 'The Envelope has no Body.');
      const opEl = body.children[0];
      if (!opEl) throw new Fault('client', 'The Body holds no operation element.');
      const op = opEl.uri === ns ? ops.get(opEl.local) : undefined;
      if (!op) throw new Fault('client', `No operation {${opEl.uri}}${opEl.local}: the operations are ${[...ops.keys()].join(', ')} in the namespace ${ns}.`);
      // the action, when sent, must name the body's operation
      const action = v === 11 ? String(req.headers.soapaction ?? '').trim().replace(/^"|"$/g, '') : (/;\s*action\s*=\s*"?([^";]+)"?/i.exec(sentContentType(req))?.[1] ?? '');
      if (action !== '' && action !== `${ns}${op.name}`) throw new Fault('client', `The ${v === 11 ? 'SOAPAction' : 'action'} "${action}" does not match the body's operation ${op.name} (expected "${ns}${op.name}").`);
      const header = child(env, env.uri, 'Header');
      const key = child(child(header, ns, 'SessionIDHeader'), ns, 'SessionID')?.text;
      let input: unknown;
      const p = soapParams(op);
      if (p === 'login') input = { UserName: child(opEl, ns, 'userName')?.text, Password: child(opEl, ns, 'password')?.text };
      else if (p === 'specification') {
        const s = child(opEl, ns, 'specification');
        input = s ? readValue(s, op.spec!, ns) : undefined;
      }
      const ac = new AbortController();
      const onClose = (): void => { if (!reply.raw.writableEnded) ac.abort(); };
      reply.raw.on('close', onClose);
      let o;
      try {
        o = await service.call(op.name, input, { key: key?.trim() === '' ? undefined : key, signal: ac.signal, client: req.ip });
      } finally {
        reply.raw.off('close', onClose);
      }
      if (o.kind === 'refused') throw faultOf(o, v);
      const w = new XmlWriter().raw(envelopeOpen(v));
      if (op.faces.soap === 'login' && o.result.Status === 'Success') {
        w.open('soap:Header').open('SessionIDHeader', { xmlns: ns }).leaf('SessionID', String(o.result.Key)).close('SessionIDHeader').close('soap:Header');
      }
      w.open('soap:Body');
      if (op.faces.soapVoid) w.empty(`${op.name}Response`, { xmlns: ns });
      else {
        w.open(`${op.name}Response`, { xmlns: ns }).open(`${op.name}Result`);
        writeFields(w, o.result, o.schema);
        w.close(`${op.name}Result`).close(`${op.name}Response`);
      }
      w.close('soap:Body').close('soap:Envelope');
      if (o.routeId !== undefined) reply.header('X-Route-ID', String(o.routeId));
      return reply.code(200).type(CONTENT_TYPE(v)).send(w.toString());
    } catch (e) {
      if (e instanceof Fault) return sendFault(reply, v, e);
      req.log.error({ err: e }, 'SOAP internal error');
      return sendFault(reply, v, faultOf(refusalOf(e, req.id), v));
    }
  });

  // ---------------------------------------------------------------- the WSDL and a help page
  app.get(path, async (req, reply) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const wsdl = Object.keys(q).some((k) => k.toLowerCase() === 'wsdl') || /\?wsdl$/i.test(req.url);
    const proto = req.protocol ?? 'http';
    const location = `${proto}://${req.headers.host ?? 'localhost'}${path}`;
    if (wsdl) return reply.type('text/xml; charset=utf-8').send(wsdlDocument({ namespace: ns, location }));
    const list = [...ops.values()].map((o) => `<li><b>${o.name}</b>: ${o.summary.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</li>`).join('');
    return reply.type('text/html; charset=utf-8').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>TrackService</title></head><body><h1>TrackService</h1><p>SOAP 1.1 and 1.2 at this address; the service description is <a href="${path}?WSDL">${path}?WSDL</a>. Namespace: ${ns}.</p><ul>${list}</ul></body></html>`);
  });

  // ---------------------------------------------------------------- plain HTTP GET / POST
  const plain = async (req: FastifyRequest, reply: FastifyReply, name: string): Promise<FastifyReply> => {
    const params = new Map<string, string>();
    for (const [k, val] of Object.entries((req.query ?? {}) as Record<string, unknown>)) params.set(k.toLowerCase(), String(Array.isArray(val) ? val[0] : val));
    if (req.method === 'POST' && req.body !== undefined) {
      const form = new URLSearchParams(bodyText(req.body, sentContentType(req)));
      for (const [k, val] of form) if (!params.has(k.toLowerCase())) params.set(k.toLowerCase(), val);
    }
    const headerKey = req.headers['x-api-key'];
    const key = (Array.isArray(headerKey) ? headerKey[0] : headerKey) ?? params.get('sessionid');
    const input = ops.get(name)!.faces.soap === 'login' ? { UserName: params.get('username'), Password: params.get('password') } : undefined;
    const o = await service.call(name, input, { key, client: req.ip });
    if (o.kind === 'refused') {
      const retry = refusalRetryAfter(o);
      if (retry !== undefined) reply.header('Retry-After', String(retry));
      return reply.code(refusalStatus(o)).type('text/plain; charset=utf-8').send(o.message);
    }
    const row = ops.get(name)!;
    if (row.faces.soapVoid) return reply.code(200).send('');
    const root = row.result.name;
    const w = new XmlWriter().raw('<?xml version="1.0" encoding="utf-8"?>').open(root, { 'xmlns:xsi': XSI, 'xmlns:xsd': 'http://www.w3.org/2001/XMLSchema', xmlns: ns });
    writeFields(w, o.result, o.schema);
    return reply.code(200).type('text/xml; charset=utf-8').send(w.close(root).toString());
  };
  for (const name of httpOperations()) {
    app.get(`${path}/${name}`, (req, reply) => plain(req, reply, name));
    app.post(`${path}/${name}`, (req, reply) => plain(req, reply, name));
  }
}
