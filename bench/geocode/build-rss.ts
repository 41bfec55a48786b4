/**
 * Child process of bench/geocode.ts: builds one geocode index and prints its build time and the
 * process's peak RSS as JSON (a fresh process, so the figure is the build's alone).
 *   node --import tsx bench/geocode/build-rss.ts <extract.osm.pbf> [tiger.csv]
 */
import { readFileSync } from 'node:fs';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { buildGeocodeIndexWithStats } from '../../src/geocode/build.js';

/** Peak resident memory (MB) of this process: VmHWM (per address space, so not inherited from the parent across fork+exec as getrusage's maxrss is); else maxRSS. */
function peakMB(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch { /* not Linux */ }
  return process.resourceUsage().maxRSS / 1024;
}

const [pbf, tiger] = process.argv.slice(2);
const rss0 = peakMB();
const t0 = performance.now();
const { index, stats } = buildGeocodeIndexWithStats(new OsmPbfFile(readFileSync(pbf)), { tigerCsv: tiger ? readFileSync(tiger, 'utf8') : undefined });
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, buildMs: stats.ms, peakRssMB: peakMB(), startRssMB: rss0, indexMB: index.byteLength / 2 ** 20 }) + '\n');
