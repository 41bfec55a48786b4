/**
 * Secrets of the service, never stored as such: API keys and Login session keys are random
 * (node:crypto) and kept only as their SHA-256 digest ({@link keyHash}); passwords are kept as
 * scrypt strings ({@link hashPassword}). Comparisons of digests are constant-time.
 */
import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** A new API key: `dk_` + 32 random bytes, base64url (43 characters). */
export function newApiKey(): string {
  return 'dk_' + randomBytes(32).toString('base64url');
}

/** A new Login session key: a random GUID (version 4, 122 random bits), as the original's. */
export function newSessionKey(): string {
  return randomUUID();
}

/** SHA-256 of the key's UTF-8 bytes (32 bytes): what the database keeps. */
export function keyHash(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Whether two digests are equal, in time independent of where they differ. */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** scrypt parameters of new hashes (N = 2^14, r = 8, p = 1: 16 MiB, ~50 ms). */
const N = 16384, R = 8, P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Bounds for parameters read back from the database (a damaged or hostile row cannot make verification take minutes or GiB). */
const MAX_N = 1 << 20, MAX_R = 32, MAX_P = 16;

function scryptAsync(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');

/**
 * A scrypt hash of the password with a random 16-byte salt: `scrypt$N$r$p$<salt>$<hash>`
 * (salt and 32-byte hash in base64 without padding). The password is NFC-normalised first.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(password, salt, KEY_BYTES, { N, r: R, p: P, maxmem: 256 * N * R });
  return `scrypt$${N}$${R}$${P}$${b64(salt)}$${b64(hash)}`;
}

/**
 * Whether `password` matches a string made by {@link hashPassword} (with whatever parameters it
 * records). False for a malformed string. The comparison is constant-time.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = typeof stored === 'string' ? stored.split('$') : [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (!Number.isInteger(n) || n < 2 || n > MAX_N || (n & (n - 1)) !== 0) return false;
  if (!Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P) return false;
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  if (salt.length === 0 || expected.length < 16 || expected.length > 64) return false;
  let actual: Buffer;
  try {
    actual = await scryptAsync(typeof password === 'string' ? password : '', salt, expected.length, { N: n, r, p, maxmem: 256 * n * r + (1 << 20) });
  } catch {
    return false;
  }
  return timingSafeEqual(actual, expected);
}
