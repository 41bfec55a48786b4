/**
 * The SOAP face through real HTTP: the served WSDL (valid WSDL 1.1 structure and a schema that
 * compiles, by xmllint; gSOAP generates a C++ proxy from it), every operation over SOAP 1.1 and 1.2 with raw envelopes whose responses
 * validate against that schema, node-soap as a client generated from the WSDL, the tolerance .NET
 * has on input (any prefix, any element order, xsi:nil, unknown elements), faults in each
 * version's format with the REST side's HTTP statuses, and the plain HTTP GET/POST calls.
 * (Python zeep/suds and PHP SoapClient: soap-clients.test.ts; malformed input: soap-fuzz.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as soap from 'soap';
import { Service } from '../../src/service/service.js';
import { operations, operationNamed } from '../../src/service/operations.js';

const SOAP_OPS = operations().filter((o) => o.faces.soap);
import { EXAMPLES } from '../../src/server/openapi.js';
import { writeFields } from '../../src/server/soap/codec.js';
import { parseXml, XmlWriter, type XmlElement } from '../../src/server/soap/xml.js';
import { inProcessServer, type TestServer } from '../helpers/service.js';

const NS = 'http://TrackService.TrackRoad.com/';
const ENV = { 11: 'http://schemas.xmlsoap.org/soap/envelope/', 12: 'http://www.w3.org/2003/05/soap-envelope' } as const;
const HAS_XMLLINT = spawnSync('xmllint', ['--version']).status === 0;
const HAS_GSOAP = spawnSync('wsdl2h', ['-V']).error === undefined && spawnSync('soapcpp2', ['-V']).error === undefined;
const tmp = mkdtempSync(join(tmpdir(), 'dk-soap-'));

let service: Service;
let url: string;
let key: string;
let poorKey: string;
let wsdl: string;
let schemaFile: string;

let server: TestServer;
beforeAll(async () => {
  server = await inProcessServer({ accounts: [{ name: 'demo', credit: 100_000, password: 'demo' }, { name: 'poor', credit: 0 }] });
  ({ service, url } = server);
  key = server.keys.demo;
  poorKey = server.keys.poor;
  wsdl = await (await fetch(`${url}/TrackService.asmx?WSDL`)).text();
  // the WSDL's schema as a standalone XSD (its prefixes are declared on wsdl:definitions)
  const schema = /<s:schema[\s\S]*<\/s:schema>/.exec(wsdl)![0].replace('<s:schema ', `<s:schema xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:tns="${NS}" `);
  schemaFile = join(tmp, 'types.xsd');
  writeFileSync(schemaFile, schema);
});
afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** A request envelope: the operation element with its input written by the records' serializer. */
function envelope(v: 11 | 12, op: string, input: unknown, k: string | null = key): string {
  const o = operationNamed(op)!;
  const w = new XmlWriter().raw(`<?xml version="1.0" encoding="utf-8"?><env:Envelope xmlns:env="${ENV[v]}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`);
  if (k !== null) w.raw(`<env:Header><SessionIDHeader xmlns="${NS}"><SessionID>${k}</SessionID></SessionIDHeader></env:Header>`);
  w.raw('<env:Body>').open(op, { xmlns: NS });
  if (op === 'Login') {
    const l = input as { UserName: string; Password: string };
    w.leaf('userName', l.UserName).leaf('password', l.Password);
  } else if (o.spec && input !== null && input !== undefined) {
    const parsed = o.spec.safeParse(Array.isArray(input) ? { TrackPoints: input } : input);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    w.open('specification');
    writeFields(w, parsed.value as Record<string, unknown>, o.spec);
    w.close('specification');
  }
  return w.close(op).raw('</env:Body></env:Envelope>').toString();
}

