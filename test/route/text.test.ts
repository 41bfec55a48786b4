import { describe, expect, it } from 'vitest';
import { HIGHWAY_CLASS_NAMES } from '../../src/osm/car-profile.js';
import {
  HINT_KINDS, MANEUVER_MODIFIERS, MANEUVER_TYPES, WARNING_KINDS,
  type Maneuver, type ManeuverModifier, type ManeuverType, type RoadLabel,
} from '../../src/route/maneuver-types.js';
import {
  CATALOGS, CULTURES, LANDMARK_KINDS, ROAD_CLASSES, distanceText, hintText, maneuverText, resolveCulture, warningText, type Culture,
} from '../../src/route/text/index.js';

const road = (name = '', ref = '', destination = '', cls = 'residential'): RoadLabel => ({ name, ref, destination, cls });
function man(type: ManeuverType, r: RoadLabel, extra: Partial<Maneuver> = {}): Maneuver {
  return {
    type, road: r, fromRoad: road('Old Road'), bearingAfter: 0, bearingBefore: 0,
    lat: 0, lon: 0, pointIndex: 0, lengthCm: 0, timeMs: 0, ...extra,
  };
}

/** Every key path of a catalog value ('maneuver.turn', 'roadClasses.service', …). */
function keyPaths(o: unknown, prefix = ''): string[] {
  if (o === null || typeof o !== 'object') return [prefix];
  return Object.entries(o as Record<string, unknown>).flatMap(([k, v]) => keyPaths(v, prefix ? `${prefix}.${k}` : k)).sort();
}

function expectClean(s: string, what: string): void {
  expect(s, what).toBeTypeOf('string');
  expect(s.length, what).toBeGreaterThan(0);
  expect(s, what).not.toMatch(/[{}]|undefined|NaN|null|\s{2}|^\s|\s$| ,/);
  expect(s.charAt(0), what).toBe(s.charAt(0).toUpperCase());
}

describe('catalogs', () => {
  it('every culture has exactly the keys of en-US, and no empty strings', () => {
    const ref = keyPaths(CATALOGS['en-US']);
    expect(ref.length).toBeGreaterThan(80);
    for (const c of CULTURES) {
      expect(keyPaths(CATALOGS[c]), c).toEqual(ref);
      for (const table of ['roadClasses', 'landmarkKinds', 'compass'] as const) {
        for (const [k, v] of Object.entries(CATALOGS[c][table])) expect(v, `${c} ${table}.${k}`).toMatch(/\S/);
      }
    }
  });

  it('cover every maneuver type, warning and hint kind, and every highway class of the car profile', () => {
    expect([...ROAD_CLASSES]).toEqual([...HIGHWAY_CLASS_NAMES]);
    for (const c of CULTURES) {
      expect(Object.keys(CATALOGS[c].maneuver).sort(), c).toEqual([...MANEUVER_TYPES].sort());
      expect(Object.keys(CATALOGS[c].warning).sort(), c).toEqual([...WARNING_KINDS].sort());
      expect(Object.keys(CATALOGS[c].hint).sort(), c).toEqual([...HINT_KINDS].sort());
      expect(Object.keys(CATALOGS[c].roadClasses).sort(), c).toEqual([...HIGHWAY_CLASS_NAMES].sort());
      expect(Object.keys(CATALOGS[c].landmarkKinds).sort(), c).toEqual([...LANDMARK_KINDS].sort());
    }
  });

  it('every type × modifier × road naming × destination gives a clean sentence in every culture', () => {
    const roads: [string, RoadLabel][] = [
      ['name', road('Rua Augusta')], ['ref', road('', 'N13;N14')], ['name+ref', road('Rua Augusta', 'A1')],
      ...HIGHWAY_CLASS_NAMES.map((cls): [string, RoadLabel] => [`class ${cls}`, road('', '', '', cls)]),
    ];
    const mods: (ManeuverModifier | undefined)[] = [undefined, ...MANEUVER_MODIFIERS];
    let n = 0;
    for (const c of CULTURES) {
      const seen = new Set<string>();
      for (const type of MANEUVER_TYPES) for (const mod of mods) for (const [what, r] of roads) for (const dest of ['', 'Lyon; Paris']) {
        const m = man(type, { ...r, destination: dest }, { modifier: mod, exit: 3, stop: 2, lastStop: false, bearingAfter: 100 });
        const s = maneuverText(m, c);
        const label = `${c} ${type} ${mod} ${what} dest=${dest}`;
        expectClean(s, label);
        if (type !== 'arrive') {
          if (dest) expect(s, label).toContain(c === 'de-DE' ? 'Richtung Lyon, Paris' : 'Lyon, Paris');
          if (r.name && !(type === 'off-ramp' && dest)) expect(s, label).toContain('Rua Augusta');
          if (r.ref === 'N13;N14' && !(type === 'off-ramp' && dest)) expect(s, label).toContain('N13/N14');
        } else {
          expect(s, label).not.toContain('Lyon');
        }
        if (c !== 'en-US') expect(s, label).not.toMatch(/\b(onto|towards|the|exit)\b/);
        seen.add(s);
        n++;
      }
      expect(seen.size, c).toBeGreaterThan(500);
    }
    expect(n).toBe(5 * 12 * 9 * (3 + HIGHWAY_CLASS_NAMES.length) * 2);
  });
});

