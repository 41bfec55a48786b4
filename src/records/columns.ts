/**
 * CSV column names, in one place: which header names (in English, French, German, Italian,
 * Spanish, Portuguese, Dutch, Polish) mean which field of a Location. The CLI's header
 * recognition (`cli/csv.ts` `detectHeader`) and the dispatcher's page (`ui/stops.js`, which
 * gets this table as the module `/ui/columns.js`, served by `server/ui.ts`) both read it.
 *
 * Plain data: `HEADER_FOLD` is how a header cell is compared — Unicode NFD, lower case, then the
 * listed replacements in order (accents off, ß → ss, every character that is not a letter or a
 * digit dropped): "Código Postal", "codigo_postal" and "CODIGO-POSTAL" are all `codigopostal`.
 * `CSV_COLUMNS` lists each field's names in that folded form; a name belongs to one field only
 * (tested). The first column of a header that names a field is the one read.
 */

/** How a header cell is folded before it is looked up: NFD, lower case, then each `[pattern, flags, replacement]` in order. */
export const HEADER_FOLD = {
  form: 'NFD',
  replace: [
    ['\\p{M}+', 'gu', ''],
    ['ß', 'g', 'ss'],
    ['[^\\p{L}\\p{N}]+', 'gu', ''],
  ],
} as const;

/** A Location's fields a CSV column can fill (LatLong's two and Address's five by their own names). */
export type CsvField =
  | 'Name' | 'Latitude' | 'Longitude'
  | 'Street' | 'City' | 'State' | 'PostalCode' | 'Country'
  | 'Weight' | 'Volume' | 'Skids' | 'Priority' | 'Wait'
  | 'TimeConstraintArrival' | 'TimeConstraintDeparture'
  | 'Conditions' | 'Vehicle' | 'Delivery' | 'Description' | 'Phone' | 'LocationType';

/** The Address fields among {@link CsvField}. */
export const ADDRESS_FIELDS = ['Street', 'City', 'State', 'PostalCode', 'Country'] as const;

/** Each field's header names, folded ({@link HEADER_FOLD}). */
export const CSV_COLUMNS: Readonly<Record<CsvField, readonly string[]>> = {
  Name: ['name', 'stop', 'id', 'nom', 'nome', 'nombre', 'naam', 'nazwa', 'bezeichnung', 'kunde', 'client', 'cliente', 'klant', 'customer'],
  Latitude: ['latitude', 'lat', 'y', 'breite', 'breitengrad', 'latitud', 'latitudine', 'breedtegraad', 'szerokosc'],
  Longitude: ['longitude', 'lon', 'lng', 'long', 'x', 'lange', 'laenge', 'langengrad', 'laengengrad', 'longitud', 'longitudine', 'lengtegraad', 'dlugosc'],
  Street: ['street', 'address', 'address1', 'addr', 'streetaddress', 'line1', 'addressline1', 'fulladdress',
    'strasse', 'str', 'anschrift', 'adresse', 'rue', 'via', 'indirizzo', 'calle', 'direccion', 'domicilio', 'endereco', 'morada', 'rua',
    'straat', 'adres', 'ulica'],
  City: ['city', 'town', 'locality', 'place', 'municipality', 'ort', 'stadt', 'gemeinde', 'ville', 'commune', 'localite',
    'citta', 'comune', 'localita', 'ciudad', 'localidad', 'localidade', 'municipio', 'cidade', 'concelho', 'plaats', 'woonplaats', 'miasto'],
  State: ['state', 'region', 'province', 'county', 'st', 'bundesland', 'kanton', 'provincia', 'estado', 'regione', 'departement', 'comunidad'],
  PostalCode: ['postalcode', 'postcode', 'zip', 'zipcode', 'plz', 'postleitzahl', 'cp', 'codepostal',
    'cap', 'codicepostale', 'codigopostal', 'codpostal', 'cep', 'npa', 'postcodenl', 'kodpocztowy'],
  Country: ['country', 'countrycode', 'land', 'staat', 'pays', 'paese', 'pais', 'nation', 'kraj'],
  Weight: ['weight', 'gewicht', 'poids', 'peso', 'waga'],
  Volume: ['volume', 'volumen', 'volumn', 'cbm', 'objetosc'],
  Skids: ['skids', 'pallets', 'paletten', 'palettes', 'palette', 'palets', 'paletes', 'bancali', 'pallet'],
  Priority: ['priority', 'prioritat', 'priorite', 'prioridad', 'prioridade', 'priorita', 'prioriteit', 'priorytet'],
  Wait: ['wait', 'waits', 'service', 'servicetime', 'servicetimes', 'duration', 'standzeit', 'aufenthalt', 'dureeservice', 'duree',
    'tempsdeservice', 'espera', 'tempodeservico', 'tiempodeservicio', 'attesa', 'wachttijd'],
  TimeConstraintArrival: ['timeconstraintarrival', 'from', 'open', 'earliest', 'von', 'desde', 'ouverture', 'abertura', 'apertura'],
  TimeConstraintDeparture: ['timeconstraintdeparture', 'to', 'close', 'latest', 'bis', 'hasta', 'fermeture', 'fecho', 'cierre', 'chiusura'],
  Conditions: ['conditions', 'roles', 'skills', 'bedingungen', 'competences', 'condicoes', 'condiciones', 'condizioni'],
  Vehicle: ['vehicle', 'fahrzeug', 'vehicule', 'veiculo', 'vehiculo', 'veicolo', 'voertuig', 'pojazd'],
  Delivery: ['delivery', 'lieferung', 'livraison', 'entrega', 'consegna', 'levering'],
  Description: ['description', 'notes', 'note', 'beschreibung', 'descricao', 'descripcion', 'descrizione', 'omschrijving', 'opis'],
  Phone: ['phone', 'telephone', 'tel', 'telefon', 'telefone', 'telefono', 'telefoon'],
  LocationType: ['type', 'locationtype', 'typ', 'tipo'],
};

/** A header cell folded as {@link HEADER_FOLD} says. */
export function headerKey(h: string): string {
  let s = String(h).normalize(HEADER_FOLD.form).toLowerCase();
  for (const [pattern, flags, to] of HEADER_FOLD.replace) s = s.replace(new RegExp(pattern, flags), to);
  return s;
}

const FIELD_OF_NAME = new Map<string, CsvField>(
  (Object.entries(CSV_COLUMNS) as [CsvField, readonly string[]][]).flatMap(([f, names]) => names.map((n) => [n, f] as const)),
);

/** The field a header cell names, or undefined. */
export function fieldOfHeader(h: string): CsvField | undefined {
  return FIELD_OF_NAME.get(headerKey(h));
}

/** The field each column of a header row fills (undefined: none); a field named twice is read from its first column. */
export function columnsOfHeader(row: readonly string[]): (CsvField | undefined)[] {
  const seen = new Set<CsvField>();
  return row.map((h) => {
    const f = fieldOfHeader(h);
    if (f === undefined || seen.has(f)) return undefined;
    seen.add(f);
    return f;
  });
}
