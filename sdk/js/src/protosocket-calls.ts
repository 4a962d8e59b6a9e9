// Get, Set and Delete over protosocket: the calls that protocol carries, on
// `channels` pipelined connections (transport/protosocket-connection.ts),
// each call to the one with the fewest in flight as the gRPC channel pool
// does. Everything above the wire is the gRPC calls' own: the same
// CallRunner (in-flight cap, fixed or 'auto', the deadline, retries of these
// idempotent calls on UNAVAILABLE / INTERNAL) and the same error mapping
// (errors.ts). The route (route.ts) decides what comes here.
import type { CallRunner } from './call-runner.js';
import { checkBytes } from './codec.js';
import { InvalidArgumentError, LimitExceededError } from './errors.js';
import type { KeyOperation } from './scalars.js';
import { Command, fieldBytes } from './transport/protosocket-codec.js';
import { ProtosocketConnection, type ProtosocketTarget } from './transport/protosocket-connection.js';

/**
 * The largest value a protosocket Get can bring back: the official client
 * reads no frame over 4 MiB, and jiffy-server refuses to store more over
 * this port (its README, "The protosocket port").
 */
export const MAX_PROTOSOCKET_VALUE_BYTES = 4_194_279;

export class ProtosocketCalls {
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
  ) {
    this.address = target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
    this.connections = Array.from({ length: count }, () => new ProtosocketConnection(target));
  }

  /** Connects every connection (the Authenticate answered); rejects with the first failure. */
  async connect(deadline: number): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.connect(deadline)));
  }

  /**
   * Whether a Get could bring the operation's value back (send refuses a
   * Set of more). What is not bytes fits here: send refuses it as such.
   */
  fits(operation: KeyOperation<unknown>): boolean {
    const value = operation.value;
    if (value === undefined || !(typeof value === 'string' || value instanceof Uint8Array)) return true;
    return fieldBytes(value) <= MAX_PROTOSOCKET_VALUE_BYTES;
  }

  /** Sends the operation's command; resolves to the Get's value (undefined on a miss), or undefined. */
  send(cacheName: string, operation: KeyOperation<unknown>): Promise<Uint8Array | undefined> {
    const { command, key, value, ttlMs } = operation;
    checkBytes(key);
    if (command === Command.SET) {
      checkBytes(value!);
      const valueBytes = fieldBytes(value!);
      if (valueBytes > MAX_PROTOSOCKET_VALUE_BYTES) throw tooLarge(valueBytes);
      if (ttlMs > Number.MAX_SAFE_INTEGER) {
        throw new InvalidArgumentError(`\`ttlMs\` must be at most ${Number.MAX_SAFE_INTEGER}; got ${ttlMs}`, { status: 'INVALID_ARGUMENT' });
      }
    }
    const namespace = this.namespace(cacheName);
    return this.runner.run(operation.rpc, (deadline) => this.pick().send(command, namespace, key, value, ttlMs, deadline));
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