async function call(v: 11 | 12, body: string, action?: string): Promise<{ status: number; text: string; root: XmlElement; headers: Headers }> {
  const headers: Record<string, string> = v === 11
    ? { 'Content-Type': 'text/xml; charset=utf-8', ...(action !== undefined ? { SOAPAction: `"${action}"` } : {}) }
    : { 'Content-Type': `application/soap+xml; charset=utf-8${action !== undefined ? `; action="${action}"` : ''}` };
  const r = await fetch(`${url}/TrackService.asmx`, { method: 'POST', headers, body });
  const text = await r.text();
  return { status: r.status, text, root: parseXml(text), headers: r.headers };
}

const kid = (el: XmlElement | undefined, local: string): XmlElement | undefined => el?.children.find((c) => c.local === local);
const bodyOf = (root: XmlElement): XmlElement => kid(root, 'Body')!.children[0];

/** xmllint's verdict on an element against the WSDL's schema. */
function validates(xml: string): string {
  const f = join(tmp, `doc-${Math.random().toString(36).slice(2)}.xml`);
  writeFileSync(f, xml);
  const r = spawnSync('xmllint', ['--noout', '--schema', schemaFile, f], { encoding: 'utf8' });
  return r.status === 0 ? 'ok' : r.stderr;
}

/** The operation response element as its own document (for schema validation). */
function responseElement(text: string): string {
  const m = /<soap:Body>([\s\S]*)<\/soap:Body>/.exec(text)!;
  return m[1].replace(/^<(\w+Response) xmlns="/, `<$1 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="`);
}

describe('the WSDL', () => {
  it('is served at ?WSDL in any case, with the address of the request', async () => {
    for (const q of ['?WSDL', '?wsdl', '?Wsdl']) {
      const r = await fetch(`${url}/trackservice.asmx${q}`);
      expect(r.status, q).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/xml');
    }
    const host = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${url}/TrackService.asmx?WSDL`, { headers: { Host: 'dispatch.example.org:8443' } }, (res: any) => {
        let b = ''; res.on('data', (d: Buffer) => { b += d; }); res.on('end', () => resolve(b));
      });
      req.on('error', reject); req.end();
    });
    expect(host).toContain('location="http://dispatch.example.org:8443/TrackService.asmx"');
  });

  it.skipIf(!HAS_XMLLINT)('is valid WSDL 1.1 (structure) and its schema compiles (xmllint)', () => {
    const f = join(tmp, 'service.wsdl');
    writeFileSync(f, wsdl);
    const structure = spawnSync('xmllint', ['--noout', '--schema', new URL('./soap/wsdl11.xsd', import.meta.url).pathname, f], { encoding: 'utf8' });
    expect(structure.stderr.trim()).toBe(`${f} validates`);
    expect(validates('<CreditRemaining xmlns="http://TrackService.TrackRoad.com/" />')).toBe('ok');
  });

  it.skipIf(!HAS_GSOAP)('gSOAP (a strict consumer) turns it into a C++ proxy: wsdl2h and soapcpp2 succeed, every operation in the proxy', () => {
    const dir = mkdtempSync(join(tmp, 'gsoap-'));
    const f = join(dir, 'service.wsdl');
    writeFileSync(f, wsdl);
    const h = spawnSync('wsdl2h', ['-o', join(dir, 'svc.h'), f], { encoding: 'utf8', cwd: dir });
    expect(h.status, h.stderr + h.stdout).toBe(0);
    // its only remarks: the HttpGet/HttpPost bindings are not SOAP (skipped, as for every ASMX WSDL)
    const warnings = `${h.stdout}\n${h.stderr}`.split('\n').filter((l) => /warning|error/i.test(l));
    expect(warnings.filter((l) => !/service bindings found|RESTful binding "TrackServiceHttp(Get|Post)"/.test(l))).toEqual([]);
    const c = spawnSync('soapcpp2', ['-j', '-C', '-x', 'svc.h'], { encoding: 'utf8', cwd: dir });
    expect(c.status, c.stderr + c.stdout).toBe(0);
    expect(`${c.stdout}${c.stderr}`).not.toMatch(/warning|error/i);
    const proxy = readFileSync(join(dir, 'soapTrackServiceSoapProxy.h'), 'utf8');
    for (const op of SOAP_OPS) expect(proxy).toContain(`int ${op.name}(`);
  });

  it('has the ASMX shapes: wrapped operations, ArrayOf wrappers with nillable items, both SOAP bindings, HTTP GET/POST for three operations', () => {
    for (const op of SOAP_OPS) {
      expect(wsdl).toContain(`<wsdl:operation name="${op.name}"><soap:operation soapAction="${NS}${op.name}" style="document" />`);
      expect(wsdl).toContain(`<wsdl:operation name="${op.name}"><soap12:operation soapAction="${NS}${op.name}" style="document" />`);
    }
    expect(wsdl).toContain('<s:complexType name="ArrayOfLocation"><s:sequence><s:element minOccurs="0" maxOccurs="unbounded" name="Location" nillable="true" type="tns:Location" /></s:sequence></s:complexType>');
    expect(wsdl).toContain('<s:element name="CalculateDistance"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="specification" type="tns:DistanceSpecification" />');
    expect(wsdl).toContain('<s:element name="CreditRemainingResponse"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="CreditRemainingResult" type="tns:CreditResult" />');
    expect(wsdl).toMatch(/<s:complexType name="DispatchResult"><s:complexContent mixed="false"><s:extension base="tns:Result">/);
    expect(wsdl).toContain('<http:binding verb="GET" />');
    expect(wsdl).toContain('<wsdl:operation name="Login"><http:operation location="/Login" />');
    // Location's elements in the contract's order
    const loc = /<s:complexType name="Location"><s:sequence>([\s\S]*?)<\/s:sequence>/.exec(wsdl)![1];
    const names = [...loc.matchAll(/name="(\w+)"/g)].map((m) => m[1]);
    expect(names.slice(0, 6)).toEqual(['MatchCode', 'Name', 'Delivery', 'DeliveryNonStop', 'KeepSameOrder', 'Vehicle']);
    expect(names.at(-1)).toBe('Conditions');
  });
});

