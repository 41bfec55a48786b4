// Child of bench/dispatch-memory.ts: plain node on a tree's built package (as users run it), one case.
//   node bench/lib/memory-child.mjs <tree> <dataset> <spec.json> <timeLimitS> [warm]
import { readFileSync } from 'node:fs';
const [tree, dataset, specFile, limitS, warm] = process.argv.slice(2);
const { Engine } = await import(`${tree}/dist/engine.js`);
const rss = () => process.memoryUsage().rss / 2 ** 20;
let peak = rss();
const timer = setInterval(() => { peak = Math.max(peak, rss()); }, 20);
const node = rss();
const engine = await Engine.open(dataset, { threads: 2 });
await new Promise((r) => setTimeout(r, 1500));
const idle = rss();
const spec = JSON.parse(readFileSync(specFile, 'utf8'));
const t0 = performance.now();
const r = await engine.dispatch(spec, { seed: 1, timeLimitMs: Number(limitS) * 1000 });
const firstMs = performance.now() - t0;
const out = { status: r.Status, node, idle, firstMs, warm: {} };
if (warm) {
  for (const mo of ['default', 1]) {
    const s = mo === 'default' ? spec : { ...spec, MinimumOptimization: mo };
    const ws = [];
    for (let i = 0; i < 7; i++) { const t = performance.now(); await engine.dispatch(s, { seed: 1 }); ws.push(performance.now() - t); }
    ws.sort((a, b) => a - b);
    out.warm[mo] = ws[3];
  }
}
clearInterval(timer);
out.peak = Math.max(peak, rss());
out.maxRss = process.resourceUsage().maxRSS / 1024;
await engine.close();
process.stdout.write(JSON.stringify(out) + '\n');
