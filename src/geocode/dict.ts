/**
 * Dictionaries of the normaliser: street types (with where they stand: before the name, "P", or
 * after it, "S"), directionals, unit designators, articles, word synonyms, ordinals, US/CA/AU
 * states and country names.
 *
 * The English street types are libpostal's `resources/dictionaries/en/street_types.txt`
 * (openvenues/libpostal @ 4c030d8f, MIT licence, © libpostal contributors), kept as data with
 * single-letter and punctuated variants removed (they are ambiguous on their own). The German,
 * French, Italian, Spanish and Portuguese lists are ours. Format of every list: one entry per
 * `;`/newline, `canonical|variant|variant…`.
 */

/** libpostal English street types (filtered, see header). All suffix types ("S"). */
const EN_TYPES = `
abbey|abby;access|accs|acc;acres|acrs;alley|aly|ally|alee|al;alleyway|alwy|allyway|allwy;amble|ambl
anchorage|ancg;annex|anx;apartments|apts|appartments;approach|app|apch|appr;arcade|arc;arterial|artl
artery|art|arty;avenue|av|ave|aven|avenu|avn|avnu|avnue;avenues|avs|aves|avens|avenus|avns|avnus|avnues
autoroute|aut;back|bk;bank|bnk;basin|basn|bsn;bay|by;bayou|byu|bayoo;beach|baech|bch|beech;belt|blt;bend|bnd
block|blk|blck;bluff|blf|bluf|bluffs|blfs;boardwalk|bwk|bwlk|board walk
boulevard|blvd|bd|bde|blv|bl|blvde|blvrd|boulavard|boul|boulv|bvd|boulevarde;bottom|bot|bottm|btm|bttm
bottoms|bttms|btms|bottms;boundary|bdy;bowl|bl;brace|br|brce;branch|br|brnch|brch;brae|br;break|brk
bridge|bdge|br|brdg|bri|brg;broadway|bdwy|bway|bwy|brdway;brook|brk;brooks|brks;brow|brw;burg|bg;burgs|brgs
burrow|burw;butte|btte|bte;bypass|bypa|byps|bps|byp;byway|bywy;camp|cp;cape|cpe|cp;canyon|cyn|cnyn
caravan|cvan|cvn;causeway|csway|cswy|causewy|caus|cause|cway;center|centre|cetr|cntr|ctr|cen;centers|ctrs
centreway|cnwy;chase|ch|chas;circle|cir|circel|cirlce;circles|cirs;circlet|clt
circuit|crct|circ|cct|cirt|ci|circt;circus|crcs|crc;claim|clm;cliff|clf;cliffs|clfs;close|cl|cls|clse
cluster|clr|clstr;colonnade|clde|clnde;common|cmmn|comm|cmn|com|cm;commons|cmmns|cmns|comms;concord|cncd|cncrd
concession|conc;concourse|con|concs|concse|cnc;connection|cntn|cxn;connector|conr|cnctr|cntr;copse|cps
corner|cnr|crn|cor;corners|cnrs|crns|cors;corseo|cseo;corso|cso
county highway|ch|co hw|cty hw|co hgwy|cty hgwy|co hway|cty hway|co hwy|cty hwy|co hi|cty hi
county road|cr|co rd|cty rd;county route|cr|co rt|cty rt|co rte|cty rte|county touring route;course|crse
court|ct|crt;courts|crts|cts;courtyard|cyd|ctyd;cove|cov|ce|cv;creek|cr|crk;crescent|cr|cres|crs|crecent
crest|crst|cst;crief|crf;croft|cft;cross|cs|crss;crossing|crsg|xing|csg|x-ing
crossroad|crd|cross road|xroad|x-road|xrd|x-rd;crossroads|cross roads|xrds
crossway|cowy|crwy|xway|xwy|x-way|x-wy|xwy;cruiseway|cuwy|crwy;cul
cul de sac|cul-de-sac|culdesac|cds|cusac|csac;curve|cve|crv|crve|curv;cutting|cttg|ctg|cutt;dale|dle;dell;dene
deviation|devn;dip;distributor|dstr;divide|div;diversion|divers;down|dn;downs|dns|dwns;drive|dr|drv|dv|dve
driveway|drwy|dvwy|dwy|dway|drvwy;drove|drov;easement|esmt;edge|edg;elbow|elb;elm;end;entrance|ent|entr
esplanade|esp|espl;estate|est;estates|ests;exit;expressway|exp|expwy|expway|expy|exwy
extension|ex|ext|extn|exten;extensions|exts;fairway|fawy|fy;fall|fl;falls|fls;fare;farm|frm;farms|frms
farm to market|fm|farm-to-market;fern;ferry|fry|fy;field|fld|fd;fields|flds|fds;fireline|fline|fire line|flne
firetrack|ftrk|fire track;firetrail|fit|fitr|fire trail;flat|fl|flt;flats|flts;follow|folw
footway|ftwy|foot way;ford|frd;foreshore|fshr|fore shore;formation|form|fmtn;freeway|frwy|fw|fwy|fway
front|frnt;frontage|frtg|fr;gap|gp;garden|gdn|grd|grdn;gardens|gdns|grds|grdns;gate|ga|gte;gates|gtes
gateway|gwy|gway|gtwy|gtway;glade|gl|gld|glde;glen|gln
grand boulevard|gbd|grbd|grdbd|gdbd|gr bd|grd bd|gd bd|gr blvd|grd blvd|gd blvd|gr bde|grd bde|gd bde|gr blvrd|grd blvrd|gd blvrd|gr boul|grd boul|gd boul|gr bvd|grd bvd|gd bvd|gr bld|grd bld|gd bld
grange|gra;green|grn|gn|gren;greenway|grwy;ground|grnd;grounds|grnds;grove|gr|grv|grve|gro;gulch|glch
gully|gly;hanger|hngr;harbor|harbour|hbr|hrbr;harbors|hbrs;haven|hvn|havn;head|hd;heads|hds;heath|hth|heth
heights|hghts|hgts|hieghts|ht|hts|hgths;highlands|hghlds|hlds|hglds;highroad|hrd|high road|hird|hi rd
highway|hgwy|hw|hway|hwy|hi|hwye|hywy;hill|hl;hills|hls|hils;hollow|hllw|holw;hub;impasse|imp;inlet|inlt
interchange|intg|intchg|inter change;intersection|intn|inter section|intsctn;interstate|inter state|ih
island|is|id|isl|isld;islands|iss|ids|islds;isle;junction|jct|jnc|jnct|jctn|jtn|junct;junctions|jcts;key|ky
keys|kys;knob;knoll|knol|knl;knolls|knls;ladder|ladr;lagoon|lagn|lgn|lagon;land;landing|ldg|lndg|landng
lane|ln|la;laneway|lnwy;lees;light|lgt|lt;limits|lmts;line|ln;link|lnk|lk;little|ltl|lttl|littl|litl|lit|lt
loaf|lf;lookout|lkt|look out;loop|lp;loops|lps;lot|lt;lynne|lynn;mall|ml;manor|mnr;maze;meadow|mdw
meadows|mdws|mead;mead|md;meander|mndr|mdr|mr;mew|mw;mews|mws;mile|mi;mill|ml;mills|mls;moor
motorway|mway|mwy|mtwy;mount|mt;neaves|nvs;nook|nk;oaks;outlet|otlt;outlook|out|otlk;oval
overbridge|ovrb|over bridge;overlook|over look|ovlk;overpass|over pass|opas;paddock|padk;palms|plms
parade|pde|prd|prde|pard;park|pk|prk;parklands|pkld|pklds|parkland|park lands|park land
parkway|pkwy|parkwy|pky|pkway|prkwy|prkway|pkw|pwy|prkw;parkways|pkwys;part|prt;pass|ps;passage|psge|pass|pasg
path|pth;pathway|phwy|pway|pthway|pthwy|ptway|ptwy;peninsula|psla;piazza|piaz|pzza;pier;pike|pk|pke
pine|pne|pn;pines|pns|pnes;pond;place|pl|pla|plc|plac;plain|pln|pl;plains|plns|pls;plateau|plat|plt
plaza|plz|plza|pz;prarie|pr;pocket|pkt|pokt|pckt;point|piont|pnt|pt;pointe|pte|pnte;port|prt;ports|prts
prairie|pr;priors|prrs;private|pvt;promenade|prom|prm;pursuit|pur;quad|qd;quadrangle|qdgl;quadrant|qdrt|qd
quay|quy|qy;quays|quys|qys;radial|radl;ramble|ra|rmbl;ramp|rmp;ranae|ran;ranch|rnch;rapid|rpd;rapids|rpds
range|rng|rnge|rang;range road|rge rd|range rd|rr;reach|rch;reef
reserve|res|resrv|resv|rsrv|rserv|rserve|rsrve;rest|rst;retreat|rt|rtt;return|rtn;ride;ridge|rdge|rdg
ridges|rdgs;ridgeway|rgwy|rdgwy|ridge way;right of way|rowy|rightofway|rofw|row;ring;rise|ri;riverway|rvwy
riviera|rvra;road|rd|ro|roa|raod;roads|raods|rds;roadside|rdsd|road side;roadway|rdwy|rdw|rdy;rocks|rks
ronde|rnde;rosebowl|rsbl|rose bowl;rotary|rty;round|rnd;roundabout;route|rt|rte;row|rw;run|rn;rural route|rr
service road|svc rd|svc road|service rd|sv rd|svrd;serviceway|swy|svwy|svcwy;shoal|shl;shoals|shls
shore|shor|shr;shores|shors|shrs;shunt|shun|shnt;siding|sdng|sdg;skyway|skwy;slip;slope|slpe|slp;sound|snd
space|spc;spring|spg|sprng|sprn;springs|spgs|sprngs|spns;spur|spr;square|sq|sqr;squares|sqs;stairs|strs
stairway|stwy|strwy|stair way|st wy|str way
state highway|st highway|sh|st hw|shwy|st hgwy|st hway|st hwy|st hi|statehighway
state road|sr|stateroad|st road|staterd|srd|state rd|strd|st rd
state route|sr|stateroute|st route|statert|srt|srte|state rt|state rte|strt|strte|st rt|st rte;steps|stps
strand|stra|strnd|strd;strands|strnds|strds;stravenue|stra|strav;street|st|str|stre|stree|strt;streets|sts
strip|strp;subdivision|subdiv;subway|sbwy;summit|smt|sumt;tarn|tn
terrace|tce|ter|tr|terr|terace|terrac|terrasse|tsse;thicket|thick
thoroughfare|thor|throughfare|thorough fare|thfr;thoroughway|thwy;throughway|thru|thro|thruway|trwy|thwy
tollway|tlwy|twy;top;tor
township highway|th|twp hw|tshp hw|twp hgwy|tshp hgwy|twp hway|tshp hway|twp hwy|tshp hwy|twp hi|tshp hi
township road|tr|trd|twpr|twp rd|tshp rd|township rd|tp rd
township route|tr|trt|twpr|twp rt|twp rte|tshp rt|tshp rte;tower|twr;towers|twrs;townline|tline;trace|trce|trc
track|tr|trk|trak;trafficway|trfy;trail|tr|trl;trailer|trlr;tram;tramway|tmwy;trees|trs;triangle|tri
truck trail|trktrl;trunkway|tkwy;tunnel|tun|tunl;turnabout|trnabt;turn|tn|trn;turnpike|tpk|tpke
underpass|upas|upass|ups|under pass;union|un;unions|uns;us highway|us hwy;us route|us rte;vale|va|vl
valley|vlly|vly|vy;valleys|vlys|vllys;vennel;viaduct|via|viad|vdct|viadct;view|vw;views|vws;villa|vla
village|vlge;villas|vlas;vista|vst|vsta|vis;vue;wade;walk|wlk|wk;walkway|wkwy|wky|wlkwy;waters|wtrs;way|wy
ways|wys;well|wl;wells|wls;wharf|whrf|whf;wynd|wyn;yard|yd|yrd`;