describe('every operation over SOAP 1.1 and 1.2, raw envelopes', () => {
  for (const v of [11, 12] as const) {
    for (const op of SOAP_OPS) {
      it(`SOAP ${v === 11 ? '1.1' : '1.2'} ${op.name}: 200, its own envelope version, Status Success, the response valid against the WSDL's schema`, async () => {
        let input: unknown = EXAMPLES[op.name as keyof typeof EXAMPLES];
        let k: string | null = key;
        if (op.name === 'GetRoute') {
          const d = await call(v, envelope(v, 'Dispatch', EXAMPLES.Dispatch));
          input = { RouteID: Number(d.headers.get('x-route-id')) };
        }
        if (op.name === 'Login') k = null;
        const r = await call(v, envelope(v, op.name, input, k), `${NS}${op.name}`);
        expect(r.status, r.text).toBe(200);
        expect(r.headers.get('content-type')).toBe(v === 11 ? 'text/xml; charset=utf-8' : 'application/soap+xml; charset=utf-8');
        expect(r.root.uri).toBe(ENV[v]);
        const resp = bodyOf(r.root);
        expect(resp.local).toBe(`${op.name}Response`);
        expect(resp.uri).toBe(NS);
        if (op.name !== 'Logout') expect(kid(kid(resp, `${op.name}Result`), 'Status')?.text, r.text).toBe('Success');
        if (op.name === 'Login') {
          const sid = kid(kid(kid(r.root, 'Header'), 'SessionIDHeader'), 'SessionID')?.text;
          expect(sid).toBe(kid(kid(resp, 'LoginResult'), 'Key')?.text);
          const again = await call(v, envelope(v, 'CreditRemaining', null, sid!));
          expect(again.status).toBe(200);
        }
        if (HAS_XMLLINT) expect(validates(responseElement(r.text))).toBe('ok');
      });
    }
  }
});

