// `maxConcurrentRequests: 'auto'`: an in-flight limit that follows measured
// latency.
//
// The best cap depends on where the code runs (one core or many, a server
// next door or 20 ms away), so under 'auto' the client learns it, as TCP's
// congestion control learns a window. The Python SDK has the same
// algorithm with the same constants (sdk/spec.json, `adaptive`); both
// SDKs' tests replay the spec's traces through it.
//
// The signal is delay, as in TCP Vegas and Netflix's concurrency-limits:
// while calls take about as long as they do unloaded, more of them in
// flight buys throughput; once they wait in a queue somewhere (this Node
// thread, the server, the network), more in flight only adds waiting.
// Losses alone (AIMD) would see nothing until a deadline passed, long
// after the tail had grown.
//
// It works in windows of about one round trip: as many calls as were on
// the wire (at most the limit, at least windowMinSamples). The calls still
// on the wire when the limit changes were sent under the old one, so their
// answers are skipped: each window measures the limit it follows.
//
// * The window's median time on the wire is its latency. Medians, not
//   means or minimums: one slow call among 25 must not move the limit, and
//   the median of many calls is not the luck of the fastest one.
// * The baseline (the no-load latency) is the lowest window median seen.
//   The target is baseline + max(queueDelayMs, queueDelayShare x baseline):
//   some queueing is allowed, because a client that batches its writes
//   still gains throughput while latency rises a little (a CoDel-like
//   target delay, not Vegas's count of queued calls, so the allowance means
//   the same on any machine; the share keeps a jittery far path from
//   reading as queueing).
// * Slow start: under the target the limit grows by up to maxIncrease per
//   window, in proportion to the allowance left, so it doubles each round
//   trip while latency is flat (TCP's slow start) and stops where queueing
//   shows. From 4, 100 in flight are about ten round trips away (each rise
//   waits for a window sent under it): a tenth of a second 10 ms away.
// * Backing off needs the latency over the target for sustainWindows
//   windows in a row, and is judged on the lowest of their medians: a pause
//   of the client (a GC, the event loop, another process on the core) holds
//   every call on the wire at once and spoils a window or two, not three,
//   while a server or path that turned slow spoils them all. Then the limit
//   falls by target / latency, by half at most per window: by Little's law,
//   past the knee latency = limit / throughput, so one step lands near the
//   knee, and a slower server is followed within a few round trips
//   (Gradient2's gradient, aimed at a target, over a windowed minimum as
//   TCP BBR's).
// * A limit the window's median call did not find full (one an open loop
//   reaches in bursts, if at all) did not make the latency: a slower path or
//   a busy client did. It is cut no lower than the most calls the window had
//   in flight, since under the load it would only queue calls in the client,
//   and an open loop's callers do not slow down with it. A full limit (a
//   closed loop at its cap) is cut as above.
// * It rises only when the window used at least `utilisation` of the
//   limit: a client sending little learns nothing about more.
// * A call that ended in DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED is a
//   loss: the window cuts the limit by dropDecrease, and from there it
//   grows by one per window at most (TCP's congestion avoidance), so a
//   server that sheds load is not hit with the same burst again. Not a
//   loss: a refusal whose reason names a limit of the call or of its cache
//   (DROP_EXEMPT_REASONS: a value over the item limit, a cache over its own
//   rate). Fewer calls in flight would not cure it, and cutting the limit
//   would queue the calls to every other cache sharing the client behind
//   one throttled cache.
// * Between minLimit and a ceiling of streamsPerConnection x channels:
//   past the server's HTTP/2 streams per connection calls queue in the
//   transport, unseen and unordered.
// * A delay-based limit reads a slower path (or a busy client) as queueing,
//   and cuts. Past the knee latency follows the limit (Little's law), so when
//   a run of cuts has taken it to relearnCut of where they began and the
//   window's median has not come down halfway to what that predicts, the
//   latency is not the limit's: the cuts are undone and the baseline becomes
//   that median (a busy spell of the client reads the same, so a limit that
//   stays full probes the floor soon after, below). The floor keeps a slow
//   network busy meanwhile, and when relearnWindows windows in a row at the
//   floor are still over target, the baseline becomes what the floor
//   measures. The other way, the lowest median seen after a slow spell may be
//   a loaded one, so after probeWindows windows in a row that filled the
//   limit one window runs at the floor and its median is the baseline (BBR's
//   ProbeRTT; Vegas's probe). Only an unbroken run of full windows counts: a
//   window the load did not fill measured a less loaded latency anyway, and
//   a probe would queue an open loop's calls behind the floor for three
//   round trips (at 10 ms and 1,000 calls/s, one probe in a 3 s run made
//   p99.9 34 ms where the limit alone gave 19 ms).
// * With a tail target (`targetP999Ms`), the target median is also capped
//   at targetP999Ms / (p99.9 / median of the last tailPeriodSamples calls),
//   so the tail lands on the target; more than tailShare of a period's
//   calls over it cuts the limit by tailDecrease as a loss does, and any
//   call over it holds the limit from rising for the rest of the period.
//
// Everything here is arithmetic on what the limiter (limiter.ts) reports;
// the clock is a parameter, so the tests drive it with simulated servers.

