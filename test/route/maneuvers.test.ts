/**
 * Maneuver classification on hand-made junctions: each network is a few OSM ways laid out in
 * metres around a point; a route is driven between two points placed mid-road, and the
 * itinerary's maneuvers (types, modifiers, roads, exits) are checked.
 */
import { describe, expect, it } from 'vitest';
import { buildContractionHierarchy } from '../../src/ch/index.js';
import { buildRoadGraph } from '../../src/graph/build.js';
import { Snapper } from '../../src/graph/snap.js';
import { OsmElements } from '../../src/osm/xml.js';
import { routeGeometry } from '../../src/route/geometry.js';
import { buildItinerary, type ItineraryStep } from '../../src/route/maneuvers.js';
import { JunctionIndex, turnAngle } from '../../src/route/junctions.js';
import { Router } from '../../src/route/router.js';

const LAT0 = 45;
const LON0 = 7;
const toLat = (y: number) => LAT0 + y / 111132;
const toLon = (x: number) => LON0 + x / (111320 * Math.cos((LAT0 * Math.PI) / 180));

/** A network from nodes given in metres (x east, y north) and ways. */
class Net {
  readonly osm = new OsmElements();
  node(id: number, x: number, y: number, tags?: Record<string, string>): this {
    this.osm.node(id, toLat(y), toLon(x), tags);
    return this;
  }
  way(id: number, refs: number[], tags: Record<string, string>): this {
    this.osm.way(id, refs, tags);
    return this;
  }
  /** Drives from (x1, y1) to (x2, y2) and returns the steps. */
  drive(x1: number, y1: number, x2: number, y2: number, metric: 'time' | 'distance' = 'time'): ItineraryStep[] {
    this.osm.nodes.sort((p, q) => p.id - q.id); // as in an extract (the reader expects ascending ids)
    const { graph: g } = buildRoadGraph(this.osm, { largestSccOnly: false });
    const base = { numNodes: g.numNodes, tail: g.tail, head: g.head };
    const chT = buildContractionHierarchy({ ...base, weight: g.timeMs, aux: g.lengthCm });
    const chD = buildContractionHierarchy({ ...base, weight: g.lengthCm, aux: g.timeMs });
    const snapper = Snapper.build(g);
    const router = new Router(g, snapper, chT, chD);
    const a = snapper.snap(toLat(y1), toLon(x1));
    const b = snapper.snap(toLat(y2), toLon(x2));
    const r = router.route(a, b, metric, true);
    expect(r.found).toBe(true);
    const geom = routeGeometry(g, a, r.arcs ?? [], b, { metric });
    return buildItinerary(g, geom, a, b, { fromStop: 1, toStop: 2, lastStop: true });
  }
}

/** "type modifier → road" of the steps between depart and arrive. */
function middle(steps: ItineraryStep[]): string[] {
  expect(steps[0].maneuver.type).toBe('depart');
  expect(steps[steps.length - 1].maneuver.type).toBe('arrive');
  return steps.slice(1, -1).map(({ maneuver: m }) => `${m.type}${m.modifier ? ' ' + m.modifier : ''}${m.exit ? ' #' + m.exit : ''} → ${m.road.name || m.road.ref || m.road.cls}`);
}

describe('turn angles', () => {
  it('are signed, right positive', () => {
    expect(turnAngle(0, 90)).toBe(90);
    expect(turnAngle(0, 270)).toBe(-90);
    expect(turnAngle(350, 10)).toBe(20);
    expect(turnAngle(10, 190)).toBe(180);
  });
});

describe('crossroads', () => {
  // Main St west–east through node 2 at (0,0); Cross St south–north through it.
  const net = () => new Net()
    .node(1, -300, 0).node(2, 0, 0).node(3, 300, 0).node(4, 0, -300).node(5, 0, 300)
    .way(10, [1, 2, 3], { highway: 'residential', name: 'Main St' })
    .way(11, [4, 2, 5], { highway: 'residential', name: 'Cross St' });

  it('straight on along the same street: no maneuver', () => {
    expect(middle(net().drive(-200, 0, 200, 0))).toEqual([]);
  });
  it('left and right turns', () => {
    expect(middle(net().drive(-200, 0, 0, 200))).toEqual(['turn left → Cross St']);
    expect(middle(net().drive(-200, 0, 0, -200))).toEqual(['turn right → Cross St']);
  });
  it('cross-street hints name the road passed', () => {
    const steps = new Net()
      .node(1, -300, 0).node(2, 0, 0).node(3, 300, 0).node(4, 0, -300).node(5, 0, 300).node(6, 300, 300).node(7, 600, 0)
      .way(10, [1, 2, 3, 7], { highway: 'residential', name: 'Main St' })
      .way(11, [4, 2, 5], { highway: 'residential', name: 'Cross St' })
      .way(12, [3, 6], { highway: 'residential', name: 'Far Rd' })
      .drive(-200, 0, 300, 200);
    expect(middle(steps)).toEqual(['turn left → Far Rd']);
    const turn = steps[1];
    expect(turn.hints).toContainEqual({ kind: 'previous-intersection', subject: 'Cross St' });
    expect(steps[0].hints).toContainEqual({ kind: 'next-intersection', subject: 'Cross St' });
  });
});

