/**
 * The OpenAPI 3.1 document of the REST face, generated from the record schemas
 * (`records/json-schema.ts`) and the service's operation table — never written by hand. Served at
 * `/openapi.json`; the schema browser at `/docs` reads it. Each operation carries an example that
 * runs on the embedded Monaco dataset (the demo account of `npm start` / `serve --demo`).
 */
import { contractJsonSchema, enumJsonSchema, recordJsonSchema, SERVICE_RECORDS, LIVE_ENUMS, LIVE_RECORDS, PLAN_ENUMS, PLAN_RECORDS } from '../records/index.js';
import { operations, type ServiceOperation, type ServiceOperationName } from '../service/operations.js';
import type { PriceList } from '../service/prices.js';
import { REFUSALS, type RefusalCode } from '../service/refusals.js';

const CASINO = { Latitude: 43.7395, Longitude: 7.428 };
const STADE = { Latitude: 43.7276, Longitude: 7.4155 };
const PALACE = { Latitude: 43.7311, Longitude: 7.4199 };

/** A request that succeeds on the Monaco dataset, per operation (null: no body). */
export const EXAMPLES: Partial<Record<ServiceOperationName, unknown>> = {
  Dispatch: {
    CurrentTime: '2026-11-02T09:00:00', DistanceUnit: 1, DispatchMode: 8,
    Vehicles: [{ Name: 'Van 1', MaxWeight: 10, StartLocation: { Name: 'Depot', LatLong: { Latitude: 43.7314, Longitude: 7.42 } } }],
    Locations: [
      { Name: 'Casino', LatLong: CASINO, Weight: 2, Wait: 300 },
      { Name: 'Stade Louis II', LatLong: STADE, Weight: 3 },
      { Name: 'Palais', LatLong: PALACE, Weight: 1 },
    ],
  },
  CalculateRoute: { Locations: [{ LatLong: CASINO }, { LatLong: STADE }], RouteOptions: { DistanceUnit: 1, Culture: 'en-US' } },
  CalculateRoutes: {
    Specifications: [{ Locations: [{ LatLong: CASINO }, { LatLong: STADE }] }, { Locations: [{ LatLong: STADE }, { LatLong: PALACE }] }],
    RoutesOptions: { DistanceUnit: 1 },
  },
  Geocode: { IsNeedMatchCode: true, Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] },
  CalculateDistance: { StartLocation: { LatLong: CASINO }, FinishLocation: { LatLong: STADE }, DistanceUnit: 1, RouteOptimize: 0 },
  CreditRemaining: null,
  GetRouteList: { FromDate: '2026-01-01T00:00:00Z' },
  GetRoute: { RouteID: 1 },
  GetTrack: { FromDate: '2026-01-01T00:00:00Z', ToDate: '2027-01-01T00:00:00Z' },
  TrackPoints: [
    { Latitude: 43.7395, Longitude: 7.428, TimeStamp: '2026-11-02T09:00:00Z' },
    { Latitude: 43.7381, Longitude: 7.4262, TimeStamp: '2026-11-02T09:00:30Z' },
  ],
  Login: { UserName: 'demo', Password: 'demo' },
  Logout: null,
  SubmitJob: { Operation: 'Geocode', Specification: { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] } },
  PlanGeoJson: null,
};

const ERROR_RESPONSE = { $ref: '#/components/schemas/Result' };
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } };

/** The refusals an operation can meet (from the one refusal table). */
function refusalsOf(op: ServiceOperation): RefusalCode[] {
  const out: RefusalCode[] = ['BadRequest', 'NotFound', 'MethodNotAllowed', 'TooLarge', 'Internal', 'Unavailable'];
  if (op.auth) out.push('Unauthorized', 'Forbidden', 'RateLimited');
  return out;
}

function responses(op: ServiceOperation): Record<string, unknown> {
  const ok = op.respond?.({ JobID: 'x' } as never).status ?? 200; // the status of a successful answer
  const out: Record<string, unknown> = {
    [ok]: {
      description: op.stream ? 'Server-sent events: `event: update` with the record, each time it changes, until it ends.'
        : `Every outcome of the operation, including Status Failed / SuccessWithErrors with Errors naming the field.${op.name === 'Dispatch' ? ' The header X-Route-ID gives the RouteID the result was stored under.' : ''}`,
      content: op.stream ? { 'text/event-stream': { schema: { type: 'string' } } } : { 'application/json': { schema: { $ref: `#/components/schemas/${op.result.name}` } } },
      ...(op.name === 'Dispatch' ? { headers: { 'X-Route-ID': { description: 'RouteID of the stored result (GetRoute).', schema: { type: 'integer' } } } } : {}),
    },
  };
  for (const code of refusalsOf(op)) {
    const r = REFUSALS[code];
    const prev = out[r.http] as { description: string } | undefined;
    out[r.http] = {
      description: prev ? `${prev.description} Or: ${r.doc}` : r.doc,
      content: { 'application/json': { schema: ERROR_RESPONSE } },
      ...(r.retryAfter !== undefined || code === 'RateLimited' ? { headers: RETRY_AFTER } : {}),
    };
  }
  return out;
}

