"""Every TrackService operation through suds (python3-suds, SOAP 1.1), with typed objects made by
client.factory.create from the served WSDL and nothing of dispatchkit's in between.

usage: /usr/bin/python3 suds_client.py <wsdl-url> <api-key> <user-name> <password> <unknown-key>

Prints one JSON line (soap_common.Report).
"""
import sys
from xml.etree import ElementTree
from datetime import datetime, timedelta, timezone

from suds import WebFault
from suds.cache import NoCache
from suds.client import Client
from suds.transport import TransportError
from suds.transport.http import HttpTransport

from soap_common import (ADDRESS, CASINO, DEPOT, GARE, NS, PRICE, STADE, STOPS, TRACK_FROM, TRACK_POINTS, TRACK_TO, Report,
                         as_utc, check, near)

SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/'
wsdl, api_key, user, password, bad_key = sys.argv[1:6]


class RecordingTransport(HttpTransport):
    """suds' own HTTP transport, remembering the last response's HTTP status."""

    def send(self, request):
        self.last_status = None
        try:
            reply = HttpTransport.send(self, request)
        except TransportError as e:
            self.last_status = e.httpcode
            raise
        self.last_status = reply.code
        return reply


transport = RecordingTransport()
client = Client(wsdl, transport=transport, cache=NoCache(), timeout=60, faults=True)
svc = client.service['TrackServiceSoap']
f = client.factory
report = Report('suds', '1.1')

DistanceUnit = f.create('DistanceUnit')
RouteOptimize = f.create('RouteOptimize')
DispatchMode = f.create('DispatchMode')


def use_key(key):
    h = f.create('SessionIDHeader')
    h.SessionID = key
    client.set_options(soapheaders=h)


def items(wrapper, name):
    """The items of an ArrayOf<Item> wrapper (suds reads an empty one as '' and an absent one as None)."""
    if wrapper is None or isinstance(wrapper, str):
        return []
    v = getattr(wrapper, name, None)
    return [] if v is None else list(v) if isinstance(v, list) else [v]


def latlong(lat, lon):
    ll = f.create('LatLong')
    ll.Latitude, ll.Longitude = lat, lon
    return ll


def loc(p, **kw):
    l = f.create('Location')
    l.Name, l.LatLong = p[0], latlong(p[1], p[2])
    for k, v in kw.items():
        setattr(l, k, v)
    return l


def array(type_name, item_name, values):
    a = f.create(type_name)
    setattr(a, item_name, list(values))
    return a


def success(r, what):
    errors = [e.Message for e in items(r.Errors, 'Error')] if hasattr(r, 'Errors') else []
    check(r.Status == 'Success', f'{what}: Status {r.Status}, Errors {errors}')


state = {}


def credit_before():
    use_key(api_key)
    r = svc.CreditRemaining()
    success(r, 'CreditRemaining')
    check(isinstance(r.Credit, int) and r.Credit > 0, f'Credit {r.Credit!r}')
    state['credit0'] = r.Credit
    return f'Credit {r.Credit}'


def distance_spec(unit):
    spec = f.create('DistanceSpecification')
    spec.StartLocation, spec.FinishLocation = loc(CASINO), loc(STADE)
    spec.DistanceUnit, spec.RouteOptimize = unit, RouteOptimize.MinimizeTime
    return spec


def calculate_distance():
    r = svc.CalculateDistance(distance_spec(DistanceUnit.Kilometer))
    success(r, 'CalculateDistance')
    check(r.Distance > 0 and r.Time > 0, f'Distance {r.Distance}, Time {r.Time}')
    check(r.Distance < 10, f'{r.Distance} km across Monaco')
    check(r.StartLocationMatchCode in ('None', 'Poor', 'Approx', 'Good', 'Exact'), f'StartLocationMatchCode {r.StartLocationMatchCode!r}')
    return f'{r.Distance:.3f} km, {r.Time} s'


def route_options():
    o = f.create('RouteOptions')
    o.DistanceUnit, o.RouteOptimize, o.Culture = DistanceUnit.Kilometer, RouteOptimize.MinimizeTime, 'en-US'
    return o


