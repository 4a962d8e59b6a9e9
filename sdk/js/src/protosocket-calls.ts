// get, set and delete over protosocket (`protosocketEndpoint`): the calls
// that protocol carries, on `channels` pipelined connections
// (transport/protosocket-connection.ts), each call to the one with the
// fewest in flight as the gRPC channel pool does. Everything above the wire
// is the gRPC calls' own: the same CallRunner (in-flight cap, fixed or
// 'auto', the deadline, retries of these idempotent calls on UNAVAILABLE /
// INTERNAL) and the same error mapping (errors.ts); only a miss is read
// here, from its answer.
import { type CallRunner, type Rpc, scsRpc } from './call-runner.js';
import { type Bytes, checkBytes } from './codec.js';
import { InvalidArgumentError, LimitExceededError } from './errors.js';
import type { ScalarCalls } from './protosocket-auto.js';
import { StatusError } from './transport/channel.js';
import { Command, fieldBytes } from './transport/protosocket-codec.js';
import { ProtosocketConnection, type ProtosocketTarget } from './transport/protosocket-connection.js';

/**
 * The largest value a protosocket Get can bring back: the official client
 * reads no frame over 4 MiB, and jiffy-server refuses to store more over
 * this port (its README, "The protosocket port").
 */
export const MAX_PROTOSOCKET_VALUE_BYTES = 4_194_279;

/**
 * How jiffy-server's refusal of a Get ends when the value, stored over
 * gRPC, is over what a protosocket answer can carry (server/src/error.rs).
 */
const READ_OVER_GRPC = 'a protosocket answer can carry; read it over gRPC';

/** Whether a get failed only because protosocket cannot carry its value (gRPC can). */
export function tooLargeToRead(err: unknown): boolean {
  return err instanceof LimitExceededError && err.cause instanceof StatusError && err.cause.details.endsWith(READ_OVER_GRPC);
}

// The same names as the gRPC calls: retries, metrics and messages read them.
const GET: Rpc = scsRpc('Get');
const SET: Rpc = scsRpc('Set');
const DELETE: Rpc = scsRpc('Delete');

export class ProtosocketCalls implements ScalarCalls {
  /** host:port of the protosocket port. */
  readonly address: string;
  private readonly connections: ProtosocketConnection[];
  private next = 0;
  /** Each cache name's UTF-8 bytes, encoded once. */
  private readonly namespaces = new Map<string, Buffer>();

  constructor(
    target: ProtosocketTarget,
    count: number,
    private readonly runner: CallRunner,
    /**
     * Where a set of a value over MAX_PROTOSOCKET_VALUE_BYTES goes under
     * protosocketEndpoint 'auto' (gRPC); without it such a set is refused.
     */
    private readonly oversized?: ScalarCalls['set'],
  ) {
    this.address = target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
    this.connections = Array.from({ length: count }, () => new ProtosocketConnection(target));
  }

  /** Connects every connection (the Authenticate answered); rejects with the first failure. */
  async connect(deadline: number): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.connect(deadline)));
  }

  get(cacheName: string, key: Bytes): Promise<Uint8Array | undefined> {
    checkBytes(key);
    const namespace = this.namespace(cacheName);
    return this.runner.run(GET, (deadline) => this.pick().send(Command.GET, namespace, key, undefined, 0, deadline));
  }

  async set(cacheName: string, key: Bytes, value: Bytes, ttlMs: number): Promise<void> {
    checkBytes(key);
    checkBytes(value);
    const valueBytes = fieldBytes(value);
    if (valueBytes > MAX_PROTOSOCKET_VALUE_BYTES) {
      if (this.oversized !== undefined) return this.oversized(cacheName, key, value, ttlMs);
      throw tooLarge(valueBytes);
    }
    if (ttlMs > Number.MAX_SAFE_INTEGER) {
      throw new InvalidArgumentError(`\`ttlMs\` must be at most ${Number.MAX_SAFE_INTEGER}; got ${ttlMs}`, { status: 'INVALID_ARGUMENT' });
    }
    const namespace = this.namespace(cacheName);
    await this.runner.run(SET, (deadline) => this.pick().send(Command.SET, namespace, key, value, ttlMs, deadline));
  }

  async delete(cacheName: string, key: Bytes): Promise<void> {
    checkBytes(key);
    const namespace = this.namespace(cacheName);
    await this.runner.run(DELETE, (deadline) => this.pick().send(Command.DELETE, namespace, key, undefined, 0, deadline));
  }

  /** Connections holding an open TCP connection now. */
  connectedCount(): number {
    return this.connections.reduce((n, connection) => n + (connection.isConnected() ? 1 : 0), 0);
  }

  close(): void {
    for (const connection of this.connections) connection.close();
  }

  private namespace(cacheName: string): Buffer {
    let bytes = this.namespaces.get(cacheName);
    if (bytes === undefined) {
      bytes = Buffer.from(String(cacheName), 'utf8');
      this.namespaces.set(cacheName, bytes);
    }
    return bytes;
  }

  /** The connection with the fewest calls in flight, scanning from a rotating start (channel-pool.ts). */
  private pick(): ProtosocketConnection {
    const connections = this.connections;
    const count = connections.length;
    if (count === 1) return connections[0]!;
    const start = this.next;
    this.next = start + 1 === count ? 0 : start + 1;
    let best = connections[start]!;
    for (let step = 1; step < count && best.inFlight > 0; step += 1) {
      const candidate = connections[(start + step) % count]!;
      if (candidate.inFlight < best.inFlight) best = candidate;
    }
    return best;
  }
}

function tooLarge(bytes: number): LimitExceededError {
  return new LimitExceededError(
    `Set failed: RESOURCE_EXHAUSTED: a value of ${bytes} bytes is over the ${MAX_PROTOSOCKET_VALUE_BYTES} bytes ` +
      "a protosocket Get can return; store it over gRPC (a client with `protosocketEndpoint: null` or 'auto')",
    { status: 'RESOURCE_EXHAUSTED', reason: 'item_size_limit_exceeded' },
  );
}
