/** The one table of CSV column names (src/records/columns.ts) that the CLI and the page both read. */
import { describe, expect, it } from 'vitest';
import { ADDRESS_FIELDS, columnsOfHeader, CSV_COLUMNS, fieldOfHeader, headerKey } from '../../src/records/columns.js';
import { detectHeader, normalizeHeader } from '../../src/cli/csv.js';

describe('CSV column names', () => {
  it('each name is written folded and belongs to one field only', () => {
    const seen = new Map<string, string>();
    for (const [field, names] of Object.entries(CSV_COLUMNS)) {
      for (const n of names) {
        expect(headerKey(n), `${field}: ${n}`).toBe(n);
        expect(seen.get(n), `${n} is both ${seen.get(n)} and ${field}`).toBeUndefined();
        seen.set(n, field);
      }
    }
  });

  it('folding: accents, ß, case, spaces and punctuation do not matter', () => {
    expect(headerKey('Código Postal')).toBe('codigopostal');
    expect(headerKey('CODIGO-POSTAL')).toBe('codigopostal');
    expect(headerKey(' Straße ')).toBe('strasse');
    expect(headerKey('Länge (°)')).toBe('lange');
    expect(headerKey('time_constraint.arrival')).toBe('timeconstraintarrival');
    expect(fieldOfHeader('Breite')).toBe('Latitude');
    expect(fieldOfHeader('Länge')).toBe('Longitude');
    expect(fieldOfHeader('Nom')).toBe('Name');
    expect(fieldOfHeader('Morada')).toBe('Street');
    expect(fieldOfHeader('Localidade')).toBe('City');
    expect(fieldOfHeader('Colour')).toBeUndefined();
    expect(normalizeHeader).toBe(headerKey); // the CLI's --columns names are compared by the same rule
  });

  it("the CLI's header detection reads the table: the address columns of French, German, Portuguese and Spanish headers, the first column of a field", () => {
    const headers: string[][] = [
      ['Nom', 'Rue', 'Ville', 'Code postal', 'Poids'],
      ['Name', 'Straße', 'PLZ', 'Ort', 'Breite', 'Länge', 'Gewicht'],
      ['Nome', 'Morada', 'Localidade', 'Código postal', 'Latitude', 'Longitude', 'Peso'],
      ['Nombre', 'Dirección', 'Ciudad', 'Código Postal', 'Latitud', 'Longitud', 'Peso'],
      ['Address', 'Street', 'City'],
    ];
    for (const row of headers) {
      const fields = columnsOfHeader(row);
      const expected: Record<string, number> = {};
      fields.forEach((f, i) => { if (f && (ADDRESS_FIELDS as readonly string[]).includes(f)) expected[f] = i; });
      expect(detectHeader(row), row.join(';')).toEqual(expected);
    }
    expect(columnsOfHeader(['Nom', 'Rue', 'Ville', 'Code postal', 'Poids'])).toEqual(['Name', 'Street', 'City', 'PostalCode', 'Weight']);
    expect(columnsOfHeader(['Address', 'Street', 'City'])).toEqual(['Street', undefined, 'City']);
    expect(detectHeader(['Nom', 'Breite', 'Länge'])).toBeNull(); // no address column: not an address header
  });
});
