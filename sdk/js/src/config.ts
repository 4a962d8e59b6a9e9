// Client options: one interface, one defaults object, one resolver.
//
// Durations are milliseconds. A preset (presets.ts) is the usual start:
//   CacheClient.create({ ...presets.lowLatency.latest(), endpoint: 'host:8080' })
// Any field left out takes its value from DEFAULTS, whose knobs are the
// inRegion preset's (a unit test keeps them equal).
import type { ChannelFactory } from './transport/channel.js';

/** Which gRPC/HTTP/2 implementation carries the calls. */
export type TransportName = 'grpc-js' | 'http2';

/** Retries of idempotent calls on UNAVAILABLE / INTERNAL, within the deadline. */
export interface RetryOptions {
  /**
   * Attempts in all, the first included; 1 turns retries off.
   * @default 3
   */
  maxAttempts: number;
  /**
   * Delay before the second attempt; doubles per attempt.
   * @default 10
   */
  initialBackoffMs: number;
  /**
   * Cap on any one delay.
   * @default 500
   */
  maxBackoffMs: number;
  /**
   * Share (0..1) of each delay removed at random, so clients that failed
   * together do not come back together.
   * @default 0.5
   */
  jitter: number;
}

/** The tuning knobs: the same names (camelCase) in every jiffy SDK and preset. */
export interface Knobs {
  /**
   * Channels, each its own TCP connection; calls go to the one with the
   * fewest calls in flight.
   * @default 1
   */
  channels: number;
  /**
   * Calls on the wire at once; the rest wait in a FIFO queue. 0 = no cap.
   * @default 10
   */
  maxConcurrentRequests: number;
  /**
   * Time a call may take in all: queue, attempts and backoff.
   * @default 5000
   */
  deadlineMs: number;
  /**
   * Interval between HTTP/2 PINGs on a connection; 0 turns them off.
   * @default 30000
   */
  keepaliveTimeMs: number;
  /**
   * Time to wait for a PING's answer before the connection is dropped.
   * @default 10000
   */
  keepaliveTimeoutMs: number;
  /** Retries of idempotent calls. */
  retry: Readonly<RetryOptions>;
  /**
   * Time CacheClient.create waits for every channel to connect; 0 = connect
   * lazily on the first call.
   * @default 10000
   */
  eagerConnectTimeoutMs: number;
  /**
   * TTL of writes that do not pass their own.
   * @default 60000
   */
  defaultTtlMs: number;
}

export interface CacheClientOptions extends Partial<Omit<Knobs, 'retry'>> {
  /**
   * Data-plane server as host:port. Control calls go to `controlEndpoint`.
   * @default process.env.JIFFY_ENDPOINT, else the API key's endpoint, else '127.0.0.1:8080'
   */
  endpoint?: string;
  /**
   * Control-plane server (createCache, listCaches, ...) as host:port.
   * @default the API key's control endpoint, else `endpoint`
   */
  controlEndpoint?: string;
  /**
   * Sent as the `authorization` header: a jiffy token, or a Momento v1 API
   * key (base64 JSON with its endpoint) or v2 API key (with MOMENTO_ENDPOINT).
   * @default process.env.JIFFY_API_KEY, else process.env.MOMENTO_API_KEY, else none
   */
  apiKey?: string;
  /**
   * TLS: true for the system roots, or `{ caFile }` for a PEM bundle.
   * @default true for Momento API keys, else false (plaintext)
   */
  tls?: boolean | { caFile?: string; serverName?: string };
  /**
   * Which implementation carries the calls.
   * @default DEFAULT_TRANSPORT
   */
  transport?: TransportName;
  /** Retries of idempotent calls; fields left out keep their defaults. */
  retry?: Partial<RetryOptions>;
  /**
   * Largest response accepted, in bytes (the server's values go up to 5 MiB).
   * @default 16777216
   */
  maxReceiveMessageBytes?: number;
  /**
   * Builds the channels instead of `transport`: for tests and custom transports.
   * @default undefined
   */
  channelFactory?: ChannelFactory;
}

/**
 * The transport used when none is named. The lean node:http2 channel gave
 * 2.0-2.5x the calls/s of grpc-js at 41-46% of the client CPU per call, with
 * a lower p99.9 at every concurrency measured (docs/transport.md, bench/js).
 * grpc-js stays selectable for what the lean one leaves out: compression,
 * name resolvers, load-balancing policies, proxies.
 */