/** English street types that also stand before the name ("Avenue of the Americas", "Place Vendôme"). */
const EN_PREFIX_TOO = ['avenue', 'boulevard', 'place', 'square', 'promenade', 'esplanade', 'passage', 'route', 'impasse', 'circle', 'plaza', 'corso', 'piazza', 'quay', 'parade', 'terrace'];

/** German (and Swiss/Austrian) types; suffixes, usually glued to the name ("Hauptstraße"). */
const DE_TYPES = `
strasse|str|strase|strse|strabe;gasse|gass|gaesschen|gasschen;gassle|gaessle|gassli|gaessli|gassli;weg|wg;platz|pl|plz;allee;ring;damm;ufer;
steig;pfad;chaussee|ch;graben;markt;hof;zeile;kai;promenade;stiege;steg;brucke|bruecke;tor;winkel;halde;rain;
`;

/** The German types that may be glued to the name; a word ending in one is split ("Gapetschstrasse" → "gapetsch strasse"). */
export const GLUED_SUFFIXES = [
  'strasse', 'strase', 'str', 'gasse', 'gass', 'gassle', 'gassli', 'weg', 'wg', 'platz', 'allee', 'ring', 'damm', 'ufer', 'steig', 'pfad', 'graben', 'chaussee', 'promenade',
];

