// Which calls may be sent again, on which failures, after how long.
//
// Only idempotent calls are retried: sending a Set twice leaves the same
// item, sending an Increment twice counts twice. UNAVAILABLE and INTERNAL
// are the failures where the server most likely did not apply the call
// (connection refused or reset, a stream torn down); anything else is the
// server's answer and is final.
import type { RetryOptions } from './config.js';
import { RPCS } from './rpcs.gen.js';
import { Status } from './status.js';

/**
 * RPC method names (the last part of the gRPC path) safe to send twice: the
 * catalogue's idempotent calls (sdk/spec.json `rpcs`, which says why).
 */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(
  Object.values(RPCS)
    .filter((rpc) => rpc.idempotent)
    .map((rpc) => rpc.method),
);

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