describe('ordinals', () => {
  const ns = [1, 2, 3, 4, 11, 12, 13, 21, 22];
  const expected: Record<Culture, string[]> = {
    'en-US': ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd'],
    'de-DE': ['1.', '2.', '3.', '4.', '11.', '12.', '13.', '21.', '22.'],
    'fr-FR': ['1re', '2e', '3e', '4e', '11e', '12e', '13e', '21e', '22e'],
    'es-ES': ['1.ª', '2.ª', '3.ª', '4.ª', '11.ª', '12.ª', '13.ª', '21.ª', '22.ª'],
    'it-IT': ['1ª', '2ª', '3ª', '4ª', '11ª', '12ª', '13ª', '21ª', '22ª'],
  };
  for (const c of CULTURES) {
    it(c, () => expect(ns.map((n) => CATALOGS[c].ordinal(n))).toEqual(expected[c]));
  }
  it('appear in roundabout sentences', () => {
    const m = man('roundabout', road('Rua X'), { exit: 21 });
    expect(maneuverText(m, 'en-US')).toBe('At the roundabout, take the 21st exit onto Rua X');
    expect(maneuverText({ ...m, exit: 1 }, 'fr-FR')).toBe('Au rond-point, prenez la 1re sortie sur Rua X');
    expect(maneuverText({ ...m, exit: undefined }, 'en-US')).toBe('At the roundabout, take the exit onto Rua X');
  });
});

describe('distanceText', () => {
  const MI = 1609.344;
  const FT = 0.3048;
  it('Mile: feet below 0.1 mi (nearest 10 ft), then miles with one decimal below 10', () => {
    const d = (m: number) => distanceText(m, 'en-US', 'Mile');
    expect(d(0)).toBe('0 ft');
    expect(d(44 * FT)).toBe('40 ft');
    expect(d(496 * FT)).toBe('500 ft');
    expect(d(0.3 * MI)).toBe('0.3 miles');
    expect(d(1 * MI)).toBe('1 mile');
    expect(d(1.02 * MI)).toBe('1 mile');
    expect(d(1.5 * MI)).toBe('1.5 miles');
    expect(d(9.97 * MI)).toBe('10 miles');
    expect(d(12.4 * MI)).toBe('12 miles');
    expect(d(12345 * MI)).toBe('12,345 miles');
  });
  it('Kilometer: metres below 1 km (10 m, then 50 m from 500 m), then km with one decimal below 10', () => {
    const d = (m: number) => distanceText(m, 'en-US', 'Kilometer');
    expect(d(44)).toBe('40 m');
    expect(d(486)).toBe('490 m');
    expect(d(730)).toBe('750 m');
    expect(d(980)).toBe('1 km');
    expect(d(1549)).toBe('1.5 km');
    expect(d(12_400)).toBe('12 km');
    expect(d(-5)).toBe('0 m');
    expect(d(Number.NaN)).toBe('0 m');
  });
  it('per culture: decimal comma, unit words, plurals', () => {
    const MI = 1609.344;
    const cases: [Culture, string[], string[]][] = [
      ['en-US', ['300 ft', '0.3 miles', '1 mile', '1.5 miles', '2 miles'], ['250 m', '1.5 km', '12,345 km']],
      ['de-DE', ['300 Fuß', '0,3 Meilen', '1 Meile', '1,5 Meilen', '2 Meilen'], ['250 m', '1,5 km', '12.345 km']],
      ['fr-FR', ['300 pieds', '0,3 mile', '1 mile', '1,5 mile', '2 miles'], ['250 m', '1,5 km', '12\u202f345 km']],
      ['es-ES', ['300 pies', '0,3 millas', '1 milla', '1,5 millas', '2 millas'], ['250 m', '1,5 km', '12.345 km']],
      ['it-IT', ['300 piedi', '0,3 miglia', '1 miglio', '1,5 miglia', '2 miglia'], ['250 m', '1,5 km', '12.345 km']],
    ];
    for (const [c, miles, km] of cases) {
      expect([300 * 0.3048, 0.3 * MI, MI, 1.5 * MI, 2 * MI].map((m) => distanceText(m, c, 'Mile')), c).toEqual(miles);
      expect([250, 1500, 12_345_000].map((m) => distanceText(m, c, 'Kilometer')), c).toEqual(km);
    }
  });
});