def route_spec(*places):
    s = f.create('RouteSpecification')
    s.Locations = array('ArrayOfLocation', 'Location', [loc(p) for p in places])
    return s


def calculate_route():
    spec = route_spec(CASINO, GARE, STADE)
    spec.RouteOptions = route_options()
    r = svc.CalculateRoute(spec)
    success(r, 'CalculateRoute')
    route = r.Route
    check(route is not None and route.Distance > 0 and route.Time > 0, f'Route {route}')
    legs = items(route.RouteLegs, 'RouteLeg')
    check(len(legs) == 2, f'{len(legs)} legs for 3 locations')
    check(near(sum(leg.Distance for leg in legs), route.Distance, 1e-3), 'legs do not add up to the route')
    steps = [i for leg in legs for i in items(getattr(leg.Itinerary, 'Items', None), 'RouteItineraryItem')]
    check(len(steps) > 0 and all(s.Text for s in steps), 'no itinerary text')
    check(len(items(route.Points, 'LatLong')) > 1, 'no route points')
    return f'{route.Distance:.3f} km, {len(legs)} legs, {len(steps)} steps'


def calculate_routes():
    spec = f.create('RoutesSpecification')
    spec.Specifications = array('ArrayOfRouteSpecification', 'RouteSpecification', [route_spec(CASINO, STADE), route_spec(STADE, GARE)])
    spec.RoutesOptions = route_options()
    r = svc.CalculateRoutes(spec)
    success(r, 'CalculateRoutes')
    results = items(r.Results, 'RouteResult')
    check(len(results) == 2, f'{len(results)} results for 2 specifications')
    for i, x in enumerate(results):
        success(x, f'Results[{i}]')
        check(x.Route is not None and x.Route.Distance > 0, f'Results[{i}].Route {x.Route}')
    return ', '.join(f'{x.Route.Distance:.3f} km' for x in results)


def geocode():
    a = f.create('Address')
    a.Street, a.City = ADDRESS
    spec = f.create('GeocodeSpecification')
    spec.IsNeedMatchCode, spec.Addresses = True, array('ArrayOfAddress', 'Address', [a])
    r = svc.Geocode(spec)
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
    v = f.create('Vehicle')
    v.Name, v.MaxWeight, v.StartLocation = 'Van 1', 10, loc(DEPOT)
    spec = f.create('DispatchSpecification')
    spec.CurrentTime = datetime(2026, 12, 1, 9, 0, 0)
    spec.DistanceUnit, spec.DispatchMode, spec.RouteOptimize = DistanceUnit.Kilometer, DispatchMode.Optima, RouteOptimize.MinimizeTime
    spec.Vehicles = array('ArrayOfVehicle', 'Vehicle', [v])
    spec.Locations = array('ArrayOfLocation', 'Location', [loc(p, Weight=1, Wait=120) for p in STOPS])
    r = svc.Dispatch(spec)
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
    r = svc.CreditRemaining()
    success(r, 'CreditRemaining')
    spent = state['credit0'] - r.Credit
    check(spent == sum(PRICE.values()), f'spent {spent}, the documented prices make {sum(PRICE.values())} ({PRICE})')
    state['credit1'] = r.Credit
    return f'spent {spent} as documented'


def route_list():
    spec = f.create('RouteListSpecification')
    spec.FromDate, spec.RouteName = datetime.now(timezone.utc) - timedelta(hours=1), 'STOPS ON'
    r = svc.GetRouteList(spec)
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
    spec = f.create('GetRouteSpecification')
    spec.RouteID = state['route_id']
    r = svc.GetRoute(spec)
    success(r, 'GetRoute')
    check(vehicles_of(r) == state['dispatch'], f'stored {vehicles_of(r)} != dispatched {state["dispatch"]}')
    return 'the dispatched vehicles and stops'


TRACK = 'suds-1.1-van'


