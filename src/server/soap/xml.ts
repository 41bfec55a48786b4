/**
 * XML in and out for the SOAP face. Reading: a strict, namespace-aware streaming parser (saxes)
 * builds a small element tree under limits — no DTD, DOCTYPE or entity declaration is ever
 * processed (refused before parsing), nesting depth, element count and text length are bounded.
 * Writing: {@link XmlWriter}, a string builder that escapes every text and attribute value.
 */
import { SaxesParser } from 'saxes';

export interface XmlAttr {
  uri: string;
  local: string;
  value: string;
}

export interface XmlElement {
  /** Namespace URI ('' = none). */
  uri: string;
  local: string;
  attrs: XmlAttr[];
  children: XmlElement[];
  /** Character data directly inside (text and CDATA), concatenated. */
  text: string;
}

export interface XmlLimits {
  /** Deepest nesting (default 64). */
  maxDepth?: number;
  /** Most elements in a document (default 1,000,000). */
  maxElements?: number;
  /** Longest character data of one element (default 1 MiB). */
  maxText?: number;
  /** Most attributes (namespace declarations included) on one element (default 256). */
  maxAttributes?: number;
}

/** Thrown from the parser's handlers to stop it at once when a limit is passed. */
class LimitReached extends Error {}

export const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/** A document that is not acceptable XML (or breaks a limit); `message` says why. */
export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

/** A DOCTYPE or ENTITY declaration anywhere (SOAP forbids DTDs; billion laughs and XXE live there). */
const DTD_RE = /<!\s*(DOCTYPE|ENTITY)/i;

/** Parses a whole document into its root element, or throws {@link XmlError}. */
export function parseXml(text: string, limits: XmlLimits = {}): XmlElement {
  const b = new TreeBuilder(text, limits);
  while (b.step());
  return b.result();
}

/**
 * {@link parseXml} for a server's event loop: the same tree and the same errors, but the work is
 * cut into slices and the loop is handed back (setImmediate) whenever `sliceMs` (default 10 ms)
 * of parsing has gone by, so other requests are answered while a large document is read.
 */
export async function parseXmlYielding(text: string, limits: XmlLimits = {}, sliceMs = 10): Promise<XmlElement> {
  const b = new TreeBuilder(text, limits);
  let since = performance.now();
  while (b.step()) {
    if (performance.now() - since >= sliceMs) {
      await new Promise<void>((r) => setImmediate(r));
      since = performance.now();
    }
  }
  return b.result();
}

/** Size of one parser write: small enough that a limit stops the work early and a slice stays short. */
const CHUNK = 1 << 14;

/** The tree under construction: {@link step} feeds the parser one chunk at a time. */
class TreeBuilder {
  private readonly parser = new SaxesParser({ xmlns: true, position: false });
  private readonly stack: XmlElement[] = [];
  private root: XmlElement | null = null;
  private failure: string | null = null;
  private at = 0;
  private closed = false;