/** French, Italian, Spanish, Portuguese types; they stand before the name ("Rue de Rivoli", "Via Roma"). */
const ROMANCE_TYPES = `
rue|r;avenue|av|ave|avn;boulevard|bd|bld|blvd|boul|bvd;place|pl;chemin|ch|chem|chm;impasse|imp;allee|all;quai|qu|qai;
route|rte|rt;square|sq;cours|crs;passage|pass|psg;montee|mte|mtee;escalier|esc|escaliers;esplanade|esp|espl;
promenade|prom;sentier|sent|sen;traverse|trav|tra;voie|vo;galerie|gal;descente|desc;rampe|rpe;corniche|corn;
villa|vla;residence|res|resid;lotissement|lot|lots;faubourg|fbg|fg;carrefour|carr|crf;rond point|rdpt|rd pt;
parvis|prv;cite|cit;hameau|ham;lieu dit|ld|lieudit;square|sq;
via|v;viale|vle;piazza|pza|pzza|pz|p za;corso|cso|c so;largo|lgo|l go;vicolo|vic|vlo|v lo;strada|str|sda;piazzale|ple|p le;
lungomare|lgm;salita|sal;contrada|cda|c da;borgo|bgo;traversa|trav;stradone;vico;calata;rampa;
calle|cl|cll|cal|c;avenida|av|avda|avd|avnda;plaza|pl|pza|plz;paseo|po|pso|pas;carrera|cra|kra|carr;camino|cno|cam|cmno;
carretera|ctra|crta|cta;ronda|rda;travesia|trva|trav;glorieta|gta;pasaje|pje|psje;callejon|cjon|callej;bulevar|blvr|bulev;
rambla|rbla;cuesta|custa;urbanizacion|urb;carrer|c|cr;avinguda|av|avda;passeig|pg|pg;placa|pl;
rua|r;praca|pca|pc|pr;travessa|tv|trav|tv;estrada|estr|est|etr;alameda|al|alam;beco|bc;rodovia|rod;calcada|calc|clc;
viela|vla;praceta|pct;largo|lg|lgo;ladeira|ld|lad;
`;

