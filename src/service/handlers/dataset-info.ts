/** DatasetInfo: the dataset the service answers on (its name, attribution and extent), for the page's map. */
import type { Call } from '../call.js';

export async function datasetInfo(_spec: unknown, call: Call): Promise<Record<string, unknown>> {
  const i = call.service.engine.datasetInfo();
  return { Status: 'Success', Errors: [], Name: i.name, Attribution: i.attribution, Bounds: [i.west, i.south, i.east, i.north], Center: [(i.south + i.north) / 2, (i.west + i.east) / 2] };
}
