// The seam between the client and the wire. A Channel is one HTTP/2
// connection that carries gRPC calls as opaque bytes; the client encodes and
// decodes protobuf itself, so every transport carries the same bytes and can
// be measured against the others on equal terms.
//
// Two implementations sit behind it: grpc-js-channel.ts (@grpc/grpc-js) and
// http2-channel.ts (a lean client on node:http2). The channel pool spreads
// calls over N channels; the limiter in front of it caps calls in flight.

/** Where and how one channel connects. */
export interface ChannelTarget {
  host: string;
  port: number;
  /** TLS when set; `ca` is a PEM bundle, absent for the system roots. */
  tls?: { ca?: Uint8Array; serverName?: string };
  /** Interval between HTTP/2 PINGs on a connection; 0 turns them off. */
  keepaliveTimeMs: number;
  /** How long to wait for a PING's answer before the connection is dropped. */
  keepaliveTimeoutMs: number;
  /** Largest response message accepted, in bytes. */
  maxReceiveMessageBytes: number;
}

/** Per-call settings. */
export interface CallOptions {
  /** Absolute deadline in ms since the epoch (Date.now() clock). */
  deadline: number;
  /** Request metadata: `cache`, `authorization`, `agent`, ... (lower-case keys). */
  metadata: Readonly<Record<string, string>>;
}

/**
 * A call that ended with a non-OK gRPC status, exactly as the server or the
 * transport reported it. The client maps it to a typed CacheError in one
 * place (errors.ts); transports never build CacheErrors themselves.
 */
export class StatusError extends Error {
  constructor(
    /** gRPC status code (grpc-js `status` numbering). */
    readonly code: number,
    readonly details: string,
    /** Trailing metadata, lower-case keys; `err` carries the reason. */
    readonly trailers: Readonly<Record<string, string>> = {},
  ) {
    super(details);
    this.name = 'StatusError';
  }
}

/** Receives a server stream's messages as they arrive (Subscribe). */
export interface StreamListener {
  /**
   * The response headers, lower-case keys (pseudo-headers left out), before
   * any message. Optional: the client reads jiffy-server's protosocket port
   * from a Ping answer's headers this way; a channel that never calls it
   * leaves every call on gRPC.
   */
  onHeaders?(headers: Readonly<Record<string, string>>): void;
  /** One response message, in order. */
  onMessage(message: Uint8Array): void;
  /**
   * The stream is over: `error` is undefined when the server ended it with
   * OK. Called once, never during openStream() itself, and not after cancel().
   */
  onEnd(error: StatusError | undefined): void;
}

/** A server stream being read (see Channel.openStream). */
export interface OpenStream {
  /** Ends the stream (CANCEL to the server); the listener hears nothing more. */
  cancel(): void;
  /**
   * Stop handing messages to the listener until resume(). HTTP/2 flow
   * control then slows the server, rather than the client buffering what
   * its reader has not taken.
   */
  pause(): void;
  resume(): void;
}

export interface Channel {
  /**
   * Open the connection and wait until it can carry calls. Rejects with a
   * StatusError (UNAVAILABLE or DEADLINE_EXCEEDED) when `deadline` passes first.
   */
  connect(deadline: number): Promise<void>;
  /** One unary call: the encoded request in, the encoded response out. */
  unary(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array>;
  /** A server-streaming call (GetBatch, SetBatch): every response message, in order. */
  serverStream(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array[]>;
  /**
   * A server stream read as it arrives, with no deadline: a subscription
   * lasts as long as its reader wants. Failures, including a connection
   * that cannot be opened, reach `listener.onEnd`.
   */
  openStream(path: string, request: Uint8Array, metadata: Readonly<Record<string, string>>, listener: StreamListener): OpenStream;
  /** True while a TCP connection is open (for the loadgen's connection count). */
  isConnected(): boolean;
  /** Fail calls in flight with CANCELLED and close the connection. */
  close(): void;
}

/**
 * Failures are StatusErrors with these codes, whatever the transport:
 * no connection or a dropped one: UNAVAILABLE (14); deadline passed:
 * DEADLINE_EXCEEDED (4); closed by the client: CANCELLED (1); a response the
 * transport could not parse: INTERNAL (13).
 */
export type ChannelFactory = (target: ChannelTarget) => Channel;