def track_points():
    pts = []
    for la, lo, ts in TRACK_POINTS:
        p = f.create('TrackPoint')
        p.Latitude, p.Longitude, p.TimeStamp = la, lo, ts
        pts.append(p)
    spec = f.create('TrackPointsSpecification')
    spec.Account, spec.TrackPoints = TRACK, array('ArrayOfTrackPoint', 'TrackPoint', pts)
    r = svc.TrackPoints(spec)
    success(r, 'TrackPoints')
    check(r.Count == len(TRACK_POINTS), f'Count {r.Count}')
    return f'{r.Count} points on {TRACK}'


def get_track():
    spec = f.create('TrackSpecification')
    spec.Account, spec.FromDate, spec.ToDate = TRACK, TRACK_FROM, TRACK_TO
    r = svc.GetTrack(spec)
    success(r, 'GetTrack')
    got = [(p.Latitude, p.Longitude, as_utc(p.TimeStamp)) for p in items(r.TrackPoints, 'TrackPoint')]
    want = sorted(TRACK_POINTS, key=lambda p: p[2])
    check(len(got) == len(want), f'{len(got)} points back')
    for g, w in zip(got, want):
        check(near(g[0], w[0]) and near(g[1], w[1]) and g[2] == w[2], f'{g} != {w}')
    return 'round trip in time order'


def login():
    client.set_options(soapheaders=())
    bad = svc.Login(user, password + 'x')
    check(bad.Status == 'Failed' and bad.Message == 'Wrong user name or password.', f'wrong password: {bad}')
    res = svc.Login(userName=user, password=password)
    check(res.Status == 'Success' and res.Key, f'LoginResult {res}')
    # suds returns the body; the response's SessionIDHeader is in the envelope it received
    env = ElementTree.fromstring(str(client.last_received()))
    sid = env.find(f'{{{SOAP11}}}Header/{{{NS}}}SessionIDHeader/{{{NS}}}SessionID')
    check(sid is not None and sid.text == res.Key, f'SessionIDHeader/SessionID {None if sid is None else sid.text!r} != Key {res.Key!r}')
    use_key(res.Key)
    c = svc.CreditRemaining()
    success(c, 'CreditRemaining with the Login key')
    check(c.Credit == state.get('credit1', c.Credit), f'Credit {c.Credit} through the session, {state.get("credit1")} through the API key')
    state['session'] = res.Key
    return 'Key in LoginResult and SessionIDHeader; works as SessionID'


def logout():
    use_key(state['session'])
    r = svc.Logout()
    check(r is None, f'LogoutResponse {r!r}')
    check(transport.last_status == 200, f'HTTP {transport.last_status}')
    refused = refusal('CreditRemaining after Logout', lambda: svc.CreditRemaining())
    state['after_logout'] = refused
    use_key(api_key)
    check(refused['raised'] is not None, 'the Login key still works after Logout')
    success(svc.CreditRemaining(), 'the API key after Logout')
    return f"session ended: {refused['raised']} {refused.get('message')!r}, HTTP {refused['status']}"


def refusal(label, call):
    """What the client raises for a call the service refuses: the exception type, the fault's message and code, the HTTP status."""
    transport.last_status = None
    try:
        call()
        return {'operation': label, 'raised': None, 'status': transport.last_status}
    except WebFault as e:
        return {'operation': label, 'raised': 'suds.WebFault', 'message': e.fault.faultstring, 'code': e.fault.faultcode, 'status': transport.last_status}
    except Exception as e:  # noqa: BLE001 — e.g. suds' bare Exception((status, reason)) for a fault under a status other than 200/500
        return {'operation': label, 'raised': f'{type(e).__module__}.{type(e).__name__}', 'message': str(e), 'status': transport.last_status}


def with_unknown_key():
    """A free and a paid operation with a key the service does not know."""
    use_key(bad_key)
    try:
        return [refusal('CreditRemaining', lambda: svc.CreditRemaining()),
                refusal('CalculateDistance', lambda: svc.CalculateDistance(distance_spec(DistanceUnit.Mile)))]
    finally:
        use_key(api_key)


report.run_all(globals(), state)