describe('bends and name changes', () => {
  it('a bend without a junction is not a maneuver', () => {
    const n = new Net().node(1, -300, 0).node(2, 0, 0).node(3, 0, 300)
      .way(10, [1, 2, 3], { highway: 'residential', name: 'Bend Rd' });
    expect(middle(n.drive(-200, 0, 0, 200))).toEqual([]);
  });
  it('a bend where the name changes is a name change, not a turn', () => {
    const n = new Net().node(1, -300, 0).node(2, 0, 0).node(3, 0, 300)
      .way(10, [1, 2], { highway: 'residential', name: 'Old Rd' })
      .way(11, [2, 3], { highway: 'residential', name: 'New Rd' });
    expect(middle(n.drive(-200, 0, 0, 200))).toEqual(['name-change left → New Rd']);
  });
  it('unnamed roads are described by class', () => {
    const steps = new Net().node(1, -300, 0).node(2, 0, 0).node(3, 300, 0).node(4, 0, 300)
      .way(10, [1, 2, 3], { highway: 'residential', name: 'Main St' })
      .way(11, [2, 4], { highway: 'service' })
      .drive(-200, 0, 0, 200);
    expect(middle(steps)).toEqual(['turn left → service']);
    expect(steps[1].maneuver.road).toMatchObject({ name: '', ref: '', cls: 'service' });
  });
});

describe('T junction', () => {
  it('end of road, left and right', () => {
    const n = () => new Net().node(1, -300, 0).node(2, 0, 0).node(3, 300, 0).node(4, 0, -300)
      .way(10, [1, 2, 3], { highway: 'residential', name: 'Top Rd' })
      .way(11, [4, 2], { highway: 'residential', name: 'Stem Rd' });
    expect(middle(n().drive(0, -200, -200, 0))).toEqual(['end-of-road left → Top Rd']);
    expect(middle(n().drive(0, -200, 200, 0))).toEqual(['end-of-road right → Top Rd']);
  });
});

describe('roundabout', () => {
  // A counter-clockwise one-way ring of radius 30 m (8 nodes), arms to the S, E, N and W.
  const ring = () => {
    const n = new Net();
    const ids: number[] = [];
    for (let k = 0; k < 8; k++) {
      // node 100+k at angle -90° + 45°·k (counter-clockwise from the south)
      const t = ((-90 + 45 * k) * Math.PI) / 180;
      n.node(100 + k, 30 * Math.cos(t), 30 * Math.sin(t));
      ids.push(100 + k);
    }
    n.way(1, [...ids, ids[0]], { highway: 'primary', junction: 'roundabout', name: 'Praça' });
    n.node(1, 0, -300).node(2, 300, 0).node(3, 0, 300).node(4, -300, 0);
    n.way(11, [1, 100], { highway: 'primary', name: 'South Av' });
    n.way(12, [102, 2], { highway: 'primary', name: 'East Av' });
    n.way(13, [104, 3], { highway: 'primary', name: 'North Av' });
    n.way(14, [106, 4], { highway: 'primary', name: 'West Av' });
    return n;
  };
  it('counts exits (1st east, 2nd north, 3rd west) in one maneuver', () => {
    expect(middle(ring().drive(0, -200, 200, 0))).toEqual(['roundabout right #1 → East Av']);
    expect(middle(ring().drive(0, -200, 0, 200))).toEqual(['roundabout straight #2 → North Av']);
    expect(middle(ring().drive(0, -200, -200, 0))).toEqual(['roundabout left #3 → West Av']);
  });
});

