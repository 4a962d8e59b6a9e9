// maxConcurrentRequests 'auto': the AdaptiveLimit against simulated servers on
// a fake clock, the AdaptiveLimiter's slots, and the AdaptiveCallRunner.
//
// The simulated server answers a call in `baseMs` while it has room; past
// capacity x base calls in flight (Little's law: the most it serves without
// a queue) each extra call in flight adds 1 / capacity of waiting, the way
// a saturated server, client thread or link behaves. A jitter of a few
// percent keeps the medians honest. The client can be paused (a GC, the
// event loop held): nothing it does happens meanwhile, and the answers that
// came are seen when it wakes, all at once. The Python SDK's
// tests/test_adaptive_limit.py runs the same scenarios.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADAPTIVE, AdaptiveLimit } from '../../src/adaptive-limit.js';
import { AdaptiveCallRunner, newCallRunner } from '../../src/call-runner.js';
import { RPCS } from '../../src/rpcs.gen.js';
import { ChannelPool } from '../../src/channel-pool.js';
import { resolveKnobs } from '../../src/config.js';
import { AdaptiveLimiter } from '../../src/limiter.js';
import { Status } from '../../src/status.js';
import { StatusError, type ChannelTarget } from '../../src/transport/channel.js';
import { fakeFactory } from '../support/fake-channel.js';

const { initialLimit, minLimit, streamsPerConnection, historyIntervalMs } = ADAPTIVE;

/** A seeded uniform [0, 1) (mulberry32), so every run sees the same server. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Server {
  private readonly uniform = seeded(7);

  constructor(
    /** Ms a call takes with room to spare (the network and the work). */
    public baseMs: number,
    /** Calls per second it completes at most. */
    public capacity: number,
    public jitter = 0.05,
  ) {}

  rtt(inFlight: number): number {
    const perMs = this.capacity / 1000;
    const queued = Math.max(0, inFlight - perMs * this.baseMs);
    const gauss = Math.sqrt(-2 * Math.log(1 - this.uniform())) * Math.cos(2 * Math.PI * this.uniform());
    return (this.baseMs + queued / perMs) * Math.exp(this.jitter * gauss);
  }
}

interface Done {
  at: number;
  rtt: number;
  /** From when the caller asked (queue included). */
  total: number;
}

interface SimOptions {
  workers?: number;
  rate?: number;
  ceiling?: number;
  targetP999Ms?: number;
}

/** Callers under an AdaptiveLimit on a fake clock (ms): closed-loop workers, or an open loop of `rate` calls/s. */
class Sim {
  now = 0;
  readonly limit: AdaptiveLimit;
  inFlight = 0;
  readonly queue: number[] = [];
  readonly done: Done[] = [];
  readonly limits: [number, number][];
  longestQueue = 0;
  rate: number;
  // A binary heap of [at, seq, rtt, asked] (rtt < 0: an open-loop call due at `asked`).
  private readonly events: [number, number, number, number][] = [];
  private seq = 0;
  private pausedUntil = 0;

  constructor(
    readonly server: Server,
    options: SimOptions,
  ) {
    this.limit = new AdaptiveLimit(options.ceiling ?? streamsPerConnection, {
      targetP999Ms: options.targetP999Ms,
      now: () => this.now,
    });
    this.limits = [[0, this.limit.chosen]];
    this.rate = options.rate ?? 0;
    for (let i = 0; i < (options.workers ?? 0); i += 1) this.ask(0);
    if (this.rate > 0) this.push(0, -1, 0);
  }

  /** The client stops for `ms` from now: what happens meanwhile waits for it. */
  pause(ms: number): void {
    this.pausedUntil = this.now + ms;
  }

