/**
 * fr-FR: "vous" imperative ("Tournez à gauche sur la route de service vers Lyon"). Class phrases
 * carry their article (with elision: "l'autoroute"); "sur" and "vers" never contract with it.
 */
import type { ManeuverModifier } from '../maneuver-types.js';
import { lcFirst, opt, type Catalog, type Parts } from './common.js';

const TURN: Record<ManeuverModifier, string> = {
  straight: 'Allez tout droit', 'slight left': 'Tournez légèrement à gauche', left: 'Tournez à gauche', 'sharp left': 'Tournez franchement à gauche',
  'slight right': 'Tournez légèrement à droite', right: 'Tournez à droite', 'sharp right': 'Tournez franchement à droite', uturn: 'Faites demi-tour',
};
const CONTINUE: Record<ManeuverModifier, string> = {
  straight: 'Continuez tout droit', 'slight left': 'Continuez légèrement à gauche', left: 'Continuez à gauche',
  'sharp left': 'Continuez franchement à gauche', 'slight right': 'Continuez légèrement à droite', right: 'Continuez à droite',
  'sharp right': 'Continuez franchement à droite', uturn: 'Faites demi-tour',
};
/** " sur X vers Y" */
const onto = (p: Parts): string => opt(' sur', p.road?.text) + opt(' vers', p.dest);
const side = (p: Parts, prefix: string): string =>
  p.side === 'left' ? `${prefix}gauche` : p.side === 'right' ? `${prefix}droite` : '';

export const fr: Catalog = {
  decimal: ',',
  group: '\u202f',
  ordinal: (n) => (n === 1 ? '1re' : `${n}e`),
  compass: {
    north: 'le nord', northeast: 'le nord-est', east: "l'est", southeast: 'le sud-est',
    south: 'le sud', southwest: 'le sud-ouest', west: "l'ouest", northwest: 'le nord-ouest',
  },
  roadClasses: {
    motorway: "l'autoroute", motorway_link: "la bretelle d'autoroute", trunk: 'la voie express', trunk_link: 'la bretelle',
    primary: 'la route principale', primary_link: 'la bretelle', secondary: 'la route secondaire', secondary_link: 'la bretelle',
    tertiary: 'la route locale', tertiary_link: 'la bretelle', unclassified: 'la petite route', residential: 'la rue résidentielle',
    living_street: 'la zone de rencontre', service: 'la route de service', road: 'la route', ferry: 'le ferry', shuttle_train: 'le train-navette',
  },
  nameAndRef: (name, ref) => `${name} (${ref})`,
  maneuver: {
    depart: (p) => `Dirigez-vous vers ${fr.compass[p.heading]}${opt(' sur', p.road?.text)}${opt(' en direction de', p.dest)}`,
    arrive: (p) => (p.last ? 'Vous êtes arrivé à destination' : `Vous êtes arrivé à l'arrêt ${p.stop}`) + side(p, ', sur la '),
    turn: (p) => TURN[p.mod] + onto(p),
    'end-of-road': (p) => `Au bout de la route, ${lcFirst(TURN[p.mod])}${onto(p)}`,
    fork: (p) =>
      `À la bifurcation, ${p.side === 'uturn' ? 'faites demi-tour' : p.side === 'straight' ? 'continuez tout droit' : `restez ${side(p, 'à ')}`}${onto(p)}`,
    merge: (p) => `Insérez-vous${side(p, ' à ')}${onto(p)}`,
    'on-ramp': (p) => `Prenez la bretelle d'accès${side(p, ' à ')}${onto(p)}`,
    'off-ramp': (p) => `Prenez la sortie${side(p, ' à ')}${onto(p)}`,
    roundabout: (p) => `Au rond-point, prenez la ${p.exit ? `${fr.ordinal(p.exit)} ` : ''}sortie${onto(p)}`,
    'name-change': (p) => `Continuez${onto(p)}`,
    continue: (p) => CONTINUE[p.mod] + onto(p),
    uturn: (p) => `Faites demi-tour${onto(p)}`,
  },
  units: {
    ft: (v) => `${v} pieds`,
    // French: singular below 2 ("1,5 mile"), plural from 2 ("2 miles").
    mi: (v, n) => `${v} ${n < 2 ? 'mile' : 'miles'}`,
    m: (v) => `${v} m`,
    km: (v) => `${v} km`,
  },
  warning: {
    toll: () => 'Route à péage à venir',
    ferry: () => 'Traversée en ferry à venir',
    unpaved: () => 'Route non revêtue à venir',
    private: () => 'Route privée à venir',
    'destination-only': () => 'Accès réservé aux riverains',
    motorway: () => 'Autoroute à venir',
    tunnel: () => 'Tunnel à venir',
    'low-speed': (s) => (s ? `Tronçon lent à venir (environ ${s})` : 'Tronçon lent à venir'),
    'restricted-turn': () => 'Interdiction de tourner à venir',
  },
  hint: {
    'previous-intersection': (s) => `L'intersection précédente est ${s}`,
    'next-intersection': (s) => `La prochaine intersection est ${s}`,
    landmark: (s) => `Point de repère\u00a0: ${s}`,
  },
  landmarkKinds: {
    fuel: 'station-service', church: 'église', school: 'école', hospital: 'hôpital', pharmacy: 'pharmacie', supermarket: 'supermarché',
    restaurant: 'restaurant', cafe: 'café', bank: 'banque', post_office: 'bureau de poste', police: 'commissariat',
    fire_station: 'caserne de pompiers', hotel: 'hôtel', parking: 'parking', bus_station: 'gare routière', townhall: 'mairie',
    museum: 'musée', place_of_worship: 'lieu de culte', marketplace: 'place du marché', fountain: 'fontaine', monument: 'monument',
    park: 'parc', stadium: 'stade', university: 'université', library: 'bibliothèque', cinema: 'cinéma', theatre: 'théâtre',
    shop: 'magasin', attraction: 'attraction', viewpoint: 'point de vue', memorial: 'mémorial',
  },
};