describe('fork', () => {
  it('two similar branches: keep left / keep right', () => {
    const n = () => new Net().node(1, 0, -300).node(2, 0, 0).node(3, -120, 300).node(4, 120, 300)
      .way(10, [1, 2], { highway: 'secondary', name: 'Trunk Rd' })
      .way(11, [2, 3], { highway: 'secondary', name: 'Left Branch' })
      .way(12, [2, 4], { highway: 'secondary', name: 'Right Branch' });
    expect(middle(n().drive(0, -200, -110, 280))).toEqual(['fork slight left → Left Branch']);
    expect(middle(n().drive(0, -200, 110, 280))).toEqual(['fork slight right → Right Branch']);
  });
});

describe('motorway ramps', () => {
  // Motorway A1 eastbound (one way) with an exit ramp to the right and an entry ramp joining from the right.
  const net = () => new Net()
    .node(1, -1000, 0).node(2, -300, 0).node(3, 300, 0).node(4, 1000, 0)
    .node(5, -100, -60).node(6, 0, -200).node(7, 0, -400)
    .node(8, 100, -60)
    .way(10, [1, 2, 3, 4], { highway: 'motorway', ref: 'A1', oneway: 'yes' })
    .way(11, [2, 5, 6], { highway: 'motorway_link', oneway: 'yes', destination: 'Porto;Braga', 'destination:ref': 'A28' })
    .way(12, [7, 6], { highway: 'residential', name: 'Local Rd' })
    .way(13, [6, 8, 3], { highway: 'motorway_link', oneway: 'yes', destination: 'Lisboa' });

  it('taking the exit is an off-ramp with its signposted destination; staying on is nothing', () => {
    const steps = net().drive(-800, 0, 0, -350);
    const m = middle(steps);
    expect(m[0]).toBe('off-ramp slight right → motorway_link');
    expect(steps[1].maneuver.road.destination).toBe('A28: Porto, Braga');
    expect(middle(net().drive(-800, 0, 800, 0))).toEqual([]);
    expect(steps[1].warnings.map((w) => w.kind)).not.toContain('motorway');
    expect(steps[0].warnings.map((w) => w.kind)).toContain('motorway');
  });
  it('an on-ramp, then a merge onto the motorway from the right', () => {
    const m = middle(net().drive(0, -350, 800, 0));
    expect(m[0]).toMatch(/^on-ramp (slight )?right → motorway_link$/);
    expect(m[m.length - 1]).toBe('merge slight left → A1');
  });
});

describe('dual carriageways', () => {
  // Boulevard: two one-way carriageways 20 m apart, eastbound (y = -10) and westbound (y = 10),
  // joined at x = ±600 into two-way roads, with a side street at x = 0 crossing both and a median gap at x = 300.
  const net = () => new Net()
    .node(1, -900, 0).node(2, -600, 0).node(3, -300, -10).node(4, 0, -10).node(5, 300, -10).node(6, 600, 0).node(7, 900, 0)
    .node(13, -300, 10).node(14, 0, 10).node(15, 300, 10)
    .node(20, 0, -300).node(21, 0, 300)
    .way(10, [1, 2], { highway: 'primary', name: 'Boulevard' })
    .way(11, [2, 3, 4, 5, 6], { highway: 'primary', name: 'Boulevard', oneway: 'yes' })
    .way(12, [6, 15, 14, 13, 2], { highway: 'primary', name: 'Boulevard', oneway: 'yes' })
    .way(13, [6, 7], { highway: 'primary', name: 'Boulevard' })
    .way(14, [20, 4, 14, 21], { highway: 'residential', name: 'Side St' })
    .way(15, [5, 15], { highway: 'primary', name: 'Boulevard' });

  it('where the carriageways split and join, and across the side street: no maneuver', () => {
    expect(middle(net().drive(-800, 0, 800, 0))).toEqual([]);
    expect(middle(net().drive(800, 0, -800, 0))).toEqual([]);
  });
  it('through the median gap: one U-turn', () => {
    expect(middle(net().drive(-200, -10, -200, 10))).toEqual(['uturn uturn → Boulevard']);
  });
  it('turning left off the boulevard across the far carriageway is one left turn', () => {
    expect(middle(net().drive(-800, 0, 0, 250))).toEqual(['turn left → Side St']);
  });
});

