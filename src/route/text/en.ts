/** en-US: imperative, no final period ("Turn left onto Main Street towards Boston"). */
import type { ManeuverModifier } from '../maneuver-types.js';
import { lcFirst, opt, type Catalog, type Parts } from './common.js';

const TURN: Record<ManeuverModifier, string> = {
  straight: 'Go straight', 'slight left': 'Turn slightly left', left: 'Turn left', 'sharp left': 'Make a sharp left',
  'slight right': 'Turn slightly right', right: 'Turn right', 'sharp right': 'Make a sharp right', uturn: 'Make a U-turn',
};
const CONTINUE: Record<ManeuverModifier, string> = {
  straight: 'Continue straight', 'slight left': 'Continue slightly left', left: 'Continue left', 'sharp left': 'Continue sharp left',
  'slight right': 'Continue slightly right', right: 'Continue right', 'sharp right': 'Continue sharp right', uturn: 'Make a U-turn',
};
/** " onto X towards Y" */
const onto = (p: Parts): string => opt(' onto', p.road?.text) + opt(' towards', p.dest);
const sideWord = (p: Parts, prefix: string): string => (p.side === 'left' || p.side === 'right' ? `${prefix}${p.side}` : '');

export const en: Catalog = {
  decimal: '.',
  group: ',',
  ordinal: (n) => {
    const t = n % 100;
    const suffix = t >= 11 && t <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
    return `${n}${suffix}`;
  },
  compass: {
    north: 'north', northeast: 'northeast', east: 'east', southeast: 'southeast',
    south: 'south', southwest: 'southwest', west: 'west', northwest: 'northwest',
  },
  roadClasses: {
    motorway: 'the motorway', motorway_link: 'the motorway link', trunk: 'the expressway', trunk_link: 'the ramp',
    primary: 'the main road', primary_link: 'the ramp', secondary: 'the secondary road', secondary_link: 'the ramp',
    tertiary: 'the local road', tertiary_link: 'the ramp', unclassified: 'the minor road', residential: 'the residential street',
    living_street: 'the living street', service: 'the service road', road: 'the road', ferry: 'the ferry', shuttle_train: 'the car shuttle train',
  },
  nameAndRef: (name, ref) => `${name} (${ref})`,
  maneuver: {
    depart: (p) => `Head ${en.compass[p.heading]}${opt(' on', p.road?.text)}${opt(' towards', p.dest)}`,
    arrive: (p) => (p.last ? 'You have arrived at your destination' : `You have arrived at stop ${p.stop}`) + sideWord(p, ', on the '),
    turn: (p) => TURN[p.mod] + onto(p),
    'end-of-road': (p) => `At the end of the road, ${lcFirst(TURN[p.mod])}${onto(p)}`,
    fork: (p) =>
      (p.side === 'uturn' ? 'Make a U-turn at the fork' : `Keep ${p.side === 'straight' ? 'straight' : p.side} at the fork`) + onto(p),
    merge: (p) => `Merge${sideWord(p, ' ')}${onto(p)}`,
    'on-ramp': (p) => `Take the ramp${sideWord(p, ' on the ')}${onto(p)}`,
    'off-ramp': (p) => `Take the exit${sideWord(p, ' on the ')}${onto(p)}`,
    roundabout: (p) => `At the roundabout, take the ${p.exit ? `${en.ordinal(p.exit)} ` : ''}exit${onto(p)}`,
    'name-change': (p) => `Continue${onto(p)}`,
    continue: (p) => CONTINUE[p.mod] + onto(p),
    uturn: (p) => `Make a U-turn${onto(p)}`,
  },
  units: {
    ft: (v) => `${v} ft`,
    mi: (v, n) => `${v} ${n === 1 ? 'mile' : 'miles'}`,
    m: (v) => `${v} m`,
    km: (v) => `${v} km`,
  },
  warning: {
    toll: () => 'Toll road ahead',
    ferry: () => 'Ferry crossing ahead',
    unpaved: () => 'Unpaved road ahead',
    private: () => 'Private road ahead',
    'destination-only': () => 'Local access only',
    motorway: () => 'Motorway ahead',
    tunnel: () => 'Tunnel ahead',
    'low-speed': (s) => (s ? `Slow stretch ahead (about ${s})` : 'Slow stretch ahead'),
    'restricted-turn': () => 'Restricted turn ahead',
  },
  hint: {
    'previous-intersection': (s) => `The previous intersection is ${s}`,
    'next-intersection': (s) => `The next intersection is ${s}`,
    landmark: (s) => `Landmark: ${s}`,
  },
  landmarkKinds: {
    fuel: 'gas station', church: 'church', school: 'school', hospital: 'hospital', pharmacy: 'pharmacy', supermarket: 'supermarket',
    restaurant: 'restaurant', cafe: 'café', bank: 'bank', post_office: 'post office', police: 'police station',
    fire_station: 'fire station', hotel: 'hotel', parking: 'parking lot', bus_station: 'bus station', townhall: 'town hall',
    museum: 'museum', place_of_worship: 'place of worship', marketplace: 'marketplace', fountain: 'fountain', monument: 'monument',
    park: 'park', stadium: 'stadium', university: 'university', library: 'library', cinema: 'movie theater', theatre: 'theater',
    shop: 'store', attraction: 'attraction', viewpoint: 'viewpoint', memorial: 'memorial',
  },
};
