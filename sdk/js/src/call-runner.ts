// Runs one call end to end: the in-flight cap, the deadline, retries of
// idempotent calls, and the translation of failures into CacheErrors. Every
// call of the client goes through here, data and control alike. Under
// `maxConcurrentRequests: 'auto'` the AdaptiveCallRunner below runs them
// instead: the same path plus one clock read per capped call, so a fixed
// cap costs no more than it did.
import { ADAPTIVE, AdaptiveLimit, isLoss } from './adaptive-limit.js';
import { type CallContext, clientClosed, queueTimeout, toCacheError } from './errors.js';
import type { ResolvedKnobs } from './config.js';
import type { ChannelPool } from './channel-pool.js';
import { AdaptiveLimiter, Limiter } from './limiter.js';
import { backoffMs, isRetryableStatus } from './retry.js';
import { statusName } from './status.js';
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
  /** Safe to send twice: retried on UNAVAILABLE and INTERNAL (the catalogue says which). */
  idempotent: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The runner for `knobs`: a fixed cap or 'auto'. */
export function newCallRunner(knobs: ResolvedKnobs, target: string): CallRunner {
  return knobs.maxConcurrentRequests === 'auto' ? new AdaptiveCallRunner(knobs, target) : new CallRunner(knobs, target);
}

export class CallRunner {
  readonly limiter: Limiter;
  protected closed = false;

  constructor(
    protected readonly knobs: ResolvedKnobs,
    /** host:port, for error messages. */
    protected readonly target: string,
  ) {
    this.limiter = this.newLimiter(knobs);
  }

  /** The cap on calls in flight now; 0 = none. */
  inFlightLimit(): number {
    return this.limiter.cap;
  }

  protected newLimiter(knobs: ResolvedKnobs): Limiter {
    return new Limiter(knobs.maxConcurrentRequests === 'auto' ? 0 : knobs.maxConcurrentRequests);
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

  /** Runs `attempt` (one try on the wire, by its deadline) under the cap, with retries and error mapping. */
  async run<T>(rpc: Rpc, attempt: (deadline: number) => Promise<T>): Promise<T> {
    if (this.closed) throw clientClosed(rpc.method);
    const deadline = Date.now() + this.knobs.deadlineMs;
    const capped = rpc.capped;
    if (capped && !this.limiter.tryAcquire()) {
      await this.limiter.acquire(deadline, () => queueTimeout(rpc.method, this.knobs.deadlineMs, this.limiter.cap));
    }
    try {
      return await attempt(deadline);
    } catch (err) {
      return await this.retry(rpc, attempt, deadline, err);
    } finally {
      if (capped) this.limiter.release();
    }
  }

  /** After a failed attempt: retry while allowed and time is left, else reject. */
  protected async retry<T>(rpc: Rpc, attempt: (deadline: number) => Promise<T>, deadline: number, failed: unknown): Promise<T> {
    const maxAttempts = rpc.idempotent ? this.knobs.retry.maxAttempts : 1;
    let err = failed;
    for (let attemptNumber = 1; ; attemptNumber += 1) {
      if (this.closed) throw clientClosed(rpc.method);
      if (!(err instanceof StatusError) || attemptNumber >= maxAttempts || !isRetryableStatus(err.code)) {
        throw toCacheError(err, this.context(rpc));
      }
      const delay = backoffMs(attemptNumber, this.knobs.retry);
      if (Date.now() + delay >= deadline) throw toCacheError(err, this.context(rpc));
      await sleep(delay);
      try {
        return await attempt(deadline);
      } catch (next) {
        err = next;
      }
    }
  }

  protected context(rpc: Rpc): CallContext {
    return { call: rpc.method, deadlineMs: this.knobs.deadlineMs, target: this.target, cacheCall: rpc.cacheCall };
  }
}

/** maxConcurrentRequests 'auto': the cap follows each capped call's time on the wire. */
export class AdaptiveCallRunner extends CallRunner {
  declare readonly limiter: AdaptiveLimiter;

  protected override newLimiter(knobs: ResolvedKnobs): AdaptiveLimiter {
    const ceiling = ADAPTIVE.streamsPerConnection * knobs.channels;
    const targetP999Ms = knobs.targetP999Ms > 0 ? knobs.targetP999Ms : undefined;
    return new AdaptiveLimiter(new AdaptiveLimit(ceiling, { targetP999Ms }));
  }

  override inFlightLimit(): number {
    return this.limiter.adaptive.chosen;
  }

  /**
   * CallRunner.run, timing each capped call from when it holds a slot: the
   * queue in front of the cap is the cap's doing, not the server's. Only the
   * first attempt's answer is a sample; a call that retried has none.
   */
  override async run<T>(rpc: Rpc, attempt: (deadline: number) => Promise<T>): Promise<T> {
    if (!rpc.capped) return super.run(rpc, attempt);
    if (this.closed) throw clientClosed(rpc.method);
    const deadline = Date.now() + this.knobs.deadlineMs;
    const limiter = this.limiter;
    if (!limiter.tryAcquire()) {
      await limiter.acquire(deadline, () => queueTimeout(rpc.method, this.knobs.deadlineMs, limiter.cap));
    }
    let rttMs = -1; // no sample unless an answer comes
    const sent = performance.now();
    try {
      const answer = await attempt(deadline);
      rttMs = performance.now() - sent;
      return answer;
    } catch (err) {
      if (err instanceof StatusError && isLoss(statusName(err.code), err.trailers.err)) limiter.drop();
      return await this.retry(rpc, attempt, deadline, err);
    } finally {
      limiter.release(rttMs);
    }
  }
}
