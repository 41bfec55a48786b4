<?php
/**
 * Every TrackService operation through PHP's SoapClient (php-soap), SOAP 1.1 or 1.2, with typed
 * objects: the proxy classes are generated from the served WSDL (SoapClient::__getTypes) and
 * mapped with `classmap`, so requests are built from, and responses decoded into, those classes.
 * Nothing of dispatchkit's in between.
 *
 * usage: php php_client.php <wsdl-url> <api-key> <user-name> <password> <1.1|1.2> <unknown-key>
 *
 * Prints one JSON line: {"client", "soap", "ops": {name: {ok, detail}}, "refusals": [{operation, raised, message, code, status}]}.
 */
error_reporting(E_ALL);
ini_set('display_errors', 'stderr');
ini_set('default_socket_timeout', '60');
set_error_handler(function (int $no, string $msg, string $file, int $line): bool {
    throw new ErrorException($msg, 0, $no, $file, $line);
});

[, $wsdl, $apiKey, $user, $password, $version, $badKey] = $argv;
const NS = 'http://TrackService.TrackRoad.com/';
const OPERATIONS = ['Login', 'Logout', 'CalculateRoutes', 'CalculateRoute', 'Dispatch', 'Geocode', 'CalculateDistance',
    'CreditRemaining', 'GetRouteList', 'GetRoute', 'GetTrack', 'TrackPoints'];

// Monaco places that snap (src/cli/commands/demo.ts DEMO_PLACES); the documented prices (docs/service.md).
$DEPOT = ['Palais Princier', 43.7314, 7.42];
$STOPS = [['Casino de Monte-Carlo', 43.7395, 7.428], ['Port Hercule', 43.735, 7.4225], ['Stade Louis II', 43.7276, 7.4155], ['Jardin Exotique', 43.7311, 7.4135]];
$CASINO = $STOPS[0];
$STADE = $STOPS[2];
$GARE = ['Gare de Monaco', 43.739, 7.42];
$PRICE = ['CalculateDistance' => 1, 'CalculateRoute' => 1, 'CalculateRoutes' => 2, 'Geocode' => 1, 'Dispatch' => count($STOPS)];
// yesterday's (UTC): inside the server's GPS retention (90 days) and not in the future, whatever today's date
$DAY = gmdate('Y-m-d', time() - 86400);
$TRACK_POINTS = [[43.7381, 7.4262, "{$DAY}T09:00:30Z"], [43.7395, 7.428, "{$DAY}T09:00:00Z"], [43.735, 7.4225, "{$DAY}T09:01:00Z"]];

$options = [
    'soap_version' => $version === '1.2' ? SOAP_1_2 : SOAP_1_1,
    'cache_wsdl' => WSDL_CACHE_NONE,
    'trace' => true,
    'exceptions' => true,
    'features' => SOAP_SINGLE_ELEMENT_ARRAYS,
    'connection_timeout' => 30,
];

// ---------------------------------------------------------------- the proxy, generated from the WSDL
$probe = new SoapClient($wsdl, $options);
$functions = [];
foreach ($probe->__getFunctions() as $f) {
    if (preg_match('/^\w+ (\w+)\(/', $f, $m)) $functions[$m[1]] = true;
}
// Classes for the WSDL's complex types: their fields as SoapClient reads them (__getTypes), and
// their base type (Result, LatLong), which __getTypes does not show, from the schema's
// <complexContent><extension base=…> (php-cli has no DOM extension here; the text is enough).
$types = [];
foreach ($probe->__getTypes() as $t) {
    if (!preg_match('/^struct (\w+) \{(.*)\}$/s', $t, $m) || isset($functions[$m[1]]) || str_ends_with($m[1], 'Response')) continue;
    preg_match_all('/^\s*\S+ (\w+);$/m', $m[2], $props);
    $types[$m[1]] = [null, $props[1]];
}
preg_match_all('#<(?:\w+:)?complexType name="(\w+)"[^>]*>\s*<(?:\w+:)?complexContent[^>]*>\s*<(?:\w+:)?extension base="(?:\w+:)?(\w+)"#', file_get_contents($wsdl), $ext, PREG_SET_ORDER);
foreach ($ext as [, $name, $base]) {
    check(isset($types[$name], $types[$base]), "$name extends $base: unknown type");
    $types[$name][0] = $base;
}
$declare = function (string $name) use (&$declare, $types): string {
    $class = 'TS_' . $name;
    if (!class_exists($class, false)) {
        [$base, $fields] = $types[$name];
        $extends = $base === null ? '' : ' extends ' . $declare($base);
        $decl = implode(' ', array_map(fn ($p) => "public \$$p = null;", $fields));
        eval("class $class$extends { $decl }"); // no dynamic properties: a field the WSDL does not declare is an error (PHP 8.2 deprecation, thrown)
    }
    return $class;
};
$classmap = [];
foreach (array_keys($types) as $name) $classmap[$name] = $declare($name);
$client = new SoapClient($wsdl, $options + ['classmap' => $classmap]);

