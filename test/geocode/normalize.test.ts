import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fold, foldWords, utf8Decode, utf8Encode } from '../../src/geocode/text.js';
import { analyzeName, countryKey, phonetic, placeKey, postcodeKey, postcodeVariants, stateKey } from '../../src/geocode/normalize.js';
import { typesCompatible } from '../../src/geocode/dict.js';

const FIX = new URL('../../fixtures/geocode/', import.meta.url);

describe('Unicode folding', () => {
  it.each([
    ['Müller', 'muller'],
    ['Straße', 'strasse'],
    ['ẞTRASSE', 'sstrasse'],
    ['Ærøskøbing', 'aeroskobing'],
    ['Łódź', 'lodz'],
    ['Œuvre', 'oeuvre'],
    ['São Paulo', 'sao paulo'],
    ['Ｆｕｌｌ', 'full'],
    ['ﬁeld', 'field'],
    ['Đakovo', 'dakovo'],
    ['Þingvellir', 'thingvellir'],
    ['Crovetto‑Frères', 'crovetto-freres'],
    ['Rue de l’Église', "rue de l'eglise"],
    ['PLAIN ascii', 'plain ascii'],
  ])('fold(%s) = %s', (input, out) => {
    expect(fold(input)).toBe(out);
  });

  it('turns control characters into spaces and strips punctuation in foldWords', () => {
    expect(fold('a\u0000b\u200bc')).toBe('a b c');
    expect(foldWords('  Quai  Jean-Charles  Rey, 8 ')).toBe('quai jean charles rey 8');
  });

  it('decodes UTF-8 from any buffer (also shared) like TextDecoder', () => {
    for (const s of ['', 'abc', 'Rösle', 'Камсамольская', '봉화로167번길', '😀 emoji', 'ß€']) {
      const b = utf8Encode(s);
      const sab = new Uint8Array(new SharedArrayBuffer(b.length));
      sab.set(b);
      expect(utf8Decode(sab, 0, sab.length)).toBe(s);
    }
  });
});

