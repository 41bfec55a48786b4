/**
 * The OpenAPI 3.1 document of the REST face, generated from the record schemas
 * (`records/json-schema.ts`) and the service's operation table — never written by hand. Served at
 * `/openapi.json`; the schema browser at `/docs` reads it. Each operation carries an example that
 * runs on the embedded Monaco dataset (the demo account of `npm start` / `serve --demo`).
 */
import { contractJsonSchema } from '../records/index.js';
import { SERVICE_OPERATIONS, type ServiceOperation, type ServiceOperationName } from '../service/operations.js';
import type { PriceList } from '../service/prices.js';

const CASINO = { Latitude: 43.7395, Longitude: 7.428 };
const STADE = { Latitude: 43.7276, Longitude: 7.4155 };
const PALACE = { Latitude: 43.7311, Longitude: 7.4199 };

/** A request that succeeds on the Monaco dataset, per operation (null: no body). */
export const EXAMPLES: Record<ServiceOperationName, unknown> = {
  Dispatch: {
    CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 1, DispatchMode: 8,
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
    { Latitude: 43.7395, Longitude: 7.428, TimeStamp: '2026-12-01T09:00:00Z' },
    { Latitude: 43.7381, Longitude: 7.4262, TimeStamp: '2026-12-01T09:00:30Z' },
  ],
  Login: { UserName: 'demo', Password: 'demo' },
  Logout: null,
};

const ERROR_RESPONSE = { $ref: '#/components/schemas/Result' };

function responses(op: ServiceOperation): Record<string, unknown> {
  const err = (description: string): object => ({ description, content: { 'application/json': { schema: ERROR_RESPONSE } } });
  const out: Record<string, unknown> = {
    200: {
      description: `Every outcome of the operation, including Status Failed / SuccessWithErrors with Errors naming the field.${op.name === 'Dispatch' ? ' The header X-Route-ID gives the RouteID the result was stored under.' : ''}`,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${op.result.name}` } } },
      ...(op.name === 'Dispatch' ? { headers: { 'X-Route-ID': { description: 'RouteID of the stored result (GetRoute).', schema: { type: 'integer' } } } } : {}),
    },
    400: err('The body is not JSON (or nested deeper than the limit), or the request is not valid HTTP.'),
    404: err('No such path.'),
    405: { ...err('A method other than POST.'), headers: { Allow: { description: 'POST', schema: { type: 'string' } } } },
    413: err('The body is larger than the limit.'),
    500: err('A bug; the operation was not charged.'),
    503: { ...err("The server is stopping, or the service's database is not available."), headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } },
  };
  if (op.auth) {
    out[401] = err('X-API-Key is missing or unknown (or a Login key that expired).');
    out[403] = err('The account is blocked or expired, or its credit does not cover the request.');
    out[429] = { ...err('Over the per-account rate limit.'), headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } };
  }
  return out;
}

/** The OpenAPI 3.1 document; `prices` goes into each operation's description. */
export function openApiDocument(opts: { prices?: PriceList; version?: string; serverUrl?: string } = {}): Record<string, unknown> {
  const schemas = JSON.parse(JSON.stringify(contractJsonSchema().$defs).replaceAll('#/$defs/', '#/components/schemas/')) as Record<string, unknown>;
  const paths: Record<string, unknown> = {};
  for (const [name, op] of Object.entries(SERVICE_OPERATIONS) as [ServiceOperationName, ServiceOperation][]) {
    const price = opts.prices?.[name];
    const example = EXAMPLES[name];
    const body = op.spec === null ? undefined : {
      required: op.name !== 'GetRouteList',
      content: {
        'application/json': {
          schema: op.name === 'TrackPoints'
            ? { oneOf: [{ type: 'array', items: { $ref: '#/components/schemas/TrackPoint' } }, { $ref: '#/components/schemas/TrackPointsSpecification' }] }
            : { $ref: `#/components/schemas/${op.spec.name}` },
          ...(example !== null ? { example } : {}),
        },
      },
    };
    paths[`/rest/${op.rest}`] = {
      post: {
        operationId: op.name,
        summary: op.summary,
        description: [
          `The contract's ${op.name}${op.extension ? ' (an extension: not in the original contract)' : ''}.`,
          price ? (price.price === 0 ? 'Free.' : `Costs ${price.price} credit${price.price === 1 ? '' : 's'} per ${price.unit} done (the most it can cost is reserved first; a failed operation costs nothing).`) : '',
          'Paths match case-insensitively; enums are accepted as names or integers and returned as integers unless `?enums=name`.',
        ].filter(Boolean).join(' '),
        tags: [op.engine !== null ? 'Routing and dispatch' : op.auth ? 'Account' : 'Session'],
        ...(op.auth ? {} : { security: [] }),
        parameters: [
          { name: 'enums', in: 'query', required: false, description: 'name: enums in the response as names instead of integers.', schema: { type: 'string', enum: ['name', 'int'] } },
          { name: 'X-Enums', in: 'header', required: false, description: 'name: as the enums query parameter.', schema: { type: 'string', enum: ['name', 'int'] } },
          ...(op.name === 'Dispatch' ? [
            { name: 'X-Route-Name', in: 'header', required: false, description: 'Name of the stored route (GetRouteList).', schema: { type: 'string' } },
            { name: 'X-Route-Owner', in: 'header', required: false, description: "Owner of the stored route (default: the account's name).", schema: { type: 'string' } },
          ] : []),
        ],
        ...(body ? { requestBody: body } : {}),
        responses: responses(op),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'dispatchkit REST API',
      version: opts.version ?? '0',
      description: 'Routing, dispatch, distance, geocoding, credit, stored routes and GPS tracks with the records of the hosted service it replaces. Send the account key in X-API-Key on every call. Every operation is POST; a handled request answers 200 whatever its Status.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(opts.serverUrl ? { servers: [{ url: opts.serverUrl }] } : {}),
    security: [{ ApiKeyAuth: [] }],
    tags: [
      { name: 'Routing and dispatch', description: 'The engine operations (priced per unit of work).' },
      { name: 'Account', description: 'Credit, stored dispatches and GPS tracks.' },
      { name: 'Session', description: 'Legacy Login: a session key valid 4 hours after its last use.' },
    ],
    paths,
    components: {
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas,
    },
  };
}