/** A new object of a WSDL type, its fields set from $fields. */
function make(string $type, array $fields = []): object
{
    $class = 'TS_' . $type;
    $o = new $class();
    foreach ($fields as $k => $v) {
        if (!property_exists($o, $k)) throw new LogicException("$type has no field $k in the WSDL");
        $o->$k = $v;
    }
    return $o;
}

function loc(array $p, array $more = []): object
{
    return make('Location', ['Name' => $p[0], 'LatLong' => make('LatLong', ['Latitude' => $p[1], 'Longitude' => $p[2]])] + $more);
}

/** The items of an ArrayOf<Item> wrapper (absent or empty: none). */
function items($wrapper, string $name): array
{
    if (!is_object($wrapper) || !isset($wrapper->$name)) return [];
    return is_array($wrapper->$name) ? $wrapper->$name : [$wrapper->$name];
}

function check(bool $cond, string $message): void
{
    if (!$cond) throw new UnexpectedValueException($message);
}

function success(object $r, string $what): void
{
    $errors = array_map(fn ($e) => $e->Message, items($r->Errors ?? null, 'Error'));
    check($r->Status === 'Success', "$what: Status {$r->Status}, Errors " . json_encode($errors));
}

function typed(object $o, string $type): void
{
    check($o instanceof ('TS_' . $type), 'decoded as ' . get_class($o) . ", not the proxy class of $type");
}

function utc(string $d): int
{
    return (new DateTimeImmutable($d, new DateTimeZone('UTC')))->getTimestamp();
}

function status(SoapClient $c): ?int
{
    $h = $c->__getLastResponseHeaders();
    return $h && preg_match('#^HTTP/\S+ (\d{3})#', $h, $m) ? (int) $m[1] : null;
}

$key = $apiKey;
/** Calls an operation (document/literal wrapped) with the SessionIDHeader of the current key. */
function call(string $op, array $params = [], ?array &$outHeaders = null)
{
    global $client, $key;
    $headers = $op === 'Login' ? [] : [new SoapHeader(NS, 'SessionIDHeader', make('SessionIDHeader', ['SessionID' => $key]))];
    $outHeaders = [];
    return $client->__soapCall($op, [$params], null, $headers, $outHeaders);
}

$out = ['client' => 'php', 'soap' => $version, 'ops' => [], 'refusals' => []];
function run(string $name, callable $fn): void
{
    global $out;
    $prev = $out['ops'][$name] ?? null;
    try {
        $detail = (string) $fn();
        if ($prev === null || $prev['ok']) $out['ops'][$name] = ['ok' => true, 'detail' => $prev === null ? $detail : "{$prev['detail']}; $detail"];
    } catch (Throwable $e) {
        $msg = get_class($e) . ': ' . $e->getMessage() . ' at line ' . $e->getLine();
        $out['ops'][$name] = ['ok' => false, 'detail' => $prev === null || $prev['ok'] ? $msg : "{$prev['detail']}; $msg"];
    }
}

$state = [];
$sentAsVersion = function () use ($client, $version): void {
    $h = strtolower((string) $client->__getLastRequestHeaders());
    if ($version === '1.1') check(str_contains($h, 'content-type: text/xml') && str_contains($h, 'soapaction:'), "SOAP 1.1 request headers $h");
    else check(str_contains($h, 'content-type: application/soap+xml'), "SOAP 1.2 request headers $h");
};

run('CreditRemaining', function () use (&$state, $functions, $sentAsVersion) {
    foreach (OPERATIONS as $op) check(isset($functions[$op]), "the proxy has no $op");
    $r = call('CreditRemaining')->CreditRemainingResult;
    $sentAsVersion();
    typed($r, 'CreditResult');
    success($r, 'CreditRemaining');
    check(is_int($r->Credit) && $r->Credit > 0, 'Credit ' . var_export($r->Credit, true));
    $state['credit0'] = $r->Credit;
    return "Credit {$r->Credit}; the proxy has all 12 operations";
});

