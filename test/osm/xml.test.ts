import { describe, expect, it } from 'vitest';
import { OsmElements, parseOsmXml, readOsmXmlFile } from '../../src/osm/xml.js';
import { MemberType, type Tags } from '../../src/osm/pbf.js';
import { fixture } from '../graph/helpers.js';

describe('OSM XML reader', () => {
  it('parses nodes, ways, relations, tags and entities', () => {
    const x = parseOsmXml(`<?xml version="1.0"?>
      <osm version="0.6"><!-- a comment <node id="99"/> -->
        <bounds minlat="0" minlon="0" maxlat="1" maxlon="1"/>
        <node id="1" lat="45.5" lon="-7.25"><tag k="barrier" v="bollard"/></node>
        <node id='2' lat='45.6' lon='-7.26'/>
        <way id="10"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/><tag k="name" v="Rua &quot;A&quot; &amp; B &#233;"/></way>
        <relation id="20"><member type="way" ref="10" role="from"/><member type="node" ref="2" role="via"/><tag k="type" v="restriction"/></relation>
      </osm>`);
    expect(x.nodes).toEqual([
      { id: 1, lat: 45.5, lon: -7.25, tags: { barrier: 'bollard' } },
      { id: 2, lat: 45.6, lon: -7.26 },
    ]);
    expect(x.ways).toEqual([{ id: 10, refs: [1, 2], tags: { highway: 'residential', name: 'Rua "A" & B é' } }]);
    expect(x.relations[0].members).toEqual([{ type: MemberType.Way, ref: 10, role: 'from' }, { type: MemberType.Node, ref: 2, role: 'via' }]);
  });

  it('replays elements through read() like the PBF decoder', () => {
    const x = readOsmXmlFile(fixture('tiny/restrictions.osm'));
    const seen = { nodes: 0, ways: 0, rels: 0, refs: [] as number[][], untagged: 0 };
    x.read({
      node: (_id, _la, _lo, tags) => { seen.nodes++; if (tags === null) seen.untagged++; },
      way: (_id, refs, n, _t: Tags) => { seen.ways++; seen.refs.push(Array.from(refs.subarray(0, n))); },
      relation: () => { seen.rels++; },
    });
    expect(seen.nodes).toBe(9);
    expect(seen.untagged).toBe(9);
    expect(seen.ways).toBe(8);
    expect(seen.rels).toBe(4);
    expect(seen.refs[4]).toEqual([8, 9, 6]);
  });

  it('round-trips through toXml()', () => {
    const a = new OsmElements()
      .node(1, 1.5, 2.5, { name: '<&>' })
      .node(2, 1.6, 2.6)
      .way(3, [1, 2], { highway: 'primary' })
      .relation(4, [{ type: 'way', ref: 3, role: 'from' }], { type: 'restriction' });
    const b = parseOsmXml(a.toXml());
    expect(b.nodes).toEqual([{ id: 1, lat: 1.5, lon: 2.5, tags: { name: '<&>' } }, { id: 2, lat: 1.6, lon: 2.6 }]);
    expect(b.ways).toEqual(a.ways);
    expect(b.relations).toEqual(a.relations);
  });
});
