// Which calls may be sent again, on which failures, after how long.
//
// Only idempotent calls are retried: sending a Set twice leaves the same
// item, sending an Increment twice counts twice. UNAVAILABLE and INTERNAL
// are the failures where the server most likely did not apply the call
// (connection refused or reset, a stream torn down); anything else is the
// server's answer and is final.
import type { RetryOptions } from './config.js';
import { Status } from './status.js';

/** RPC method names (the last part of the gRPC path) safe to send twice. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  'Get',
  'GetBatch',
  'Set',
  'SetBatch',
  'Delete',
  'KeysExist',
  'ItemGetTtl',
  'ItemGetType',
  'GetWithHash',
  // Collection calls, as sdk/spec.json's `retry` column has them (a unit
  // test keeps the two equal). Reads, and writes that leave the same result
  // when sent twice: setting fields or scores, adding or removing elements,
  // removing every copy of a list value. Never the pushes, pops, increments,
  // retain, erase or union store: a second one pushes, pops or counts again,
  // or cuts a list that has changed since.
  'DictionaryGet',
  'DictionaryFetch',
  'DictionarySet',
  'DictionaryDelete',
  'DictionaryLength',
  'ListFetch',
  'ListRemove',
  'ListLength',
  'SetUnion',
  'SetDifference',
  'SetFetch',
  'SetContains',
  'SetLength',
  'SetSample',
  'SortedSetPut',
  'SortedSetFetch',
  'SortedSetGetScore',
  'SortedSetGetRank',
  'SortedSetRemove',
  'SortedSetLength',
  'SortedSetLengthByScore',
  // Opening a subscription changes nothing (a second Publish would be a
  // second message: never retried).
  'Subscribe',
  // Reads of the control plane. CreateCache and DeleteCache are not safe
  // twice: after a lost answer a retry reports ALREADY_EXISTS / NOT_FOUND for
  // the client's own success. Nor is FlushCache: a second flush would also
  // erase what other clients wrote after the first (same rule in Python).
  'ListCaches',
  'Ping',
]);

export function isRetryableStatus(code: number): boolean {
  return code === Status.UNAVAILABLE || code === Status.INTERNAL;
}

/**
 * Delay before retry number `retry` (1 = the second attempt): the initial
 * backoff doubled per retry, capped at maxBackoffMs, then cut by up to
 * `jitter` of itself at random.
 */
export function backoffMs(retry: number, policy: Readonly<RetryOptions>, random: () => number = Math.random): number {
  const exponential = policy.initialBackoffMs * 2 ** Math.max(0, retry - 1);
  const capped = Math.min(policy.maxBackoffMs, exponential);
  return capped * (1 - policy.jitter * random());
}