$distanceSpec = fn (string $unit) => make('DistanceSpecification', ['StartLocation' => loc($CASINO), 'FinishLocation' => loc($STADE), 'DistanceUnit' => $unit, 'RouteOptimize' => 'MinimizeTime']);

run('CalculateDistance', function () use ($distanceSpec) {
    $r = call('CalculateDistance', ['specification' => $distanceSpec('Kilometer')])->CalculateDistanceResult;
    typed($r, 'DistanceResult');
    success($r, 'CalculateDistance');
    check($r->Distance > 0 && $r->Time > 0, "Distance {$r->Distance}, Time {$r->Time}");
    check($r->Distance < 10, "{$r->Distance} km across Monaco");
    check(is_int($r->Time) && is_float($r->Distance), 'Time/Distance not decoded as int/double');
    return sprintf('%.3f km, %d s', $r->Distance, $r->Time);
});

$routeSpec = fn (array ...$places) => make('RouteSpecification', ['Locations' => make('ArrayOfLocation', ['Location' => array_map(fn ($p) => loc($p), $places)])]);
$routeOptions = fn () => make('RouteOptions', ['DistanceUnit' => 'Kilometer', 'RouteOptimize' => 'MinimizeTime', 'Culture' => 'en-US']);

run('CalculateRoute', function () use ($routeSpec, $routeOptions, $CASINO, $GARE, $STADE) {
    $spec = $routeSpec($CASINO, $GARE, $STADE);
    $spec->RouteOptions = $routeOptions();
    $r = call('CalculateRoute', ['specification' => $spec])->CalculateRouteResult;
    typed($r, 'RouteResult');
    success($r, 'CalculateRoute');
    $route = $r->Route;
    check($route instanceof TS_Route && $route->Distance > 0 && $route->Time > 0, 'Route ' . json_encode($route));
    $legs = items($route->RouteLegs, 'RouteLeg');
    check(count($legs) === 2, count($legs) . ' legs for 3 locations');
    check(abs(array_sum(array_map(fn ($l) => $l->Distance, $legs)) - $route->Distance) < 1e-3, 'legs do not add up to the route');
    $steps = array_merge(...array_map(fn ($l) => items($l->Itinerary->Items ?? null, 'RouteItineraryItem'), $legs));
    check(count($steps) > 0 && count(array_filter($steps, fn ($s) => !$s->Text)) === 0, 'no itinerary text');
    check(count(items($route->Points, 'LatLong')) > 1, 'no route points');
    return sprintf('%.3f km, %d legs, %d steps', $route->Distance, count($legs), count($steps));
});

run('CalculateRoutes', function () use ($routeSpec, $routeOptions, $CASINO, $GARE, $STADE) {
    $spec = make('RoutesSpecification', [
        'Specifications' => make('ArrayOfRouteSpecification', ['RouteSpecification' => [$routeSpec($CASINO, $STADE), $routeSpec($STADE, $GARE)]]),
        'RoutesOptions' => $routeOptions(),
    ]);
    $r = call('CalculateRoutes', ['specification' => $spec])->CalculateRoutesResult;
    typed($r, 'RoutesResult');
    success($r, 'CalculateRoutes');
    $results = items($r->Results, 'RouteResult');
    check(count($results) === 2, count($results) . ' results for 2 specifications');
    foreach ($results as $i => $x) {
        success($x, "Results[$i]");
        check($x->Route->Distance > 0, "Results[$i] has no distance");
    }
    return implode(', ', array_map(fn ($x) => sprintf('%.3f km', $x->Route->Distance), $results));
});

run('Geocode', function () {
    $spec = make('GeocodeSpecification', ['IsNeedMatchCode' => true, 'Addresses' => make('ArrayOfAddress', ['Address' => [make('Address', ['Street' => 'Boulevard des Moulins', 'City' => 'Monaco'])]])]);
    $r = call('Geocode', ['specification' => $spec])->GeocodeResult;
    typed($r, 'GeocodeResult');
    success($r, 'Geocode');
    $gi = items($r->Items, 'GeocodeItem');
    check(count($gi) === 1, count($gi) . ' items for 1 address');
    $cands = items($gi[0]->Locations, 'Location');
    check(count($cands) > 0, 'no candidate');
    $ll = $cands[0]->LatLong;
    check($ll->Latitude > 43.72 && $ll->Latitude < 43.76 && $ll->Longitude > 7.40 && $ll->Longitude < 7.45, 'candidate outside Monaco: ' . json_encode($ll));
    return sprintf('%d candidates, first %.5f,%.5f %s', count($cands), $ll->Latitude, $ll->Longitude, $cands[0]->MatchCode);
});