describe('a client generated from the WSDL: node-soap', () => {
  it('calls every operation over SOAP 1.1 with typed objects', async () => {
    const client = await soap.createClientAsync(`${url}/TrackService.asmx?WSDL`);
    client.addSoapHeader({ SessionIDHeader: { SessionID: key } }, '', 'tns', NS);
    const ok = async (name: string, args: unknown): Promise<any> => {
      const [res] = await (client as any)[`${name}Async`](args);
      return res;
    };
    expect((await ok('CreditRemaining', {})).CreditRemainingResult.Status).toBe('Success');
    const d = await ok('CalculateDistance', { specification: EXAMPLES.CalculateDistance });
    expect(d.CalculateDistanceResult.Status).toBe('Success');
    expect(d.CalculateDistanceResult.Distance).toBeGreaterThan(3);
    const disp = await ok('Dispatch', { specification: { ...(EXAMPLES.Dispatch as object), DistanceUnit: 'Kilometer', DispatchMode: 'Optima', Vehicles: { Vehicle: (EXAMPLES.Dispatch as any).Vehicles }, Locations: { Location: (EXAMPLES.Dispatch as any).Locations } } });
    expect(disp.DispatchResult.Status).toBe('Success');
    const items = disp.DispatchResult.Items.VehicleItem;
    expect((Array.isArray(items) ? items : [items])[0].Locations.Location.length).toBe(4);
    const route = await ok('CalculateRoute', { specification: { Locations: { Location: [{ LatLong: EXAMPLES.CalculateDistance && (EXAMPLES.CalculateRoute as any).Locations[0].LatLong }, { LatLong: (EXAMPLES.CalculateRoute as any).Locations[1].LatLong }] }, RouteOptions: { DistanceUnit: 'Kilometer' } } });
    expect(route.CalculateRouteResult.Status).toBe('Success');
    const routes = await ok('CalculateRoutes', { specification: { Specifications: { RouteSpecification: (EXAMPLES.CalculateRoutes as any).Specifications.map((s: any) => ({ Locations: { Location: s.Locations } })) } } });
    expect(routes.CalculateRoutesResult.Status).toBe('Success');
    const geo = await ok('Geocode', { specification: { IsNeedMatchCode: true, Addresses: { Address: (EXAMPLES.Geocode as any).Addresses } } });
    expect(geo.GeocodeResult.Status).toBe('Success');
    const list = await ok('GetRouteList', { specification: {} });
    expect(list.GetRouteListResult.Status).toBe('Success');
    const first = list.GetRouteListResult.Routes.RouteListItem;
    const id = (Array.isArray(first) ? first[0] : first).RouteID;
    expect((await ok('GetRoute', { specification: { RouteID: id } })).GetRouteResult.Status).toBe('Success');
    expect((await ok('TrackPoints', { specification: { TrackPoints: { TrackPoint: EXAMPLES.TrackPoints } } })).TrackPointsResult.Count).toBe(2);
    const track = await ok('GetTrack', { specification: EXAMPLES.GetTrack });
    expect(track.GetTrackResult.Status).toBe('Success');
    const login = await ok('Login', { userName: 'demo', password: 'demo' });
    expect(login.LoginResult.Status).toBe('Success');
    await ok('Logout', {});
  });

  it('speaks SOAP 1.2 when asked (forceSoap12Headers)', async () => {
    const client = await soap.createClientAsync(`${url}/TrackService.asmx?WSDL`, { forceSoap12Headers: true });
    client.addSoapHeader({ SessionIDHeader: { SessionID: key } }, '', 'tns', NS);
    const [res] = await (client as any).CalculateDistanceAsync({ specification: EXAMPLES.CalculateDistance });
    expect(res.CalculateDistanceResult.Status).toBe('Success');
    expect(client.lastResponse).toContain(ENV[12]);
  });
});

