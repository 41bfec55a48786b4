/** Keys, digests and password hashes (src/store/hash.ts). */
import { describe, expect, it } from 'vitest';
import { hashPassword, keyHash, newApiKey, newSessionKey, sameDigest, verifyPassword } from '../../src/store/hash.js';

describe('store/hash', () => {
  it('API keys: dk_ + 32 random bytes in base64url, all different', () => {
    const keys = new Set(Array.from({ length: 1000 }, newApiKey));
    expect(keys.size).toBe(1000);
    for (const k of keys) {
      expect(k).toMatch(/^dk_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(k.slice(3), 'base64url')).toHaveLength(32);
    }
  });

  it('session keys: random GUIDs, all different', () => {
    const keys = new Set(Array.from({ length: 1000 }, newSessionKey));
    expect(keys.size).toBe(1000);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('keyHash is the SHA-256 of the UTF-8 key; sameDigest compares digests', () => {
    expect(keyHash('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(keyHash('é')).toEqual(keyHash('\u00e9'));
    expect(keyHash('dk_x')).toHaveLength(32);
    expect(sameDigest(keyHash('a'), keyHash('a'))).toBe(true);
    expect(sameDigest(keyHash('a'), keyHash('b'))).toBe(false);
    expect(sameDigest(keyHash('a'), keyHash('a').subarray(0, 16))).toBe(false);
  });

  it('passwords: scrypt with a random salt and its parameters; verify accepts only the password', async () => {
    const h1 = await hashPassword('correct horse');
    const h2 = await hashPassword('correct horse');
    expect(h1).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(h1).not.toBe(h2);
    expect(await verifyPassword('correct horse', h1)).toBe(true);
    expect(await verifyPassword('correct horse', h2)).toBe(true);
    expect(await verifyPassword('correct horsf', h1)).toBe(false);
    expect(await verifyPassword('', h1)).toBe(false);
    // unicode: NFC and NFD spellings are the same password
    expect(await verifyPassword('e\u0301', await hashPassword('\u00e9'))).toBe(true);
    // malformed or absurd stored strings are false, never a throw or a minutes-long hash
    for (const bad of ['', 'plain', 'scrypt$16384$8$1$AAAA', 'bcrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'scrypt$1048577$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'scrypt$1000$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      expect(await verifyPassword('x', bad)).toBe(false);
    }
    // the fixed hash the service verifies against for unknown users is well-formed (takes the full time) and matches nothing
    expect(await verifyPassword('demo', 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe(false);
  });
});