  run(ms: number): Done[] {
    const until = this.now + ms;
    const first = this.done.length;
    while (this.events.length > 0 && this.events[0]![0] <= until) {
      const [at, , rtt, asked] = this.pop();
      if (at < this.pausedUntil) {
        // Seen when the client wakes, the pause on its clock.
        const woken = this.pausedUntil;
        this.push(woken, rtt >= 0 ? rtt + woken - at : rtt, asked);
        continue;
      }
      this.now = at;
      if (rtt < 0) {
        this.ask(asked);
        this.push(asked + 1000 / this.rate, -1, asked + 1000 / this.rate);
        continue;
      }
      this.limit.sample(rtt, this.inFlight);
      this.inFlight -= 1;
      this.done.push({ at, rtt, total: at - asked });
      if (this.limits.at(-1)![1] !== this.limit.chosen) this.limits.push([at, this.limit.chosen]);
      while (this.queue.length > 0 && this.inFlight < this.limit.limit) this.send(this.queue.shift()!);
      if (this.rate === 0) this.ask(at);
    }
    this.now = until;
    return this.done.slice(first);
  }

  limitsBetween(start: number, end: number): number[] {
    const before = this.limits.filter(([at]) => at <= start).slice(-1);
    return [...before, ...this.limits.filter(([at]) => at > start && at <= end)].map(([, limit]) => limit);
  }

  private ask(asked: number): void {
    if (this.inFlight < this.limit.limit && this.queue.length === 0) {
      this.send(asked);
    } else {
      this.queue.push(asked);
      this.longestQueue = Math.max(this.longestQueue, this.queue.length);
    }
  }

  private send(asked: number): void {
    this.inFlight += 1;
    const rtt = this.server.rtt(this.inFlight);
    this.push(this.now + rtt, rtt, asked);
  }

  private push(at: number, rtt: number, asked: number): void {
    const heap = this.events;
    this.seq += 1;
    heap.push([at, this.seq, rtt, asked]);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): [number, number, number, number] {
    const heap = this.events;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && this.before(heap[left]!, heap[least]!)) least = left;
        if (right < heap.length && this.before(heap[right]!, heap[least]!)) least = right;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  }

  private before(a: [number, number, number, number], b: [number, number, number, number]): boolean {
    return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  }
}

const ratePerS = (done: Done[], ms: number): number => (done.length * 1000) / ms;

function percentile(values: number[], share: number): number {
  const ordered = [...values].sort((a, b) => a - b);
  return ordered[Math.min(ordered.length - 1, Math.floor(ordered.length * share))]!;
}

const median = (done: Done[]): number => percentile(done.map((d) => d.rtt), 0.5);

// A server 1 ms away that completes 10,000 calls/s: 10 in flight fill it, and
// the 1 ms of queueing allowed (queueDelayMs) puts the knee near 20.
const near = (): Server => new Server(1, 10_000);
const KNEE = 20;