describe('resolveCulture', () => {
  it('defaults to en-US without a message', () => {
    expect(resolveCulture(undefined)).toEqual({ culture: 'en-US', fallback: false });
    expect(resolveCulture(null)).toEqual({ culture: 'en-US', fallback: false });
    expect(resolveCulture('')).toEqual({ culture: 'en-US', fallback: false });
  });
  it('matches exactly, case-insensitively, with _ as -', () => {
    for (const c of CULTURES) expect(resolveCulture(c)).toEqual({ culture: c, fallback: false });
    expect(resolveCulture('de-de').culture).toBe('de-DE');
    expect(resolveCulture('FR_fr')).toEqual({ culture: 'fr-FR', fallback: false });
    expect(resolveCulture('it_IT').culture).toBe('it-IT');
  });
  it('maps another region or a bare language to the language\'s culture, not a fallback', () => {
    const cases: [string, Culture][] = [['de', 'de-DE'], ['de-AT', 'de-DE'], ['fr-CA', 'fr-FR'], ['es-MX', 'es-ES'], ['it-CH', 'it-IT'], ['en-GB', 'en-US'], ['EN', 'en-US'], ['es_419', 'es-ES']];
    for (const [tag, c] of cases) expect(resolveCulture(tag), tag).toEqual({ culture: c, fallback: false });
  });
  it('falls back to en-US with a message for unsupported languages', () => {
    for (const tag of ['ja-JP', 'xx-YY', 'pt', '!!garbage', 'english']) {
      const r = resolveCulture(tag);
      expect(r.culture, tag).toBe('en-US');
      expect(r.fallback, tag).toBe(true);
      expect(r.message, tag).toContain(`'${tag}'`);
    }
    expect(resolveCulture('ja-JP').message).toBe(
      "Culture 'ja-JP' is not supported; directions are in en-US (supported: en-US, de-DE, fr-FR, es-ES, it-IT)",
    );
  });
});

