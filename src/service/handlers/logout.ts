/** Logout: ends the session of the key sent (sent with the API key it ends nothing). */
import type { Call } from '../call.js';
import { keyHash } from '../../store/hash.js';

export async function logout(_spec: unknown, call: Call): Promise<{ Status: 'Success'; Errors: [] }> {
  await call.service.store.deleteSession(keyHash(call.key!));
  return { Status: 'Success', Errors: [] };
}
