// protosocketEndpoint: 'auto' (the default). jiffy-server started with
// --protosocket-listen names its protosocket port in the headers of its gRPC
// Ping answer (`jiffy-protosocket-port`, server/src/service/ping.rs); the
// Momento service sends no such header. The client asks once, when it
// connects, and moves get, set and delete to protosocket only once the port
// has opened: 'auto' never turns a call that gRPC would serve into an error.
import { create, toBinary } from '@bufbuild/protobuf';
import type { ChannelPool } from './channel-pool.js';
import { type ProbeTarget, connectEagerly } from './eager-connect.js';
import { _PingRequestSchema } from './gen/cacheping_pb.js';
import type { ProtosocketCalls } from './protosocket-calls.js';
import { Status } from './status.js';

/** The Ping answer's header that names the protosocket port. */
export const PROTOSOCKET_PORT_HEADER = 'jiffy-protosocket-port';

/**
 * The most connecting waits for the port the Ping named. The server has just
 * answered over gRPC, so a reachable port opens within a few round trips;
 * one that a firewall silently drops must not hold create() for the whole
 * `eagerConnectTimeoutMs` before gRPC is settled on.
 */
const AUTO_PROTOSOCKET_TIMEOUT_MS = 2_000;

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

/**
 * Sends one Ping on the data channels and reads its answer's headers. A
 * unary call read as a stream: the wire is the same, and the stream's
 * listener is where a channel hands over response headers.
 */
function askForProtosocketPort(
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
function warnStayingOnGrpc(cause: string): void {
  process.emitWarning(`protosocketEndpoint 'auto': ${cause}; get, set and delete stay on gRPC (protosocketEndpoint: null skips the attempt)`, {
    type: 'JiffyWarning',
    code: 'JIFFY_PROTOSOCKET_UNAVAILABLE',
  });
}

/** Where a client under 'auto' sends get, set and delete, once it has asked. */
export type AutoChoice =
  /** Over these protosocket connections, open and authenticated. */
  | ProtosocketCalls
  /** Over gRPC for good: no port, or one that could not be opened. */
  | 'grpc'
  /** Over gRPC for now: the server could not be asked (ask again later). */
  | 'unreachable';

/** The protosocket connections to a port the server named, and how to probe it. */
export type OpenPort = (port: number) => { calls: ProtosocketCalls; probe: ProbeTarget };

/**
 * Asks the server for its protosocket port (one gRPC Ping) and opens it;
 * never rejects: whatever fails leaves the calls on gRPC, with one warning
 * when a port was offered and could not be used.
 */
export async function chooseTransport(
  pool: ChannelPool,
  metadata: Readonly<Record<string, string>>,
  giveUpAt: number,
  open: OpenPort,
): Promise<AutoChoice> {
  const answer = await askForProtosocketPort(pool, metadata, giveUpAt);
  if (answer.kind === 'unreachable') return 'unreachable';
  if (answer.kind === 'invalid') warnStayingOnGrpc(`the server's Ping named protosocket port '${answer.value}', which is no port`);
  if (answer.kind !== 'port') return 'grpc';
  const { calls, probe } = open(answer.port);
  const timeoutMs = Math.min(Math.max(giveUpAt - Date.now(), 1_000), AUTO_PROTOSOCKET_TIMEOUT_MS);
  try {
    // No grace for refusals: the server is up and says it listens there.
    await connectEagerly((deadline) => calls.connect(deadline), probe, timeoutMs, 0);
  } catch (err) {
    calls.close();
    warnStayingOnGrpc((err as Error).message);
    return 'grpc';
  }
  return calls;
}