/** Compass directionals, canonical short form first (libpostal's `directionals.txt`, compass entries; MIT). */
const DIRECTIONALS = `
e|east;
n|north|nrt|nrth|nth|norh|nort;
ne|northeast|north east|northe|neast|nrteast|nrt east|nrte|nrtheast|nrth east|nrthe|ntheast|nth east|nthe|norheast|norh east|norhe|norteast|nort east;
nw|northwest|north west|northw|northwst|north wst|nwest|nwst|nrtwest|nrt west|nrtw|nrtwst|nrt wst|nrthwest|nrth west|nrthw|nrthwst|nrth wst|nthwest|nth west|nthw|nthwst|nth wst|norhwest|norh west|norhw|norhwst|norh wst|nortwest|nort west|nortw|nortwst|nort wst;
s|south|sth;
se|southeast|south east|southe|seast|soeast|so east|stheast|sth east|sthe;
sw|southwest|south west|southw|southwst|south wst|swest|swst|sowest|so west|sowst|so wst|sthwest|sth west|sthw|sthwst|sth wst;
w|west|wst
`;

/**
 * Unit (secondary address) designators followed by an identifier: "Apt 4B", "Ste 200", "Flat 2",
 * "App. 12", "Top 5", "Piso 3", "Interno 7".
 */
