/**
 * SVG → PNG through `@resvg/resvg-js` (a native rasteriser shipped as an optional dependency).
 * Loaded with a dynamic `import()` on first use, so the rest of the package works where the
 * binary is missing; then this fails with a clear message.
 */

import { EngineError } from '../core/errors.js';

type ResvgModule = typeof import('@resvg/resvg-js');

let loading: Promise<ResvgModule> | undefined;

function loadResvg(): Promise<ResvgModule> {
  loading ??= import('@resvg/resvg-js').then(
    (m) => {
      const mod = ((m as { Resvg?: unknown }).Resvg ? m : (m as unknown as { default: ResvgModule }).default) as ResvgModule;
      if (typeof mod?.Resvg !== 'function') throw new EngineError('Unsupported', 'the module has no Resvg class');
      return mod;
    },
  ).catch((e: unknown) => {
    loading = undefined; // try again next time (e.g. after installing it)
    throw new EngineError(
      'Unsupported',
      `PNG maps need the package @resvg/resvg-js (with its native binary for ${process.platform}-${process.arch}), which could not be loaded: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  });
  return loading;
}

/**
 * Rasterises an SVG (as made by `renderMapSvg`) to PNG bytes. `width` scales the image to that
 * many pixels wide (height in proportion); by default the SVG's own size is used. Text uses the
 * system fonts, DejaVu Sans by default.
 */
export async function svgToPng(svg: string, opts: { width?: number } = {}): Promise<Uint8Array> {
  const { Resvg } = await loadResvg();
  const w = opts.width;
  if (w !== undefined && !(Number.isInteger(w) && w >= 1)) throw new RangeError(`PNG width must be a positive integer, got ${w}`);
  const r = new Resvg(svg, {
    fitTo: w === undefined ? { mode: 'original' } : { mode: 'width', value: w },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
    shapeRendering: 2,
    textRendering: 1,
  });
  const png = r.render().asPng();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}
