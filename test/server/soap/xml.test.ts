/**
 * The XML reader (src/server/soap/xml.ts): the sliced parser that the server uses for long
 * bodies gives the same tree and the same errors as the one-go parser, and hands the event loop
 * back while it works (a timer set before a large parse fires before the parse ends).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseXml, parseXmlYielding, XmlError } from '../../../src/server/soap/xml.js';

const settle = async <T>(f: () => T | Promise<T>): Promise<{ ok: T } | { error: string }> => {
  try {
    return { ok: await f() };
  } catch (e) {
    expect(e).toBeInstanceOf(XmlError);
    return { error: (e as Error).message };
  }
};

describe('parseXmlYielding', () => {
  it('equals parseXml on random documents, well-formed or not, under tight limits', async () => {
    const name = fc.constantFrom('a', 'b', 'p:c', 'Body');
    const piece = fc.oneof(
      name.map((n) => `<${n}>`), name.map((n) => `</${n}>`), name.map((n) => `<${n}/>`),
      fc.string({ maxLength: 12 }).map((t) => t.replace(/[<&]/g, '')), fc.constant('<![CDATA[x<y]]>'),
      fc.constant(' xmlns:p="urn:p"'), fc.constant('&amp;'), fc.constant('<!DOCTYPE'),
    );
    await fc.assert(fc.asyncProperty(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), async (parts, maxDepth) => {
      const text = `<r xmlns:p="urn:p">${parts.join('')}</r>`;
      const limits = { maxDepth, maxElements: 20, maxText: 30 };
      expect(await settle(() => parseXmlYielding(text, limits, 0))).toEqual(await settle(() => parseXml(text, limits)));
    }), { numRuns: 400, seed: 17 });
  });

  it('hands the event loop back during a long parse; the element limit still stops it', async () => {
    const text = `<r>${'<a x="1"><b>t</b></a>'.repeat(150_000)}</r>`; // 300,001 elements, ~3.3 MB
    let ticks = 0;
    const timer = setInterval(() => { ticks++; }, 1);
    const t0 = performance.now();
    const root = await parseXmlYielding(text);
    const ms = performance.now() - t0;
    clearInterval(timer);
    expect(root.children.length).toBe(150_000);
    expect(root.children[149_999].children[0].text).toBe('t');
    // one tick per ~10 ms slice at the least (the parse takes well over 50 ms)
    expect(ms).toBeGreaterThan(50);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(ms / 40));
    await expect(parseXmlYielding(text, { maxElements: 1000 })).rejects.toThrow(/more than 1000 elements/);
  });
});