export const DEFAULT_TRANSPORT: TransportName = 'http2';

export const DEFAULT_ENDPOINT = '127.0.0.1:8080';

export const DEFAULTS: Readonly<Knobs & { transport: TransportName; maxReceiveMessageBytes: number }> = Object.freeze({
  // Spreading and in-flight cap: inRegion.latest(), measured by jiffy-tune
  // (docs/tuning/2026-11-21-localhost-2core; see presets.ts): 1 channel and
  // 10 in flight had the most throughput under p99.9 < 20 ms.
  channels: 1,
  maxConcurrentRequests: 10,
  // Deadlines.
  deadlineMs: 5_000,
  eagerConnectTimeoutMs: 10_000,
  // Keepalive: pings on an idle connection find a dead peer (a NAT or load
  // balancer that dropped it) before a call does.
  keepaliveTimeMs: 30_000,
  keepaliveTimeoutMs: 10_000,
  // Retry: three attempts, 10 ms doubling to 500 ms: rides out a connection
  // reset; a dead server still fails inside a second.
  retry: Object.freeze({ maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 500, jitter: 0.5 }),
  // Items.
  defaultTtlMs: 60_000,
  // Transport.
  transport: DEFAULT_TRANSPORT,
  maxReceiveMessageBytes: 16 * 1024 * 1024,
});

/** Options with every knob filled in and checked. */
export type ResolvedKnobs = Knobs & { transport: TransportName; maxReceiveMessageBytes: number };

function positive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`option \`${name}\` must be a positive number; got ${value}`);
  }
}

function atLeast(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`option \`${name}\` must be an integer >= ${min}; got ${value}`);
  }
}

/** Fills the knobs from DEFAULTS and checks them; throws RangeError naming the option. */
export function resolveKnobs(options: CacheClientOptions): ResolvedKnobs {
  const retry = { ...DEFAULTS.retry, ...options.retry };
  const knobs: ResolvedKnobs = {
    channels: options.channels ?? DEFAULTS.channels,
    maxConcurrentRequests: options.maxConcurrentRequests ?? DEFAULTS.maxConcurrentRequests,
    deadlineMs: options.deadlineMs ?? DEFAULTS.deadlineMs,
    keepaliveTimeMs: options.keepaliveTimeMs ?? DEFAULTS.keepaliveTimeMs,
    keepaliveTimeoutMs: options.keepaliveTimeoutMs ?? DEFAULTS.keepaliveTimeoutMs,
    retry,
    eagerConnectTimeoutMs: options.eagerConnectTimeoutMs ?? DEFAULTS.eagerConnectTimeoutMs,
    defaultTtlMs: options.defaultTtlMs ?? DEFAULTS.defaultTtlMs,
    transport: options.transport ?? DEFAULTS.transport,
    maxReceiveMessageBytes: options.maxReceiveMessageBytes ?? DEFAULTS.maxReceiveMessageBytes,
  };
  atLeast('channels', knobs.channels, 1);
  atLeast('maxConcurrentRequests', knobs.maxConcurrentRequests, 0);
  positive('deadlineMs', knobs.deadlineMs);
  positive('defaultTtlMs', knobs.defaultTtlMs);
  positive('keepaliveTimeoutMs', knobs.keepaliveTimeoutMs);
  positive('maxReceiveMessageBytes', knobs.maxReceiveMessageBytes);
  if (knobs.keepaliveTimeMs < 0) throw new RangeError('option `keepaliveTimeMs` must be 0 (off) or more');
  if (knobs.eagerConnectTimeoutMs < 0) throw new RangeError('option `eagerConnectTimeoutMs` must be 0 (lazy) or more');
  atLeast('retry.maxAttempts', retry.maxAttempts, 1);
  if (!(retry.jitter >= 0 && retry.jitter <= 1)) throw new RangeError('option `retry.jitter` must be between 0 and 1');
  if (!(retry.initialBackoffMs >= 0 && retry.maxBackoffMs >= retry.initialBackoffMs)) {
    throw new RangeError('option `retry` needs 0 <= initialBackoffMs <= maxBackoffMs');
  }
  if (knobs.transport !== 'grpc-js' && knobs.transport !== 'http2') {
    throw new RangeError(`option \`transport\` must be 'grpc-js' or 'http2'; got ${String(knobs.transport)}`);
  }
  return knobs;
}
