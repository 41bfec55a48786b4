"""Every TrackService operation through zeep (python3-zeep), with typed objects built from the
served WSDL and nothing of dispatchkit's in between.

usage: /usr/bin/python3 zeep_client.py <wsdl-url> <api-key> <user-name> <password> <1.1|1.2> <unknown-key>

SOAP 1.1 goes through the TrackServiceSoap port (client.service), SOAP 1.2 through
client.bind('TrackService', 'TrackServiceSoap12'). Prints one JSON line (soap_common.Report).
"""
import sys
from datetime import datetime, timedelta, timezone

import zeep
from zeep.exceptions import Fault
from zeep.transports import Transport

from soap_common import (ADDRESS, CASINO, DEPOT, GARE, PRICE, STADE, STOPS, TRACK_FROM, TRACK_POINTS, TRACK_TO, Report,
                         as_utc, check, near)

wsdl, api_key, user, password, version, bad_key = sys.argv[1:7]


class RecordingTransport(Transport):
    """zeep's own transport, remembering the last request's headers and the last response's status."""

    def post(self, address, message, headers):
        self.last_request_headers = dict(headers)
        response = super().post(address, message, headers)
        self.last_status = response.status_code
        return response


transport = RecordingTransport(timeout=30, operation_timeout=60)
client = zeep.Client(wsdl, transport=transport)
if version == '1.1':
    svc = client.service
    port = 'TrackServiceSoap'
else:
    svc = client.bind('TrackService', 'TrackServiceSoap12')
    port = 'TrackServiceSoap12'
report = Report('zeep', version)
T = client.type_factory('ns0')
SessionIDHeader = client.get_element('ns0:SessionIDHeader')


def auth(key):
    return {'_soapheaders': [SessionIDHeader(SessionID=key)]}


def items(wrapper, name):
    """The items of an ArrayOf<Item> wrapper (zeep reads an empty or absent one as None)."""
    return [] if wrapper is None else list(getattr(wrapper, name) or [])


def loc(p, **kw):
    return T.Location(Name=p[0], LatLong=T.LatLong(Latitude=p[1], Longitude=p[2]), **kw)


def success(r, what):
    errors = [e.Message for e in items(r.Errors, 'Error')] if hasattr(r, 'Errors') else []
    check(r.Status == 'Success', f'{what}: Status {r.Status}, Errors {errors}')


def sent_as_version():
    """The last request really went out in this SOAP version (Content-Type and action)."""
    h = {k.lower(): v for k, v in transport.last_request_headers.items()}
    ct = h.get('content-type', '')
    if version == '1.1':
        check(ct.startswith('text/xml') and 'soapaction' in h, f'SOAP 1.1 request headers {h}')
    else:
        check(ct.startswith('application/soap+xml'), f'SOAP 1.2 request headers {h}')


state = {}


def credit_before():
    r = svc.CreditRemaining(**auth(api_key))
    sent_as_version()
    success(r, 'CreditRemaining')
    check(isinstance(r.Credit, int) and r.Credit > 0, f'Credit {r.Credit!r}')
    state['credit0'] = r.Credit
    return f'Credit {r.Credit} (via {port})'


def calculate_distance():
    spec = T.DistanceSpecification(StartLocation=loc(CASINO), FinishLocation=loc(STADE), DistanceUnit='Kilometer', RouteOptimize='MinimizeTime')
    r = svc.CalculateDistance(specification=spec, **auth(api_key))
    success(r, 'CalculateDistance')
    check(r.Distance > 0 and r.Time > 0, f'Distance {r.Distance}, Time {r.Time}')
    check(r.Distance < 10, f'{r.Distance} km across Monaco')
    check(r.StartLocationMatchCode in ('None', 'Poor', 'Approx', 'Good', 'Exact'), f'StartLocationMatchCode {r.StartLocationMatchCode!r}')
    return f'{r.Distance:.3f} km, {r.Time} s'


def calculate_route():
    spec = T.RouteSpecification(
        Locations=T.ArrayOfLocation(Location=[loc(CASINO), loc(GARE), loc(STADE)]),
        RouteOptions=T.RouteOptions(DistanceUnit='Kilometer', RouteOptimize='MinimizeTime', Culture='en-US'),
    )
    r = svc.CalculateRoute(specification=spec, **auth(api_key))
    success(r, 'CalculateRoute')
    route = r.Route
    check(route is not None and route.Distance > 0 and route.Time > 0, f'Route {route}')
    legs = items(route.RouteLegs, 'RouteLeg')
    check(len(legs) == 2, f'{len(legs)} legs for 3 locations')
    check(near(sum(leg.Distance for leg in legs), route.Distance, 1e-3), 'legs do not add up to the route')
    steps = [i for leg in legs for i in items(leg.Itinerary.Items if leg.Itinerary else None, 'RouteItineraryItem')]
    check(len(steps) > 0 and all(s.Text for s in steps), 'no itinerary text')
    check(len(items(route.Points, 'LatLong')) > 1, 'no route points')
    return f'{route.Distance:.3f} km, {len(legs)} legs, {len(steps)} steps'


