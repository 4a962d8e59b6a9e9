// Client options: one interface, one defaults object, one resolver.
//
// Durations are milliseconds. A preset (presets.ts) is the usual start:
//   CacheClient.create({ ...presets.lowLatency.latest(), endpoint: 'host:8080' })
// Any field left out takes its value from DEFAULTS: the defaults defined in
// sdk/spec.json (`config`), the same as the Python SDK's Config(); a unit
// test (test/unit/spec-config.test.ts) checks them against that file.
// A bad option throws InvalidArgumentError, as in the Python SDK (it was a
// RangeError): everything the SDK refuses is in the one CacheError tree.
import { InvalidArgumentError } from './errors.js';
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
   * Channels, each its own TCP (HTTP/2) connection; a call goes to the one
   * with the fewest calls in flight (channel-pool.ts).
   * @default 1
   */
  channels: number;
  /**
   * Calls on the wire at once; the rest wait in a FIFO queue. 0 = no cap;
   * 'auto' = a cap that follows measured latency (adaptive-limit.ts).
   * @default 25
   */
  maxConcurrentRequests: number | 'auto';
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
   * Data-plane server: `host:port`, `[ipv6]:port`, a bare `host` (port 8080),
   * `http://host[:port]` or `https://host[:port]` (TLS, port 443 unless
   * given). Control calls go to `controlEndpoint`.
   * @default process.env.JIFFY_ENDPOINT, else the Momento key's endpoint, else
   * none: create() throws (endpoints.ts has the rules)
   */
  endpoint?: string;
  /**
   * Control-plane server (createCache, listCaches, ...) as host:port.
   * @default the API key's control endpoint, else `endpoint`
   */
  controlEndpoint?: string;
  /**
   * Sent as the `authorization` header. With an endpoint (`endpoint` or
   * JIFFY_ENDPOINT), a jiffy token sent as it is; without one, a Momento API
   * key: v1 (base64 JSON with its endpoint) or v2 (with MOMENTO_ENDPOINT).
   * @default process.env.JIFFY_API_KEY with an endpoint, else process.env.MOMENTO_API_KEY
   */
  apiKey?: string;
  /**
   * TLS: true for the system roots, or `{ caFile }` for a PEM bundle.
   * @default true for Momento API keys and https:// endpoints, else false (plaintext)
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
   * @default 67108864
   */
  maxReceiveMessageBytes?: number;
  /**
   * With `maxConcurrentRequests: 'auto'`: the p99.9 (ms) of calls' time on
   * the wire to keep under; 0 = only avoid queueing. Not a preset knob: it
   * is the application's goal, not a fact about where it runs.
   * @default 0
   */
  targetP999Ms?: number;
  /**
   * What carries get, getString, set and delete; every other call goes over
   * `transport` (gRPC) to `endpoint`. Over protosocket they ride pipelined
   * connections (`channels` of them) with the same TLS, API key, in-flight
   * cap, deadline and retries as the gRPC calls.
   *
   * - `'auto'`: when the client connects (in create(), or at the first get,
   *   set or delete with `eagerConnectTimeoutMs: 0`) one gRPC Ping asks the
   *   server; jiffy-server started with `--protosocket-listen` names its
   *   port, and those calls go there on `endpoint`'s host. No port named
   *   (the Momento service, a server without it): gRPC. A port that cannot
   *   be opened (a proxy or NAT in between, a firewall, a TLS mismatch):
   *   one process warning naming the cause, then gRPC. Never an error.
   * - `'host:port'`: that protosocket port (jiffy-server's
   *   `--protosocket-listen`); failing to reach it is an error.
   * - `null`: every call over gRPC.
   *
   * Not a preset knob: it names a server.
   * @default 'auto'
   */
  protosocketEndpoint?: string | null;
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

/** `protosocketEndpoint: 'auto'`: ask the server for its protosocket port (the default). */
export const PROTOSOCKET_AUTO = 'auto';

/** jiffy-server's default --listen port: a bare host in `endpoint` means it. */
export const DEFAULT_PORT = 8080;