  constructor(private readonly text: string, limits: XmlLimits) {
    const maxDepth = limits.maxDepth ?? 64;
    const maxElements = limits.maxElements ?? 1_000_000;
    const maxText = limits.maxText ?? 1 << 20;
    const maxAttributes = limits.maxAttributes ?? 256;
    if (DTD_RE.test(text)) throw new XmlError('A DOCTYPE or ENTITY declaration is not allowed in a SOAP message.');
    // The parser hands text over only at the next tag: a run between two '<' far past the limit
    // (even at the densest character references, 10 characters for 1) is refused before parsing.
    for (let i = text.indexOf('<'), prev = -1; ; prev = i, i = text.indexOf('<', i + 1)) {
      const end = i < 0 ? text.length : i;
      if (end - prev - 1 > 10 * maxText) throw new XmlError(`Malformed XML: a text node is longer than ${maxText} characters.`);
      if (i < 0) break;
    }
    const { parser, stack } = this;
    let count = 0;
    let attrs = 0;
    // a limit passed: remember why and stop the parser at once (the handlers throw out of write())
    const stop = (m: string): never => {
      if (this.failure === null) this.failure = m;
      throw new LimitReached(m);
    };
    parser.on('error', (e) => stop(e.message));
    parser.on('opentagstart', () => {
      attrs = 0;
      if (++count > maxElements) stop(`The document has more than ${maxElements} elements.`);
      if (stack.length >= maxDepth) stop(`The document is nested deeper than ${maxDepth} levels.`);
    });
    parser.on('attribute', () => {
      if (++attrs > maxAttributes) stop(`An element has more than ${maxAttributes} attributes.`);
    });
    parser.on('opentag', (tag) => {
      const el: XmlElement = {
        uri: tag.uri ?? '', local: tag.local ?? tag.name, children: [], text: '',
        attrs: Object.values(tag.attributes).map((a) => ({ uri: a.uri ?? '', local: a.local ?? a.name, value: a.value })),
      };
      if (stack.length > 0) stack[stack.length - 1].children.push(el);
      else if (this.root === null) this.root = el;
      stack.push(el);
    });
    parser.on('closetag', () => { stack.pop(); });
    const onText = (t: string): void => {
      if (stack.length === 0) return;
      const el = stack[stack.length - 1];
      if (el.text.length + t.length > maxText) stop(`A text node is longer than ${maxText} characters.`);
      el.text += t;
    };
    parser.on('text', onText);
    parser.on('cdata', onText);
  }

  /** Parses the next chunk (or closes the parser after the last); false when there is no more to do. */
  step(): boolean {
    if (this.closed || this.failure !== null) return false;
    try {
      if (this.at < this.text.length) {
        this.parser.write(this.text.slice(this.at, this.at + CHUNK));
        this.at += CHUNK;
      } else {
        this.closed = true;
        this.parser.close();
      }
    } catch (e) {
      if (this.failure === null) this.failure = (e as Error).message;
    }
    return !this.closed && this.failure === null;
  }

  result(): XmlElement {
    if (this.failure !== null) throw new XmlError(`Malformed XML: ${this.failure}`);
    if (this.root === null) throw new XmlError('Malformed XML: no root element.');
    return this.root;
  }
}

/** The value of an attribute by namespace and local name. */
export function attr(el: XmlElement, uri: string, local: string): string | undefined {
  return el.attrs.find((a) => a.uri === uri && a.local === local)?.value;
}

/** xsi:nil="true" (or "1"). */
export function isNil(el: XmlElement): boolean {
  const v = attr(el, XSI, 'nil');
  return v !== undefined && (v.trim() === 'true' || v.trim() === '1');
}

export function escapeText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;')).replace(/\r/g, '&#xD;');
}

export function escapeAttr(s: string): string {
  return s.replace(/[&<>"\r\n\t]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#xD;', '\n': '&#xA;', '\t': '&#x9;' })[c]!);
}

/** Characters XML 1.0 cannot carry at all (dropped when writing). */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string builder for XML: elements with escaped text and attributes. */
export class XmlWriter {
  private readonly parts: string[] = [];

  raw(s: string): this {
    this.parts.push(s);
    return this;
  }

  /** `<name attrs>` */
  open(name: string, attrs?: Record<string, string>): this {
    this.parts.push(`<${name}${attrsText(attrs)}>`);
    return this;
  }

  close(name: string): this {
    this.parts.push(`</${name}>`);
    return this;
  }

  /** `<name attrs/>` */
  empty(name: string, attrs?: Record<string, string>): this {
    this.parts.push(`<${name}${attrsText(attrs)} />`);
    return this;
  }

  /** `<name>text</name>` */
  leaf(name: string, text: string): this {
    this.parts.push(`<${name}>${escapeText(text.replace(NOT_XML, ''))}</${name}>`);
    return this;
  }

  toString(): string {
    return this.parts.join('');
  }
}

function attrsText(attrs?: Record<string, string>): string {
  if (!attrs) return '';
  let s = '';
  for (const [k, v] of Object.entries(attrs)) s += ` ${k}="${escapeAttr(v)}"`;
  return s;
}