describe('arrive and depart', () => {
  it('says which side the stop is on', () => {
    const n = () => new Net().node(1, -300, 0).node(2, 300, 0).way(10, [1, 2], { highway: 'residential', name: 'Main St' });
    const right = n().drive(-200, 0, 100, -15);
    expect(right[right.length - 1].maneuver).toMatchObject({ type: 'arrive', modifier: 'right', lastStop: true, stop: 2 });
    const left = n().drive(-200, 0, 100, 15);
    expect(left[left.length - 1].maneuver.modifier).toBe('left');
    const on = n().drive(-200, 0, 100, 0);
    expect(on[on.length - 1].maneuver.modifier).toBeUndefined();
    expect(right[0].maneuver).toMatchObject({ type: 'depart', stop: 1 });
    expect(Math.abs(turnAngle(right[0].maneuver.bearingAfter, 90))).toBeLessThan(2);
  });
  it('stretches add up to the path', () => {
    const steps = new Net().node(1, -300, 0).node(2, 0, 0).node(3, 300, 0).node(4, 0, -300).node(5, 0, 300)
      .way(10, [1, 2, 3], { highway: 'residential', name: 'Main St' })
      .way(11, [4, 2, 5], { highway: 'residential', name: 'Cross St' })
      .drive(-200, 0, 0, 200);
    const total = steps.reduce((s, x) => s + x.maneuver.lengthCm, 0);
    expect(total).toBeGreaterThan(39000);
    expect(total).toBeLessThan(41000);
  });
});

describe('warnings', () => {
  it('toll, unpaved, private and low speed on the stretch', () => {
    const steps = new Net().node(1, -300, 0).node(2, 0, 0).node(3, 0, 300).node(4, 300, 0)
      .way(10, [1, 2], { highway: 'tertiary', name: 'Toll Rd', toll: 'yes' })
      .way(11, [2, 3], { highway: 'track', name: 'Farm Track' })
      .way(12, [2, 4], { highway: 'service', name: 'Private Way', access: 'private', surface: 'gravel' })
      .drive(-200, 0, 200, 0);
    const depart = steps[0];
    expect(depart.warnings.map((w) => w.kind)).toEqual(['toll']);
    expect(depart.warnings[0].severity).toBe('Minor');
    const turn = steps[1];
    expect(turn.warnings.map((w) => w.kind)).toEqual(expect.arrayContaining(['private', 'unpaved', 'low-speed']));
    expect(turn.warnings.find((w) => w.kind === 'private')!.severity).toBe('Serious');
  });
  it('a restricted turn at a junction ahead', () => {
    const n = new Net().node(1, -300, 0).node(2, 0, 0).node(3, 300, 0).node(4, 0, 300).node(5, 0, -300)
      .way(10, [1, 2], { highway: 'residential', name: 'Main St' })
      .way(11, [2, 3], { highway: 'residential', name: 'Main St' })
      .way(12, [2, 4], { highway: 'residential', name: 'North St' })
      .way(13, [5, 2], { highway: 'residential', name: 'South St' });
    n.osm.relation(1, [{ type: 'way', ref: 10, role: 'from' }, { type: 'node', ref: 2, role: 'via' }, { type: 'way', ref: 12, role: 'to' }], { type: 'restriction', restriction: 'no_left_turn' });
    const steps = n.drive(-200, 0, 0, -200);
    expect(middle(steps)).toEqual(['turn right → South St']);
    expect(steps[0].warnings.map((w) => w.kind)).toContain('restricted-turn');
  });
});

describe('junction index', () => {
  it('lists every road at a junction, whatever copies restrictions made', () => {
    const n = new Net().node(1, -300, 0).node(2, 0, 0).node(3, 300, 0).node(4, 0, 300)
      .way(10, [1, 2], { highway: 'residential' }).way(11, [2, 3], { highway: 'residential' }).way(12, [2, 4], { highway: 'residential' });
    n.osm.relation(1, [{ type: 'way', ref: 10, role: 'from' }, { type: 'node', ref: 2, role: 'via' }, { type: 'way', ref: 12, role: 'to' }], { type: 'restriction', restriction: 'no_left_turn' });
    const { graph: g } = buildRoadGraph(n.osm, { largestSccOnly: false });
    const J = JunctionIndex.of(g);
    const copies = [...Array(g.numNodes).keys()].filter((v) => g.nodeOsmId[v] === 2);
    expect(copies.length).toBe(2);
    for (const v of copies) expect(J.degree(v)).toBe(3);
    expect(JunctionIndex.of(g)).toBe(J);
  });
});
