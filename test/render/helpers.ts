/** Small strict XML well-formedness parser and PNG decoder for the map tests (no extra deps). */
import { inflateSync } from 'node:zlib';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Text directly inside the element, entities decoded. */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(s: string, where: string): string {
  return s.replace(/&([^;]*);?/g, (m, name: string) => {
    if (!m.endsWith(';')) throw new Error(`bare & in ${where}`);
    if (name in ENTITIES) return ENTITIES[name];
    const num = /^#(x[0-9a-fA-F]+|[0-9]+)$/.exec(name);
    if (num) return String.fromCodePoint(num[1][0] === 'x' ? parseInt(num[1].slice(1), 16) : parseInt(num[1], 10));
    throw new Error(`unknown entity &${name}; in ${where}`);
  });
}

/** Parses an XML document strictly enough to catch unbalanced tags, bad attributes and bad escapes. */
export function parseXml(src: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const fail = (msg: string): never => {
    throw new Error(`${msg} at offset ${i}: ${JSON.stringify(src.slice(Math.max(0, i - 30), i + 30))}`);
  };
  if (src.startsWith('<?xml')) {
    const e = src.indexOf('?>');
    if (e < 0) fail('unterminated XML declaration');
    i = e + 2;
  }
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const text = src.slice(i, lt < 0 ? src.length : lt);
    if (text) {
      if (stack.length === 0) {
        if (text.trim()) fail('text outside the root element');
      } else {
        if (text.includes('>')) fail('raw > in text');
        stack[stack.length - 1].text += decode(text, 'text');
      }
    }
    if (lt < 0) break;
    i = lt;
    if (src.startsWith('<!--', i)) {
      const e = src.indexOf('-->', i);
      if (e < 0) fail('unterminated comment');
      i = e + 3;
      continue;
    }
    const gt = src.indexOf('>', i);
    if (gt < 0) fail('unterminated tag');
    const tag = src.slice(i + 1, gt);
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const open = stack.pop();
      if (!open || open.name !== name) fail(`</${name}> closes <${open?.name}>`);
    } else {
      const selfClosing = tag.endsWith('/');
      const body = selfClosing ? tag.slice(0, -1) : tag;
      const m = /^([A-Za-z_][\w:.-]*)/.exec(body);
      if (!m) fail('bad tag name');
      const el: XmlElement = { name: m![1], attrs: {}, children: [], text: '' };
      let rest = body.slice(m![1].length);
      const attrRe = /^\s+([A-Za-z_][\w:.-]*)="([^"<]*)"/;
      for (;;) {
        const a = attrRe.exec(rest);
        if (!a) break;
        if (a[1] in el.attrs) fail(`duplicate attribute ${a[1]}`);
        el.attrs[a[1]] = decode(a[2], `attribute ${a[1]}`);
        rest = rest.slice(a[0].length);
      }
      if (rest.trim()) fail(`bad attributes ${JSON.stringify(rest)}`);
      if (stack.length) stack[stack.length - 1].children.push(el);
      else if (root) fail('second root element');
      else root = el;
      if (!selfClosing) stack.push(el);
    }
    i = gt + 1;
  }
  if (stack.length) fail(`unclosed <${stack[stack.length - 1].name}>`);
  if (!root) fail('no root element');
  return root!;
}

/** All elements (depth first, document order) with the given name. */
export function findAll(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  if (el.name === name) out.push(el);
  for (const c of el.children) findAll(c, name, out);
  return out;
}

export interface Rgba {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, rows top down. */
  data: Uint8Array;
}

/** Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what resvg writes). */
export function decodePng(png: Uint8Array): Rgba {
  const sig = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!sig.every((b, k) => png[k] === b)) throw new Error('not a PNG');
  const dv = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let p = 8;
  let width = 0, height = 0, colorType = -1;
  const idat: Uint8Array[] = [];
  while (p < png.length) {
    const len = dv.getUint32(p);
    const type = String.fromCharCode(...png.subarray(p + 4, p + 8));
    const data = png.subarray(p + 8, p + 8 + len);
    if (type === 'IHDR') {
      width = dv.getUint32(p + 8);
      height = dv.getUint32(p + 12);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit non-interlaced PNGs');
      colorType = data[9];
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    p += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!bpp) throw new Error(`unsupported colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[row + x - bpp] : 0;
      const b = y > 0 ? px[row - stride + x] : 0;
      const c = x >= bpp && y > 0 ? px[row - stride + x - bpp] : 0;
      let v = src[x];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (f !== 0) throw new Error(`bad filter ${f}`);
      px[row + x] = v & 255;
    }
  }
  if (bpp === 4) return { width, height, data: px };
  const data = new Uint8Array(width * height * 4);
  for (let k = 0; k < width * height; k++) {
    data[4 * k] = px[3 * k];
    data[4 * k + 1] = px[3 * k + 1];
    data[4 * k + 2] = px[3 * k + 2];
    data[4 * k + 3] = 255;
  }
  return { width, height, data };
}

export function pixel(img: Rgba, x: number, y: number): [number, number, number, number] {
  const k = 4 * (Math.floor(y) * img.width + Math.floor(x));
  return [img.data[k], img.data[k + 1], img.data[k + 2], img.data[k + 3]];
}
