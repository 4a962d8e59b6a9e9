// protosocketEndpoint: 'auto' (the default). jiffy-server started with
// --protosocket-listen names its protosocket port in the headers of its gRPC
// Ping answer (`jiffy-protosocket-port`, server/src/service/ping.rs); the
// Momento service sends no such header. The client asks once, when it
// connects, and moves get, set and delete to protosocket only once the port
// has opened: 'auto' never turns a call that gRPC would serve into an error.
import { create, toBinary } from '@bufbuild/protobuf';
import type { ChannelPool } from './channel-pool.js';
import type { Bytes } from './codec.js';
import { _PingRequestSchema } from './gen/cacheping_pb.js';
import { Status } from './status.js';

/** The Ping answer's header that names the protosocket port. */
export const PROTOSOCKET_PORT_HEADER = 'jiffy-protosocket-port';

/**
 * The most connecting waits for the port the Ping named. The server has just
 * answered over gRPC, so a reachable port opens within a few round trips;
 * one that a firewall silently drops must not hold create() for the whole
 * `eagerConnectTimeoutMs` before gRPC is settled on.
 */
export const AUTO_PROTOSOCKET_TIMEOUT_MS = 2_000;

/** The least the Ping is given, however little of the connect timeout is left. */
const MIN_PING_MS = 1_000;
const PING_PATH = '/cache_client.Ping/Ping';
const PING_REQUEST = toBinary(_PingRequestSchema, create(_PingRequestSchema, {}));

/** What a Ping's answer says of protosocket. */
export type PortAnswer =
  /** The server serves protosocket on this port. */
  | { kind: 'port'; port: number }
  /** It does not (no header, or a Ping refused: the server answered otherwise). */
  | { kind: 'none' }
  /** The header holds no port. */
  | { kind: 'invalid'; value: string }
  /** The Ping did not reach the server (UNAVAILABLE, or no answer in time): ask again later. */
  | { kind: 'unreachable' };

/** The get, set and delete of one transport, as the client hands them over. */
export interface ScalarCalls {
  get(cacheName: string, key: Bytes): Promise<Uint8Array | undefined>;
  set(cacheName: string, key: Bytes, value: Bytes, ttlMs: number): Promise<void>;
  delete(cacheName: string, key: Bytes): Promise<void>;
}

/**
 * Sends one Ping on the data channels and reads its answer's headers. A
 * unary call read as a stream: the wire is the same, and the stream's
 * listener is where a channel hands over response headers.
 */
export function askForProtosocketPort(
  pool: ChannelPool,
  metadata: Readonly<Record<string, string>>,
  deadline: number,
): Promise<PortAnswer> {
  return new Promise<PortAnswer>((resolve) => {
    let advertised: string | undefined;
    const stream = pool.openStream(PING_PATH, PING_REQUEST, metadata, {
      onHeaders(headers) {
        advertised = headers[PROTOSOCKET_PORT_HEADER];
      },
      onMessage() {},
      onEnd(error) {
        clearTimeout(timer);
        if (error !== undefined) resolve(error.code === Status.UNAVAILABLE ? { kind: 'unreachable' } : { kind: 'none' });
        else resolve(readPort(advertised));
      },
    });
    const timer = setTimeout(
      () => {
        stream.cancel();
        resolve({ kind: 'unreachable' });
      },
      Math.max(deadline - Date.now(), MIN_PING_MS),
    );
  });
}

function readPort(value: string | undefined): PortAnswer {
  if (value === undefined) return { kind: 'none' };
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  return port >= 1 && port <= 65535 ? { kind: 'port', port } : { kind: 'invalid', value };
}

/** The one warning of a client that found protosocket offered and could not use it. */
export function warnStayingOnGrpc(cause: string): void {
  process.emitWarning(`protosocketEndpoint 'auto': ${cause}; get, set and delete stay on gRPC (protosocketEndpoint: null skips the attempt)`, {
    type: 'JiffyWarning',
    code: 'JIFFY_PROTOSOCKET_UNAVAILABLE',
  });
}

/**
 * get, set and delete of a client under 'auto' with lazy connect
 * (`eagerConnectTimeoutMs: 0`), before the server has answered: each call
 * waits for the one question in flight (`settle`), then goes where the
 * answer says. The client replaces this once the answer is in.
 */
export class Undecided implements ScalarCalls {
  constructor(private readonly settle: () => Promise<ScalarCalls>) {}

  async get(cacheName: string, key: Bytes): Promise<Uint8Array | undefined> {
    return (await this.settle()).get(cacheName, key);
  }

  async set(cacheName: string, key: Bytes, value: Bytes, ttlMs: number): Promise<void> {
    return (await this.settle()).set(cacheName, key, value, ttlMs);
  }

  async delete(cacheName: string, key: Bytes): Promise<void> {
    return (await this.settle()).delete(cacheName, key);
  }

  close(): void {}
}