/** The algorithm's numbers: sdk/spec.json `adaptive.constants`, in camelCase. */
export const ADAPTIVE = Object.freeze({
  initialLimit: 4,
  minLimit: 4,
  /** jiffy-server's default --max-concurrent-streams, and gRPC servers' usual one. */
  streamsPerConnection: 100,
  windowMinSamples: 8,
  queueDelayMs: 1,
  queueDelayShare: 0.25,
  maxIncrease: 2,
  maxDecrease: 0.5,
  sustainWindows: 3,
  utilisation: 0.5,
  relearnWindows: 3,
  relearnCut: 0.75,
  probeWindows: 250,
  dropDecrease: 0.5,
  tailPeriodSamples: 1000,
  tailShare: 0.001,
  tailDecrease: 0.75,
  historyIntervalMs: 100,
  historyLength: 1000,
});

/** Statuses that mean "too much": the server or the deadline gave up. */
export const DROP_STATUSES: ReadonlySet<string> = new Set(['DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED']);

/** The server's `err` reasons that name a limit of the call or of its cache, not a server shedding load. */
export const DROP_EXEMPT_REASONS: ReadonlySet<string> = new Set([
  'item_size_limit_exceeded',
  'request_size_limit_exceeded',
  'element_size_limit_exceeded',
  'topic_subscriptions_limit_exceeded',
  'operations_rate_limit_exceeded',
  'throughput_rate_limit_exceeded',
  'answer_too_large_for_protosocket',
]);

/** Whether a call that failed with `status` (a name) and the server's `reason` tells the limit to back off. */
export function isLoss(status: string, reason: string | undefined): boolean {
  return DROP_STATUSES.has(status) && (reason === undefined || !DROP_EXEMPT_REASONS.has(reason));
}

/** One change of the limit: when (ms since the client was built) and to what. */
export interface InFlightLimitChange {
  atMs: number;
  limit: number;
}

export interface AdaptiveLimitOptions {
  /** p99.9 (ms on the wire) to stay under; undefined = only avoid queueing. */
  targetP999Ms?: number;
  /** Queueing allowed over the baseline, ms. */
  queueDelayMs?: number;
  /** Milliseconds, monotonic. */
  now?: () => number;
}

const {
  initialLimit: INITIAL_LIMIT,
  minLimit: MIN_LIMIT,
  windowMinSamples: WINDOW_MIN_SAMPLES,
  queueDelayShare: QUEUE_DELAY_SHARE,
  maxIncrease: MAX_INCREASE,
  maxDecrease: MAX_DECREASE,
  sustainWindows: SUSTAIN_WINDOWS,
  utilisation: UTILISATION,
  relearnWindows: RELEARN_WINDOWS,
  relearnCut: RELEARN_CUT,
  probeWindows: PROBE_WINDOWS,
  dropDecrease: DROP_DECREASE,
  tailPeriodSamples: TAIL_PERIOD_SAMPLES,
  tailShare: TAIL_SHARE,
  tailDecrease: TAIL_DECREASE,
  historyIntervalMs: HISTORY_INTERVAL_MS,
  historyLength: HISTORY_LENGTH,
} = ADAPTIVE;

/** The limit, moved by the times calls spend on the wire (any one unit; the client: ms). */
export class AdaptiveLimit {
  /** The cap the limiter enforces now: the chosen limit, or minLimit during a probe. */
  limit: number;
  readonly ceiling: number;
  /** The no-load latency: the lowest window median, or what the floor measured. */
  baseline: number | undefined;
  /** Changes of the chosen limit, at most one per historyIntervalMs, the last historyLength. */
  readonly history: InFlightLimitChange[];
  private estimate: number;
  private window: number;
  private readonly rtts: Float64Array;
  private count = 0;
  private skip = 0;
  private peak = 0;
  private full = 0;
  private drops = 0;
  private threshold: number;
  /** The medians of the last sustainWindows windows, oldest first. */
  private readonly medians: number[] = [];
  /** Where a run of cuts began: the limit then, and the median it had. */
  private cutsFrom: { limit: number; median: number } | undefined;
  private windows = 0;
  private probing = false;
  private readonly queueDelay: number;
  private readonly targetP999: number | undefined;
  private tailSeen = 0;
  private tailOver = 0;
  private tailMedians = 0;
  private tailTop: number[] = [];
  private tailRatio: number | undefined;
  private stuck = 0;
  private stuckBest = Infinity;
  private readonly now: () => number;
  private readonly started: number;
  private recordedAt = 0;

