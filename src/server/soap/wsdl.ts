/**
 * The WSDL 1.1 of the SOAP face, generated from the record schemas and the service's operation
 * table with the conventions of an ASMX service (document/literal wrapped): one schema in the
 * service namespace with qualified elements; every field minOccurs 0 unless the contract says it
 * is required ("an element is optional unless the table says required"); lists as `ArrayOf<Item>` types whose nillable items repeat; result types extending
 * the abstract `Result`; enums as string restrictions; the SessionIDHeader header on every
 * operation but Login (whose response carries it); SOAP 1.1 and 1.2 bindings for every operation,
 * HTTP GET and POST bindings for Login, Logout and CreditRemaining; the service address taken from
 * the request.
 */
import { ENUMS, RECORDS } from '../../records/contract.js';
import { describeType, type AnyField, type EnumDef, type RecordDef, type Ty } from '../../records/schema.js';
import { operations, type ServiceOperation } from '../../service/operations.js';
import { itemName } from './codec.js';
import { escapeAttr } from './xml.js';

/** Records that are not part of the SOAP contract (REST-only shapes). */
const REST_ONLY = new Set(['LoginSpecification', 'SessionIDHeader']);

/** The operations with a plain HTTP GET/POST binding (primitive parameters only, as ASMX emits): the table's rows marked `http`. */
export function httpOperations(): string[] {
  return operations().filter((o) => o.faces.http).map((o) => o.name);
}

/** How an operation's request element carries its input (the table's `faces.soap`). */
export function soapParams(op: ServiceOperation): 'login' | 'none' | 'specification' {
  return op.faces.soap ?? 'none';
}

function xsdType(ty: Ty<any, any>): string {
  const d = describeType(ty);
  if (d.record) return `tns:${d.record.name}`;
  if (d.enumDef) return `tns:${d.enumDef.name}`;
  if (d.list) return `tns:ArrayOf${itemName(d.list)}`;
  return `s:${d.xsd}`;
}

function fieldElement(name: string, f: AnyField): string {
  // the contract: "an element is optional unless the table says required"
  const min = f.presence === 'req' ? 1 : 0;
  const d = describeType(f.ty);
  if (d.xsd && (d.min !== undefined || d.max !== undefined)) {
    // a bounded number (records/contract.ts, docs/limits.md): the bounds as facets
    const facets = `${d.min !== undefined ? `<s:minInclusive value="${d.min}" />` : ''}${d.max !== undefined ? `<s:maxInclusive value="${d.max}" />` : ''}`;
    return `<s:element minOccurs="${min}" maxOccurs="1" name="${name}"><s:simpleType><s:restriction base="s:${d.xsd}">${facets}</s:restriction></s:simpleType></s:element>`;
  }
  return `<s:element minOccurs="${min}" maxOccurs="1" name="${name}" type="${xsdType(f.ty)}" />`;
}

function complexType(r: RecordDef<any>): string {
  const own = Object.entries(r.fields as Record<string, AnyField>).filter(([k]) => !r.base || !(k in r.base.fields));
  const seq = own.length === 0 ? '<s:sequence />' : `<s:sequence>${own.map(([k, f]) => fieldElement(k, f)).join('')}</s:sequence>`;
  if (r.base) {
    return `<s:complexType name="${r.name}"><s:complexContent mixed="false"><s:extension base="tns:${r.base.name}">${seq}</s:extension></s:complexContent></s:complexType>`;
  }
  return `<s:complexType name="${r.name}"${r.name === 'Result' ? ' abstract="true"' : ''}>${seq}</s:complexType>`;
}

function enumType(e: EnumDef<any>): string {
  return `<s:simpleType name="${e.name}"><s:restriction base="s:string">${e.acceptedNames.map((n) => `<s:enumeration value="${n}" />`).join('')}</s:restriction></s:simpleType>`;
}

