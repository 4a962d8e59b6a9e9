// Versioned presets: `presets.inRegion.latest()`, spread into the options.
//
// Each preset has v1(), frozen forever (a unit test asserts its values), and
// latest(), which may move to newer measurements in a later release. The
// names and knobs are the Python SDK's (`in_region` there, `inRegion` here).
//
// Where the numbers come from: the 2022 Momento study of gRPC clients
// (DESIGN.md), then bench/js/run.sh on this repository's 2-core machine
// (bench/js/README.md):
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
import type { Knobs } from './config.js';

export interface Preset {
  readonly name: 'laptop' | 'in_region' | 'low_latency' | 'lambda';
  /** The first version; never changes. */
  v1(): Readonly<Knobs>;
  /** The newest version; may change in a later release. */
  latest(): Readonly<Knobs>;
}

function freeze(knobs: Knobs): Readonly<Knobs> {
  return Object.freeze({ ...knobs, retry: Object.freeze({ ...knobs.retry }) });
}

function preset(name: Preset['name'], v1: Knobs): Preset {
  const frozen = freeze(v1);
  return Object.freeze({ name, v1: () => frozen, latest: () => frozen });
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
});

export const lowLatency: Preset = preset('low_latency', {
  channels: 2,
  maxConcurrentRequests: 2,
  deadlineMs: 1_000,
  keepaliveTimeMs: 30_000,
  keepaliveTimeoutMs: 5_000,
  retry: { maxAttempts: 2, initialBackoffMs: 5, maxBackoffMs: 50, jitter: 0.5 },
  eagerConnectTimeoutMs: 5_000,
  defaultTtlMs: 60_000,
});

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
    throw new RangeError(`unknown preset '${name}'; known presets: laptop, in_region, low_latency, lambda`);
  }
  return found;
}