export const UNIT_DESIGNATORS = new Set([
  'apt', 'apartment', 'apartement', 'appartement', 'appt', 'app', 'aptmnt', 'apto', 'unit', 'unt', 'ste', 'suite', 'flat', 'flt',
  'fl', 'flr', 'floor', 'rm', 'room', 'dept', 'bldg', 'building', 'office', 'ofc', 'offc', 'trlr',
  'etage', 'etg', 'stock', 'og', 'top', 'whg', 'wohnung', 'piso', 'puerta', 'pta', 'dpto', 'depto', 'interno', 'scala',
  'escalera', 'bloc', 'bat', 'batiment', 'porte', 'lgt', 'logement', 'ph', 'penthouse', 'lvl', 'level', 'pmb',
])
/** Designators that are never part of a street name: always a unit, even when their number is the line's only one. */
export const UNIT_STRONG = new Set([
  'apt', 'apartment', 'apartement', 'appartement', 'appt', 'aptmnt', 'apto', 'unit', 'unt', 'ste', 'suite', 'flat', 'flt', 'fl', 'flr',
  'floor', 'rm', 'room', 'dept', 'bldg', 'building', 'whg', 'wohnung', 'piso', 'puerta', 'dpto', 'depto', 'interno', 'escalera', 'lgt',
  'logement', 'penthouse', 'pmb',
]);
/** Designators that are complete on their own ("rear", "basement"); stripped only after a comma. */
export const UNIT_STANDALONE = new Set(['rear', 'front', 'frnt', 'basement', 'bsmt', 'lobby', 'lbby', 'penthouse', 'ph', 'upper', 'lower', 'upstairs', 'downstairs', 'garage', 'side']);

/** Articles and prepositions that users drop ("Boulevard Moulins" for "Boulevard des Moulins"). */
export const STOPWORDS = new Set([
  'the', 'of', 'and', 'at', 'on',
  'de', 'du', 'des', 'la', 'le', 'les', 'l', 'd', 'au', 'aux', 'en', 'a',
  'di', 'del', 'della', 'dei', 'degli', 'delle', 'dello', 'da', 'dal', 'dalla', 'al', 'alla', 'il', 'lo', 'gli', 'e',
  'el', 'las', 'los', 'y',
  'do', 'das', 'dos', 'na', 'no', 'nas', 'nos',
  'am', 'im', 'an', 'auf', 'der', 'die', 'dem', 'den', 'zum', 'zur', 'in', 'bei', 'von', 'vom', 'beim', 'unter', 'ob', 'ober',
]);

/** Word synonyms: any variant is replaced by the canonical (first) word, wherever it stands. */
const WORD_SYNONYMS = `
saint|st|snt|sint;sainte|ste;mount|mt|mnt;fort|ft;doctor|dr|doc;junior|jr;general|gen|gral;president|pres|pdte;
professor|prof;great|grt;little|ltl|lttl;lake|lk;san|sn;santa|sta;martin luther king|mlk;
`;