describe('golden sentences', () => {
  const M: Record<string, Maneuver> = {
    depart: man('depart', road('Rua Augusta'), { bearingAfter: 93 }),
    departClass: man('depart', road('', '', 'Lyon', 'service'), { bearingAfter: 310 }),
    turnService: man('turn', road('', '', '', 'service'), { modifier: 'left' }),
    sharpLink: man('turn', road('', '', '', 'motorway_link'), { modifier: 'sharp right' }),
    slight: man('turn', road('Rua Augusta', 'A1', 'Porto'), { modifier: 'slight right' }),
    endOfRoad: man('end-of-road', road('', 'B27'), { modifier: 'left' }),
    fork: man('fork', road('', 'A7', 'Lyon', 'motorway'), { modifier: 'slight left' }),
    merge: man('merge', road('', '', '', 'motorway'), { modifier: 'left' }),
    onRamp: man('on-ramp', road('', 'A1', 'Hamburg', 'motorway_link'), { modifier: 'right' }),
    offRamp: man('off-ramp', road('', '', 'Centre', 'motorway_link'), { modifier: 'right' }),
    roundabout: man('roundabout', road('', '', '', 'trunk_link'), { exit: 2 }),
    nameChange: man('name-change', road('Oak Road')),
    uturn: man('uturn', road('', '', '', 'residential')),
    arriveStop: man('arrive', road('Oak Road'), { modifier: 'right', stop: 2, lastStop: false }),
    arriveLast: man('arrive', road('Oak Road'), { modifier: 'straight', stop: 3, lastStop: true }),
  };
  const expected: Record<Culture, Record<keyof typeof M, string>> = {
    'en-US': {
      depart: 'Head east on Rua Augusta',
      departClass: 'Head northwest on the service road towards Lyon',
      turnService: 'Turn left onto the service road',
      sharpLink: 'Make a sharp right onto the motorway link',
      slight: 'Turn slightly right onto Rua Augusta (A1) towards Porto',
      endOfRoad: 'At the end of the road, turn left onto B27',
      fork: 'Keep left at the fork onto A7 towards Lyon',
      merge: 'Merge left onto the motorway',
      onRamp: 'Take the ramp on the right onto A1 towards Hamburg',
      offRamp: 'Take the exit on the right towards Centre',
      roundabout: 'At the roundabout, take the 2nd exit onto the ramp',
      nameChange: 'Continue onto Oak Road',
      uturn: 'Make a U-turn',
      arriveStop: 'You have arrived at stop 2, on the right',
      arriveLast: 'You have arrived at your destination',
    },
    'de-DE': {
      depart: 'Auf Rua Augusta nach Osten fahren',
      departClass: 'Auf der Zufahrtsstraße nach Nordwesten Richtung Lyon fahren',
      turnService: 'Links auf die Zufahrtsstraße abbiegen',
      sharpLink: 'Scharf rechts auf den Autobahnzubringer abbiegen',
      slight: 'Leicht rechts auf Rua Augusta (A1) Richtung Porto abbiegen',
      endOfRoad: 'Am Ende der Straße links auf B27 abbiegen',
      fork: 'An der Gabelung links halten und auf A7 Richtung Lyon weiterfahren',
      merge: 'Links auf die Autobahn auffahren',
      onRamp: 'Die Auffahrt rechts auf A1 Richtung Hamburg nehmen',
      offRamp: 'Die Ausfahrt rechts Richtung Centre nehmen',
      roundabout: 'Im Kreisverkehr die 2. Ausfahrt auf die Rampe nehmen',
      nameChange: 'Auf Oak Road weiterfahren',
      uturn: 'Wenden',
      arriveStop: 'Sie haben Stopp 2 erreicht, er befindet sich rechts',
      arriveLast: 'Sie haben Ihr Ziel erreicht',
    },
    'fr-FR': {
      depart: "Dirigez-vous vers l'est sur Rua Augusta",
      departClass: 'Dirigez-vous vers le nord-ouest sur la route de service en direction de Lyon',
      turnService: 'Tournez à gauche sur la route de service',
      sharpLink: "Tournez franchement à droite sur la bretelle d'autoroute",
      slight: 'Tournez légèrement à droite sur Rua Augusta (A1) vers Porto',
      endOfRoad: 'Au bout de la route, tournez à gauche sur B27',
      fork: 'À la bifurcation, restez à gauche sur A7 vers Lyon',
      merge: "Insérez-vous à gauche sur l'autoroute",
      onRamp: "Prenez la bretelle d'accès à droite sur A1 vers Hamburg",
      offRamp: 'Prenez la sortie à droite vers Centre',
      roundabout: 'Au rond-point, prenez la 2e sortie sur la bretelle',
      nameChange: 'Continuez sur Oak Road',
      uturn: 'Faites demi-tour',
      arriveStop: "Vous êtes arrivé à l'arrêt 2, sur la droite",
      arriveLast: 'Vous êtes arrivé à destination',
    },
    'es-ES': {
      depart: 'Diríjase al este por Rua Augusta',
      departClass: 'Diríjase al noroeste por la vía de servicio en dirección a Lyon',
      turnService: 'Gire a la izquierda hacia la vía de servicio',
      sharpLink: 'Gire bruscamente a la derecha hacia el enlace de autopista',
      slight: 'Gire ligeramente a la derecha hacia Rua Augusta (A1) en dirección a Porto',
      endOfRoad: 'Al final de la calle, gire a la izquierda hacia B27',
      fork: 'En la bifurcación, manténgase a la izquierda hacia A7 en dirección a Lyon',
      merge: 'Incorpórese por la izquierda a la autopista',
      onRamp: 'Tome la vía de acceso de la derecha hacia A1 en dirección a Hamburg',
      offRamp: 'Tome la salida de la derecha en dirección a Centre',
      roundabout: 'En la rotonda, tome la 2.ª salida hacia el enlace',
      nameChange: 'Continúe por Oak Road',
      uturn: 'Cambie de sentido',
      arriveStop: 'Ha llegado a la parada 2, a la derecha',
      arriveLast: 'Ha llegado a su destino',
    },
    'it-IT': {
      depart: 'Dirigiti a est su Rua Augusta',
      departClass: 'Dirigiti a nord-ovest sulla strada di servizio verso Lyon',
      turnService: 'Svolta a sinistra sulla strada di servizio',
      sharpLink: 'Svolta nettamente a destra sul raccordo autostradale',
      slight: 'Svolta leggermente a destra su Rua Augusta (A1) verso Porto',
      endOfRoad: 'Alla fine della strada, svolta a sinistra su B27',
      fork: 'Al bivio, mantieni la sinistra su A7 verso Lyon',
      merge: "Immettiti a sinistra sull'autostrada",
      onRamp: 'Prendi la rampa di accesso a destra su A1 verso Hamburg',
      offRamp: "Prendi l'uscita a destra verso Centre",
      roundabout: 'Alla rotonda, prendi la 2ª uscita sullo svincolo',
      nameChange: 'Prosegui su Oak Road',
      uturn: "Fai un'inversione a U",
      arriveStop: 'Sei arrivato alla tappa 2, sulla destra',
      arriveLast: 'Sei arrivato a destinazione',
    },
  };
  for (const c of CULTURES) {
    it(c, () => {
      for (const [k, m] of Object.entries(M)) expect(maneuverText(m, c), `${c} ${k}`).toBe(expected[c][k]);
    });
  }

  it('German declines class phrases after "auf": accusative for a direction, dative for a place', () => {
    const link = road('', '', '', 'motorway_link');
    expect(maneuverText(man('merge', link, { modifier: 'right' }), 'de-DE')).toBe('Rechts auf den Autobahnzubringer auffahren');
    expect(maneuverText(man('name-change', link), 'de-DE')).toBe('Auf dem Autobahnzubringer weiterfahren');
    expect(maneuverText(man('continue', road('', '', '', 'service'), { modifier: 'straight' }), 'de-DE')).toBe('Geradeaus auf der Zufahrtsstraße weiterfahren');
  });
  it('Italian and Spanish merge prepositions with the article', () => {
    expect(maneuverText(man('name-change', road('', '', '', 'motorway')), 'it-IT')).toBe("Prosegui sull'autostrada");
    expect(maneuverText(man('name-change', road('', '', '', 'ferry')), 'it-IT')).toBe('Prosegui sul traghetto');
    expect(maneuverText(man('merge', road('', '', '', 'motorway_link'), { modifier: 'right' }), 'es-ES')).toBe('Incorpórese por la derecha al enlace de autopista');
  });
  it('depart uses 8 compass points; arrive says a side only for left/right kinds', () => {
    const dirs = [0, 44, 90, 135, 181, 225, 270, 315, 359, -90].map((b) => maneuverText(man('depart', road('X'), { bearingAfter: b }), 'en-US').split(' ')[1]);
    expect(dirs).toEqual(['north', 'northeast', 'east', 'southeast', 'south', 'southwest', 'west', 'northwest', 'north', 'west']);
    const arrive = (modifier?: ManeuverModifier) => maneuverText(man('arrive', road('X'), { modifier, stop: 4, lastStop: true }), 'en-US');
    expect(arrive('sharp left')).toBe('You have arrived at your destination, on the left');
    expect(arrive('slight right')).toBe('You have arrived at your destination, on the right');
    expect(arrive('straight')).toBe('You have arrived at your destination');
    expect(arrive(undefined)).toBe('You have arrived at your destination');
    expect(arrive('uturn')).toBe('You have arrived at your destination');
  });
  it('U-turns name a named road only; unknown classes read as a road', () => {
    expect(maneuverText(man('end-of-road', road('', '', 'Lyon'), { modifier: 'uturn' }), 'de-DE')).toBe('Am Ende der Straße Richtung Lyon wenden');
    expect(maneuverText(man('merge', road('', '', '', 'motorway'), { modifier: 'uturn' }), 'en-US')).toBe('Merge onto the motorway');
    expect(maneuverText(man('uturn', road('Oak Road')), 'en-US')).toBe('Make a U-turn onto Oak Road');
    expect(maneuverText(man('turn', road('', '', '', 'residential'), { modifier: 'uturn' }), 'en-US')).toBe('Make a U-turn');
    expect(maneuverText(man('turn', road('', '', '', 'bogus'), { modifier: 'right' }), 'en-US')).toBe('Turn right onto the road');
    expect(maneuverText(man('turn', road('', '', '', 'bogus'), { modifier: 'right' }), 'de-DE')).toBe('Rechts auf die Straße abbiegen');
  });
});