describe('input as .NET reads it', () => {
  it('any prefix, any element order, xsi:nil, unknown and foreign elements ignored, enums by name', async () => {
    const body = `<?xml version="1.0"?><S:Envelope xmlns:S="${ENV[11]}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns:t="${NS}">` +
      `<S:Header><t:SessionIDHeader><t:SessionID>${key}</t:SessionID></t:SessionIDHeader></S:Header><S:Body><t:CalculateDistance><t:specification>` +
      '<t:RouteOptimize>MinimizeDistance</t:RouteOptimize><t:DistanceUnit>Kilometer</t:DistanceUnit><t:Unknown>1</t:Unknown>' +
      '<t:FinishLocation><t:LatLong><t:Longitude>7.4155</t:Longitude><t:Latitude>43.7276</t:Latitude></t:LatLong><t:Address i:nil="true" /></t:FinishLocation>' +
      '<t:StartLocation><x:Name xmlns:x="urn:other">ignored</x:Name><t:LatLong><t:Latitude>43.7395</t:Latitude><t:Longitude>7.428</t:Longitude></t:LatLong></t:StartLocation>' +
      '</t:specification></t:CalculateDistance></S:Body></S:Envelope>';
    const r = await call(11, body);
    expect(r.status, r.text).toBe(200);
    const res = kid(bodyOf(r.root), 'CalculateDistanceResult')!;
    expect(kid(res, 'Status')?.text).toBe('Success');
    const plain = await call(11, envelope(11, 'CalculateDistance', { ...(EXAMPLES.CalculateDistance as object), RouteOptimize: 1 }));
    expect(kid(res, 'Distance')?.text).toBe(kid(kid(bodyOf(plain.root), 'CalculateDistanceResult'), 'Distance')?.text);
  });

  it('bad values are Status Failed naming the field (HTTP 200), as on the REST side', async () => {
    const body = envelope(11, 'CalculateDistance', EXAMPLES.CalculateDistance).replace('<DistanceUnit>Kilometer</DistanceUnit>', '<DistanceUnit>Parsec</DistanceUnit>');
    const r = await call(11, body);
    expect(r.status).toBe(200);
    const res = kid(bodyOf(r.root), 'CalculateDistanceResult')!;
    expect(kid(res, 'Status')?.text).toBe('Failed');
    expect(kid(kid(kid(res, 'Errors'), 'Error'), 'Message')?.text).toMatch(/^DistanceUnit: must be one of/);
  });
});