/** Ordinal and cardinal number words that stand for digits in street names ("First Street" = "1st St"). */
const NUMBER_WORDS: Record<string, string> = {
  first: '1', second: '2', third: '3', fourth: '4', fifth: '5', sixth: '6', seventh: '7', eighth: '8', ninth: '9', tenth: '10',
  eleventh: '11', twelfth: '12', thirteenth: '13', fourteenth: '14', fifteenth: '15', sixteenth: '16', seventeenth: '17',
  eighteenth: '18', nineteenth: '19', twentieth: '20', premier: '1', premiere: '1', deuxieme: '2', troisieme: '3',
};

/** US states, Canadian provinces, Australian states (libpostal toponyms, extended): canonical|abbreviations. */
const STATES = `
alabama|al|ala;alaska|ak;arizona|az|ariz;arkansas|ar|ark;california|ca|calif;colorado|co|colo;connecticut|ct|conn;
delaware|de|del;district of columbia|dc|d c|washington dc;florida|fl|fla;georgia|ga;hawaii|hi;idaho|id;illinois|il|ill;
indiana|in|ind;iowa|ia;kansas|ks|kan;kentucky|ky;louisiana|la;maine|me;maryland|md;massachusetts|ma|mass;michigan|mi|mich;
minnesota|mn|minn;mississippi|ms|miss;missouri|mo;montana|mt|mont;nebraska|ne|neb;nevada|nv|nev;new hampshire|nh;
new jersey|nj;new mexico|nm;new york|ny;north carolina|nc;north dakota|nd;ohio|oh;oklahoma|ok|okla;oregon|or|ore;
pennsylvania|pa|penn;rhode island|ri;south carolina|sc;south dakota|sd;tennessee|tn|tenn;texas|tx|tex;utah|ut;
vermont|vt;virginia|va;washington|wa|wash;west virginia|wv;wisconsin|wi|wis;wyoming|wy|wyo;puerto rico|pr;
alberta|ab;british columbia|bc;manitoba|mb;new brunswick|nb;newfoundland and labrador|nl|newfoundland;nova scotia|ns;
ontario|on|ont;prince edward island|pe|pei;quebec|qc|que;saskatchewan|sk;northwest territories|nt|nwt;nunavut|nu;yukon|yt;
new south wales|nsw;victoria|vic;queensland|qld;south australia|sa;western australia|wa;tasmania|tas;
australian capital territory|act;northern territory|nt
`;

/** Countries: English name | ISO 3166 alpha-2 | alpha-3 | other names (native, common). */
const COUNTRIES = `
united states|us|usa|united states of america|u s a|u s|america;canada|ca|can;mexico|mx|mex;
united kingdom|gb|gbr|uk|great britain|england|scotland|wales|northern ireland;ireland|ie|irl|eire;
france|fr|fra|republique francaise;germany|de|deu|deutschland|bundesrepublik deutschland;austria|at|aut|osterreich|oesterreich;
switzerland|ch|che|schweiz|suisse|svizzera|svizra|schweiz suisse svizzera svizra;liechtenstein|li|lie|furstentum liechtenstein;
monaco|mc|mco|principaute de monaco;italy|it|ita|italia;spain|es|esp|espana;portugal|pt|prt;andorra|ad|and;
belgium|be|bel|belgique|belgie;netherlands|nl|nld|nederland|holland;luxembourg|lu|lux|letzebuerg;denmark|dk|dnk|danmark;
norway|no|nor|norge;sweden|se|swe|sverige;finland|fi|fin|suomi;iceland|is|isl|island;poland|pl|pol|polska;
czechia|cz|cze|czech republic|cesko;slovakia|sk|svk|slovensko;hungary|hu|hun|magyarorszag;slovenia|si|svn|slovenija;
croatia|hr|hrv|hrvatska;greece|gr|grc|ellada;romania|ro|rou;bulgaria|bg|bgr;serbia|rs|srb|srbija;
san marino|sm|smr;vatican city|va|vat|holy see;malta|mt|mlt;cyprus|cy|cyp;estonia|ee|est|eesti;latvia|lv|lva|latvija;
lithuania|lt|ltu|lietuva;ukraine|ua|ukr;russia|ru|rus|russian federation;turkey|tr|tur|turkiye;
brazil|br|bra|brasil;argentina|ar|arg;chile|cl|chl;colombia|co|col;peru|pe|per;venezuela|ve|ven;
australia|au|aus;new zealand|nz|nzl|aotearoa;japan|jp|jpn|nippon;china|cn|chn;india|in|ind;south africa|za|zaf;
israel|il|isr;egypt|eg|egy;morocco|ma|mar|maroc;tunisia|tn|tun;algeria|dz|dza
`;