$vehiclesOf = fn (object $r) => array_map(fn ($vi) => [$vi->Vehicle->Name, array_map(fn ($l) => $l->Name, items($vi->Locations, 'Location'))], items($r->Items, 'VehicleItem'));

run('Dispatch', function () use (&$state, $vehiclesOf, $DEPOT, $STOPS) {
    $spec = make('DispatchSpecification', [
        'CurrentTime' => '2026-11-02T09:00:00', 'DistanceUnit' => 'Kilometer', 'DispatchMode' => 'Optima', 'RouteOptimize' => 'MinimizeTime',
        'Vehicles' => make('ArrayOfVehicle', ['Vehicle' => [make('Vehicle', ['Name' => 'Van 1', 'MaxWeight' => 10, 'StartLocation' => loc($DEPOT)])]]),
        'Locations' => make('ArrayOfLocation', ['Location' => array_map(fn ($p) => loc($p, ['Weight' => 1, 'Wait' => 120]), $STOPS)]),
    ]);
    $r = call('Dispatch', ['specification' => $spec])->DispatchResult;
    typed($r, 'DispatchResult');
    success($r, 'Dispatch');
    $vs = $vehiclesOf($r);
    check(count($vs) === 1 && $vs[0][0] === 'Van 1', 'vehicles ' . json_encode($vs));
    foreach ($STOPS as $p) check(count(array_keys($vs[0][1], $p[0], true)) === 1, "{$p[0]} not exactly once in " . json_encode($vs[0][1]));
    $locs = items(items($r->Items, 'VehicleItem')[0]->Locations, 'Location');
    typed($locs[0], 'Location');
    check(array_sum(array_map(fn ($l) => $l->Distance, $locs)) > 0, 'no distance on the legs');
    $state['dispatch'] = $vs;
    return 'Van 1: ' . implode(' > ', $vs[0][1]);
});

run('CreditRemaining', function () use (&$state, $PRICE) {
    $r = call('CreditRemaining')->CreditRemainingResult;
    success($r, 'CreditRemaining');
    $spent = $state['credit0'] - $r->Credit;
    check($spent === array_sum($PRICE), "spent $spent, the documented prices make " . array_sum($PRICE));
    $state['credit1'] = $r->Credit;
    return "spent $spent as documented";
});

run('GetRouteList', function () use (&$state, $STOPS) {
    $spec = make('RouteListSpecification', ['FromDate' => gmdate('Y-m-d\TH:i:s\Z', time() - 3600), 'RouteName' => 'STOPS ON']);
    $r = call('GetRouteList', ['specification' => $spec])->GetRouteListResult;
    typed($r, 'RouteListResult');
    success($r, 'GetRouteList');
    $routes = items($r->Routes, 'RouteListItem');
    check(count($routes) === 1, count($routes) . ' routes listed, expected the one dispatch');
    $x = $routes[0];
    check($x->RouteID > 0 && $x->Distance > 0 && $x->Time > 0, 'route ' . json_encode($x));
    check($x->RouteName === count($STOPS) . ' stops on 1 vehicle', "RouteName {$x->RouteName}");
    check(abs(time() - utc($x->DateCreated)) < 600, "DateCreated {$x->DateCreated}");
    $state['route_id'] = $x->RouteID;
    return "RouteID {$x->RouteID} '{$x->RouteName}'";
});

if (isset($state['route_id'])) {
    run('GetRoute', function () use (&$state, $vehiclesOf) {
        $r = call('GetRoute', ['specification' => make('GetRouteSpecification', ['RouteID' => $state['route_id']])])->GetRouteResult;
        typed($r, 'DispatchResult');
        success($r, 'GetRoute');
        check($vehiclesOf($r) === $state['dispatch'], 'stored ' . json_encode($vehiclesOf($r)) . ' != dispatched ' . json_encode($state['dispatch']));
        return 'the dispatched vehicles and stops';
    });
}

$track = "php-$version-van";
run('TrackPoints', function () use ($track, $TRACK_POINTS) {
    $pts = array_map(fn ($p) => make('TrackPoint', ['Latitude' => $p[0], 'Longitude' => $p[1], 'TimeStamp' => $p[2]]), $TRACK_POINTS);
    $r = call('TrackPoints', ['specification' => make('TrackPointsSpecification', ['Account' => $track, 'TrackPoints' => make('ArrayOfTrackPoint', ['TrackPoint' => $pts])])])->TrackPointsResult;
    typed($r, 'TrackPointsResult');
    success($r, 'TrackPoints');
    check($r->Count === count($TRACK_POINTS), "Count {$r->Count}");
    return "{$r->Count} points on $track";
});