describe('AdaptiveLimit against a simulated server', () => {
  test('starts small and rises quickly', () => {
    const sim = new Sim(near(), { workers: 200 });
    assert.equal(sim.limit.limit, initialLimit);
    sim.run(20); // 20 round trips
    assert.ok(sim.limit.chosen >= 10, `the server is full: ${sim.limit.chosen}`);
  });

  for (const [baseMs, withinMs] of [[0.3, 10], [1.3, 20], [10.3, 150]] as const) {
    test(`slow start reaches the knee in a few round trips, ${baseMs} ms away`, () => {
      // From 4 in flight to the knee of a client that completes 10,000
      // calls/s at most (its CPU): doubling per round trip, about ten of
      // them at 10 ms (the ceiling of 3 connections, 300, is out of the way).
      const server = new Server(baseMs, 10_000);
      const sim = new Sim(server, { workers: 1_000, ceiling: 3 * streamsPerConnection });
      sim.run(withinMs);
      const filling = (server.capacity * baseMs) / 1000; // the calls in flight that keep it busy
      assert.ok(sim.limit.chosen >= filling, `${sim.limit.chosen} < ${filling}`);
      const done = sim.run(500);
      assert.ok(ratePerS(done, 500) >= 0.97 * server.capacity, `${ratePerS(done, 500)} calls/s`);
      const knee = (server.capacity * (baseMs + Math.max(1, 0.25 * baseMs))) / 1000;
      // Past it by one doubling at most, and back where queueing begins.
      const highest = Math.max(...sim.limitsBetween(withinMs, withinMs + 500));
      assert.ok(highest <= 2 * knee, `${highest} > 2 x ${knee}`);
      assert.ok(sim.limit.chosen >= filling && sim.limit.chosen <= 1.3 * knee, `${sim.limit.chosen}, knee ${knee}`);
      assert.ok(median(done) <= 1.5 * baseMs + 1, `median ${median(done)}`);
    });
  }

  test('settles where queueing begins', () => {
    const sim = new Sim(near(), { workers: 200 });
    sim.run(1000);
    const done = sim.run(1000);
    assert.ok(ratePerS(done, 1000) >= 0.97 * 10_000);
    // About 1 ms of queueing over the 1 ms a call takes, not the 19 ms that
    // 200 callers would make of it with no cap.
    const p50 = median(done);
    assert.ok(p50 >= 1.5 && p50 <= 2.5, `median ${p50}`);
    const limits = sim.limitsBetween(1000, 2000);
    // Steady, but for a brief overshoot after a probe of the floor.
    assert.ok(limits.filter((l) => l >= 0.7 * KNEE && l <= 1.3 * KNEE).length >= 0.95 * limits.length, limits.join(' '));
    assert.ok(Math.max(...limits) <= 2 * KNEE);
  });

  test('backs off within a few round trips when the server slows', () => {
    const server = near();
    const sim = new Sim(server, { workers: 200 });
    sim.run(1000);
    const settled = sim.limit.chosen;
    server.capacity = 2_000; // a fifth: the knee falls from ~20 to ~4
    sim.run(50); // 5 round trips at the new pace (10 ms each at 20 in flight)
    assert.ok(sim.limit.chosen <= settled / 2, `${settled} -> ${sim.limit.chosen}`);
    const done = sim.run(1000);
    assert.ok(ratePerS(done, 1000) >= 0.95 * server.capacity); // backing off cost no throughput
    assert.ok(median(done) <= 3.5);
  });

  for (const pauseMs of [5, 20, 100]) {
    test(`a pause of the client (${pauseMs} ms) does not cut the limit`, () => {
      // Every call on the wire comes back at once, late by the pause: one
      // window of outliers, not a slower server.
      const sim = new Sim(near(), { workers: 200 });
      sim.run(1000);
      const settled = sim.limit.chosen;
      sim.pause(pauseMs);
      sim.run(pauseMs + 50);
      const lowest = Math.min(...sim.limitsBetween(1000, 1050 + pauseMs));
      assert.ok(lowest >= 0.8 * settled, `${settled} -> ${lowest}`);
    });
  }

  test('a pause does not queue an open loop behind a cut limit', () => {
    const sim = new Sim(near(), { rate: 5_000 });
    sim.run(1000);
    const settled = sim.limit.chosen;
    sim.pause(20); // 100 calls fall due meanwhile, and go out together
    const done = sim.run(200);
    assert.ok(Math.min(...sim.limitsBetween(1000, 1200)) >= settled);
    // Late by the pause, and not by a queue that a cut limit would build after it.
    const p999 = percentile(done.map((d) => d.total), 0.999);
    assert.ok(p999 <= 22, `p99.9 ${p999}`);
  });

  test('a sustained slowdown cuts the limit within a few round trips', () => {
    // 1 -> 20 ms a call, from a closed loop at the knee: every window is over
    // the target, so the limit falls within a few of the new round trips; the
    // latency does not fall with it, as it would past a knee, so the path is
    // slower: its latency becomes the baseline, and the limit rises to keep
    // it busy.
    const server = near();
    const sim = new Sim(server, { workers: 200 });
    sim.run(1000);
    const settled = sim.limit.chosen;
    server.baseMs = 20;
    sim.run(100); // 5 round trips of 20 ms
    assert.ok(Math.min(...sim.limitsBetween(1000, 1100)) <= settled / 2);
    sim.run(200);
    assert.ok(sim.limit.baseline! >= 18, `baseline ${sim.limit.baseline}`); // 20 ms, give or take the jitter
    assert.equal(sim.limit.chosen, streamsPerConnection); // 200 calls in flight would fill it
    const done = sim.run(700);
    assert.ok(ratePerS(done, 700) >= (0.97 * streamsPerConnection * 1000) / 20);
  });

  test('an open loop is not throttled below its load', () => {
    // A slower path under an open loop that does not fill the limit: latency
    // over the target is not the limit's doing, so it is cut no lower than
    // the calls in flight, and when it then fills and the cuts do not lower
    // the latency, they are undone: the client's queue stays all but empty.
    const server = new Server(1, 100_000);
    const sim = new Sim(server, { rate: 4_000 });
    sim.run(1000);
    const settled = sim.limit.chosen;
    assert.ok(settled > 4 * 2.5, `${settled}`); // room for the calls at 2.5 ms each
    server.baseMs = 2.5; // over the target (2 ms), whatever the limit
    const done = sim.run(1000);
    assert.ok(Math.min(...sim.limitsBetween(1000, 2000)) >= 0.75 * 4 * 2.5);
    assert.ok(sim.longestQueue <= 10, `longest queue ${sim.longestQueue}`);
    const p999 = percentile(done.map((d) => d.total), 0.999);
    assert.ok(p999 <= 1.5 * 2.5, `p99.9 ${p999}`);
    assert.ok(sim.limit.baseline! >= 2, `baseline ${sim.limit.baseline}`); // the slower path, learnt
  });

  test('an open loop far away keeps its tail', () => {
    // 1,000 calls/s, 10 ms away: about 10 in flight, and the limit well over
    // them from the first tenth of a second. Nothing probes the floor under a
    // limit the load does not fill, so no call waits behind one (a probe of
    // two round trips at 4 in flight would queue ~15 calls: a 30 ms tail).
    const far = new Server(10, 100_000);
    const sim = new Sim(far, { rate: 1_000 });
    sim.run(100);
    assert.ok(sim.limit.chosen >= 20, `${sim.limit.chosen}`);
    sim.run(900);
    const done = sim.run(4000);
    const p999 = percentile(done.map((d) => d.total), 0.999);
    assert.ok(p999 <= 13, `p99.9 ${p999}`);
  });

  test('a slower path is relearnt and the queue stays bounded', () => {
    // 0 -> 20 ms per call: the limit falls at once (it reads like queueing),
    // then sees the latency did not fall with it: the path itself is slower,
    // and the limit rises to keep it busy; the open loop's queue drains
    // instead of growing.
    const server = new Server(0.3, 20_000);
    const sim = new Sim(server, { rate: 15_000 });
    sim.run(1000);
    const before = sim.limit.chosen;
    sim.rate = 1_000; // 20 in flight at 20 ms
    server.baseMs = 20.3;
    sim.run(250);
    assert.ok(Math.min(...sim.limitsBetween(1000, 1100)) <= before / 2);
    const done = sim.run(750);
    assert.ok(sim.longestQueue < 100, `longest queue ${sim.longestQueue}`); // a tenth of a second of calls at most
    assert.ok(sim.queue.length <= 5);
    assert.ok(sim.limit.chosen >= 20);
    assert.ok(ratePerS(done.filter((d) => d.at > 1500), 500) >= 950);
  });

  test('recovers when the server does', () => {
    const server = near();
    const sim = new Sim(server, { workers: 200 });
    sim.run(1000);
    server.baseMs = 20;
    sim.run(2000);
    server.baseMs = 1;
    sim.run(3000); // the next probe of the full limit's floor finds the fast path again
    const done = sim.run(1000);
    assert.ok(sim.limit.chosen >= 0.7 * KNEE && sim.limit.chosen <= 1.3 * KNEE, `${sim.limit.chosen}`);
    assert.ok(median(done) <= 2.5);
    assert.ok(ratePerS(done, 1000) >= 0.97 * server.capacity);
  });

  test('never below the floor', () => {
    const server = near();
    const sim = new Sim(server, { workers: 50 });
    sim.run(1000);
    server.capacity = 300; // less than one call in flight fills it
    sim.run(600); // round trips of 70 ms and more
    assert.equal(Math.min(...sim.limitsBetween(1000, 1600)), minLimit); // as low as it may, no lower
    // The floor's own latency becomes the baseline: queueing is judged from there.
    assert.ok(sim.limit.baseline! > 10);
  });

  for (const channels of [1, 3]) {
    test(`never above streams per connection x ${channels} connection(s)`, () => {
      const far = new Server(50, 1_000_000); // room for 50,000 in flight
      const ceiling = streamsPerConnection * channels;
      const sim = new Sim(far, { workers: 1_000, ceiling });
      sim.run(3000);
      assert.equal(Math.max(...sim.limits.map(([, limit]) => limit)), ceiling);
      assert.equal(sim.limit.chosen, ceiling);
    });
  }

  test('rises only as far as the callers use it', () => {
    const sim = new Sim(new Server(10, 100_000), { workers: 6 });
    sim.run(2000);
    assert.ok(sim.limit.chosen <= (2 * 6) / 0.5); // utilisation: at least half of it was used
  });

  test('losses halve the limit, and it grows back one a window', () => {
    const sim = new Sim(new Server(10, 100_000), { workers: 100 });
    sim.run(1000);
    const before = sim.limit.chosen;
    sim.limit.drop();
    sim.run(25); // the window that saw the loss has closed
    const halved = sim.limit.chosen;
    assert.ok(halved <= before / 2 + 1, `${before} -> ${halved}`);
    sim.run(100);
    assert.ok(sim.limit.chosen <= halved + 5);
  });

  test('a tail target keeps p99.9 under it', () => {
    const jittery = (): Server => new Server(0.3, 13_000, 0.35);
    const free = new Sim(jittery(), { workers: 64 });
    free.run(1000);
    const untargeted = percentile(free.run(2000).map((d) => d.rtt), 0.999);
    const target = 2;
    assert.ok(untargeted > 1.5 * target, `untargeted p99.9 ${untargeted}`);
    const held = new Sim(jittery(), { workers: 64, targetP999Ms: target });
    held.run(1000);
    const done = held.run(2000);
    const p999 = percentile(done.map((d) => d.rtt), 0.999);
    assert.ok(p999 <= 1.1 * target, `p99.9 ${p999}`);
    assert.ok(ratePerS(done, 2000) >= 0.9 * 13_000);
  });

  test('the history keeps one entry per interval', () => {
    const sim = new Sim(near(), { workers: 200 });
    sim.run(2000);
    const history = sim.limit.history;
    assert.deepEqual(history[0], { atMs: 0, limit: initialLimit });
    assert.equal(history.at(-1)!.limit, sim.limit.chosen);
    for (let i = 2; i < history.length; i += 1) {
      assert.ok(history[i]!.atMs - history[i - 1]!.atMs >= historyIntervalMs - 1e-9);
    }
    for (let i = 1; i < history.length; i += 1) assert.notEqual(history[i]!.limit, history[i - 1]!.limit);
  });
});