// The defaults of sdk/spec.json, which the Python SDK shares; what a client
// given no options uses. Presets are separate starting points.
export const DEFAULTS: Readonly<ResolvedKnobs> = Object.freeze({
  channels: 1,
  // In-flight cap, the same in both SDKs. It was 10 here (inRegion.latest())
  // while the Python SDK had 50 in Config() and 25 for a client given none.
  // 25 is the one cap at which both SDKs met p99.9 < 20 ms in
  // docs/tuning/2026-11-21-localhost-2core with (nearly) their best
  // throughput: JS 18,444 rps at p99.9 10.2 ms (0.8% under its best, at
  // 10), Python 13,249 rps at 3.3 ms (its best). At 10 Python lost 10%; at
  // 50 JS lost 11% and its tail grew to 13.8 ms. Off localhost the higher of
  // the two good caps is the safer one: a client can do at most
  // cap / latency calls per second, so at 1 ms a call 10 in flight stop a
  // client at 10,000 rps and 25 at 25,000.
  maxConcurrentRequests: 25,
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
  // 64 MiB, as the Python SDK: a GetBatch or a collection fetch of a few
  // values near the server's 5 MiB item limit is past 16 MiB (the old
  // default); the limit is there to bound one answer's memory, not to cut
  // off answers the server may legitimately send.
  maxReceiveMessageBytes: 64 * 1024 * 1024,
  // Adaptive limit: no tail target unless the application sets one.
  targetP999Ms: 0,
  // Protosocket carried get/set/delete at ~2x http2's calls/s (bench/js), so
  // a client uses it wherever the server offers it; 'auto' asks the server.
  protosocketEndpoint: PROTOSOCKET_AUTO,
});

/** Options with every knob filled in and checked. */
export type ResolvedKnobs = Knobs & {
  transport: TransportName;
  maxReceiveMessageBytes: number;
  targetP999Ms: number;
  protosocketEndpoint: string | null;
};

function positive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError(`option \`${name}\` must be a positive number; got ${value}`);
  }
}

function atLeast(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidArgumentError(`option \`${name}\` must be an integer >= ${min}; got ${value}`);
  }
}

/** Fills the knobs from DEFAULTS and checks them; throws InvalidArgumentError naming the option. */
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
    targetP999Ms: options.targetP999Ms ?? DEFAULTS.targetP999Ms,
    // Not `??`: null (gRPC only) is a choice, not a gap to fill.
    protosocketEndpoint: options.protosocketEndpoint === undefined ? DEFAULTS.protosocketEndpoint : options.protosocketEndpoint,
  };
  atLeast('channels', knobs.channels, 1);
  if (knobs.maxConcurrentRequests !== 'auto') {
    if (!Number.isInteger(knobs.maxConcurrentRequests) || knobs.maxConcurrentRequests < 0) {
      throw new InvalidArgumentError(
        `option \`maxConcurrentRequests\` must be an integer >= 0 or 'auto'; got ${String(knobs.maxConcurrentRequests)}`,
      );
    }
  }
  if (knobs.targetP999Ms !== 0 && (knobs.maxConcurrentRequests !== 'auto' || !(knobs.targetP999Ms > 0))) {
    throw new InvalidArgumentError("option `targetP999Ms` must be positive, with maxConcurrentRequests: 'auto'");
  }
  positive('deadlineMs', knobs.deadlineMs);
  positive('defaultTtlMs', knobs.defaultTtlMs);
  positive('keepaliveTimeoutMs', knobs.keepaliveTimeoutMs);
  positive('maxReceiveMessageBytes', knobs.maxReceiveMessageBytes);
  if (knobs.keepaliveTimeMs < 0) throw new InvalidArgumentError('option `keepaliveTimeMs` must be 0 (off) or more');
  if (knobs.eagerConnectTimeoutMs < 0) throw new InvalidArgumentError('option `eagerConnectTimeoutMs` must be 0 (lazy) or more');
  atLeast('retry.maxAttempts', retry.maxAttempts, 1);
  if (!(retry.jitter >= 0 && retry.jitter <= 1)) throw new InvalidArgumentError('option `retry.jitter` must be between 0 and 1');
  if (!(retry.initialBackoffMs >= 0 && retry.maxBackoffMs >= retry.initialBackoffMs)) {
    throw new InvalidArgumentError('option `retry` needs 0 <= initialBackoffMs <= maxBackoffMs');
  }
  if (knobs.transport !== 'grpc-js' && knobs.transport !== 'http2') {
    throw new InvalidArgumentError(`option \`transport\` must be 'grpc-js' or 'http2'; got ${String(knobs.transport)}`);
  }
  if (knobs.protosocketEndpoint !== null && (typeof knobs.protosocketEndpoint !== 'string' || knobs.protosocketEndpoint === '')) {
    throw new InvalidArgumentError(
      `option \`protosocketEndpoint\` must be 'auto', null or host:port (jiffy-server's --protosocket-listen); got ${String(knobs.protosocketEndpoint)}`,
    );
  }
  return knobs;
}
