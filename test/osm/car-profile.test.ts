import { describe, expect, it } from 'vitest';
import {
  destinationLabel, carNodeBlocks, carRestriction, carWayProfile, classifyAccess, DEFAULT_SPEED_KMH, EdgeFlag, HighwayClass,
  MAX_CAR_SPEED_KMH, MAXSPEED_FACTOR, parseDuration, parseMaxspeed,
} from '../../src/osm/car-profile.js';

describe('parseMaxspeed', () => {
  const table: [string, number | null][] = [
    ['50', 50],
    ['50 km/h', 50],
    ['50kmh', 50],
    ['30 mph', 30 * 1.609344],
    ['30mph', 30 * 1.609344],
    ['10 knots', 18.52],
    ['none', 140],
    ['walk', 6],
    ['DE:urban', 50],
    ['de:rural', 100],
    ['RU:rural', 90],
    ['RU:urban', 60],
    ['RU:living_street', 20],
    ['FR:urban', 50],
    ['PT:motorway', 120],
    ['IT:motorway', 130],
    ['DE:motorway', 140],
    ['DE:zone30', 30],
    ['DE:zone:20', 20],
    ['GB:nsl_single', 60 * 1.609344],
    ['50;30', 30],
    ['50 @ (22:00-06:00)', 50],
    ['12.5', 12.5],
    ['signals', null],
    ['variable', null],
    ['', null],
    ['0', null],
    ['fast', null],
  ];
  for (const [v, want] of table) {
    it(`"${v}" → ${want === null ? 'null' : want.toFixed(3)}`, () => {
      const got = parseMaxspeed(v);
      if (want === null) expect(got).toBeNull();
      else expect(got).toBeCloseTo(want, 6);
    });
  }
  it('undefined → null', () => expect(parseMaxspeed(undefined)).toBeNull());
});

describe('parseDuration', () => {
  it.each([
    ['45', 2700],
    ['01:30', 5400],
    ['1:30:15', 5415],
    ['PT1H30M', 5400],
    ['PT45M', 2700],
    ['nonsense', null],
  ] as [string, number | null][])('%s → %s s', (v, want) => expect(parseDuration(v)).toBe(want));
});

describe('access', () => {
  it('classifies values', () => {
    expect(classifyAccess('no')).toBe('no');
    expect(classifyAccess('agricultural')).toBe('no');
    expect(classifyAccess('agricultural;forestry')).toBe('no');
    expect(classifyAccess('private')).toBe('private');
    expect(classifyAccess('delivery')).toBe('private');
    expect(classifyAccess('destination')).toBe('destination');
    expect(classifyAccess('yes')).toBe('yes');
    expect(classifyAccess('permissive')).toBe('yes');
    expect(classifyAccess('no;destination')).toBe('destination');
  });
  it('most specific tag wins', () => {
    expect(carWayProfile({ highway: 'residential', access: 'no' })).toBeNull();
    expect(carWayProfile({ highway: 'residential', access: 'no', motor_vehicle: 'yes' })).not.toBeNull();
    expect(carWayProfile({ highway: 'residential', motor_vehicle: 'no' })).toBeNull();
    expect(carWayProfile({ highway: 'residential', vehicle: 'no', motorcar: 'destination' })!.flags & EdgeFlag.Destination).toBeTruthy();
    expect(carWayProfile({ highway: 'residential', motorcar: 'agricultural' })).toBeNull();
  });
  it('private is kept, flagged and slowed; destination kept and flagged', () => {
    const p = carWayProfile({ highway: 'residential', access: 'private' })!;
    expect(p.flags & EdgeFlag.Private).toBeTruthy();
    expect(p.speedForwardKmh).toBeCloseTo(DEFAULT_SPEED_KMH.residential * 0.5);
    const d = carWayProfile({ highway: 'residential', access: 'destination' })!;
    expect(d.flags & EdgeFlag.Destination).toBeTruthy();
    expect(d.speedForwardKmh).toBe(DEFAULT_SPEED_KMH.residential);
  });
});

