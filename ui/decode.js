// A file's bytes as text, saying which encoding was read: a byte-order mark decides (UTF-8,
// UTF-16 LE or BE); else strict UTF-8 (a byte sequence that is not UTF-8 fails it), and when that
// fails Windows-1252 (what Excel on Western-European Windows writes as "CSV"): never mojibake
// without a word.

/** `{ text, encoding }` of a file's bytes; `encoding` is 'UTF-8', 'UTF-16LE', 'UTF-16BE' or 'Windows-1252'. The BOM is not part of the text. */
export function decodeBytes(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'UTF-8' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'UTF-16LE' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'UTF-16BE' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'UTF-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'Windows-1252' };
  }
}

/** A File's text and the encoding it was read in. */
export async function readFileText(file) {
  return decodeBytes(await file.arrayBuffer());
}