// ----------------------------------------------------------------------------- compiled maps

export type TypePos = 1 | 2 | 3; // 1 prefix, 2 suffix, 3 both

export interface TypeInfo {
  /** Canonical types this word can stand for (first = the one used in keys). */
  canon: string[];
  /** Where the word may stand as a type: bit 1 before the name, bit 2 after it. */
  pos: number;
}

function entries(list: string): string[][] {
  return list.split(/[;\n]/).map((e) => e.trim()).filter((e) => e.length > 0).map((e) => e.split('|').map((v) => v.trim()).filter((v) => v.length > 0));
}

/** Street-type words (single words; multi-word phrases are in {@link TYPE_PHRASES}). */
export const TYPE_WORDS = new Map<string, TypeInfo>();
/** Multi-word street-type phrases, joined by a space ("county road", "rond point"). */
export const TYPE_PHRASES = new Map<string, TypeInfo>();

function addTypes(list: string, pos: number, prefixToo: string[] = []): void {
  for (const e of entries(list)) {
    const canon = e[0];
    const p = prefixToo.includes(canon) ? pos | 1 : pos;
    for (const v of e) {
      const target = v.includes(' ') ? TYPE_PHRASES : TYPE_WORDS;
      const info = target.get(v);
      if (info) {
        if (!info.canon.includes(canon)) info.canon.push(canon);
        info.pos |= p;
      } else target.set(v, { canon: [canon], pos: p });
    }
  }
}
addTypes(EN_TYPES, 2, EN_PREFIX_TOO);
addTypes(DE_TYPES, 2);
addTypes(ROMANCE_TYPES, 1);
// A type's own canonical is always listed first for that word; "str" reads as German first.
for (const [w, info] of TYPE_WORDS) {
  const own = w === 'str' ? 'strasse' : w;
  const i = info.canon.indexOf(own);
  if (i > 0) { info.canon.splice(i, 1); info.canon.unshift(own); }
}

/** Directional word/phrase → canonical short form (n, s, e, w, ne, nw, se, sw). */
export const DIRECTIONAL = new Map<string, string>();
for (const e of entries(DIRECTIONALS)) for (const v of e) DIRECTIONAL.set(v, e[0]);

/** Word synonym → canonical word (may be several words, e.g. "mlk"). */
export const WORD_SYNONYM = new Map<string, string>();
for (const e of entries(WORD_SYNONYMS)) for (const v of e.slice(1)) WORD_SYNONYM.set(v, e[0]);

export const NUMBER_WORD = new Map(Object.entries(NUMBER_WORDS));

/** State/province abbreviation or name → canonical full name. */
export const STATE_ALIAS = new Map<string, string>();
for (const e of entries(STATES)) for (const v of e) if (!STATE_ALIAS.has(v)) STATE_ALIAS.set(v, e[0]);

/** Country code or name → canonical English name. */
export const COUNTRY_ALIAS = new Map<string, string>();
for (const e of entries(COUNTRIES)) for (const v of e) if (!COUNTRY_ALIAS.has(v)) COUNTRY_ALIAS.set(v, e[0]);

/** True when two type words can denote the same street type ("av" ~ "avenida", "cr" ~ "creek"). */
export function typesCompatible(a: string, b: string): boolean {
  if (a === b) return true;
  const ia = TYPE_WORDS.get(a) ?? TYPE_PHRASES.get(a);
  const ib = TYPE_WORDS.get(b) ?? TYPE_PHRASES.get(b);
  if (!ia || !ib) return false;
  for (const c of ia.canon) if (ib.canon.includes(c)) return true;
  return false;
}