  constructor(ceiling: number, options: AdaptiveLimitOptions = {}) {
    this.ceiling = Math.max(ceiling, MIN_LIMIT);
    this.limit = Math.min(INITIAL_LIMIT, this.ceiling);
    this.estimate = this.limit;
    this.threshold = this.ceiling;
    this.window = Math.max(WINDOW_MIN_SAMPLES, this.limit);
    this.rtts = new Float64Array(Math.max(WINDOW_MIN_SAMPLES, this.ceiling));
    this.queueDelay = options.queueDelayMs ?? ADAPTIVE.queueDelayMs;
    this.targetP999 = options.targetP999Ms;
    this.now = options.now ?? (() => performance.now());
    this.started = this.now();
    this.history = [{ atMs: 0, limit: this.limit }];
  }

  /** The limit the algorithm settled on (a probe's brief floor aside). */
  get chosen(): number {
    return Math.trunc(this.estimate);
  }

  /**
   * One call's time on the wire, with the calls in flight as it ended
   * (itself included); true when the enforced limit changed.
   */
  sample(rtt: number, inFlight: number): boolean {
    if (this.skip > 0) {
      this.skip -= 1; // sent before the last change: says nothing about it
      return false;
    }
    this.rtts[this.count] = rtt;
    this.count += 1;
    if (inFlight > this.peak) this.peak = inFlight;
    if (inFlight >= this.limit) this.full += 1;
    return this.count >= this.window ? this.closeWindow(inFlight) : false;
  }

  /** A call ended in a loss (DROP_STATUSES); the window will back off. */
  drop(): void {
    this.drops += 1;
  }

  private closeWindow(inFlight: number): boolean {
    const rtts = this.rtts.subarray(0, this.count).sort();
    const median = rtts[Math.floor(rtts.length / 2)]!;
    let refill = 0;
    if (this.probing) {
      this.baseline = median; // what minLimit calls take: the path unloaded
      this.probing = false;
      this.medians.length = 0;
      refill = Math.trunc(this.estimate); // the calls that fill the pipe again
    } else {
      this.update(rtts, median);
    }
    this.count = 0;
    this.peak = 0;
    this.full = 0;
    this.drops = 0;
    const chosen = Math.trunc(this.estimate);
    if (chosen !== this.history[this.history.length - 1]!.limit) this.record(chosen);
    if (this.windows >= PROBE_WINDOWS && chosen > MIN_LIMIT) {
      // After probeWindows windows at the limit, one at the floor
      // re-measures the baseline: after a slow spell the lowest median seen
      // may be a loaded one, and a limit that is always full would never
      // come back down to the knee.
      this.windows = 0;
      this.probing = true;
    }
    const limit = this.probing ? MIN_LIMIT : chosen;
    // About one round trip of calls: as many as are on the wire, at most
    // the limit (a client sending little must not wait long for a window).
    this.window = Math.max(WINDOW_MIN_SAMPLES, Math.min(limit, inFlight));
    if (limit === this.limit) return false;
    // The calls on the wire were sent under the old limit: the next window
    // starts with the first call sent under the new one.
    this.skip = Math.max(inFlight - 1, refill);
    this.limit = limit;
    return true;
  }

