/**
 * it-IT: "tu" imperative ("Svolta a sinistra sulla strada di servizio verso Milano"). Class phrases
 * carry their article, which merges with "su" (sul, sullo, sulla, sull'); names take plain "su".
 */
import type { ManeuverModifier } from '../maneuver-types.js';
import { lcFirst, opt, type Catalog, type Parts, type RoadRef } from './common.js';

const TURN: Record<ManeuverModifier, string> = {
  straight: 'Prosegui dritto', 'slight left': 'Svolta leggermente a sinistra', left: 'Svolta a sinistra', 'sharp left': 'Svolta nettamente a sinistra',
  'slight right': 'Svolta leggermente a destra', right: 'Svolta a destra', 'sharp right': 'Svolta nettamente a destra', uturn: "Fai un'inversione a U",
};
const CONTINUE: Record<ManeuverModifier, string> = {
  straight: 'Prosegui dritto', 'slight left': 'Prosegui leggermente a sinistra', left: 'Prosegui a sinistra',
  'sharp left': 'Prosegui nettamente a sinistra', 'slight right': 'Prosegui leggermente a destra', right: 'Prosegui a destra',
  'sharp right': 'Prosegui nettamente a destra', uturn: "Fai un'inversione a U",
};
const SU: Record<string, string> = { 'il ': 'sul ', 'lo ': 'sullo ', 'la ': 'sulla ', "l'": "sull'" };
/** "su via Roma", "sulla strada di servizio", "sull'autostrada". */
const su = (r: RoadRef): string => (r.named ? `su ${r.text}` : r.text.replace(/^(il |lo |la |l')/, (a: string) => SU[a]));
/** " su X verso Y" */
const onto = (p: Parts): string => (p.road ? ` ${su(p.road)}` : '') + opt(' verso', p.dest);
const side = (p: Parts, prefix: string): string =>
  p.side === 'left' ? `${prefix}sinistra` : p.side === 'right' ? `${prefix}destra` : '';

export const it: Catalog = {
  decimal: ',',
  group: '.',
  ordinal: (n) => `${n}ª`,
  compass: {
    north: 'nord', northeast: 'nord-est', east: 'est', southeast: 'sud-est',
    south: 'sud', southwest: 'sud-ovest', west: 'ovest', northwest: 'nord-ovest',
  },
  roadClasses: {
    motorway: "l'autostrada", motorway_link: 'il raccordo autostradale', trunk: 'la superstrada', trunk_link: 'lo svincolo',
    primary: 'la strada principale', primary_link: 'lo svincolo', secondary: 'la strada secondaria', secondary_link: 'lo svincolo',
    tertiary: 'la strada locale', tertiary_link: 'lo svincolo', unclassified: 'la strada minore', residential: 'la strada residenziale',
    living_street: 'la zona residenziale', service: 'la strada di servizio', road: 'la strada', ferry: 'il traghetto', shuttle_train: 'il treno navetta',
  },
  nameAndRef: (name, ref) => `${name} (${ref})`,
  maneuver: {
    depart: (p) => `Dirigiti a ${it.compass[p.heading]}${onto(p)}`,
    arrive: (p) => (p.last ? 'Sei arrivato a destinazione' : `Sei arrivato alla tappa ${p.stop}`) + side(p, ', sulla '),
    turn: (p) => TURN[p.mod] + onto(p),
    'end-of-road': (p) => `Alla fine della strada, ${lcFirst(TURN[p.mod])}${onto(p)}`,
    fork: (p) =>
      `Al bivio, ${p.side === 'uturn' ? "fai un'inversione a U" : p.side === 'straight' ? 'prosegui dritto' : `mantieni la ${side(p, '')}`}${onto(p)}`,
    merge: (p) => `Immettiti${side(p, ' a ')}${onto(p)}`,
    'on-ramp': (p) => `Prendi la rampa di accesso${side(p, ' a ')}${onto(p)}`,
    'off-ramp': (p) => `Prendi l'uscita${side(p, ' a ')}${onto(p)}`,
    roundabout: (p) => `Alla rotonda, prendi la ${p.exit ? `${it.ordinal(p.exit)} ` : ''}uscita${onto(p)}`,
    'name-change': (p) => `Prosegui${onto(p)}`,
    continue: (p) => CONTINUE[p.mod] + onto(p),
    uturn: (p) => `Fai un'inversione a U${onto(p)}`,
  },
  units: {
    ft: (v) => `${v} piedi`,
    mi: (v, n) => `${v} ${n === 1 ? 'miglio' : 'miglia'}`,
    m: (v) => `${v} m`,
    km: (v) => `${v} km`,
  },
  warning: {
    toll: () => 'Strada a pedaggio più avanti',
    ferry: () => 'Traghetto più avanti',
    unpaved: () => 'Strada sterrata più avanti',
    private: () => 'Strada privata più avanti',
    'destination-only': () => 'Accesso riservato ai residenti',
    motorway: () => 'Autostrada più avanti',
    tunnel: () => 'Galleria più avanti',
    'low-speed': (s) => (s ? `Tratto lento più avanti (circa ${s})` : 'Tratto lento più avanti'),
    'restricted-turn': () => 'Svolta vietata più avanti',
  },
  hint: {
    'previous-intersection': (s) => `L'incrocio precedente è ${s}`,
    'next-intersection': (s) => `Il prossimo incrocio è ${s}`,
    landmark: (s) => `Punto di riferimento: ${s}`,
  },
  landmarkKinds: {
    fuel: 'distributore di benzina', church: 'chiesa', school: 'scuola', hospital: 'ospedale', pharmacy: 'farmacia',
    supermarket: 'supermercato', restaurant: 'ristorante', cafe: 'bar', bank: 'banca', post_office: 'ufficio postale',
    police: 'commissariato', fire_station: 'caserma dei vigili del fuoco', hotel: 'albergo', parking: 'parcheggio',
    bus_station: 'stazione degli autobus', townhall: 'municipio', museum: 'museo', place_of_worship: 'luogo di culto',
    marketplace: 'mercato', fountain: 'fontana', monument: 'monumento', park: 'parco', stadium: 'stadio', university: 'università',
    library: 'biblioteca', cinema: 'cinema', theatre: 'teatro', shop: 'negozio', attraction: 'attrazione turistica',
    viewpoint: 'punto panoramico', memorial: 'memoriale',
  },
};
