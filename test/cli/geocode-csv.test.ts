/**
 * `dispatchkit geocode --csv` end to end (child processes): csv-parse input (quoting, BOM, `;`/tab
 * sniffing, localized headers, --columns, a free-text address column), broken rows named by line
 * (exit 2) without disturbing their neighbours, streaming output equal to the one-call Geocode
 * result, JSON lines, worker threads, and the exit codes of bad output paths and options.
 */
import { ROOT, runCli } from '../helpers/cli.js';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const OSM = join(ROOT, 'fixtures/monaco-latest.osm.pbf');
const cli = runCli;
const geocode = (args: string[], input?: string) => cli(['geocode', '--osm', OSM, '-q', ...args], input);

const dir = mkdtempSync(join(tmpdir(), 'dk-geocode-csv-'));
const file = (name: string, text: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
/** Output rows of a CSV written by the CLI, parsed simply (the tests keep newlines out of what they compare). */
const rowsOf = (text: string) => text.trim().split('\n');

const STREETS = ['22 Avenue Princesse Grace', '9 Rue du Castelleretto', '2 Boulevard des Moulins', '11 Avenue de la Costa', 'Qxzqxz Vbnvbn', '1 Rue Grimaldi'];

describe('dispatchkit geocode --csv', () => {
  it('reads quoted fields with separators and line breaks, a BOM and a ; separator with French headers', () => {
    const csv = file('fr.csv', '\uFEFFid;Adresse;"Ville";Remarque\r\n1;22 Avenue Princesse Grace;Monaco;"deux\r\nlignes; et ""guillemets"""\r\n2;"9 Rue du Castelleretto";Monaco;x\r\n');
    const out = join(dir, 'fr.out.csv');
    const r = geocode(['--csv', csv, '-o', out]);
    expect(r.status).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text.startsWith('id,Adresse,Ville,Remarque,lat,lon,matchcode,score,kind,matched_street,matched_city,matched_postcode,error\n')).toBe(true);
    expect(text).toContain('1,22 Avenue Princesse Grace,Monaco,"deux\r\nlignes; et ""guillemets""",43.7478266,7.4362537,Exact,');
    expect(text).toMatch(/\n2,9 Rue du Castelleretto,Monaco,x,43\.\d+,7\.\d+,Exact,/);
    expect(r.stderr).toContain('2/2 rows geocoded');
  });

  it('sniffs a tab separator and German headers (Straße, PLZ, Ort)', () => {
    const csv = file('de.tsv', 'Straße\tPLZ\tOrt\n22 Avenue Princesse Grace\t98000\tMonaco\n');
    const r = geocode(['--csv', csv]);
    expect(r.status).toBe(0);
    const lines = rowsOf(r.stdout);
    expect(lines[0]).toBe('Straße,PLZ,Ort,lat,lon,matchcode,score,kind,matched_street,matched_city,matched_postcode,error');
    expect(lines[1]).toMatch(/^22 Avenue Princesse Grace,98000,Monaco,43\.7478266,7\.4362537,Exact,/);
  });

  it('takes the columns from --columns (numbers without a header, names with one)', () => {
    const noHeader = file('cols.csv', 'a1,22 Avenue Princesse Grace,Monaco\na2,9 Rue du Castelleretto,Monaco\n');
    const r = geocode(['--csv', noHeader, '--columns', 'street=2,city=3']);
    expect(r.status).toBe(0);
    const lines = rowsOf(r.stdout);
    expect(lines[0]).toMatch(/^col1,col2,col3,lat,/);
    expect(lines[1]).toMatch(/^a1,22 Avenue Princesse Grace,Monaco,43\.7478266,7\.4362537,Exact,/);
    expect(lines[2]).toMatch(/^a2,9 Rue du Castelleretto,Monaco,43\.\d+,7\.\d+,Exact,/);
    const named = file('named.csv', 'ref,Anschrift,Gemeinde\n1,22 Avenue Princesse Grace,Monaco\n');
    const n = geocode(['--csv', named, '--columns', 'street=Anschrift,city=Gemeinde']);
    expect(n.status).toBe(0);
    expect(rowsOf(n.stdout)[1]).toMatch(/^1,22 Avenue Princesse Grace,Monaco,43\.7478266,/);
    const missing = geocode(['--csv', named, '--columns', 'street=Nope']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--columns: no column "Nope"/);
    expect(geocode(['--csv', named, '--columns', 'colour=1']).status).toBe(2);
  });

  it('geocodes a single free-text address column as one line', () => {
    const csv = file('free.csv', 'id,address\n1,"22 Avenue Princesse Grace, 98000 Monaco"\n2,"Qxzqxz Vbnvbn, Nowhere"\n');
    const r = geocode(['--csv', csv]);
    expect(r.status).toBe(0);
    const lines = rowsOf(r.stdout);
    expect(lines[1]).toMatch(/^1,"22 Avenue Princesse Grace, 98000 Monaco",43\.7478266,7\.4362537,Exact,/);
    expect(lines[2]).toMatch(/^2,"Qxzqxz Vbnvbn, Nowhere",,,None,/);
  });

  it('names a row it cannot read by its line, writes it as an Error row and exits 2; its neighbours are intact', () => {
    const csv = file('broken.csv', [
      'id,street,city',
      '1,22 Avenue Princesse Grace,Monaco',
      '2,9 Rue du Castelleretto,Monaco,surplus',
      '3,"2 Boulevard des Moulins",Monaco',
      '4,"11 Avenue de la Costa',
      '',
    ].join('\n'));
    const out = join(dir, 'broken.out.csv');
    const r = geocode(['--csv', csv, '-o', out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/broken\.csv line 3: 4 columns where the first row has 3/);
    expect(r.stderr).toMatch(/broken\.csv line 5: a quoted field is not closed/);
    const lines = rowsOf(readFileSync(out, 'utf8'));
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(/^1,22 Avenue Princesse Grace,Monaco,43\.7478266,/);
    expect(lines[2]).toBe('2,9 Rue du Castelleretto,Monaco,,,Error,0,,,,,line 3: 4 columns where the first row has 3');
    expect(lines[3]).toMatch(/^3,2 Boulevard des Moulins,Monaco,43\.\d+,7\.\d+,/);
    expect(lines[4]).toMatch(/^,,,,,Error,0,,,,,line 5: a quoted field is not closed/);
    const jl = geocode(['--csv', csv, '--jsonl']);
    expect(jl.status).toBe(2);
    expect(rowsOf(jl.stdout).map((l) => JSON.parse(l)).map((o) => [o.Line, o.Error ?? null])).toEqual([
      [2, null], [3, '4 columns where the first row has 3'], [4, null], [5, 'a quoted field is not closed (the input ends inside it)']]);
  });

  describe('streaming', () => {
    // 700 rows: three chunks of the stream, the last one partial.
    const addresses = Array.from({ length: 700 }, (_, i) => ({ Street: STREETS[i % STREETS.length], City: i % 3 === 0 ? 'Monaco' : '' }));
    const csvText = 'n,street,city\n' + addresses.map((a, i) => `${i},${a.Street},${a.City}`).join('\n') + '\n';
    let oneCall: { Items: { Locations: { LatLong: { Latitude: number; Longitude: number }; MatchCode: string }[] }[] };
    let data: string;

    beforeAll(() => {
      const spec = file('batch.json', JSON.stringify({ IsNeedMatchCode: true, Addresses: addresses.map((a) => (a.City ? a : { Street: a.Street })) }));
      const r = geocode([spec, '--names']);
      expect(r.status).toBe(0);
      oneCall = JSON.parse(r.stdout);
      data = join(dir, 'monaco.dkds');
      expect(cli(['build', OSM, '-o', data, '-q']).status).toBe(0);
    }, 120_000);

    it('writes the rows in input order, equal to the one-call Geocode result', () => {
      const csv = file('batch.csv', csvText);
      const r = geocode(['--csv', csv]);
      expect(r.status).toBe(0);
      const lines = rowsOf(r.stdout).slice(1);
      expect(lines).toHaveLength(addresses.length);
      lines.forEach((line, i) => {
        const cells = line.split(',');
        expect(cells[0]).toBe(String(i));
        const best = oneCall.Items[i].Locations[0];
        if (best) expect([Number(cells[3]), Number(cells[4]), cells[5]]).toEqual([best.LatLong.Latitude, best.LatLong.Longitude, best.MatchCode]);
        else expect(cells[5]).toBe('None');
      });
    });

    it('writes JSON lines carrying the same Locations as the one-call result', () => {
      const r = geocode(['--csv', '-', '--jsonl', '--names'], csvText);
      expect(r.status).toBe(0);
      const objs = rowsOf(r.stdout).map((l) => JSON.parse(l));
      expect(objs).toHaveLength(addresses.length);
      objs.forEach((o, i) => {
        expect(o.Line).toBe(i + 2);
        expect(o.Locations).toEqual(oneCall.Items[i].Locations);
      });
    });

    it('gives the same rows on worker threads (dataset file) as in one thread', () => {
      const csv = file('batch2.csv', csvText);
      const one = cli(['geocode', '--data', data, '-q', '--csv', csv]);
      const two = cli(['geocode', '--data', data, '-q', '--csv', csv, '--threads', '2']);
      expect(one.status).toBe(0);
      expect(two.status).toBe(0);
      expect(two.stdout).toBe(one.stdout);
      expect(rowsOf(one.stdout)).toHaveLength(addresses.length + 1);
    });

    it('refuses a directory or an unwritable output, a dataset directory and too many threads (exit 2, no stack trace)', () => {
      const sub = join(dir, 'sub');
      mkdirSync(sub, { recursive: true });
      const csv = file('small.csv', 'street,city\n22 Avenue Princesse Grace,Monaco\n');
      const cases = [
        cli(['geocode', '--data', data, '--csv', csv, '-o', sub]),
        cli(['geocode', '--data', data, '--csv', csv, '-o', join(dir, 'no-such-folder', 'out.csv')]),
        cli(['geocode', '--data', data, '--csv', csv, '-o', join(csv, 'out.csv')]),
        cli(['geocode', '--data', dir, '--csv', csv]),
        cli(['geocode', '--data', data, '--csv', csv, '--threads', '100000']),
        cli(['geocode', '--data', data, '--csv', sub]),
        cli(['build', OSM, '-o', sub, '-q']),
        cli(['build', OSM, '-o', join(dir, 'no-such-folder', 'x.dkds'), '-q']),
        cli(['build', OSM, '-o', join(dir, 'x.dkds'), '--threads', '100000', '-q']),
      ];
      for (const r of cases) {
        expect(r.status).toBe(2);
        expect(r.stderr).toMatch(/^error \[InvalidInput\]: /m);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      }
      expect(cases[0].stderr).toContain('is a directory');
      expect(cases[1].stderr).toContain('does not exist');
      expect(cases[6].stderr).toContain('is a directory');
    });
  });

  it('accepts a JSON specification with a BOM', () => {
    const spec = file('bom.json', '\uFEFF' + JSON.stringify({ Addresses: [{ Street: '22 Avenue Princesse Grace', City: 'Monaco' }] }));
    const r = geocode([spec, '--names']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).Status).toBe('Success');
  });
});