def calculate_routes():
    one = T.RouteSpecification(Locations=T.ArrayOfLocation(Location=[loc(CASINO), loc(STADE)]))
    two = T.RouteSpecification(Locations=T.ArrayOfLocation(Location=[loc(STADE), loc(GARE)]))
    spec = T.RoutesSpecification(Specifications=T.ArrayOfRouteSpecification(RouteSpecification=[one, two]), RoutesOptions=T.RouteOptions(DistanceUnit='Kilometer'))
    r = svc.CalculateRoutes(specification=spec, **auth(api_key))
    success(r, 'CalculateRoutes')
    results = items(r.Results, 'RouteResult')
    check(len(results) == 2, f'{len(results)} results for 2 specifications')
    for i, x in enumerate(results):
        success(x, f'Results[{i}]')
        check(x.Route is not None and x.Route.Distance > 0, f'Results[{i}].Route {x.Route}')
    return ', '.join(f'{x.Route.Distance:.3f} km' for x in results)


def geocode():
    spec = T.GeocodeSpecification(IsNeedMatchCode=True, Addresses=T.ArrayOfAddress(Address=[T.Address(Street=ADDRESS[0], City=ADDRESS[1])]))
    r = svc.Geocode(specification=spec, **auth(api_key))
    success(r, 'Geocode')
    gi = items(r.Items, 'GeocodeItem')
    check(len(gi) == 1, f'{len(gi)} items for 1 address')
    cands = items(gi[0].Locations, 'Location')
    check(len(cands) > 0, 'no candidate')
    ll = cands[0].LatLong
    check(43.72 < ll.Latitude < 43.76 and 7.40 < ll.Longitude < 7.45, f'candidate outside Monaco: {ll}')
    return f'{len(cands)} candidates, first {ll.Latitude:.5f},{ll.Longitude:.5f} {cands[0].MatchCode}'


def vehicles_of(result):
    return [(vi.Vehicle.Name, [l.Name for l in items(vi.Locations, 'Location')]) for vi in items(result.Items, 'VehicleItem')]


def dispatch():
    spec = T.DispatchSpecification(
        CurrentTime=datetime(2026, 12, 1, 9, 0, 0), DistanceUnit='Kilometer', DispatchMode='Optima', RouteOptimize='MinimizeTime',
        Vehicles=T.ArrayOfVehicle(Vehicle=[T.Vehicle(Name='Van 1', MaxWeight=10, StartLocation=loc(DEPOT))]),
        Locations=T.ArrayOfLocation(Location=[loc(p, Weight=1, Wait=120) for p in STOPS]),
    )
    r = svc.Dispatch(specification=spec, **auth(api_key))
    success(r, 'Dispatch')
    vs = vehicles_of(r)
    check(len(vs) == 1 and vs[0][0] == 'Van 1', f'vehicles {vs}')
    names = vs[0][1]
    for p in STOPS:
        check(names.count(p[0]) == 1, f'{p[0]} appears {names.count(p[0])} times in {names}')
    locs = items(items(r.Items, 'VehicleItem')[0].Locations, 'Location')
    check(sum(l.Distance for l in locs) > 0, 'no distance on the legs')
    check(all(isinstance(l.TimeEstimatedArrival, datetime) for l in locs), 'TimeEstimatedArrival is not a dateTime')
    state['dispatch'] = vs
    return f'Van 1: {" > ".join(names)}'


def credit_after():
    r = svc.CreditRemaining(**auth(api_key))
    success(r, 'CreditRemaining')
    spent = state['credit0'] - r.Credit
    check(spent == sum(PRICE.values()), f'spent {spent}, the documented prices make {sum(PRICE.values())} ({PRICE})')
    state['credit1'] = r.Credit
    return f'spent {spent} as documented'


def route_list():
    spec = T.RouteListSpecification(FromDate=datetime.now(timezone.utc) - timedelta(hours=1), RouteName='STOPS ON')
    r = svc.GetRouteList(specification=spec, **auth(api_key))
    success(r, 'GetRouteList')
    routes = items(r.Routes, 'RouteListItem')
    check(len(routes) == 1, f'{len(routes)} routes listed, expected the one dispatch')
    x = routes[0]
    check(x.RouteID > 0 and x.Distance > 0 and x.Time > 0, f'route {x}')
    check(x.RouteName == f'{len(STOPS)} stops on 1 vehicle', f'RouteName {x.RouteName!r}')
    check(abs((datetime.now(timezone.utc) - as_utc(x.DateCreated)).total_seconds()) < 600, f'DateCreated {x.DateCreated!r}')
    state['route_id'] = x.RouteID
    return f'RouteID {x.RouteID} {x.RouteName!r}'