describe('faults', () => {
  const faultOf = (v: 11 | 12, root: XmlElement): { code: string; text: string } => {
    const f = kid(kid(root, 'Body'), 'Fault')!;
    return v === 11 ? { code: kid(f, 'faultcode')!.text, text: kid(f, 'faultstring')!.text }
      : { code: kid(kid(f, 'Code'), 'Value')!.text, text: kid(kid(f, 'Reason'), 'Text')!.text };
  };

  it('a missing or unknown key: 401 with a Client / Sender fault in the caller\'s version; no credit: 403', async () => {
    for (const v of [11, 12] as const) {
      const none = await call(v, envelope(v, 'CreditRemaining', null, null));
      expect(none.status).toBe(401);
      expect(faultOf(v, none.root)).toEqual({ code: v === 11 ? 'soap:Client' : 'soap:Sender', text: expect.stringContaining('SessionID') });
      expect((await call(v, envelope(v, 'CreditRemaining', null, 'dk_nope'))).status).toBe(401);
      const poor = await call(v, envelope(v, 'CalculateDistance', EXAMPLES.CalculateDistance, poorKey));
      expect(poor.status).toBe(403);
      expect(faultOf(v, poor.root).text).toContain('Not enough credit');
    }
  });

  it('malformed XML, DOCTYPE, a missing Body, an unknown operation, a mismatched action, the wrong version: Client faults (1.1: HTTP 500; 1.2: 400)', async () => {
    const cases: [string, RegExp][] = [
      ['<env:Envelope xmlns:env="ENV"><env:Body><CreditRemaining xmlns="NS">', /Malformed XML/],
      ['<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>', /DOCTYPE/],
      ['<env:Envelope xmlns:env="ENV"><env:Header/></env:Envelope>', /no Body/],
      ['<env:Envelope xmlns:env="ENV"><env:Body><Nope xmlns="NS"/></env:Body></env:Envelope>', /No operation/],
      ['<env:Envelope xmlns:env="ENV"><env:Body><CreditRemaining xmlns="urn:wrong"/></env:Body></env:Envelope>', /No operation/],
      ['<Envelope><Body/></Envelope>', /not a SOAP Envelope/],
    ];
    for (const v of [11, 12] as const) {
      for (const [text, re] of cases) {
        const r = await call(v, text.replaceAll('ENV', ENV[v]).replaceAll('NS', NS));
        expect(r.status, text).toBe(v === 11 ? 500 : 400);
        expect(r.root.uri).toBe(ENV[v]);
        expect(faultOf(v, r.root).text, text).toMatch(re);
      }
      const wrongAction = await call(v, envelope(v, 'CreditRemaining', null), `${NS}Dispatch`);
      expect(faultOf(v, wrongAction.root).text).toMatch(/does not match/);
    }
    // a SOAP 1.2 envelope under the SOAP 1.1 Content-Type
    const mismatch = await call(11, envelope(12, 'CreditRemaining', null));
    expect(faultOf(11, mismatch.root).text).toMatch(/SOAP 1.2 envelope under the SOAP 1.1/);
    const media = await fetch(`${url}/TrackService.asmx`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(media.status).toBe(415);
  });
});

describe('plain HTTP GET and POST', () => {
  it('Login, CreditRemaining and Logout, the key as X-API-Key or a SessionID query/form parameter', async () => {
    const login = await fetch(`${url}/TrackService.asmx/Login?userName=demo&password=demo`);
    expect(login.status).toBe(200);
    const lr = parseXml(await login.text());
    expect(lr.local).toBe('LoginResult');
    expect(lr.uri).toBe(NS);
    const session = kid(lr, 'Key')!.text;
    const post = await fetch(`${url}/TrackService.asmx/Login`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'userName=demo&password=demo' });
    expect(kid(parseXml(await post.text()), 'Status')!.text).toBe('Success');
    const credit = (r: string) => kid(parseXml(r), 'Credit')!.text;
    const byHeader = await fetch(`${url}/TrackService.asmx/CreditRemaining`, { headers: { 'X-API-Key': key } });
    expect(Number(credit(await byHeader.text()))).toBeGreaterThan(0);
    const byQuery = await fetch(`${url}/TrackService.asmx/CreditRemaining?SessionID=${encodeURIComponent(session)}`);
    expect(byQuery.status).toBe(200);
    const byForm = await fetch(`${url}/TrackService.asmx/CreditRemaining`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `SessionID=${encodeURIComponent(key)}` });
    expect(byForm.status).toBe(200);
    expect((await fetch(`${url}/TrackService.asmx/CreditRemaining`)).status).toBe(401);
    const out = await fetch(`${url}/TrackService.asmx/Logout?SessionID=${encodeURIComponent(session)}`);
    expect(out.status).toBe(200);
    expect((await fetch(`${url}/TrackService.asmx/CreditRemaining?SessionID=${encodeURIComponent(session)}`)).status).toBe(401);
    if (HAS_XMLLINT) {
      const doc = await (await fetch(`${url}/TrackService.asmx/CreditRemaining`, { headers: { 'X-API-Key': key } })).text();
      expect(validates(doc.replace(/^<\?xml[^>]*\?>/, ''))).toBe('ok');
    }
  });
});
