"""`max_concurrent_requests="auto"`: an in-flight limit that follows measured latency.

The best cap depends on where the code runs (one core or many, a server next
door or 20 ms away), so under "auto" the client learns it, as TCP's
congestion control learns a window. The TypeScript SDK has the same
algorithm with the same constants (sdk/spec.json, `adaptive`); both SDKs'
tests replay the spec's traces through it.

The signal is delay, as in TCP Vegas and Netflix's concurrency-limits: while
calls take about as long as they do unloaded, more of them in flight buys
throughput; once they wait in a queue somewhere (the client's own CPU, the
server, the network), more in flight only adds waiting. Losses alone (AIMD)
would see nothing until a deadline passed, long after the tail had grown.

The algorithm works in windows of about one round trip: as many calls as
were on the wire (at most the limit, at least WINDOW_MIN_SAMPLES). The calls
still on the wire when the limit changes were sent under the old one, so
their answers are skipped: each window measures the limit it follows.

* The window's median time on the wire is its latency. Medians, not means
  or minimums: one slow call among 25 must not move the limit, and the
  median of many calls is not the luck of the fastest one.
* The baseline (the no-load latency) is the lowest window median seen. The
  target is baseline + max(QUEUE_DELAY, QUEUE_DELAY_SHARE x baseline):
  some queueing is allowed, because a client that batches its writes still
  gains throughput while latency rises a little (a CoDel-like target delay,
  not Vegas's count of queued calls, so the allowance means the same on any
  machine; the share keeps a jittery far path from reading as queueing).
* Slow start: under the target the limit grows by up to MAX_INCREASE per
  window, in proportion to the allowance left, so it doubles each round
  trip while latency is flat (TCP's slow start) and stops where queueing
  shows. From 4, 100 in flight are about ten round trips away (each rise
  waits for a window sent under it): a tenth of a second 10 ms away.
* Backing off needs the latency over the target for SUSTAIN_WINDOWS windows
  in a row, and is judged on the lowest of their medians: a pause of the
  client (a GC, the scheduler, another process on the core) holds every
  call on the wire at once and spoils a window or two, not three, while a
  server or path that turned slow spoils them all. Then the limit falls by
  target / latency, by half at most per window: by Little's law, past the
  knee latency = limit / throughput, so one step lands near the knee, and a
  slower server is followed within a few round trips (Gradient2's
  gradient, aimed at a target, over a windowed minimum as TCP BBR's).
* A limit the window's median call did not find full (one an open loop
  reaches in bursts, if at all) did not make the latency: a slower path or a
  busy client did. It is cut no lower than the most calls the window had in
  flight, since under the load it would only queue calls in the client, and
  an open loop's callers do not slow down with it. A full limit (a closed
  loop at its cap) is cut as above.
* It rises only when the window used at least UTILISATION of the limit: a
  client sending little learns nothing about more (the "app-limited" rule).
* A call that ended in DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED is a loss:
  the window cuts the limit by DROP_DECREASE, and from there it grows by
  one per window at most (TCP's congestion avoidance), so a server that
  sheds load is not hit with the same burst again. Not a loss: a refusal
  whose reason names a limit of the call or of its cache
  (DROP_EXEMPT_REASONS: a value over the item limit, a cache over its own
  rate). Fewer calls in flight would not cure it, and cutting the limit
  would queue the calls to every other cache sharing the client behind one
  throttled cache.
* Between MIN_LIMIT and a ceiling of STREAMS_PER_CONNECTION x channels:
  past the server's HTTP/2 streams per connection calls queue in the
  transport, unseen and unordered.
* A delay-based limit reads a slower path (or a busy client) as queueing,
  and cuts. Past the knee latency follows the limit (Little's law), so when
  a run of cuts has taken it to RELEARN_CUT of where they began and the
  window's median has not come down halfway to what that predicts, the
  latency is not the limit's: the cuts are undone and the baseline becomes
  that median (a busy spell of the client reads the same, so a limit that
  stays full probes the floor soon after, below). The floor keeps a slow
  network busy meanwhile, and when RELEARN_WINDOWS windows in a row at the
  floor are still over target, the baseline becomes what the floor measures.
  The other way, the lowest median seen after a slow spell may be a loaded
  one, so after PROBE_WINDOWS windows in a row that filled the limit one
  window runs at the floor and its median is the baseline (TCP BBR's
  ProbeRTT; Vegas's probe of the no-load latency). Only an unbroken run of
  full windows counts: a window the load did not fill measured a less
  loaded latency anyway, and a probe would queue an open loop's calls
  behind the floor for three round trips (at 10 ms and 1,000 calls/s, one
  probe in a 3 s run made p99.9 34 ms where the limit alone gave 19 ms).
* With a tail target (`target_p999`), the target median is also capped at
  target_p999 / (p99.9 / median of the last TAIL_PERIOD_SAMPLES calls), so
  the tail lands on the target; more than TAIL_SHARE of a period's calls
  over it cuts the limit by TAIL_DECREASE as a loss does, and any call over
  it holds the limit from rising for the rest of the period.

Everything here is arithmetic on what the limiter (jiffy._limiter) reports;
the clock is a parameter, so the tests drive it with simulated servers.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import deque
from collections.abc import Callable

AUTO = "auto"
"""The value of max_concurrent_requests that turns the adaptive limit on."""

INITIAL_LIMIT = 4
MIN_LIMIT = 4
# jiffy-server's default --max-concurrent-streams, and gRPC servers' usual one.
STREAMS_PER_CONNECTION = 100
WINDOW_MIN_SAMPLES = 8
QUEUE_DELAY = 0.001
"""Seconds of queueing allowed over the baseline (1 ms)."""
QUEUE_DELAY_SHARE = 0.25
MAX_INCREASE = 2.0
MAX_DECREASE = 0.5
SUSTAIN_WINDOWS = 3
UTILISATION = 0.5
RELEARN_WINDOWS = 3
RELEARN_CUT = 0.75
PROBE_WINDOWS = 250
DROP_DECREASE = 0.5
TAIL_PERIOD_SAMPLES = 1000
TAIL_SHARE = 0.001
TAIL_DECREASE = 0.75
HISTORY_INTERVAL = 0.1
"""Seconds between two entries of the history, at least."""
HISTORY_LENGTH = 1000

# Statuses that mean "too much": the server or the deadline gave up.
DROP_STATUSES = frozenset({"DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"})
# The server's `err` reasons that name a limit of the call or of its cache,
# not a server that sheds load: never a loss.
DROP_EXEMPT_REASONS = frozenset(
    {
        "item_size_limit_exceeded",
        "request_size_limit_exceeded",
        "element_size_limit_exceeded",
        "topic_subscriptions_limit_exceeded",
        "operations_rate_limit_exceeded",
        "throughput_rate_limit_exceeded",
        "answer_too_large_for_protosocket",
    }
)


def is_loss(code: str, reason: str | None) -> bool:
    """Whether a call that failed with `code` and the server's `reason`
    tells the limit to back off."""
    return code in DROP_STATUSES and reason not in DROP_EXEMPT_REASONS


class AdaptiveLimit:
    """The limit, moved by the times calls spend on the wire.

    Times and `queue_delay` / `target_p999` are in one unit, whichever the
    caller uses (the client: seconds; the spec's traces: milliseconds).
    """

    __slots__ = (
        "limit",
        "ceiling",
        "baseline",
        "history",
        "_estimate",
        "_window",
        "_rtts",
        "_skip",
        "_peak",
        "_drops",
        "_threshold",
        "_medians",
        "_cuts_from",
        "_full",
        "_windows",
        "_probing",
        "_queue_delay",
        "_target_p999",
        "_tail_seen",
        "_tail_over",
        "_tail_medians",
        "_tail_top",
        "_tail_ratio",
        "_stuck",
        "_stuck_best",
        "_clock",
        "_started",
        "_recorded_at",
    )

    def __init__(
        self,
        ceiling: int,
        *,
        target_p999: float | None = None,
        queue_delay: float = QUEUE_DELAY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ceiling = max(ceiling, MIN_LIMIT)
        self.limit = min(INITIAL_LIMIT, self.ceiling)
        """The cap the limiter enforces now: the chosen limit, or MIN_LIMIT during a probe."""
        self.baseline: float | None = None
        """The no-load latency: the lowest window median, or what the floor measured."""
        self._estimate = float(self.limit)
        self._window = max(WINDOW_MIN_SAMPLES, self.limit)
        self._rtts: list[float] = []
        self._skip = 0
        self._peak = 0
        self._drops = 0
        self._threshold = float(self.ceiling)
        self._medians: deque[float] = deque(maxlen=SUSTAIN_WINDOWS)
        self._cuts_from: tuple[int, float] | None = None
        self._full = 0
        self._windows = 0
        self._probing = False
        self._queue_delay = queue_delay
        self._target_p999 = target_p999
        self._tail_seen = 0
        self._tail_over = 0
        self._tail_medians = 0.0
        self._tail_top: list[float] = []
        self._tail_ratio: float | None = None
        self._stuck = 0
        self._stuck_best = float("inf")
        self._clock = clock
        self._started = clock()
        self._recorded_at = 0.0
        self.history: deque[tuple[float, int]] = deque([(0.0, self.limit)], maxlen=HISTORY_LENGTH)
        """(time since start, chosen limit) at each change, at most one per HISTORY_INTERVAL."""

    @property
    def chosen(self) -> int:
        """The limit the algorithm settled on (a probe's brief floor aside)."""
        return int(self._estimate)

    def sample(self, rtt: float, in_flight: int) -> bool:
        """One call's time on the wire, with the calls in flight as it ended
        (itself included); True when the enforced limit changed."""
        if self._skip:
            self._skip -= 1  # sent before the last change: says nothing about it
            return False
        rtts = self._rtts
        rtts.append(rtt)
        if in_flight > self._peak:
            self._peak = in_flight
        if in_flight >= self.limit:
            self._full += 1
        if len(rtts) >= self._window:
            return self._close_window(in_flight)
        return False

    def drop(self) -> None:
        """A call ended in a loss (DROP_STATUSES); the window will back off."""
        self._drops += 1

    def _close_window(self, in_flight: int) -> bool:
        rtts = self._rtts
        rtts.sort()
        median = rtts[len(rtts) // 2]
        refill = 0
        if self._probing:
            self.baseline = median  # what MIN_LIMIT calls take: the path unloaded
            self._probing = False
            self._medians.clear()
            refill = int(self._estimate)  # the calls that fill the pipe again
        else:
            self._update(rtts, median)
        rtts.clear()
        self._peak = self._drops = self._full = 0
        chosen = int(self._estimate)
        if chosen != self.history[-1][1]:
            self._record(chosen)
        if self._windows >= PROBE_WINDOWS and chosen > MIN_LIMIT:
            # After PROBE_WINDOWS windows at the limit, one at the floor
            # re-measures the baseline: after a slow spell the lowest median
            # seen may be a loaded one, and a limit that is always full
            # would never come back down to the knee.
            self._windows = 0
            self._probing = True
        limit = MIN_LIMIT if self._probing else chosen
        # About one round trip of calls: as many as are on the wire, at most
        # the limit (a client sending little must not wait long for a window).
        self._window = max(WINDOW_MIN_SAMPLES, min(limit, in_flight))
        if limit == self.limit:
            return False
        # The calls on the wire were sent under the old limit: the next
        # window starts with the first call sent under the new one.
        self._skip = max(in_flight - 1, refill)
        self.limit = limit
        return True

    def _update(self, rtts: list[float], median: float) -> None:
        """Move the estimate by one window's median (and tail)."""
        # Full: the window's median call found the limit full (a closed loop
        # at its cap), not only an open loop's bursts.
        full = 2 * self._full >= len(rtts)
        self._windows = self._windows + 1 if full else 0
        baseline = self.baseline
        if baseline is None or median < baseline:
            baseline = self.baseline = median
        medians = self._medians
        medians.append(median)
        # The latency a cut is judged on: the lowest median of the last
        # SUSTAIN_WINDOWS windows (none until there are that many).
        sustained = min(medians) if len(medians) == SUSTAIN_WINDOWS else 0.0
        target = baseline + max(self._queue_delay, QUEUE_DELAY_SHARE * baseline)
        estimate = self._estimate
        rising_allowed = self._peak >= UTILISATION * estimate
        if self._target_p999 is not None:
            target = min(target, self._tail_bound(rtts, median))
            rising_allowed = rising_allowed and self._tail_over == 0
        if self._drops:
            estimate *= DROP_DECREASE
            self._threshold = estimate
        elif self._tail_over > TAIL_SHARE * TAIL_PERIOD_SAMPLES:
            estimate *= TAIL_DECREASE
            self._threshold = estimate
            self._tail_over = 0
        elif sustained > target:
            if full:
                estimate = self._cut(estimate, target, sustained, median)
            else:  # the load, not the limit, made the latency: no lower than the load
                estimate = max(float(self._peak), estimate * max(MAX_DECREASE, target / sustained))
        elif rising_allowed and baseline < target and median <= target:
            unused = (target - median) / (target - baseline)
            if estimate < self._threshold:
                estimate = min(estimate * (1.0 + (MAX_INCREASE - 1.0) * unused), self._threshold)
            else:
                estimate += unused  # past a loss: one more per window at most, as TCP
        if sustained <= target:
            self._cuts_from = None  # a run of cuts ends where latency is back under target
        self._relearn(self._estimate <= MIN_LIMIT and median > target, median)
        self._estimate = min(max(estimate, float(MIN_LIMIT)), float(self.ceiling))

    def _cut(self, estimate: float, target: float, latency: float, median: float) -> float:
        """The estimate cut for `latency` over `target`, or, when the cuts so
        far did not lower the window's median, back where they began."""
        cuts_from = self._cuts_from
        if cuts_from is None:
            self._cuts_from = (self.limit, median)
        else:
            limit, before = cuts_from
            share = self.limit / limit
            if share <= RELEARN_CUT and median >= before * (1.0 + share) / 2:
                # Past the knee latency follows the limit (Little's law): at
                # `share` of the limit it would be near share x what it was.
                # It stayed nearer where it was: the path is slower, or the
                # client busy, and cutting on would only queue calls.
                self.baseline = median
                self._medians.clear()
                self._cuts_from = None
                # A busy spell of the client reads the same; a full limit
                # soon probes the floor to tell (an open loop's seldom is).
                self._windows = max(self._windows, PROBE_WINDOWS - RELEARN_WINDOWS)
                return float(limit)
        return estimate * max(MAX_DECREASE, target / latency)

    def _tail_bound(self, sorted_rtts: list[float], median: float) -> float:
        """The median that keeps p99.9 under the target, at the tail / median
        ratio of the last period; counts this window's calls over the target."""
        target_p999 = self._target_p999
        assert target_p999 is not None
        count = len(sorted_rtts)
        self._tail_over += count - bisect_right(sorted_rtts, target_p999)
        self._tail_seen += count
        self._tail_medians += median * count
        top = self._tail_top
        top.extend(sorted_rtts[-2:])
        top.sort()
        del top[:-2]
        if self._tail_seen >= TAIL_PERIOD_SAMPLES:
            # The second largest of ~1000 calls is their p99.9.
            ratio = top[0] / (self._tail_medians / self._tail_seen)
            previous = self._tail_ratio
            self._tail_ratio = ratio if previous is None else (ratio + previous) / 2
            self._tail_seen, self._tail_over, self._tail_medians = 0, 0, 0.0
            top.clear()
        if self._tail_ratio is None:
            return target_p999
        return target_p999 / self._tail_ratio

    def _relearn(self, stuck: bool, median: float) -> None:
        """At the floor and still over target, window after window: the path is slower now."""
        if not stuck:
            self._stuck, self._stuck_best = 0, float("inf")
            return
        self._stuck += 1
        self._stuck_best = min(self._stuck_best, median)
        if self._stuck >= RELEARN_WINDOWS:
            self.baseline = self._stuck_best
            self._stuck, self._stuck_best = 0, float("inf")

    def _record(self, chosen: int) -> None:
        now = self._clock() - self._started
        history = self.history
        if now - self._recorded_at < HISTORY_INTERVAL and len(history) > 1:
            # Within one interval only its last value counts.
            if history[-2][1] == chosen:
                history.pop()
                self._recorded_at = history[-1][0]
            else:
                history[-1] = (history[-1][0], chosen)
            return
        self._recorded_at = now
        history.append((now, chosen))
