// Runs one call end to end: the in-flight cap, the deadline, retries of
// idempotent calls, and the translation of failures into CacheErrors. Every
// call of the client goes through here, data and control alike.
import { type CallContext, clientClosed, queueTimeout, toCacheError } from './errors.js';
import type { ResolvedKnobs } from './config.js';
import type { ChannelPool } from './channel-pool.js';
import { Limiter } from './limiter.js';
import { IDEMPOTENT_METHODS, backoffMs, isRetryableStatus } from './retry.js';
import { StatusError } from './transport/channel.js';

/** What the runner needs to know about one RPC. */
export interface Rpc {
  /** The method's name, e.g. 'Get'. */
  method: string;
  /** The gRPC path, e.g. '/cache_client.Scs/Get'. */
  path: string;
  /** Whether the call names a cache (NOT_FOUND then means the cache). */
  cacheCall: boolean;
  /**
   * Whether the call waits under the in-flight cap. Data calls do; control
   * calls and pings do not: they are rare, and a createCache must not queue
   * behind thousands of gets (as in the Python SDK).
   */
  capped: boolean;
}

export function scsRpc(method: string): Rpc {
  return { method, path: `/cache_client.Scs/${method}`, cacheCall: true, capped: true };
}

export function controlRpc(method: string, cacheCall: boolean): Rpc {
  return { method, path: `/control_client.ScsControl/${method}`, cacheCall, capped: false };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class CallRunner {
  readonly limiter: Limiter;
  private closed = false;

  constructor(
    private readonly knobs: ResolvedKnobs,
    /** host:port, for error messages. */
    private readonly target: string,
  ) {
    this.limiter = new Limiter(knobs.maxConcurrentRequests);
  }

  unary(pool: ChannelPool, rpc: Rpc, request: Uint8Array, metadata: Readonly<Record<string, string>>): Promise<Uint8Array> {
    return this.run(rpc, (deadline) => pool.unary(rpc.path, request, { deadline, metadata }));
  }

  serverStream(
    pool: ChannelPool,
    rpc: Rpc,
    request: Uint8Array,
    metadata: Readonly<Record<string, string>>,
  ): Promise<Uint8Array[]> {
    return this.run(rpc, (deadline) => pool.serverStream(rpc.path, request, { deadline, metadata }));
  }

  /** Rejects queued calls; calls on the wire end when the channels close. */
  close(): void {
    this.closed = true;
    this.limiter.rejectAll(clientClosed('call'));
  }

  private async run<T>(rpc: Rpc, attempt: (deadline: number) => Promise<T>): Promise<T> {
    if (this.closed) throw clientClosed(rpc.method);
    const deadline = Date.now() + this.knobs.deadlineMs;
    const capped = rpc.capped;
    if (capped && !this.limiter.tryAcquire()) {
      await this.limiter.acquire(deadline, () =>
        queueTimeout(rpc.method, this.knobs.deadlineMs, this.knobs.maxConcurrentRequests),
      );
    }
    try {
      const maxAttempts = IDEMPOTENT_METHODS.has(rpc.method) ? this.knobs.retry.maxAttempts : 1;
      for (let attemptNumber = 1; ; attemptNumber += 1) {
        try {
          return await attempt(deadline);
        } catch (err) {
          if (this.closed) throw clientClosed(rpc.method);
          if (!(err instanceof StatusError) || attemptNumber >= maxAttempts || !isRetryableStatus(err.code)) {
            throw toCacheError(err, this.context(rpc));
          }
          const delay = backoffMs(attemptNumber, this.knobs.retry);
          if (Date.now() + delay >= deadline) throw toCacheError(err, this.context(rpc));
          await sleep(delay);
        }
      }
    } finally {
      if (capped) this.limiter.release();
    }
  }

  private context(rpc: Rpc): CallContext {
    return { call: rpc.method, deadlineMs: this.knobs.deadlineMs, target: this.target, cacheCall: rpc.cacheCall };
  }
}
