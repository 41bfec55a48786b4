/** Login(userName, password) → a session key; never a refusal (wrong credentials, limits: Status Failed). */
import type { LoginResult, LoginSpecificationSchema, Parsed } from '../../records/index.js';
import { keyHash, newSessionKey, verifyPassword } from '../../store/hash.js';
import type { Call } from '../call.js';
import { MAX_NAME } from './common.js';

/** A scrypt hash of a random password, verified when the user name is unknown (equal timing). */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const failed = (message: string): LoginResult => ({ Message: message, Status: 'Failed' });

export async function login(spec: Parsed<typeof LoginSpecificationSchema>, call: Call): Promise<LoginResult> {
  const { UserName: userName, Password: password } = spec;
  if (!userName || password === undefined) return failed('userName and password are required.');
  if (userName.length > MAX_NAME || password.length > 1024) return failed('Wrong user name or password.');
  const svc = call.service;
  const verdict = svc.loginGuard.admit(userName, call.client);
  if (!verdict.ok) return failed(verdict.message);
  let ok = false;
  let a;
  try {
    a = await svc.store.accountByName(userName);
    // verify against a fixed hash when there is no such account, so the answer takes as long
    ok = await verifyPassword(password, a?.passwordHash ?? DUMMY_HASH);
  } finally {
    verdict.release();
  }
  const good = !!a && !!a.passwordHash && ok;
  svc.loginGuard.record(userName, call.client, good);
  if (!good || !a) return failed('Wrong user name or password.');
  if (a.blocked) return failed(`Account '${a.name}' is blocked.`);
  if (a.expiresAt !== null && a.expiresAt <= svc.clock()) return failed(`Account '${a.name}' has expired.`);
  const key = newSessionKey();
  await svc.store.createSession({ keyHash: keyHash(key), accountId: a.id, now: svc.clock() });
  return { Message: 'Success', Status: 'Success', Key: key };
}
