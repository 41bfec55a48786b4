/**
 * es-ES: "usted" imperative ("Gire a la izquierda hacia la vía de servicio en dirección a Madrid").
 * Class phrases carry their article; "a" + "el" contracts to "al" ("Incorpórese al enlace").
 */
import type { ManeuverModifier } from '../maneuver-types.js';
import { lcFirst, opt, type Catalog, type Parts, type RoadRef } from './common.js';

const TURN: Record<ManeuverModifier, string> = {
  straight: 'Siga recto', 'slight left': 'Gire ligeramente a la izquierda', left: 'Gire a la izquierda', 'sharp left': 'Gire bruscamente a la izquierda',
  'slight right': 'Gire ligeramente a la derecha', right: 'Gire a la derecha', 'sharp right': 'Gire bruscamente a la derecha', uturn: 'Cambie de sentido',
};
const CONTINUE: Record<ManeuverModifier, string> = {
  straight: 'Continúe recto', 'slight left': 'Continúe ligeramente a la izquierda', left: 'Continúe a la izquierda',
  'sharp left': 'Continúe bruscamente a la izquierda', 'slight right': 'Continúe ligeramente a la derecha', right: 'Continúe a la derecha',
  'sharp right': 'Continúe bruscamente a la derecha', uturn: 'Cambie de sentido',
};
const towards = (p: Parts): string => opt(' en dirección a', p.dest);
/** " hacia X en dirección a Y" */
const onto = (p: Parts): string => opt(' hacia', p.road?.text) + towards(p);
/** " por X en dirección a Y" (along a road) */
const along = (p: Parts): string => opt(' por', p.road?.text) + towards(p);
/** "a X", with "a el" → "al" for class phrases. */
const to = (r: RoadRef): string => (!r.named && r.text.startsWith('el ') ? `al ${r.text.slice(3)}` : `a ${r.text}`);
const side = (p: Parts, prefix: string): string =>
  p.side === 'left' ? `${prefix}izquierda` : p.side === 'right' ? `${prefix}derecha` : '';

export const es: Catalog = {
  decimal: ',',
  group: '.',
  ordinal: (n) => `${n}.ª`,
  compass: {
    north: 'norte', northeast: 'noreste', east: 'este', southeast: 'sureste',
    south: 'sur', southwest: 'suroeste', west: 'oeste', northwest: 'noroeste',
  },
  roadClasses: {
    motorway: 'la autopista', motorway_link: 'el enlace de autopista', trunk: 'la autovía', trunk_link: 'el enlace',
    primary: 'la carretera principal', primary_link: 'el enlace', secondary: 'la carretera secundaria', secondary_link: 'el enlace',
    tertiary: 'la carretera local', tertiary_link: 'el enlace', unclassified: 'la carretera menor', residential: 'la calle residencial',
    living_street: 'la calle de prioridad peatonal', service: 'la vía de servicio', road: 'la vía', ferry: 'el ferri', shuttle_train: 'el tren lanzadera',
  },
  nameAndRef: (name, ref) => `${name} (${ref})`,
  maneuver: {
    depart: (p) => `Diríjase al ${es.compass[p.heading]}${along(p)}`,
    arrive: (p) => (p.last ? 'Ha llegado a su destino' : `Ha llegado a la parada ${p.stop}`) + side(p, ', a la '),
    turn: (p) => TURN[p.mod] + onto(p),
    'end-of-road': (p) => `Al final de la calle, ${lcFirst(TURN[p.mod])}${onto(p)}`,
    fork: (p) =>
      `En la bifurcación, ${p.side === 'uturn' ? 'cambie de sentido' : p.side === 'straight' ? 'siga recto' : `manténgase ${side(p, 'a la ')}`}${onto(p)}`,
    merge: (p) => `Incorpórese${side(p, ' por la ')}${p.road ? ` ${to(p.road)}` : ''}${towards(p)}`,
    'on-ramp': (p) => `Tome la vía de acceso${side(p, ' de la ')}${onto(p)}`,
    'off-ramp': (p) => `Tome la salida${side(p, ' de la ')}${onto(p)}`,
    roundabout: (p) => `En la rotonda, tome la ${p.exit ? `${es.ordinal(p.exit)} ` : ''}salida${onto(p)}`,
    'name-change': (p) => `Continúe${along(p)}`,
    continue: (p) => CONTINUE[p.mod] + (p.mod === 'uturn' ? onto(p) : along(p)),
    uturn: (p) => `Cambie de sentido${onto(p)}`,
  },
  units: {
    ft: (v) => `${v} pies`,
    mi: (v, n) => `${v} ${n === 1 ? 'milla' : 'millas'}`,
    m: (v) => `${v} m`,
    km: (v) => `${v} km`,
  },
  warning: {
    toll: () => 'Tramo de peaje más adelante',
    ferry: () => 'Trayecto en ferri más adelante',
    unpaved: () => 'Camino sin asfaltar más adelante',
    private: () => 'Vía privada más adelante',
    'destination-only': () => 'Acceso solo para residentes',
    motorway: () => 'Autopista más adelante',
    tunnel: () => 'Túnel más adelante',
    'low-speed': (s) => (s ? `Tramo lento más adelante (unos ${s})` : 'Tramo lento más adelante'),
    'restricted-turn': () => 'Giro prohibido más adelante',
  },
  hint: {
    'previous-intersection': (s) => `La intersección anterior es ${s}`,
    'next-intersection': (s) => `La próxima intersección es ${s}`,
    landmark: (s) => `Punto de referencia: ${s}`,
  },
  landmarkKinds: {
    fuel: 'gasolinera', church: 'iglesia', school: 'escuela', hospital: 'hospital', pharmacy: 'farmacia', supermarket: 'supermercado',
    restaurant: 'restaurante', cafe: 'cafetería', bank: 'banco', post_office: 'oficina de correos', police: 'comisaría',
    fire_station: 'parque de bomberos', hotel: 'hotel', parking: 'aparcamiento', bus_station: 'estación de autobuses',
    townhall: 'ayuntamiento', museum: 'museo', place_of_worship: 'lugar de culto', marketplace: 'mercado', fountain: 'fuente',
    monument: 'monumento', park: 'parque', stadium: 'estadio', university: 'universidad', library: 'biblioteca', cinema: 'cine',
    theatre: 'teatro', shop: 'tienda', attraction: 'atracción turística', viewpoint: 'mirador', memorial: 'memorial',
  },
};
