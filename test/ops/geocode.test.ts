/**
 * The Geocode operation on contract records: validation with field paths (never a throw),
 * statuses, IsNeedMatchCode, the worker-pool batch path (same result as in-thread), the address
 * cap (TooBig), CSV helpers of the CLI.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { BinWriter } from '../../src/core/binfile.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { buildGeocodeIndex } from '../../src/geocode/build.js';
import type { GeocodeIndex } from '../../src/geocode/geocode-index.js';
import { geocodeOperation, geocodeOp } from '../../src/ops/geocode.js';
import { geocoderContext } from '../../src/ops/context.js';
import { Geocoder } from '../../src/geocode/search.js';
import { GeocodeResultSchema } from '../../src/records/index.js';
import { Readable } from 'node:stream';
import { csvRecords, detectHeader, parseColumns, sniffSeparator } from '../../src/cli/csv.js';
import { MAX_GEOCODE_ADDRESSES, validateGeocodeSpecification } from '../../src/ops/geocode.js';

let index: GeocodeIndex;
let pool: WorkerPool;

beforeAll(() => {
  index = buildGeocodeIndex(new OsmPbfFile(readFileSync(new URL('../../fixtures/monaco-latest.osm.pbf', import.meta.url))));
  const w = new BinWriter(0x53444b44, 1);
  index.toSections(w, 'geo');
  pool = new WorkerPool({ threads: 2, shared: { dataset: w.toBuffer(true) } });
});
afterAll(() => pool?.close());

const messages = (r: { Errors?: { Message?: string }[] }) => (r.Errors ?? []).map((e) => e.Message ?? '');

describe('Geocode operation', () => {
  it('answers one item per address, best candidates first', () => {
    const r = geocodeOperation(index, {
      IsNeedMatchCode: true,
      Addresses: [
        { Street: '9 Rue du Castelleretto', City: 'Monaco', PostalCode: '98000' },
        { Street: 'Boulevard des Moulins', City: 'Monaco' },
        { PostalCode: '98000' },
      ],
    });
    expect(r.Status).toBe('Success');
    expect(r.Items).toHaveLength(3);
    const [a, b, c] = r.Items!;
    expect(a.Address).toEqual({ Street: '9 Rue du Castelleretto', City: 'Monaco', PostalCode: '98000' });
    expect(a.Locations![0]).toMatchObject({ MatchCode: 'Exact', Description: 'address point', Address: { Street: '9 Rue du Castelleretto', PostalCode: '98000' } });
    expect(a.Locations![0].LatLong!.Latitude).toBeCloseTo(43.7349869, 6);
    expect(b.Locations![0]).toMatchObject({ MatchCode: 'Approx', Description: 'street' });
    expect(c.Locations![0]).toMatchObject({ MatchCode: 'Approx', Description: 'postal code area' });
    // the wire form validates against the contract
    const wire = GeocodeResultSchema.encode(r);
    expect(GeocodeResultSchema.safeParse(wire).ok).toBe(true);
    expect((wire.Items as any)[0].Locations[0].MatchCode).toBe(4);
  });

  it('reports MatchCode only when IsNeedMatchCode is set', () => {
    const r = geocodeOperation(index, { Addresses: [{ Street: '9 Rue du Castelleretto', City: 'Monaco' }] });
    expect(r.Items![0].Locations![0].MatchCode).toBe('None');
    expect(r.Items![0].Locations![0].LatLong).toBeDefined();
  });

  it('names the addresses not found (SuccessWithErrors)', () => {
    const r = geocodeOperation(index, { Addresses: [{ Street: '9 Rue du Castelleretto', City: 'Monaco' }, { Street: 'Qxzqxz Vbnvbn', City: 'Atlantis' }] });
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Items).toHaveLength(2);
    expect(r.Items![1].Locations).toEqual([]);
    expect(messages(r)).toEqual(['Addresses[1]: not found (Qxzqxz Vbnvbn, Atlantis)']);
  });

  it.each([
    ['no specification', undefined, /GeocodeSpecification/],
    ['not an object', 42, /GeocodeSpecification/],
    ['an array', [], /GeocodeSpecification/],
    ['no addresses', {}, /^Addresses: must hold at least one Address/],
    ['empty list', { Addresses: [] }, /^Addresses: must hold at least one Address/],
    ['addresses not a list', { Addresses: 'Monaco' }, /^Addresses: must be a list/],
    ['null item', { Addresses: [null] }, /^Addresses\[0\]: is empty \(null\)/],
    ['empty address', { Addresses: [{ Street: '9 Rue du Castelleretto' }, {}] }, /^Addresses\[1\]: is empty/],
    ['blank address', { Addresses: [{ Street: '  ', City: '' }] }, /^Addresses\[0\]: is empty/],
    ['wrong type', { Addresses: [{ Street: { x: 1 } }] }, /^Addresses\[0\]\.Street: must be a string/],
    ['10 kB string', { Addresses: [{ Street: 'x'.repeat(10_240) }] }, /^Addresses\[0\]\.Street: is too long \(10240 characters/],
    ['control characters', { Addresses: [{ City: 'Mona\u0007co' }] }, /^Addresses\[0\]\.City: contains control characters/],
    ['bad flag', { IsNeedMatchCode: 'perhaps', Addresses: [{ City: 'Monaco' }] }, /^IsNeedMatchCode: must be true or false/],
  ])('bad input (%s) → Failed naming the field', (_name, spec, re) => {
    const r = geocodeOperation(index, spec);
    expect(r.Status).toBe('Failed');
    expect(r.Items).toEqual([]);
    expect(messages(r).some((m) => re.test(m)), messages(r).join(' | ')).toBe(true);
  });

  it('accepts numbers for string fields (postcodes typed as numbers)', () => {
    const r = geocodeOperation(index, { Addresses: [{ PostalCode: 98000 }] });
    expect(r.Status).toBe('Success');
  });

  it('never throws, whatever it is given', () => {
    const anyValue = fc.anything({ maxDepth: 3, withBoxedValues: true, withNullPrototype: true });
    fc.assert(fc.property(anyValue, (v) => {
      const r = geocodeOperation(index, v);
      expect(['Success', 'SuccessWithErrors', 'Failed']).toContain(r.Status);
      const r2 = geocodeOperation(index, { Addresses: [v] });
      expect(['Success', 'SuccessWithErrors', 'Failed']).toContain(r2.Status);
    }), { seed: 5, numRuns: 300 });
  });

  it('under offload, a batch of at most inlineMax addresses stays in this thread (a thread hop costs more than the search); more go to the pool', async () => {
    let tasks = 0;
    const counting = new Proxy(pool, {
      get(target, p, recv) {
        if (p === 'run') return (...a: Parameters<typeof pool.run>) => { tasks++; return target.run(...a); };
        const v = Reflect.get(target, p, recv);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const ctx = geocoderContext(new Geocoder(index), counting, { geocodePrefix: 'geo' });
    const spec = (n: number) => ({ Addresses: Array.from({ length: n }, () => ({ Street: 'Boulevard des Moulins', City: 'Monaco' })) });
    const four = await geocodeOp(ctx, spec(4), { offload: true });
    expect(tasks).toBe(0);
    expect(four).toEqual(geocodeOperation(index, spec(4)));
    const five = await geocodeOp(ctx, spec(5), { offload: true });
    expect(tasks).toBe(1);
    expect(five).toEqual(geocodeOperation(index, spec(5)));
    await geocodeOp(ctx, spec(2), { offload: true, inlineMax: 1 });
    expect(tasks).toBe(2);
  });

  it('gives the same result on the worker pool as in this thread', async () => {
    const addresses = [];
    const streets = ['Rue du Castelleretto', 'Boulevard des Moulins', 'Avenue Princesse Grace', 'Rue Grimaldi', 'Boulevard d\'Italie', 'Avenue de la Costa'];
    for (let i = 0; i < 300; i++) addresses.push({ Street: `${1 + (i % 40)} ${streets[i % streets.length]}`, City: i % 3 ? 'Monaco' : undefined });
    addresses.push({ Street: 'Qxzqxz Vbnvbn' });
    const spec = { IsNeedMatchCode: true, Addresses: addresses };
    const local = geocodeOperation(index, spec);
    let progress = 0;
    const ctx = geocoderContext(new Geocoder(index), pool, { geocodePrefix: 'geo' });
    const pooled = await geocodeOp(ctx, spec, { offload: true, chunkSize: 64, onProgress: (e) => { progress = e.done; } });
    expect(pooled).toEqual(local);
    expect(progress).toBe(addresses.length);
    expect(pooled.Status).toBe('SuccessWithErrors');
    const bad = await geocodeOp(ctx, { Addresses: [{}] }, { offload: true });
    expect(bad.Status).toBe('Failed');
  });
});

describe('the address cap of one call', () => {
  it('is 100,000 by default and a parameter of the validation', () => {
    expect(MAX_GEOCODE_ADDRESSES).toBe(100_000);
    const spec = { Addresses: [{ Street: 'a' }, { Street: 'b' }, { Street: 'c' }, { Street: 'd' }] };
    expect(validateGeocodeSpecification(spec, 4).ok).toBe(true);
    const v = validateGeocodeSpecification(spec, 3);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.issues).toEqual([{ path: 'Addresses', message: expect.stringMatching(/holds 4 Addresses; .* at most 3 .*\[TooBig\]$/) }]);
  });

  it('fails a call past the cap with TooBig, before geocoding anything', async () => {
    const addresses = Array.from({ length: MAX_GEOCODE_ADDRESSES + 1 }, () => ({ Street: 'x' }));
    const r = geocodeOperation(index, { Addresses: addresses });
    expect(r.Status).toBe('Failed');
    expect(messages(r)).toEqual([expect.stringMatching(/^Addresses: holds 100001 Addresses.*\[TooBig\]$/)]);
    const ctx = geocoderContext(new Geocoder(index), pool, { geocodePrefix: 'geo' });
    const pooled = await geocodeOp(ctx, { Addresses: addresses }, { offload: true });
    expect(pooled).toEqual(r);
  });
});

describe('CSV helpers of the CLI', () => {
  const records = async (text: string) => {
    const out = [];
    for await (const r of csvRecords(Readable.from([text]))) out.push(r);
    return out;
  };

  it('parses quoted CSV, sniffing , ; or tab and dropping a BOM', async () => {
    expect(await records('a,b\n"x, y","he said ""hi"""\r\n1,2\n')).toEqual([
      { line: 1, cells: ['a', 'b'] }, { line: 2, cells: ['x, y', 'he said "hi"'] }, { line: 3, cells: ['1', '2'] }]);
    expect(await records('\uFEFFstreet;city\nLandstrasse 12, Vaduz;Vaduz\n')).toEqual([
      { line: 1, cells: ['street', 'city'] }, { line: 2, cells: ['Landstrasse 12, Vaduz', 'Vaduz'] }]);
    expect(sniffSeparator('a\tb\tc,d\n')).toBe('\t');
    expect(sniffSeparator('"a;b;c",d\n')).toBe(',');
  });

  it('names the line of a record it cannot read, keeping the others apart', async () => {
    expect(await records('a,b\n1,"two\nlines"\n\n3,4,5\n6,7\n8,"open\n9,10\n')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', 'two\nlines'] },
      { line: 5, cells: ['3', '4', '5'], error: '3 columns where the first row has 2' },
      { line: 6, cells: ['6', '7'] },
      { line: 7, error: 'a quoted field is not closed (the input ends inside it)', cells: undefined },
    ]);
  });

  it('detects address columns from the header, in several languages', () => {
    expect(detectHeader(['id', 'Address', 'Town', 'ZIP', 'country_code'])).toEqual({ Street: 1, City: 2, PostalCode: 3, Country: 4 });
    expect(detectHeader(['Straße', 'PLZ', 'Ort'])).toEqual({ Street: 0, PostalCode: 1, City: 2 });
    expect(detectHeader(['Dirección', 'Código Postal', 'Ciudad', 'País'])).toEqual({ Street: 0, PostalCode: 1, City: 2, Country: 3 });
    expect(detectHeader(['Indirizzo', 'CAP', 'Città', 'Paese'])).toEqual({ Street: 0, PostalCode: 1, City: 2, Country: 3 });
    expect(detectHeader(['Endereço', 'Cidade', 'Estado', 'CEP'])).toEqual({ Street: 0, City: 1, State: 2, PostalCode: 3 });
    expect(detectHeader(['adresse', 'cp', 'ville', 'pays', 'region'])).toEqual({ Street: 0, PostalCode: 1, City: 2, Country: 3, State: 4 });
    expect(detectHeader(['12 Main St', 'Springfield'])).toBeNull();
  });

  it('reads --columns by number or header name', () => {
    expect(parseColumns('street=2,city=3,zip=4')).toEqual({ byNumber: { Street: 1, City: 2, PostalCode: 3 }, byName: {} });
    expect(parseColumns('address=Anschrift, country=Land')).toEqual({ byNumber: {}, byName: { Street: 'Anschrift', Country: 'Land' } });
    expect(() => parseColumns('colour=2')).toThrow(/field=column/);
    expect(() => parseColumns('street=0')).toThrow(/start at 1/);
  });
});