/** The OpenAPI 3.1 document; `prices` goes into each operation's description. */
export function openApiDocument(opts: { prices?: PriceList; version?: string; serverUrl?: string } = {}): Record<string, unknown> {
  const schemas = JSON.parse(JSON.stringify(contractJsonSchema().$defs).replaceAll('#/$defs/', '#/components/schemas/')) as Record<string, unknown>;
  const paths: Record<string, unknown> = {};
  for (const e of [...LIVE_ENUMS, ...PLAN_ENUMS]) schemas[e.name] = enumJsonSchema(e as never);
  for (const r of [...SERVICE_RECORDS, ...LIVE_RECORDS, ...PLAN_RECORDS]) schemas[r.name] = JSON.parse(JSON.stringify(recordJsonSchema(r)).replaceAll('#/$defs/', '#/components/schemas/'));
  for (const op of operations()) {
    const rest = op.faces.rest;
    if (!rest) continue;
    const name = op.name as ServiceOperationName;
    const price = opts.prices?.[name];
    const example = EXAMPLES[name];
    const body = op.spec === null || rest.method !== 'POST' ? undefined : {
      required: op.name !== 'GetRouteList',
      content: {
        'application/json': {
          schema: op.name === 'TrackPoints'
            ? { oneOf: [{ type: 'array', items: { $ref: '#/components/schemas/TrackPoint' } }, { $ref: '#/components/schemas/TrackPointsSpecification' }] }
            : { $ref: `#/components/schemas/${op.spec.name}` },
          ...(example !== null && example !== undefined ? { example } : {}),
        },
      },
    };
    const bound = rest.param ?? 'JobID';
    const pathParams = rest.path.includes(':id') ? [{ name: 'id', in: 'path', required: true, description: `The ${bound}.`, schema: { type: 'string' } }] : [];
    const queryParams = rest.method === 'GET' && op.spec
      ? Object.entries(op.spec.fields as Record<string, { presence: string }>).filter(([k]) => !(rest.path.includes(':id') && k === bound))
        .map(([k, f]) => ({ name: k.toLowerCase(), in: 'query', required: f.presence === 'req', schema: { type: 'string' } }))
      : [];
    const url = `/rest/${rest.path.replace(':id', '{id}')}`;
    const entry = (paths[url] ??= {}) as Record<string, unknown>;
    entry[rest.method.toLowerCase()] = {
      operationId: op.name,
      summary: op.summary,
      description: [
        `${op.extension ? 'An extension (not in the original contract).' : `The contract's ${op.name}.`}`,
        price ? (price.price === 0 ? 'Free.' : `Costs ${price.price} credit${price.price === 1 ? '' : 's'} per ${price.unit} done (the most it can cost is reserved first; a failed operation costs nothing).`) : '',
        op.faces.page ? 'Also answered at the same path under /ui/rest/ for the dispatcher\'s page (its session cookie).' : '',
        'Paths match case-insensitively; enums are accepted as names or integers and returned as integers unless `?enums=name`.',
      ].filter(Boolean).join(' '),
      tags: [op.engine !== undefined ? 'Routing and dispatch' : op.faces.job !== undefined || rest.path.startsWith('jobs') ? 'Jobs' : op.extension && op.runsOn !== 'store' ? 'Maps' : op.auth ? 'Account' : 'Session'],
      ...(op.auth ? {} : { security: [] }),
      parameters: [
        ...pathParams, ...queryParams,
        { name: 'enums', in: 'query', required: false, description: 'name: enums in the response as names instead of integers.', schema: { type: 'string', enum: ['name', 'int'] } },
        { name: 'X-Enums', in: 'header', required: false, description: 'name: as the enums query parameter.', schema: { type: 'string', enum: ['name', 'int'] } },
        ...(op.name === 'Dispatch' ? [
          { name: 'X-Route-Name', in: 'header', required: false, description: 'Name of the stored route (GetRouteList).', schema: { type: 'string' } },
          { name: 'X-Route-Owner', in: 'header', required: false, description: "Owner of the stored route (default: the account's name).", schema: { type: 'string' } },
        ] : []),
      ],
      ...(body ? { requestBody: body } : {}),
      responses: responses(op),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'dispatchkit REST API',
      version: opts.version ?? '0',
      description: 'Routing, dispatch, distance, geocoding, credit, stored routes and GPS tracks with the records of the hosted service it replaces. Send the account key in X-API-Key on every call. The contract\'s operations are POST; a handled request answers 200 whatever its Status.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(opts.serverUrl ? { servers: [{ url: opts.serverUrl }] } : {}),
    security: [{ ApiKeyAuth: [] }],
    tags: [
      { name: 'Routing and dispatch', description: 'The engine operations (priced per unit of work).' },
      { name: 'Account', description: 'Credit, stored dispatches and GPS tracks.' },
      { name: 'Session', description: 'Legacy Login: a session key valid 4 hours after its last use.' },
      { name: 'Jobs', description: 'Long work asynchronously: submit, watch (state, progress, server-sent events), cancel.' },
      { name: 'Maps', description: "What the dispatcher's page draws: the dataset's extent and roads, a plan on the roads." },
    ],
    paths,
    components: {
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas,
    },
  };
}