def get_route():
    r = svc.GetRoute(specification=T.GetRouteSpecification(RouteID=state['route_id']), **auth(api_key))
    success(r, 'GetRoute')
    check(vehicles_of(r) == state['dispatch'], f'stored {vehicles_of(r)} != dispatched {state["dispatch"]}')
    return 'the dispatched vehicles and stops'


TRACK = f'zeep-{version}-van'


def track_points():
    pts = [T.TrackPoint(Latitude=la, Longitude=lo, TimeStamp=ts) for la, lo, ts in TRACK_POINTS]
    r = svc.TrackPoints(specification=T.TrackPointsSpecification(Account=TRACK, TrackPoints=T.ArrayOfTrackPoint(TrackPoint=pts)), **auth(api_key))
    success(r, 'TrackPoints')
    check(r.Count == len(TRACK_POINTS), f'Count {r.Count}')
    return f'{r.Count} points on {TRACK}'


def get_track():
    r = svc.GetTrack(specification=T.TrackSpecification(Account=TRACK, FromDate=TRACK_FROM, ToDate=TRACK_TO), **auth(api_key))
    success(r, 'GetTrack')
    got = [(p.Latitude, p.Longitude, as_utc(p.TimeStamp)) for p in items(r.TrackPoints, 'TrackPoint')]
    want = sorted(TRACK_POINTS, key=lambda p: p[2])
    check(len(got) == len(want), f'{len(got)} points back')
    for g, w in zip(got, want):
        check(near(g[0], w[0]) and near(g[1], w[1]) and g[2] == w[2], f'{g} != {w}')
    return 'round trip in time order'


def login():
    bad = svc.Login(userName=user, password=password + 'x')
    bad = bad.body.LoginResult if hasattr(bad, 'body') else bad
    check(bad.Status == 'Failed' and bad.Message == 'Wrong user name or password.', f'wrong password: {bad}')
    r = svc.Login(userName=user, password=password)
    res = r.body.LoginResult
    check(res.Status == 'Success' and res.Key, f'LoginResult {res}')
    header = r.header.SessionIDHeader
    check(header is not None and header.SessionID == res.Key, f'SessionIDHeader {header} != Key {res.Key}')
    c = svc.CreditRemaining(**auth(res.Key))
    success(c, 'CreditRemaining with the Login key')
    check(c.Credit == state.get('credit1', c.Credit), f'Credit {c.Credit} through the session, {state.get("credit1")} through the API key')
    state['session'] = res.Key
    return 'Key in LoginResult and SessionIDHeader; works as SessionID'


def logout():
    r = svc.Logout(**auth(state['session']))
    check(r is None, f'LogoutResponse {r!r}')
    check(transport.last_status == 200, f'HTTP {transport.last_status}')
    refused = refusal('CreditRemaining after Logout', lambda: svc.CreditRemaining(**auth(state['session'])))
    state['after_logout'] = refused
    check(refused['raised'] is not None, 'the Login key still works after Logout')
    success(svc.CreditRemaining(**auth(api_key)), 'the API key after Logout')
    return f"session ended: {refused['raised']} {refused.get('message')!r}, HTTP {refused['status']}"


def refusal(label, call):
    """What the client raises for a call the service refuses: the exception type, the fault's message and code, the HTTP status."""
    transport.last_status = None
    try:
        call()
        return {'operation': label, 'raised': None, 'status': transport.last_status}
    except Fault as f:
        return {'operation': label, 'raised': 'zeep.exceptions.Fault', 'message': f.message, 'code': f.code, 'status': transport.last_status}
    except Exception as e:  # noqa: BLE001
        return {'operation': label, 'raised': f'{type(e).__module__}.{type(e).__name__}', 'message': str(e), 'status': transport.last_status}


def with_unknown_key():
    """A free and a paid operation with a key the service does not know."""
    spec = T.DistanceSpecification(StartLocation=loc(CASINO), FinishLocation=loc(STADE), DistanceUnit='Mile')
    return [refusal('CreditRemaining', lambda: svc.CreditRemaining(**auth(bad_key))),
            refusal('CalculateDistance', lambda: svc.CalculateDistance(specification=spec, **auth(bad_key)))]


report.run_all(globals(), state)