describe('carWayProfile', () => {
  it('keeps the drivable classes and drops the others', () => {
    for (const h of ['motorway', 'trunk_link', 'primary', 'secondary', 'tertiary', 'unclassified', 'residential', 'living_street', 'service', 'road']) {
      expect(carWayProfile({ highway: h }), h).not.toBeNull();
    }
    for (const h of ['footway', 'cycleway', 'track', 'path', 'steps', 'pedestrian', 'construction', 'proposed', 'bus_guideway', 'platform']) {
      expect(carWayProfile({ highway: h }), h).toBeNull();
    }
    expect(carWayProfile({ building: 'yes' })).toBeNull();
  });
  it('drops areas, impassable, construction and emergency access', () => {
    expect(carWayProfile({ highway: 'service', area: 'yes' })).toBeNull();
    expect(carWayProfile({ highway: 'residential', impassable: 'yes' })).toBeNull();
    expect(carWayProfile({ highway: 'primary', construction: 'yes' })).toBeNull();
    expect(carWayProfile({ highway: 'primary', construction: 'minor' })).not.toBeNull();
    expect(carWayProfile({ highway: 'service', service: 'emergency_access' })).toBeNull();
  });
  it('oneway rules', () => {
    const dir = (t: Record<string, string>) => { const p = carWayProfile(t)!; return `${p.forward ? 'F' : ''}${p.backward ? 'B' : ''}`; };
    expect(dir({ highway: 'residential' })).toBe('FB');
    expect(dir({ highway: 'residential', oneway: 'yes' })).toBe('F');
    expect(dir({ highway: 'residential', oneway: 'true' })).toBe('F');
    expect(dir({ highway: 'residential', oneway: '1' })).toBe('F');
    expect(dir({ highway: 'residential', oneway: '-1' })).toBe('B');
    expect(dir({ highway: 'residential', oneway: 'reverse' })).toBe('B');
    expect(dir({ highway: 'residential', junction: 'roundabout' })).toBe('F');
    expect(dir({ highway: 'residential', junction: 'circular' })).toBe('F');
    expect(dir({ highway: 'motorway' })).toBe('F');
    expect(dir({ highway: 'motorway_link' })).toBe('F');
    expect(dir({ highway: 'motorway', oneway: 'no' })).toBe('FB');
    expect(dir({ highway: 'primary', junction: 'roundabout', oneway: 'no' })).toBe('FB');
    expect(carWayProfile({ highway: 'residential', oneway: 'reversible' })).toBeNull();
    expect(carWayProfile({ highway: 'residential', oneway: 'yes' })!.flags & EdgeFlag.Oneway).toBeTruthy();
    expect(carWayProfile({ highway: 'residential', junction: 'roundabout' })!.flags & EdgeFlag.Roundabout).toBeTruthy();
  });
  it('speeds: class defaults, maxspeed × factor, surface caps, cap', () => {
    expect(carWayProfile({ highway: 'primary' })!.speedForwardKmh).toBe(DEFAULT_SPEED_KMH.primary);
    expect(carWayProfile({ highway: 'residential', maxspeed: '50' })!.speedForwardKmh).toBeCloseTo(50 * MAXSPEED_FACTOR);
    expect(carWayProfile({ highway: 'residential', maxspeed: '30 mph' })!.speedForwardKmh).toBeCloseTo(30 * 1.609344 * MAXSPEED_FACTOR);
    expect(carWayProfile({ highway: 'motorway', maxspeed: 'none' })!.speedForwardKmh).toBeCloseTo(140 * MAXSPEED_FACTOR);
    expect(carWayProfile({ highway: 'motorway', maxspeed: '200' })!.speedForwardKmh).toBe(MAX_CAR_SPEED_KMH);
    expect(carWayProfile({ highway: 'residential', 'source:maxspeed': 'DE:urban' })!.speedForwardKmh).toBeCloseTo(40);
    expect(carWayProfile({ highway: 'residential', maxspeed: 'signals' })!.speedForwardKmh).toBe(DEFAULT_SPEED_KMH.residential);
    const fb = carWayProfile({ highway: 'primary', 'maxspeed:forward': '70', 'maxspeed:backward': '50', maxspeed: '90' })!;
    expect(fb.speedForwardKmh).toBeCloseTo(56);
    expect(fb.speedBackwardKmh).toBeCloseTo(40);
    const gravel = carWayProfile({ highway: 'primary', maxspeed: '90', surface: 'gravel' })!;
    expect(gravel.speedForwardKmh).toBe(40);
    expect(gravel.flags & EdgeFlag.Unpaved).toBeTruthy();
    expect(carWayProfile({ highway: 'primary', surface: 'asphalt' })!.flags & EdgeFlag.Unpaved).toBe(0);
    expect(carWayProfile({ highway: 'unclassified', tracktype: 'grade3' })!.flags & EdgeFlag.Unpaved).toBeTruthy();
    const aisle = carWayProfile({ highway: 'service', service: 'parking_aisle' })!;
    expect(aisle.flags & EdgeFlag.MinorService).toBeTruthy();
    expect(aisle.speedForwardKmh).toBeCloseTo(DEFAULT_SPEED_KMH.service * 0.5);
  });
  it('ferries: route=ferry, duration, flags', () => {
    const f = carWayProfile({ route: 'ferry', duration: '00:45', name: 'Ferry' })!;
    expect(f.cls).toBe(HighwayClass.ferry);
    expect(f.durationS).toBe(2700);
    expect(f.flags & EdgeFlag.Ferry).toBeTruthy();
    expect(f.forward && f.backward).toBe(true);
    expect(carWayProfile({ route: 'ferry' })!.speedForwardKmh).toBe(DEFAULT_SPEED_KMH.ferry);
    expect(carWayProfile({ route: 'ferry', motor_vehicle: 'no' })).toBeNull();
    expect(carWayProfile({ route: 'bus', highway: 'primary' })!.cls).toBe(HighwayClass.primary);
  });
  it('warning bits and names', () => {
    const p = carWayProfile({ highway: 'trunk', toll: 'yes', bridge: 'yes', tunnel: 'no', name: 'Rua A', ref: 'N1' })!;
    expect(p.flags & EdgeFlag.Toll).toBeTruthy();
    expect(p.flags & EdgeFlag.Bridge).toBeTruthy();
    expect(p.flags & EdgeFlag.Tunnel).toBe(0);
    expect(p.name).toBe('Rua A');
    expect(p.ref).toBe('N1');
  });
});

