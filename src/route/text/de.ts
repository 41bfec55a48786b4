/**
 * de-DE: navigation infinitives with the verb last ("Links auf die Zufahrtsstraße abbiegen").
 * Class phrases are stored in the nominative; after "auf" they take the accusative for a
 * direction ("auf den Autobahnzubringer abbiegen") and the dative for a place ("auf dem
 * Autobahnzubringer weiterfahren"). Names and refs go without article ("auf A1").
 */
import type { ManeuverModifier } from '../maneuver-types.js';
import { cap, type Catalog, type Parts } from './common.js';

const ADV: Record<ManeuverModifier, string> = {
  straight: 'geradeaus', 'slight left': 'leicht links', left: 'links', 'sharp left': 'scharf links',
  'slight right': 'leicht rechts', right: 'rechts', 'sharp right': 'scharf rechts', uturn: '',
};
const ACC: Record<string, string> = { der: 'den', die: 'die', das: 'das' };
const DAT: Record<string, string> = { der: 'dem', die: 'der', das: 'dem' };
const decline = (text: string, table: Record<string, string>): string => text.replace(/^(der|die|das) /, (_, a: string) => `${table[a]} `);
/** "auf die Zufahrtsstraße" (accusative: where to) / "auf der Zufahrtsstraße" (dative: where), '' without road. */
const aufAcc = (p: Parts): string => (p.road ? `auf ${p.road.named ? p.road.text : decline(p.road.text, ACC)}` : '');
const aufDat = (p: Parts): string => (p.road ? `auf ${p.road.named ? p.road.text : decline(p.road.text, DAT)}` : '');
const dir = (p: Parts): string => (p.dest ? `Richtung ${p.dest}` : '');
const side = (p: Parts): string => (p.side === 'left' ? 'links' : p.side === 'right' ? 'rechts' : '');
/** Words joined, empty ones dropped, first letter capital. */
const j = (...words: string[]): string => words.filter(Boolean).join(' ');
const w = (...words: string[]): string => cap(j(...words));

const uturn = (p: Parts): string => w(aufDat(p), dir(p), 'wenden');
/** The turn in lower case (for "Am Ende der Straße …"); capitalised it is the turn sentence. */
const turnWords = (p: Parts): string =>
  p.mod === 'uturn' ? j(aufDat(p), dir(p), 'wenden')
  : p.mod === 'straight' ? j('geradeaus', aufDat(p), dir(p), 'weiterfahren')
  : j(ADV[p.mod], aufAcc(p), dir(p), 'abbiegen');

export const de: Catalog = {
  decimal: ',',
  group: '.',
  ordinal: (n) => `${n}.`,
  compass: {
    north: 'Norden', northeast: 'Nordosten', east: 'Osten', southeast: 'Südosten',
    south: 'Süden', southwest: 'Südwesten', west: 'Westen', northwest: 'Nordwesten',
  },
  roadClasses: {
    motorway: 'die Autobahn', motorway_link: 'der Autobahnzubringer', trunk: 'die Schnellstraße', trunk_link: 'die Rampe',
    primary: 'die Hauptverkehrsstraße', primary_link: 'die Rampe', secondary: 'die Landstraße', secondary_link: 'die Rampe',
    tertiary: 'die Verbindungsstraße', tertiary_link: 'die Rampe', unclassified: 'die Nebenstraße', residential: 'die Wohnstraße',
    living_street: 'die Spielstraße', service: 'die Zufahrtsstraße', road: 'die Straße', ferry: 'die Fähre', shuttle_train: 'der Autozug',
  },
  nameAndRef: (name, ref) => `${name} (${ref})`,
  maneuver: {
    depart: (p) => w(aufDat(p), 'nach', de.compass[p.heading], dir(p), 'fahren'),
    arrive: (p) =>
      (p.last ? 'Sie haben Ihr Ziel erreicht' : `Sie haben Stopp ${p.stop} erreicht`) +
      (side(p) ? `, ${p.last ? 'es' : 'er'} befindet sich ${side(p)}` : ''),
    turn: (p) => cap(turnWords(p)),
    'end-of-road': (p) => `Am Ende der Straße ${turnWords(p)}`,
    fork: (p) =>
      p.side === 'uturn' ? w('an der Gabelung', aufDat(p), dir(p), 'wenden')
      : p.side === 'straight' ? w('an der Gabelung geradeaus', aufDat(p), dir(p), 'weiterfahren')
      : p.road ? `An der Gabelung ${side(p)} halten und ${j(aufDat(p), dir(p), 'weiterfahren')}`
      : w('an der Gabelung', side(p), dir(p), 'halten'),
    merge: (p) => w(side(p), aufAcc(p), dir(p), 'auffahren'),
    'on-ramp': (p) => w('die Auffahrt', side(p), aufAcc(p), dir(p), 'nehmen'),
    'off-ramp': (p) => w('die Ausfahrt', side(p), aufAcc(p), dir(p), 'nehmen'),
    roundabout: (p) => w('im Kreisverkehr die', p.exit ? de.ordinal(p.exit) : '', 'Ausfahrt', aufAcc(p), dir(p), 'nehmen'),
    'name-change': (p) => w(aufDat(p), dir(p), 'weiterfahren'),
    continue: (p) => (p.mod === 'uturn' ? uturn(p) : w(ADV[p.mod], aufDat(p), dir(p), 'weiterfahren')),
    uturn,
  },
  units: {
    ft: (v) => `${v} Fuß`,
    mi: (v, n) => `${v} ${n === 1 ? 'Meile' : 'Meilen'}`,
    m: (v) => `${v} m`,
    km: (v) => `${v} km`,
  },
  warning: {
    toll: () => 'Mautpflichtige Straße voraus',
    ferry: () => 'Fährverbindung voraus',
    unpaved: () => 'Unbefestigte Straße voraus',
    private: () => 'Privatstraße voraus',
    'destination-only': () => 'Nur für Anlieger frei',
    motorway: () => 'Autobahn voraus',
    tunnel: () => 'Tunnel voraus',
    'low-speed': (s) => (s ? `Langsame Strecke voraus (etwa ${s})` : 'Langsame Strecke voraus'),
    'restricted-turn': () => 'Abbiegeverbot voraus',
  },
  hint: {
    'previous-intersection': (s) => `Die vorherige Kreuzung ist ${s}`,
    'next-intersection': (s) => `Die nächste Kreuzung ist ${s}`,
    landmark: (s) => `Orientierungspunkt: ${s}`,
  },
  landmarkKinds: {
    fuel: 'Tankstelle', church: 'Kirche', school: 'Schule', hospital: 'Krankenhaus', pharmacy: 'Apotheke', supermarket: 'Supermarkt',
    restaurant: 'Restaurant', cafe: 'Café', bank: 'Bank', post_office: 'Postamt', police: 'Polizei', fire_station: 'Feuerwache',
    hotel: 'Hotel', parking: 'Parkplatz', bus_station: 'Busbahnhof', townhall: 'Rathaus', museum: 'Museum',
    place_of_worship: 'Gotteshaus', marketplace: 'Marktplatz', fountain: 'Brunnen', monument: 'Denkmal', park: 'Park',
    stadium: 'Stadion', university: 'Universität', library: 'Bibliothek', cinema: 'Kino', theatre: 'Theater', shop: 'Geschäft',
    attraction: 'Sehenswürdigkeit', viewpoint: 'Aussichtspunkt', memorial: 'Gedenkstätte',
  },
};
