/**
 * Segment snapping cross-checked against Turf (an independent implementation, great-circle
 * based) on the Monaco dataset: the nearest road point found by the snapper is, within the
 * two methods' geometric tolerance, as near as Turf's nearest point over every road polyline.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { lineString, point } from '@turf/helpers';
import { nearestPointOnLine } from '@turf/turf';
import { Rng } from '../../src/core/rng.js';
import type { Dataset } from '../../src/dataset/dataset.js';
import { fixtureDataset } from '../helpers/datasets.js';

let ds: Dataset;
beforeAll(async () => {
  ds = (await fixtureDataset('monaco')).dataset;
});

describe('snapping vs Turf nearestPointOnLine', () => {
  it('finds the same nearest distance on 40 random points (brute force over all edges)', () => {
    const g = ds.graph;
    const lines = [];
    for (let e = 0; e < g.numEdges; e++) {
      const coords: [number, number][] = [];
      for (let k = g.edgeGeomStart[e]; k < g.edgeGeomStart[e + 1]; k++) coords.push([g.geomLon[k], g.geomLat[k]]);
      if (coords.length >= 2) lines.push(lineString(coords));
    }
    const rng = new Rng(77);
    let checked = 0;
    while (checked < 40) {
      const lat = 43.726 + rng.next() * 0.02;
      const lon = 7.412 + rng.next() * 0.025;
      const snap = ds.snapper.trySnap(lat, lon, { surfaceFirst: false });
      if (!snap) continue;
      let best = Infinity;
      const p = point([lon, lat]);
      for (const l of lines) {
        const d = nearestPointOnLine(l, p, { units: 'meters' }).properties.dist;
        if (d < best) best = d;
      }
      expect(Math.abs(snap.distanceM - best)).toBeLessThan(0.5 + 0.005 * best);
      checked++;
    }
  });
});