const never = (): Error => new Error('queue timeout');

/** Fills every slot with calls of `rttMs` and ends them, until the limit moves. */
function feed(limiter: AdaptiveLimiter, rttMs: number): void {
  const start = limiter.cap;
  while (limiter.cap === start) {
    let held = 0;
    while (limiter.tryAcquire()) held += 1;
    for (let i = 0; i < held; i += 1) limiter.release(rttMs);
  }
}

/** An AdaptiveLimiter whose cap a test sets, as a closing window would. */
class SettableLimiter extends AdaptiveLimiter {
  setCap(cap: number): void {
    this.limit = cap;
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('AdaptiveLimiter', () => {
  test('waiters take the new slots when the limit rises', async () => {
    const limiter = new SettableLimiter(new AdaptiveLimit(100));
    for (let i = 0; i < initialLimit; i += 1) assert.ok(limiter.tryAcquire());
    let served = 0;
    for (let i = 0; i < 3; i += 1) void limiter.acquire(Date.now() + 60_000, never).then(() => (served += 1));
    assert.equal(limiter.waiting, 3);
    limiter.setCap(initialLimit + 2);
    limiter.release(); // a call without a sample: no window closes
    await tick();
    assert.equal(served, 3);
    assert.equal(limiter.inFlight, initialLimit + 2);
  });

  test('no slot is handed on above a lowered limit', async () => {
    const limiter = new SettableLimiter(new AdaptiveLimit(100));
    for (let i = 0; i < initialLimit; i += 1) assert.ok(limiter.tryAcquire());
    let served = false;
    void limiter.acquire(Date.now() + 60_000, never).then(() => (served = true));
    limiter.setCap(2);
    limiter.release();
    limiter.release();
    await tick();
    assert.equal(served, false);
    assert.equal(limiter.inFlight, 2);
    limiter.release();
    await tick();
    assert.equal(served, true);
    assert.equal(limiter.inFlight, 2);
  });

  test('the limit moves with samples, and history() copies its changes', () => {
    const limiter = new AdaptiveLimiter(new AdaptiveLimit(100));
    feed(limiter, 1);
    assert.ok(limiter.cap > initialLimit);
    const history = limiter.history();
    assert.equal(history.at(-1)!.limit, limiter.adaptive.chosen);
    history[0]!.limit = 99;
    assert.equal(limiter.history()[0]!.limit, initialLimit);
  });
});

describe('AdaptiveCallRunner', () => {
  const target: ChannelTarget = { host: 'h', port: 1, keepaliveTimeMs: 0, keepaliveTimeoutMs: 1, maxReceiveMessageBytes: 1 };

  test("is the runner of maxConcurrentRequests 'auto', with its ceiling from the channels", () => {
    const runner = newCallRunner(resolveKnobs({ maxConcurrentRequests: 'auto', channels: 3 }), 'h:1');
    assert.ok(runner instanceof AdaptiveCallRunner);
    assert.equal(runner.limiter.adaptive.ceiling, 3 * streamsPerConnection);
    assert.equal(runner.inFlightLimit(), initialLimit);
    assert.equal(newCallRunner(resolveKnobs({ maxConcurrentRequests: 7 }), 'h:1').inFlightLimit(), 7);
  });

  test('answers raise the limit; a loss halves it', async () => {
    let failing = false;
    const pool = new ChannelPool(
      fakeFactory(() => (failing ? Promise.reject(new StatusError(Status.RESOURCE_EXHAUSTED, 'busy')) : Promise.resolve(new Uint8Array()))),
      target,
      1,
    );
    const runner = newCallRunner(resolveKnobs({ maxConcurrentRequests: 'auto', retry: { maxAttempts: 1 } }), 'h:1') as AdaptiveCallRunner;
    for (let round = 0; round < 20; round += 1) {
      await Promise.all(Array.from({ length: 64 }, () => runner.unary(pool, RPCS.Get, new Uint8Array(), {})));
    }
    const raised = runner.inFlightLimit();
    assert.ok(raised > initialLimit, `${raised}`);
    failing = true;
    const failed = Array.from({ length: 64 }, () => runner.unary(pool, RPCS.Get, new Uint8Array(), {}).catch(() => 'failed'));
    failing = false;
    await Promise.all(failed);
    await Promise.all(Array.from({ length: 64 }, () => runner.unary(pool, RPCS.Get, new Uint8Array(), {})));
    assert.ok(runner.inFlightLimit() < raised, `${raised} -> ${runner.inFlightLimit()}`);
    assert.equal(runner.limiter.inFlight, 0);
  });

  test('refuses bad settings', () => {
    assert.throws(() => resolveKnobs({ maxConcurrentRequests: 'fast' as 'auto' }), /maxConcurrentRequests/);
    assert.throws(() => resolveKnobs({ maxConcurrentRequests: 5, targetP999Ms: 20 }), /targetP999Ms/);
    assert.throws(() => resolveKnobs({ maxConcurrentRequests: 'auto', targetP999Ms: -1 }), /targetP999Ms/);
    assert.equal(resolveKnobs({ maxConcurrentRequests: 'auto', targetP999Ms: 20 }).targetP999Ms, 20);
  });
});