describe('street-name analysis', () => {
  const keys = (s: string) => {
    const k = analyzeName(s);
    return { core: k.coreKey, ns: k.nsKey, type: k.typeCanon, pre: k.predir, post: k.postdir };
  };

  it.each([
    // [a, b] must meet on core key and directionals
    ['Main Street', 'main st'],
    ['North Charlotte Street', 'N Charlotte St'],
    ['West 26th Street', 'W 26 St'],
    ['First Avenue', '1st Ave'],
    ['Hauptstraße', 'Haupt Strasse'],
    ['Hauptstraße', 'Hauptstr.'],
    ['Ackermannstraße', 'Ackermann Str'],
    ['Saint Patrick Street', 'St Patrick St'],
    ['Mount Hope Avenue', 'Mt Hope Ave'],
    ['Tuskegee Street Southeast', 'Tuskegee St SE'],
    ['Avenue Princesse Grace', 'av. princesse grace'],
    ['Boulevard des Moulins', 'Bd des Moulins'],
    ['Rue Gay-Lussac', 'R Gay Lussac'],
    ['Avenida Juárez', 'Av. Juarez'],
    ['Piazza del Duomo', 'P.za del Duomo'],
    ['Cedar Hill Road', 'Cedarhill Rd'],
    ['Martin Luther King Boulevard', 'MLK Blvd'],
    ['Rue du 1er Mai', 'Rue du 1 Mai'],
  ])('%s ~ %s', (a, b) => {
    const x = keys(a);
    const y = keys(b);
    expect(y.core).toBe(x.core);
    expect(y.pre).toBe(x.pre);
    expect(y.post).toBe(x.post);
  });

  it('classifies types and directionals only where they stand', () => {
    expect(keys('Avenue of the Americas')).toMatchObject({ type: 'avenue', core: 'oftheamericas', ns: 'americas' });
    expect(keys('Commons Park S')).toMatchObject({ type: 'park', core: 'commons', post: 's' });
    expect(keys('North Street')).toMatchObject({ core: 'north', pre: '' });
    expect(keys('Avenue E')).toMatchObject({ core: 'e', post: '' });
    expect(keys('E Main St')).toMatchObject({ core: 'main', pre: 'e' });
    // a type word that is all the name has besides articles is the name
    expect(keys('An der Halde')).toMatchObject({ type: '', ns: 'halde' });
    expect(keys('Im Winkel')).toMatchObject({ type: '', ns: 'winkel' });
    // articles are dropped from the ns key only
    expect(keys('Boulevard des Moulins')).toMatchObject({ core: 'desmoulins', ns: 'moulins' });
    // glued German types split, also after a two-letter stem for long suffixes
    expect(keys('Gapetschstrasse')).toMatchObject({ core: 'gapetsch', type: 'strasse' });
    expect(keys('Austrasse')).toMatchObject({ core: 'au', type: 'strasse' });
    expect(analyzeName('Route 66').digits).toBe('66');
  });

  it('treats ambiguous abbreviations as compatible types', () => {
    expect(typesCompatible('st', 'street')).toBe(true);
    expect(typesCompatible('av', 'avenida')).toBe(true);
    expect(typesCompatible('av', 'avenue')).toBe(true);
    expect(typesCompatible('cr', 'creek')).toBe(true);
    expect(typesCompatible('str', 'strasse')).toBe(true);
    expect(typesCompatible('rd', 'avenue')).toBe(false);
  });

  it('maps every libpostal English street-type variant to a type compatible with its canonical', () => {
    const lines = readFileSync(new URL('libpostal-en/street_types.txt', FIX), 'utf8').split('\n').filter((l) => l.trim());
    let checked = 0;
    for (const line of lines) {
      const [canon, ...variants] = line.split('|');
      if (canon === 'number') continue;
      const c = analyzeName(`Foo ${canon}`);
      for (const v of variants) {
        // the dictionary's punctuated/single-letter variants are ambiguous alone and left out on
        // purpose; three-word phrases may contain a word that splits as a glued German type
        // ("county touring route": tou|ring), the same on both sides of a match
        if (/[.\/#'&-]/.test(v) || v.split(' ').some((w) => w.length === 1) || v.split(' ').length >= 3) continue;
        const k = analyzeName(`Foo ${v}`);
        expect(k.coreKey, `${v} (${canon})`).toBe('foo');
        expect(typesCompatible(k.type, c.typeCanon), `${v} ~ ${canon}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(600);
  });

  it('maps every libpostal directional word to the same compass point as its canonical', () => {
    const lines = readFileSync(new URL('libpostal-en/directionals.txt', FIX), 'utf8').split('\n').filter((l) => l.trim());
    let checked = 0;
    for (const line of lines) {
      const [canon, ...variants] = line.split('|');
      const c = analyzeName(`${canon} Main Street`);
      if (!c.predir) continue; // centre, upper, lower…: not compass points
      for (const v of variants) {
        // 'no'/'so' and 'norte' (Spanish for north) are left out of the dictionary on purpose
        if (/[.]/.test(v) || v === 'no' || v === 'so' || v === 'norte' || v.split(' ').some((w) => w.length === 1)) continue;
        expect(analyzeName(`${v} Main Street`).predir, v).toBe(c.predir);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(60);
  });
});

describe('places, postcodes, phonetic keys', () => {
  it('normalises place, state and country names', () => {
    expect(placeKey('Monte-Carlo')).toBe(placeKey('monte carlo'));
    expect(placeKey('St. Gallen')).toBe(placeKey('Saint Gallen'));
    expect(stateKey('AL')).toBe(stateKey('Alabama'));
    expect(stateKey('N.Y.')).toBe(stateKey('New York'));
    expect(countryKey('LI')).toBe(countryKey('Liechtenstein'));
    expect(countryKey('USA')).toBe(countryKey('United States'));
    expect(countryKey('mc')).toBe(countryKey('Monaco'));
  });

  it('normalises postcodes and offers the usual variants', () => {
    expect(postcodeKey('gu2 7up')).toBe('GU27UP');
    expect(postcodeVariants(postcodeKey('36067-1234'))).toContain('36067');
    expect(postcodeVariants(postcodeKey('6067'))).toContain('06067');
    expect(postcodeVariants(postcodeKey('FL-9490'))).toContain('9490');
  });

  it('gives sound-alike spellings one phonetic key', () => {
    const same = [['charlotte', 'sharlotte'], ['philipp', 'filip'], ['schmidt', 'shmit'], ['peachtree', 'peechtree'], ['meier', 'meyer'], ['castelleretto', 'kastelereto']];
    for (const [a, b] of same) expect(phonetic(a), `${a} ~ ${b}`).toBe(phonetic(b));
    expect(phonetic('landstrasse')).not.toBe(phonetic('sandstrasse'));
  });
});