describe('carNodeBlocks', () => {
  it('bollards block, gates do not, access tags decide', () => {
    expect(carNodeBlocks(null)).toBe(false);
    expect(carNodeBlocks({ barrier: 'bollard' })).toBe(true);
    expect(carNodeBlocks({ barrier: 'block' })).toBe(true);
    expect(carNodeBlocks({ barrier: 'gate' })).toBe(false);
    expect(carNodeBlocks({ barrier: 'lift_gate' })).toBe(false);
    expect(carNodeBlocks({ barrier: 'bollard', bollard: 'rising' })).toBe(false);
    expect(carNodeBlocks({ barrier: 'bollard', motor_vehicle: 'yes' })).toBe(false);
    expect(carNodeBlocks({ barrier: 'gate', access: 'no' })).toBe(true);
    expect(carNodeBlocks({ barrier: 'gate', access: 'private' })).toBe(false);
    expect(carNodeBlocks({ highway: 'traffic_signals' })).toBe(false);
  });
});

describe('carRestriction', () => {
  it('reads the kind and honours except / vehicle-specific tags', () => {
    expect(carRestriction({ type: 'restriction', restriction: 'no_left_turn' })).toEqual({ ok: true, kind: 'no', value: 'no_left_turn' });
    expect(carRestriction({ type: 'restriction', restriction: 'only_straight_on' })).toEqual({ ok: true, kind: 'only', value: 'only_straight_on' });
    expect(carRestriction({ type: 'restriction', 'restriction:motorcar': 'no_u_turn' })).toMatchObject({ ok: true, kind: 'no' });
    expect(carRestriction({ type: 'restriction', restriction: 'no_left_turn', except: 'bicycle;motorcar' })).toEqual({ ok: false, reason: 'except' });
    expect(carRestriction({ type: 'restriction', 'restriction:hgv': 'no_left_turn' })).toEqual({ ok: false, reason: 'other-vehicle' });
    expect(carRestriction({ type: 'restriction', 'restriction:conditional': 'no_left_turn @ (Mo-Fr 07:00-09:00)' })).toEqual({ ok: false, reason: 'conditional' });
    expect(carRestriction({ type: 'restriction', restriction: 'give_way' })).toEqual({ ok: false, reason: 'unknown-value' });
    expect(carRestriction({ type: 'multipolygon' })).toEqual({ ok: false, reason: 'not-a-restriction' });
  });
});

describe('destinationLabel (signposts)', () => {
  it('joins destination:ref and destination, lists with commas', () => {
    expect(destinationLabel({ destination: 'Porto;Braga', 'destination:ref': 'A28' })).toBe('A28: Porto, Braga');
    expect(destinationLabel({ destination: 'Lisboa' })).toBe('Lisboa');
    expect(destinationLabel({ 'destination:ref': 'A1;A3' })).toBe('A1, A3');
    expect(destinationLabel({ 'destination:forward': 'Nice' })).toBe('Nice');
    expect(destinationLabel({ highway: 'primary' })).toBe('');
  });
  it('is kept on one-way ways only (a two-way road has no single direction for its signs)', () => {
    expect(carWayProfile({ highway: 'motorway_link', destination: 'Porto' })!.destination).toBe('Porto');
    expect(carWayProfile({ highway: 'primary', oneway: 'yes', destination: 'Porto' })!.destination).toBe('Porto');
    expect(carWayProfile({ highway: 'primary', destination: 'Porto' })!.destination).toBe('');
  });
});
