/** The dependency rule, enforced: kernels import nothing above them; every part imports only what ALLOWED lists. */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED, checkSource, checkTree, KERNEL_ORDER } from './layers.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

describe('layers', () => {
  it('src/ has no upward import (zero exceptions)', () => {
    const r = checkTree(SRC);
    expect(r.files).toBeGreaterThan(50);
    const first = r.violations[0];
    expect(first, first && `${first.file}:${first.line} (${first.from}) imports ${first.imports} (${first.to})`).toBeUndefined();
  });

  it('every part of src/ has a rule', () => {
    const unknown = [...checkTree(SRC).parts].filter((p) => !(p in ALLOWED));
    expect(unknown).toEqual([]);
  });

  it('catches the upward imports it is there for (static, type-only, re-export, dynamic, side-effect)', () => {
    const cases: [string, string][] = [
      ['vrp/x.ts', "import { DispatchSpecificationSchema } from '../records/index.js';"],
      ['matrix/x.ts', "import type { WorkerPool } from '../workers/pool.js';"],
      ['geocode/x.ts', "export { geocodeOp } from '../ops/geocode.js';"],
      ['vrp/x.ts', "const { WorkerPool } = await import('../workers/pool.js');"],
      ['core/x.ts', "import '../graph/road-graph.js';"],
      ['records/x.ts', "import { Engine } from '../engine.js';"],
      ['ops/x.ts', "import { WorkerPool } from '../workers/pool.js';"],
      ['dataset/x.ts', "import { MessageChannel } from 'node:worker_threads';"],
      ['ops/x.ts', "import { Piscina } from 'piscina';"],
      // faces reach nothing but the service, its records and core
      ['server/x.ts', "import type { Engine } from '../engine.js';"],
      ['server/x.ts', "import { openStore } from '../store/index.js';"],
      ['server/x.ts', "import { roadLayer } from '../render/index.js';"],
      ['server/soap/x.ts', "import type { Account } from '../../store/types.js';"],
      // the order among kernels
      ['vrp/x.ts', "import { RoadGraph } from '../graph/road-graph.js';"],
      ['graph/x.ts', "import { ContractionHierarchy } from '../ch/hierarchy.js';"],
      ['ch/x.ts', "import { computeMatrix } from '../matrix/compute.js';"],
      ['geocode/x.ts', "import { Router } from '../route/router.js';"],
      ['osm/x.ts', "import { RoadGraph } from '../graph/road-graph.js';"],
    ];
    for (const [file, text] of cases) {
      const v = checkSource(SRC, join(SRC, file), `// header\n${text}\n`);
      expect(v, `${file}: ${text}`).toHaveLength(1);
      expect(v[0].line).toBe(2);
    }
    // Allowed directions pass.
    expect(checkSource(SRC, join(SRC, 'ops/x.ts'), "import { solve } from '../vrp/solve.js';")).toEqual([]);
    expect(checkSource(SRC, join(SRC, 'workers/x.ts'), "import { dispatchPrepareTask } from '../ops/dispatch/index.js';")).toEqual([]);
    expect(checkSource(SRC, join(SRC, 'vrp/x.ts'), "import Flatbush from 'flatbush';")).toEqual([]);
    expect(checkSource(SRC, join(SRC, 'workers/x.ts'), "import { Piscina } from 'piscina';")).toEqual([]);
    expect(checkSource(SRC, join(SRC, 'server/x.ts'), "import { Service } from '../service/service.js';")).toEqual([]);
    expect(checkSource(SRC, join(SRC, 'matrix/x.ts'), "import { ContractionHierarchy } from '../ch/hierarchy.js';")).toEqual([]);
  });

  it('the order among kernels has no cycle (each kernel imports only kernels listed before it somewhere down the line)', () => {
    const seen = new Set<string>();
    const visiting = new Set<string>();
    const visit = (k: string): void => {
      expect(visiting.has(k), `a cycle through ${k}`).toBe(false);
      if (seen.has(k)) return;
      visiting.add(k);
      for (const d of KERNEL_ORDER[k]) visit(d);
      visiting.delete(k);
      seen.add(k);
    };
    for (const k of Object.keys(KERNEL_ORDER)) visit(k);
  });
});
