/** CreditRemaining: the account's balance. */
import type { CreditResult } from '../../records/index.js';
import type { Call } from '../call.js';

export async function creditRemaining(_spec: unknown, call: Call): Promise<CreditResult> {
  const balance = await call.service.store.balance(call.account!.id);
  return { Status: 'Success', Errors: [], Credit: balance ?? 0 };
}
