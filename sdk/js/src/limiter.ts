// The in-flight cap: at most `cap` calls on the wire, the rest wait in FIFO
// order. The 2022 study found this the biggest lever on tail latency: a
// server takes ~100 streams per connection and the rest queue in HTTP/2,
// unseen and unordered; queueing here keeps order and lets a waiter give up
// at its deadline.
//
// Below the cap tryAcquire() takes a slot with no allocation; only callers
// that must wait build a waiter.

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Cleared when the waiter timed out, so release() skips it. */
  live: boolean;
}

export class Limiter {
  private inFlightNow = 0;
  private highWater = 0;
  // A FIFO as an array plus a head index: O(1) at both ends, compacted when
  // the dead prefix grows.
  private queue: Waiter[] = [];
  private head = 0;
  private liveWaiters = 0;

  /** `cap` 0 means no cap. */
  constructor(readonly cap: number) {}

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
    if (this.cap !== 0 && (this.inFlightNow >= this.cap || this.liveWaiters > 0)) return false;
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
    while (this.head < this.queue.length) {
      const waiter = this.queue[this.head]!;
      this.head += 1;
      if (!waiter.live) continue;
      waiter.live = false;
      this.liveWaiters -= 1;
      clearTimeout(waiter.timer);
      this.take();
      this.compact();
      waiter.resolve();
      return;
    }
    this.compact();
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

  private take(): void {
    this.inFlightNow += 1;
    if (this.inFlightNow > this.highWater) this.highWater = this.inFlightNow;
  }

  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