describe('warnings and hints', () => {
  it('every warning kind in every culture: clean and distinct', () => {
    for (const c of CULTURES) {
      const all = WARNING_KINDS.map((k) => warningText(k, c));
      all.forEach((s, i) => expectClean(s, `${c} ${WARNING_KINDS[i]}`));
      expect(new Set(all).size, c).toBe(WARNING_KINDS.length);
      if (c !== 'en-US') WARNING_KINDS.forEach((k, i) => expect(all[i], `${c} ${k}`).not.toBe(warningText(k, 'en-US')));
    }
  });
  it('low speed states the speed in km/h or mph', () => {
    expect(warningText('low-speed', 'en-US', { speedKmh: 30 })).toBe('Slow stretch ahead (about 30 km/h)');
    expect(warningText('low-speed', 'en-US', { speedKmh: 32.19, unit: 'Mile' })).toBe('Slow stretch ahead (about 20 mph)');
    expect(warningText('low-speed', 'en-US')).toBe('Slow stretch ahead');
    expect(warningText('low-speed', 'de-DE', { speedKmh: 30, unit: 'Kilometer' })).toBe('Langsame Strecke voraus (etwa 30 km/h)');
    for (const c of CULTURES) expect(warningText('low-speed', c, { speedKmh: 48.3, unit: 'Mile' }), c).toContain('30 mph');
    expect(warningText('toll', 'fr-FR')).toBe('Route à péage à venir');
  });
  it('every hint kind in every culture', () => {
    for (const c of CULTURES) {
      for (const k of HINT_KINDS) {
        const s = hintText(k, c, 'Rua X');
        expectClean(s, `${c} ${k}`);
        expect(s).toContain('Rua X');
      }
      expect(hintText('previous-intersection', c, 'Rua X')).not.toBe(hintText('next-intersection', c, 'Rua X'));
    }
    expect(hintText('previous-intersection', 'en-US', 'Rua X')).toBe('The previous intersection is Rua X');
    expect(hintText('next-intersection', 'de-DE', 'Rua Y')).toBe('Die nächste Kreuzung ist Rua Y');
    expect(hintText('next-intersection', 'it-IT', { name: 'Rua Y', kind: 'fuel', distanceM: 5 })).toBe('Il prossimo incrocio è Rua Y');
  });
  it('landmarks: translated kind word for known kinds, none for unknown kinds, distance in metres', () => {
    const cafe = { name: 'Café Z', kind: 'cafe', distanceM: 42 };
    expect(hintText('landmark', 'en-US', cafe)).toBe('Landmark: Café Z (café), 40 m');
    expect(hintText('landmark', 'de-DE', { ...cafe, kind: 'fuel' })).toBe('Orientierungspunkt: Café Z (Tankstelle), 40 m');
    expect(hintText('landmark', 'fr-FR', { ...cafe, kind: 'church' })).toBe('Point de repère\u00a0: Café Z (église), 40 m');
    expect(hintText('landmark', 'es-ES', { ...cafe, kind: 'pharmacy', distanceM: 1234 })).toBe('Punto de referencia: Café Z (farmacia), 1,2 km');
    expect(hintText('landmark', 'it-IT', { ...cafe, kind: 'vending_machine' })).toBe('Punto di riferimento: Café Z, 40 m');
    expect(hintText('landmark', 'en-US', { name: '', kind: 'hospital', distanceM: 10 })).toBe('Landmark: hospital, 10 m');
    for (const c of CULTURES) {
      for (const kind of LANDMARK_KINDS) {
        const s = hintText('landmark', c, { name: 'Z', kind, distanceM: 20 });
        expectClean(s, `${c} ${kind}`);
        expect(s, `${c} ${kind}`).toContain(`Z (${CATALOGS[c].landmarkKinds[kind]}), 20 m`);
      }
    }
  });
});
