"""Shared by the Python SOAP clients (zeep_client.py, suds_client.py): the Monaco data, the
documented prices, and the report printed as one JSON line.

Nothing here speaks SOAP: each client builds its own typed objects from the served WSDL.
"""
import json
import sys
import traceback
from datetime import datetime, timedelta, timezone

NS = 'http://TrackService.TrackRoad.com/'

# Places on the Monaco fixture that snap and reach each other (src/cli/commands/demo.ts DEMO_PLACES).
DEPOT = ('Palais Princier', 43.7314, 7.42)
STOPS = [
    ('Casino de Monte-Carlo', 43.7395, 7.428),
    ('Port Hercule', 43.735, 7.4225),
    ('Stade Louis II', 43.7276, 7.4155),
    ('Jardin Exotique', 43.7311, 7.4135),
]
CASINO, STADE = STOPS[0], STOPS[2]
GARE = ('Gare de Monaco', 43.739, 7.42)
ADDRESS = ('Boulevard des Moulins', 'Monaco')

# docs/service.md "Credit": Dispatch 1 per stop dispatched, Geocode 1 per address, CalculateRoute 1
# per route, CalculateRoutes 1 per route computed, CalculateDistance 1; the rest is free.
PRICE = {'CalculateDistance': 1, 'CalculateRoute': 1, 'CalculateRoutes': 2, 'Geocode': 1, 'Dispatch': len(STOPS)}

# Track points sent out of time order; GetTrack must return them ordered by time. Yesterday's (UTC): inside the
# server's GPS retention (90 days) and not in the future, whatever today's date.
_DAY = (datetime.now(timezone.utc) - timedelta(days=1)).replace(hour=9, minute=0, second=0, microsecond=0)
TRACK_POINTS = [
    (43.7381, 7.4262, _DAY + timedelta(seconds=30)),
    (43.7395, 7.4280, _DAY),
    (43.7350, 7.4225, _DAY + timedelta(minutes=1)),
]
TRACK_FROM = _DAY - timedelta(hours=1)
TRACK_TO = _DAY + timedelta(hours=1)

OPERATIONS = ['Login', 'Logout', 'CalculateRoutes', 'CalculateRoute', 'Dispatch', 'Geocode', 'CalculateDistance',
              'CreditRemaining', 'GetRouteList', 'GetRoute', 'GetTrack', 'TrackPoints']


class CheckError(AssertionError):
    pass


def check(cond, message):
    if not cond:
        raise CheckError(message)


def near(a, b, eps=1e-6):
    return abs(float(a) - float(b)) <= eps


def as_utc(d):
    """A datetime read back from the service (aware or naive, naive meaning UTC) as an aware UTC one."""
    if isinstance(d, str):
        d = datetime.fromisoformat(d.replace('Z', '+00:00'))
    return d.replace(tzinfo=timezone.utc) if d.tzinfo is None else d.astimezone(timezone.utc)


# The order every client calls the operations in: (operation, the client's step function).
STEPS = [
    ('CreditRemaining', 'credit_before'), ('CalculateDistance', 'calculate_distance'),
    ('CalculateRoute', 'calculate_route'), ('CalculateRoutes', 'calculate_routes'), ('Geocode', 'geocode'),
    ('Dispatch', 'dispatch'), ('CreditRemaining', 'credit_after'), ('GetRouteList', 'route_list'),
    ('GetRoute', 'get_route'), ('TrackPoints', 'track_points'), ('GetTrack', 'get_track'),
    ('Login', 'login'), ('Logout', 'logout'),
]


class Report:
    """Per-operation outcomes, printed as one JSON line: {"client", "soap", "ops": {name: {ok, detail}}, "refusals": [{operation, raised, message, code, status}]}."""

    def __init__(self, client, soap):
        self.out = {'client': client, 'soap': soap, 'ops': {}, 'refusals': []}

    def run(self, name, fn):
        """Runs one step; the operation counts as failed if any of its steps fails."""
        try:
            detail = fn()
            prev = self.out['ops'].get(name)
            if prev is None or prev['ok']:
                d = detail if prev is None else f"{prev['detail']}; {detail}"
                self.out['ops'][name] = {'ok': True, 'detail': str(d)}
            return True
        except Exception as e:  # noqa: BLE001 — every failure is reported, never raised
            msg = f'{type(e).__name__}: {e}'
            if not isinstance(e, CheckError):
                msg += ' | ' + traceback.format_exc(limit=4).replace('\n', ' ')
            prev = self.out['ops'].get(name)
            self.out['ops'][name] = {'ok': False, 'detail': msg if prev is None or prev['ok'] else f"{prev['detail']}; {msg}"}
            return False

    def refusals(self, info):
        self.out['refusals'] = info

    def run_all(self, steps, state):
        """Every operation in the clients' common order, then the refusals, then emit. `steps` is
        the client module's namespace (its globals()): each step is the function named in STEPS,
        the refusals come from with_unknown_key(). GetRoute runs only when a route was stored,
        Logout only after a Login."""
        for op, fn in STEPS:
            if (op == 'GetRoute' and 'route_id' not in state) or (op == 'Logout' and 'session' not in state):
                continue
            self.run(op, steps[fn])
        try:
            self.refusals(steps['with_unknown_key']() + ([state['after_logout']] if 'after_logout' in state else []))
        except Exception as e:  # noqa: BLE001
            self.refusals([{'raised': None, 'error': f'{type(e).__name__}: {e}'}])
        self.emit()

    def emit(self):
        for op in OPERATIONS:
            self.out['ops'].setdefault(op, {'ok': False, 'detail': 'not called'})
        sys.stdout.write(json.dumps(self.out, default=str) + '\n')
        sys.stdout.flush()