/** Every `ArrayOf<Item>` the records use. */
function arrayTypes(): string[] {
  const seen = new Map<string, Ty<any, any>>();
  for (const r of RECORDS) {
    for (const f of Object.values(r.fields as Record<string, AnyField>)) {
      const d = describeType(f.ty);
      if (d.list) seen.set(itemName(d.list), d.list);
    }
  }
  return [...seen.entries()].map(([n, item]) =>
    `<s:complexType name="ArrayOf${n}"><s:sequence><s:element minOccurs="0" maxOccurs="unbounded" name="${n}" nillable="true" type="${xsdType(item)}" /></s:sequence></s:complexType>`);
}

const SOAP_OPS = (): ServiceOperation[] => operations().filter((o) => o.faces.soap);

function operationElements(op: ServiceOperation): string {
  const p = soapParams(op);
  const input = p === 'login'
    ? '<s:sequence><s:element minOccurs="0" maxOccurs="1" name="userName" type="s:string" /><s:element minOccurs="0" maxOccurs="1" name="password" type="s:string" /></s:sequence>'
    : p === 'specification' ? `<s:sequence><s:element minOccurs="0" maxOccurs="1" name="specification" type="tns:${op.spec!.name}" /></s:sequence>` : '';
  const output = op.faces.soapVoid ? '' : `<s:sequence><s:element minOccurs="0" maxOccurs="1" name="${op.name}Result" type="tns:${op.result.name}" /></s:sequence>`;
  const el = (name: string, body: string): string => (body ? `<s:element name="${name}"><s:complexType>${body}</s:complexType></s:element>` : `<s:element name="${name}"><s:complexType /></s:element>`);
  return el(op.name, input) + el(`${op.name}Response`, output);
}

export interface WsdlOptions {
  /** The service namespace (default {@link DEFAULT_NAMESPACE}). */
  namespace?: string;
  /** The endpoint's absolute URL, e.g. http://host:8080/TrackService.asmx. */
  location: string;
  /** Service name (default TrackService). */
  service?: string;
}

export const DEFAULT_NAMESPACE = 'http://TrackService.TrackRoad.com/';