  /** Moves the estimate by one window's median (and tail). */
  private update(rtts: Float64Array, median: number): void {
    // Full: the window's median call found the limit full (a closed loop at
    // its cap), not only an open loop's bursts.
    const full = 2 * this.full >= rtts.length;
    this.windows = full ? this.windows + 1 : 0;
    let baseline = this.baseline;
    if (baseline === undefined || median < baseline) baseline = this.baseline = median;
    const medians = this.medians;
    medians.push(median);
    if (medians.length > SUSTAIN_WINDOWS) medians.shift();
    // The latency a cut is judged on: the lowest median of the last
    // sustainWindows windows (none until there are that many).
    const sustained = medians.length === SUSTAIN_WINDOWS ? Math.min(...medians) : 0;
    let target = baseline + Math.max(this.queueDelay, QUEUE_DELAY_SHARE * baseline);
    let estimate = this.estimate;
    let risingAllowed = this.peak >= UTILISATION * estimate;
    if (this.targetP999 !== undefined) {
      target = Math.min(target, this.tailBound(rtts, median, this.targetP999));
      risingAllowed = risingAllowed && this.tailOver === 0;
    }
    if (this.drops > 0) {
      estimate *= DROP_DECREASE;
      this.threshold = estimate;
    } else if (this.tailOver > TAIL_SHARE * TAIL_PERIOD_SAMPLES) {
      estimate *= TAIL_DECREASE;
      this.threshold = estimate;
      this.tailOver = 0;
    } else if (sustained > target) {
      if (full) {
        estimate = this.cut(estimate, target, sustained, median);
      } else {
        // The load, not the limit, made the latency: no lower than the load.
        estimate = Math.max(this.peak, estimate * Math.max(MAX_DECREASE, target / sustained));
      }
    } else if (risingAllowed && baseline < target && median <= target) {
      const unused = (target - median) / (target - baseline);
      if (estimate < this.threshold) {
        estimate = Math.min(estimate * (1 + (MAX_INCREASE - 1) * unused), this.threshold);
      } else {
        estimate += unused; // past a loss: one more per window at most, as TCP
      }
    }
    if (sustained <= target) this.cutsFrom = undefined; // a run of cuts ends where latency is back under target
    this.relearn(this.estimate <= MIN_LIMIT && median > target, median);
    this.estimate = Math.min(Math.max(estimate, MIN_LIMIT), this.ceiling);
  }

  /**
   * The estimate cut for `latency` over `target`, or, when the cuts so far
   * did not lower the window's median, back where they began.
   */
  private cut(estimate: number, target: number, latency: number, median: number): number {
    const from = this.cutsFrom;
    if (from === undefined) {
      this.cutsFrom = { limit: this.limit, median };
    } else {
      const share = this.limit / from.limit;
      if (share <= RELEARN_CUT && median >= (from.median * (1 + share)) / 2) {
        // Past the knee latency follows the limit (Little's law): at `share`
        // of the limit it would be near share x what it was. It stayed
        // nearer where it was: the path is slower, or the client busy, and
        // cutting on would only queue calls.
        this.baseline = median;
        this.medians.length = 0;
        this.cutsFrom = undefined;
        // A busy spell of the client reads the same; a full limit soon
        // probes the floor to tell (an open loop's seldom is).
        this.windows = Math.max(this.windows, PROBE_WINDOWS - RELEARN_WINDOWS);
        return from.limit;
      }
    }
    return estimate * Math.max(MAX_DECREASE, target / latency);
  }

  /**
   * The median that keeps p99.9 under the target, at the tail / median ratio
   * of the last period; counts this window's calls over the target.
   */
  private tailBound(sorted: Float64Array, median: number, targetP999: number): number {
    const count = sorted.length;
    let over = 0;
    for (let i = count - 1; i >= 0 && sorted[i]! > targetP999; i -= 1) over += 1;
    this.tailOver += over;
    this.tailSeen += count;
    this.tailMedians += median * count;
    const top = this.tailTop;
    top.push(...sorted.subarray(Math.max(0, count - 2)));
    top.sort((a, b) => a - b);
    top.splice(0, Math.max(0, top.length - 2));
    if (this.tailSeen >= TAIL_PERIOD_SAMPLES) {
      // The second largest of ~1000 calls is their p99.9.
      const ratio = top[0]! / (this.tailMedians / this.tailSeen);
      const previous = this.tailRatio;
      this.tailRatio = previous === undefined ? ratio : (ratio + previous) / 2;
      this.tailSeen = 0;
      this.tailOver = 0;
      this.tailMedians = 0;
      top.length = 0;
    }
    return this.tailRatio === undefined ? targetP999 : targetP999 / this.tailRatio;
  }

  /** At the floor and still over target, window after window: the path is slower now. */
  private relearn(stuck: boolean, median: number): void {
    if (!stuck) {
      this.stuck = 0;
      this.stuckBest = Infinity;
      return;
    }
    this.stuck += 1;
    this.stuckBest = Math.min(this.stuckBest, median);
    if (this.stuck >= RELEARN_WINDOWS) {
      this.baseline = this.stuckBest;
      this.stuck = 0;
      this.stuckBest = Infinity;
    }
  }

  private record(chosen: number): void {
    const now = this.now() - this.started;
    const history = this.history;
    if (now - this.recordedAt < HISTORY_INTERVAL_MS && history.length > 1) {
      // Within one interval only its last value counts.
      if (history[history.length - 2]!.limit === chosen) {
        history.pop();
        this.recordedAt = history[history.length - 1]!.atMs;
      } else {
        history[history.length - 1]!.limit = chosen;
      }
      return;
    }
    this.recordedAt = now;
    history.push({ atMs: now, limit: chosen });
    if (history.length > HISTORY_LENGTH) history.shift();
  }
}
