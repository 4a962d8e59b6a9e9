// The in-flight cap: at most `cap` calls on the wire, the rest wait in FIFO
// order. The 2022 study found this the biggest lever on tail latency: a
// server takes ~100 streams per connection and the rest queue in HTTP/2,
// unseen and unordered; queueing here keeps order and lets a waiter give up
// at its deadline.
//
// Below the cap tryAcquire() takes a slot with no allocation; only callers
// that must wait build a waiter.
//
// Under `maxConcurrentRequests: 'auto'` the AdaptiveLimiter below moves the
// cap: each release reports the call's time on the wire to an AdaptiveLimit
// (adaptive-limit.ts), and when the cap rises the oldest waiters take the
// new slots at once. The fixed Limiter never pays for that.
import type { AdaptiveLimit, InFlightLimitChange } from './adaptive-limit.js';

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Cleared when the waiter timed out, so release() skips it. */
  live: boolean;
}

export class Limiter {
  protected inFlightNow = 0;
  protected highWater = 0;
  // A FIFO as an array plus a head index: O(1) at both ends, compacted when
  // the dead prefix grows.
  protected queue: Waiter[] = [];
  protected head = 0;
  protected liveWaiters = 0;

  /** `cap` 0 means no cap. */
  constructor(protected limit: number) {}

  /** The cap now; 0 = none. */
  get cap(): number {
    return this.limit;
  }

  /** The cap's changes since creation (a fixed cap: one). */
  history(): InFlightLimitChange[] {
    return [{ atMs: 0, limit: this.limit }];
  }

  /** Calls holding a slot now. */
  get inFlight(): number {
    return this.inFlightNow;
  }

  /** The most calls that held slots at once since creation. */
  get highWaterMark(): number {
    return this.highWater;
  }

  /** Calls waiting for a slot. */
  get waiting(): number {
    return this.liveWaiters;
  }

  /** Takes a slot if one is free and nobody is waiting; never waits. */
  tryAcquire(): boolean {
    if (this.limit !== 0 && (this.inFlightNow >= this.limit || this.liveWaiters > 0)) return false;
    this.take();
    return true;
  }

  /**
   * Waits in line for a slot. Rejects with `onTimeout()`'s error if no slot
   * frees before `deadline` (ms since the epoch).
   */
  acquire(deadline: number, onTimeout: () => Error): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: undefined, live: true };
      waiter.timer = setTimeout(() => {
        waiter.live = false;
        this.liveWaiters -= 1;
        reject(onTimeout());
      }, Math.max(0, deadline - Date.now()));
      this.queue.push(waiter);
      this.liveWaiters += 1;
    });
  }

  /** Gives a slot back; the longest waiter, if any, takes it. */
  release(): void {
    this.inFlightNow -= 1;
    this.admitWaiters();
  }

  /** Rejects every waiter (the client is closing). */
  rejectAll(err: Error): void {
    const waiters = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    this.liveWaiters = 0;
    for (const waiter of waiters) {
      if (!waiter.live) continue;
      waiter.live = false;
      clearTimeout(waiter.timer);
      waiter.reject(err);
    }
  }

  /**
   * Hands free slots to the longest waiters: one after a release under a
   * fixed cap, as many as a raised adaptive cap allows.
   */
  protected admitWaiters(): void {
    while (this.head < this.queue.length && this.inFlightNow < this.limit) {
      const waiter = this.queue[this.head]!;
      this.head += 1;
      if (!waiter.live) continue;
      waiter.live = false;
      this.liveWaiters -= 1;
      clearTimeout(waiter.timer);
      this.take();
      waiter.resolve();
    }
    this.compact();
  }

  protected take(): void {
    this.inFlightNow += 1;
    if (this.inFlightNow > this.highWater) this.highWater = this.inFlightNow;
  }

  protected compact(): void {
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}

/** A Limiter whose cap `adaptive` moves; release() takes the call's time. */
export class AdaptiveLimiter extends Limiter {
  constructor(readonly adaptive: AdaptiveLimit) {
    super(adaptive.limit);
  }

  override history(): InFlightLimitChange[] {
    return this.adaptive.history.map((change) => ({ ...change }));
  }

  /** Frees the slot; `rttMs` is the call's time on the wire, negative if it has none. */
  override release(rttMs = -1): void {
    if (rttMs >= 0 && this.adaptive.sample(rttMs, this.inFlightNow)) this.limit = this.adaptive.limit;
    super.release();
  }

  /** A call ended in a loss: the limit will back off. */
  drop(): void {
    this.adaptive.drop();
  }
}
