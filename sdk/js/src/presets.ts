// Versioned presets: `presets.inRegion.latest()`, spread into the options.
//
// Each preset has v1(), frozen forever (a unit test asserts its values), and
// latest(): v1 with the knobs a jiffy-tune report measured, named by the
// preset's `measuredIn` (a unit test checks the values against that report),
// over the transport its `measuredTransport` names.
// The names and knobs are the Python SDK's (`in_region` there, `inRegion`
// here).
//
// latest(), from docs/tuning/2026-11-21-localhost-2core (jiffy-tune on this
// repository's 2-core machine, server and client pinned to one core each,
// localhost, node --max-semi-space-size=1 --single-threaded-gc, 4 SDKs x
// concurrency 1-500 x 1/2/5 channels, medians of 3 rounds, every call over
// the default transport, http2: the sweep had no other then):
// * inRegion (p99.9 < 20 ms): 1 channel, cap 10: 18,596 rps at p99.9 8.1 ms.
//   Past 10 in flight throughput fell (c=50: 16,583 rps, p99.9 13.8 ms):
//   one Node thread does the client's work, and more queued streams only
//   add to its GC and scheduling.
// * lowLatency (p99.9 < 5 ms): 1 channel, cap 5: 17,536 rps at p99.9 4.0 ms.
// * More channels: 2 or 5 gained at most 5% at any concurrency, and less
//   than 1% at the chosen points.
// * laptop and lambda: not measured (they are about slow or frozen
//   networks, which localhost is not); latest() is v1.
// Localhost is the best network there is: on a real one, run jiffy-tune
// (tune/README.md) from where your code runs and paste what it prints.
//
// v1 came from the 2022 Momento study of gRPC clients (docs/DESIGN.md):
// * inRegion: 2 channels, cap 50. The study's JS client met p99.9 < 20 ms
//   at 8,300 rps with 50 in flight and gained nothing past 2 channels; the
//   second channel is a spare for failover.
// * lowLatency: cap 2, deadline 1 s. The study's JS client met
//   p99.9 < 5 ms at 1,900 rps with 2 in flight.
// * laptop: lenient deadline (15 s) and connect timeout for slow networks
//   and sleeping laptops; cap 100 (the server's streams per connection).
// * lambda: one channel, no keepalive pings (a frozen function cannot
//   answer them and the connection would be dropped on thaw), a short
//   eager connect so cold starts fail fast, cap 20 (few callers).
import type { Knobs, TransportName } from './config.js';
import { InvalidArgumentError } from './errors.js';

export interface Preset {
  readonly name: 'laptop' | 'in_region' | 'low_latency' | 'lambda';
  /** The jiffy-tune report (a folder in docs/tuning/) latest()'s knobs came from; undefined if not measured. */
  readonly measuredIn: string | undefined;
  /**
   * What carried the calls they were measured with: a `transport` ('http2', 'grpc-js'), or
   * 'protosocket' (a client with `protosocketEndpoint`); undefined if not measured. A cap
   * measured over one transport need not suit another.
   */
  readonly measuredTransport: MeasuredTransport | undefined;
  /** The first version; never changes. */
  v1(): Readonly<Knobs>;
  /** The newest version: v1 with the measured knobs; may change in a later release. */
  latest(): Readonly<Knobs>;
}

/** The transports jiffy-tune sweeps our SDK over, by the names it and the loadgen give them. */
export type MeasuredTransport = TransportName | 'protosocket';

/** The jiffy-tune report behind the latest() values below, and the transport it measured them over. */
export const TUNING_REPORT = 'docs/tuning/2026-11-21-localhost-2core';
export const TUNING_TRANSPORT: MeasuredTransport = 'http2';

interface Measured {
  knobs: Partial<Knobs>;
  in: string;
  transport: MeasuredTransport;
}

function freeze(knobs: Knobs): Readonly<Knobs> {
  return Object.freeze({ ...knobs, retry: Object.freeze({ ...knobs.retry }) });
}

function preset(name: Preset['name'], v1: Knobs, measured?: Measured): Preset {
  const frozen = freeze(v1);
  const latest = freeze({ ...v1, ...measured?.knobs });
  return Object.freeze({
    name,
    measuredIn: measured?.in,
    measuredTransport: measured?.transport,
    v1: () => frozen,
    latest: () => latest,
  });
}

export const laptop: Preset = preset('laptop', {
  channels: 2,
  maxConcurrentRequests: 100,
  deadlineMs: 15_000,
  keepaliveTimeMs: 30_000,
  keepaliveTimeoutMs: 10_000,
  retry: { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 1_000, jitter: 0.5 },
  eagerConnectTimeoutMs: 30_000,
  defaultTtlMs: 60_000,
});

export const inRegion: Preset = preset('in_region', {
  channels: 2,
  maxConcurrentRequests: 50,
  deadlineMs: 5_000,
  keepaliveTimeMs: 30_000,
  keepaliveTimeoutMs: 10_000,
  retry: { maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 500, jitter: 0.5 },
  eagerConnectTimeoutMs: 10_000,
  defaultTtlMs: 60_000,
}, { knobs: { channels: 1, maxConcurrentRequests: 10 }, in: TUNING_REPORT, transport: TUNING_TRANSPORT });

export const lowLatency: Preset = preset('low_latency', {
  channels: 2,
  maxConcurrentRequests: 2,
  deadlineMs: 1_000,
  keepaliveTimeMs: 30_000,
  keepaliveTimeoutMs: 5_000,
  retry: { maxAttempts: 2, initialBackoffMs: 5, maxBackoffMs: 50, jitter: 0.5 },
  eagerConnectTimeoutMs: 5_000,
  defaultTtlMs: 60_000,
}, { knobs: { channels: 1, maxConcurrentRequests: 5 }, in: TUNING_REPORT, transport: TUNING_TRANSPORT });

export const lambda: Preset = preset('lambda', {
  channels: 1,
  maxConcurrentRequests: 20,
  deadlineMs: 5_000,
  keepaliveTimeMs: 0,
  keepaliveTimeoutMs: 10_000,
  retry: { maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 500, jitter: 0.5 },
  eagerConnectTimeoutMs: 3_000,
  defaultTtlMs: 60_000,
});

const BY_NAME: ReadonlyMap<string, Preset> = new Map(
  [laptop, inRegion, lowLatency, lambda].flatMap((p) => [
    [p.name, p],
    [p.name.replace(/_(.)/g, (_m, c: string) => c.toUpperCase()), p],
  ]),
);

/** The preset called laptop, in_region (inRegion), low_latency (lowLatency) or lambda. */
export function presetByName(name: string): Preset {
  const found = BY_NAME.get(name.replace(/-/g, '_'));
  if (found === undefined) {
    throw new InvalidArgumentError(`unknown preset '${name}'; known presets: laptop, in_region, low_latency, lambda`);
  }
  return found;
}
