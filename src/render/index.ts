/** Offline route maps: SVG from the road graph and route polylines, PNG through resvg. */
export {
  renderMapSvg,
  roadLayer,
  type RoadLayerStyle,
  mapView,
  svgDataUrl,
  checkMapSize,
  MAX_MAP_SIDE,
  MAX_MAP_PIXELS,
  type MapOptions,
  type MapRoute,
  type MapMarker,
  type MapView,
  type ArgbColor,
} from './map.js';
export { svgToPng } from './png.js';