run('GetTrack', function () use ($track, $TRACK_POINTS, $DAY) {
    $r = call('GetTrack', ['specification' => make('TrackSpecification', ['Account' => $track, 'FromDate' => "{$DAY}T08:00:00Z", 'ToDate' => "{$DAY}T10:00:00Z"])])->GetTrackResult;
    typed($r, 'TrackResult');
    success($r, 'GetTrack');
    $got = array_map(fn ($p) => [$p->Latitude, $p->Longitude, utc($p->TimeStamp)], items($r->TrackPoints, 'TrackPoint'));
    $want = array_map(fn ($p) => [$p[0], $p[1], utc($p[2])], $TRACK_POINTS);
    usort($want, fn ($a, $b) => $a[2] <=> $b[2]);
    check(count($got) === count($want), count($got) . ' points back');
    foreach ($got as $i => $g) check(abs($g[0] - $want[$i][0]) < 1e-6 && abs($g[1] - $want[$i][1]) < 1e-6 && $g[2] === $want[$i][2], json_encode($g) . ' != ' . json_encode($want[$i]));
    return 'round trip in time order';
});

run('Login', function () use (&$state, $user, $password) {
    global $key, $apiKey;
    $bad = call('Login', ['userName' => $user, 'password' => $password . 'x'])->LoginResult;
    check($bad->Status === 'Failed' && $bad->Message === 'Wrong user name or password.', 'wrong password: ' . json_encode($bad));
    $r = call('Login', ['userName' => $user, 'password' => $password], $headers)->LoginResult;
    typed($r, 'LoginResult');
    check($r->Status === 'Success' && $r->Key, 'LoginResult ' . json_encode($r));
    $h = $headers['SessionIDHeader'] ?? null;
    check(is_object($h) && $h->SessionID === $r->Key, 'SessionIDHeader ' . json_encode($h) . " != Key {$r->Key}");
    $key = $r->Key;
    try {
        $c = call('CreditRemaining')->CreditRemainingResult;
    } finally {
        $key = $apiKey;
    }
    success($c, 'CreditRemaining with the Login key');
    check($c->Credit === ($state['credit1'] ?? $c->Credit), "Credit {$c->Credit} through the session");
    $state['session'] = $r->Key;
    return 'Key in LoginResult and SessionIDHeader; works as SessionID';
});

/** What SoapClient raises for a call the service refuses: the exception type, the fault's message and code, the HTTP status. */
function refusal(string $label, callable $call): array
{
    global $client;
    try {
        $call();
        return ['operation' => $label, 'raised' => null, 'status' => status($client)];
    } catch (SoapFault $f) {
        return ['operation' => $label, 'raised' => 'SoapFault', 'message' => $f->faultstring, 'code' => $f->faultcode, 'status' => status($client)];
    } catch (Throwable $e) {
        return ['operation' => $label, 'raised' => get_class($e), 'message' => $e->getMessage(), 'status' => status($client)];
    }
}

if (isset($state['session'])) {
    run('Logout', function () use (&$state, $client) {
        global $key, $apiKey;
        $key = $state['session'];
        try {
            call('Logout');
            check(status($client) === 200, 'Logout: HTTP ' . status($client));
            $state['after_logout'] = $refused = refusal('CreditRemaining after Logout', fn () => call('CreditRemaining'));
        } finally {
            $key = $apiKey;
        }
        check($refused['raised'] !== null, 'the Login key still works after Logout');
        success(call('CreditRemaining')->CreditRemainingResult, 'the API key after Logout');
        return "session ended: {$refused['raised']} '" . ($refused['message'] ?? '') . "', HTTP {$refused['status']}";
    });
}

// ---------------------------------------------------------------- the error path: an unknown key
$key = $badKey;
$refusals = [
    refusal('CreditRemaining', fn () => call('CreditRemaining')),
    refusal('CalculateDistance', fn () => call('CalculateDistance', ['specification' => $distanceSpec('Mile')])),
];
if (isset($state['after_logout'])) $refusals[] = $state['after_logout'];
$key = $apiKey;
$out['refusals'] = $refusals;
foreach (OPERATIONS as $op) $out['ops'][$op] ??= ['ok' => false, 'detail' => 'not called'];
echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