export function wsdlDocument(o: WsdlOptions): string {
  const ns = o.namespace ?? DEFAULT_NAMESPACE;
  const svc = o.service ?? 'TrackService';
  const loc = escapeAttr(o.location);
  const ops = SOAP_OPS();
  const http = ops.filter((op) => op.faces.http);
  const types = [
    ...ops.map(operationElements),
    ...RECORDS.filter((r) => !REST_ONLY.has(r.name)).map(complexType),
    ...arrayTypes(),
    ...ENUMS.map(enumType),
    '<s:element name="SessionIDHeader" type="tns:SessionIDHeader" />',
    '<s:complexType name="SessionIDHeader"><s:sequence><s:element minOccurs="0" maxOccurs="1" name="SessionID" type="s:string" /></s:sequence><s:anyAttribute /></s:complexType>',
    // the roots of the plain HTTP responses
    ...http.filter((op) => !op.faces.soapVoid).map((op) => `<s:element name="${op.result.name}" nillable="true" type="tns:${op.result.name}" />`),
  ].join('');

  const messages: string[] = [];
  for (const op of ops) {
    messages.push(`<wsdl:message name="${op.name}SoapIn"><wsdl:part name="parameters" element="tns:${op.name}" /></wsdl:message>`);
    messages.push(`<wsdl:message name="${op.name}SoapOut"><wsdl:part name="parameters" element="tns:${op.name}Response" /></wsdl:message>`);
    messages.push(`<wsdl:message name="${op.name}SessionIDHeader"><wsdl:part name="SessionIDHeader" element="tns:SessionIDHeader" /></wsdl:message>`);
  }
  for (const verb of ['HttpGet', 'HttpPost']) {
    for (const op of http) {
      // the key of the plain HTTP calls: a SessionID parameter (or the X-API-Key header)
      const parts = soapParams(op) === 'login' ? '<wsdl:part name="userName" type="s:string" /><wsdl:part name="password" type="s:string" />' : '<wsdl:part name="SessionID" type="s:string" />';
      messages.push(`<wsdl:message name="${op.name}${verb}In">${parts}</wsdl:message>`);
      const out = op.faces.soapVoid ? '' : `<wsdl:part name="Body" element="tns:${op.result.name}" />`;
      messages.push(`<wsdl:message name="${op.name}${verb}Out">${out}</wsdl:message>`);
    }
  }
  const doc = (op: ServiceOperation): string => `<wsdl:documentation xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${escapeAttr(op.summary)}</wsdl:documentation>`;
  const portType = (name: string, list: ServiceOperation[], suffix: string): string =>
    `<wsdl:portType name="${name}">${list.map((op) => `<wsdl:operation name="${op.name}">${doc(op)}<wsdl:input message="tns:${op.name}${suffix}In" /><wsdl:output message="tns:${op.name}${suffix}Out" /></wsdl:operation>`).join('')}</wsdl:portType>`;

  const soapBinding = (p: 'soap' | 'soap12', name: string): string => {
    const body = ops.map((op) => {
      const inHeader = !op.auth ? '' : `<${p}:header message="tns:${op.name}SessionIDHeader" part="SessionIDHeader" use="literal" />`;
      const outHeader = soapParams(op) === 'login' ? `<${p}:header message="tns:${op.name}SessionIDHeader" part="SessionIDHeader" use="literal" />` : '';
      return `<wsdl:operation name="${op.name}"><${p}:operation soapAction="${ns}${op.name}" style="document" />` +
        `<wsdl:input><${p}:body use="literal" />${inHeader}</wsdl:input><wsdl:output><${p}:body use="literal" />${outHeader}</wsdl:output></wsdl:operation>`;
    }).join('');
    return `<wsdl:binding name="${name}" type="tns:${svc}Soap"><${p}:binding transport="http://schemas.xmlsoap.org/soap/http" />${body}</wsdl:binding>`;
  };
  const httpBinding = (verb: 'GET' | 'POST'): string => {
    const name = verb === 'GET' ? 'HttpGet' : 'HttpPost';
    const input = verb === 'GET' ? '<http:urlEncoded />' : '<mime:content type="application/x-www-form-urlencoded" />';
    const body = http.map((op) => `<wsdl:operation name="${op.name}"><http:operation location="/${op.name}" /><wsdl:input>${input}</wsdl:input><wsdl:output>${op.faces.soapVoid ? '' : '<mime:mimeXml part="Body" />'}</wsdl:output></wsdl:operation>`).join('');
    return `<wsdl:binding name="${svc}${name}" type="tns:${svc}${name}"><http:binding verb="${verb}" />${body}</wsdl:binding>`;
  };

  return '<?xml version="1.0" encoding="utf-8"?>' +
    '<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tm="http://microsoft.com/wsdl/mime/textMatching/" ' +
    'xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:mime="http://schemas.xmlsoap.org/wsdl/mime/" ' +
    `xmlns:tns="${escapeAttr(ns)}" xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/" ` +
    `xmlns:http="http://schemas.xmlsoap.org/wsdl/http/" targetNamespace="${escapeAttr(ns)}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">` +
    `<wsdl:types><s:schema elementFormDefault="qualified" targetNamespace="${escapeAttr(ns)}">${types}</s:schema></wsdl:types>` +
    messages.join('') +
    portType(`${svc}Soap`, ops, 'Soap') +
    portType(`${svc}HttpGet`, http, 'HttpGet') +
    portType(`${svc}HttpPost`, http, 'HttpPost') +
    soapBinding('soap', `${svc}Soap`) + soapBinding('soap12', `${svc}Soap12`) + httpBinding('GET') + httpBinding('POST') +
    `<wsdl:service name="${svc}">` +
    `<wsdl:port name="${svc}Soap" binding="tns:${svc}Soap"><soap:address location="${loc}" /></wsdl:port>` +
    `<wsdl:port name="${svc}Soap12" binding="tns:${svc}Soap12"><soap12:address location="${loc}" /></wsdl:port>` +
    `<wsdl:port name="${svc}HttpGet" binding="tns:${svc}HttpGet"><http:address location="${loc}" /></wsdl:port>` +
    `<wsdl:port name="${svc}HttpPost" binding="tns:${svc}HttpPost"><http:address location="${loc}" /></wsdl:port>` +
    '</wsdl:service></wsdl:definitions>';
}
