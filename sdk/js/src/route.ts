// The transport seam: every call of CacheClient goes through a Route, and
// only here is protosocket or gRPC chosen, per call, from the call's
// catalogue row (rpcs.ts, `transports`). The Route owns:
// - the connections: the gRPC channel pools and the protosocket
//   connections, which reconnect on their next call after a drop
//   (channel-pool.ts, transport/protosocket-connection.ts);
// - protosocketEndpoint 'auto': the question to the server and its answer
//   (protosocket-auto.ts), asked at connect or, with lazy connect, by the
//   first call protosocket would carry;
// - the too-large fallback: under 'auto', what protosocket cannot carry
//   goes over gRPC rather than failing.
// Either transport fails with a StatusError, which the CallRunner maps once
// to the SDK's errors (errors.ts); the reason it acts on is structural
// (errors.ts `reasonOf`).
import type { CallRunner } from './call-runner.js';
import type { ChannelPool } from './channel-pool.js';
import type { Operation } from './collections/common.js';
import type { ResolvedKnobs } from './config.js';
import { LimitExceededError, Reason } from './errors.js';
import { type OpenPort, chooseTransport } from './protosocket-auto.js';
import type { ProtosocketCalls } from './protosocket-calls.js';
import type { Transport } from './rpcs.gen.js';
import type { KeyOperation, StreamOperation } from './scalars.js';
import { Topics } from './topics/topics.js';

/** What a Route is built from (connection-setup.ts builds them). */
export interface RouteParts {
  knobs: Readonly<ResolvedKnobs>;
  runner: CallRunner;
  dataPool: ChannelPool;
  /** The data pool itself when control calls go to the same server. */
  controlPool: ChannelPool;
  authorization: string | undefined;
  /** host:port of the data endpoint, for messages. */
  target: string;
}

/** Whether a call failed only because protosocket cannot carry its answer (gRPC can). */
function tooLargeToRead(err: unknown): boolean {
  return err instanceof LimitExceededError && err.reason === Reason.ANSWER_TOO_LARGE_FOR_PROTOSOCKET;
}

export class Route {
  readonly knobs: Readonly<ResolvedKnobs>;
  readonly runner: CallRunner;
  readonly topics: Topics;
  private readonly dataPool: ChannelPool;
  private readonly controlPool: ChannelPool;
  /** The client's own token (`apiKey`), sent as `authorization`; token vending also sends it in the message. */
  readonly authorization: string | undefined;
  /** host:port of the data endpoint (signing keys name it as their endpoint). */
  readonly target: string;
  private readonly controlMetadata: Readonly<Record<string, string>>;
  // One frozen header record per cache, built on first use: the transports
  // key their own per-call structures on it.
  private readonly metadataByCache = new Map<string, Readonly<Record<string, string>>>();
  private closed = false;
  /** Where the calls protosocket carries go; undefined: over gRPC. */
  #protosocket: ProtosocketCalls | undefined;
  /** protosocketEndpoint 'auto': what protosocket cannot carry goes over gRPC rather than failing. */
  #auto = false;
  /** 'auto': the protosocket connections to the port the server names. */
  #openPort: OpenPort | undefined;
  /** 'auto' with lazy connect, until the server has answered: the calls protosocket carries ask first. */
  #undecided = false;
  /** The question in flight, which the first calls share. */
  #asking: Promise<void> | undefined;

  constructor(parts: RouteParts) {
    this.knobs = parts.knobs;
    this.runner = parts.runner;
    this.dataPool = parts.dataPool;
    this.controlPool = parts.controlPool;
    this.authorization = parts.authorization;
    this.target = parts.target;
    const authorization: Record<string, string> = parts.authorization === undefined ? {} : { authorization: parts.authorization };
    this.controlMetadata = Object.freeze(authorization);
    const topicContext = { pool: parts.dataPool, knobs: parts.knobs, target: parts.target, closed: () => this.closed };
    this.topics = new Topics(topicContext, parts.runner, (cacheName) => this.metadataFor(cacheName));
  }

  /** protosocketEndpoint host:port: the calls protosocket carries go to `calls`. */
  useProtosocket(calls: ProtosocketCalls): void {
    this.#protosocket = calls;
  }

  /** protosocketEndpoint 'auto': `open` opens the port the server names; decide() or decideLater() asks. */
  useAuto(open: OpenPort): void {
    this.#auto = true;
    this.#openPort = open;
  }

  /**
   * 'auto': asks the server for its protosocket port and moves the calls it
   * carries there once it has opened; never rejects. A server that cannot
   * be reached leaves them on gRPC, and with lazy connect the question open.
   */
  async decide(giveUpAt: number): Promise<void> {
    if (this.#openPort === undefined) return;
    const choice = await chooseTransport(this.dataPool, this.controlMetadata, giveUpAt, this.#openPort);
    if (choice === 'unreachable') return;
    this.#undecided = false;
    if (choice === 'grpc') return;
    if (this.closed) choice.close();
    else this.#protosocket = choice;
  }

  /** 'auto' with lazy connect: the first call protosocket would carry asks (decide). */
  decideLater(): void {
    this.#undecided = true;
  }

  /**
   * What carries get, set and delete now. Under 'auto' with lazy connect it
   * is 'grpc' until the first of them has asked the server.
   */
  get transport(): Transport {
    return this.#protosocket === undefined ? 'grpc' : 'protosocket';
  }

  /** host:port of the protosocket port in use, or undefined over gRPC. */
  get protosocketAddress(): string | undefined {
    return this.#protosocket?.address;
  }

  /** Data channels holding an open connection now (protosocket connections not counted). */
  connectedChannels(): number {
    return this.dataPool.connectedCount();
  }

  /** One data call: over protosocket when its row lists it and protosocket is in use, else over gRPC. */
  async send<T>(cacheName: string, operation: Operation<T> | KeyOperation<T>): Promise<T> {
    if ('command' in operation && operation.rpc.transports.includes('protosocket')) {
      if (this.#undecided) await this.#settle();
      const protosocket = this.#protosocket;
      if (protosocket !== undefined && (!this.#auto || protosocket.fits(operation))) {
        try {
          // A protosocket answer is a Get's value or nothing: the T of the calls it carries.
          return (await protosocket.send(cacheName, operation)) as T;
        } catch (err) {
          // 'auto' chose protosocket, so it must not fail what gRPC can do.
          if (!this.#auto || !tooLargeToRead(err)) throw err;
        }
      }
    }
    return operation.read(await this.runner.unary(this.dataPool, operation.rpc, operation.request, this.metadataFor(cacheName)));
  }

  /** One server-streaming data call (gRPC only). */
  async stream<T>(cacheName: string, operation: StreamOperation<T>): Promise<T> {
    return operation.read(await this.runner.serverStream(this.dataPool, operation.rpc, operation.request, this.metadataFor(cacheName)));
  }

  /** One control call (cache management), on the control endpoint. */
  async control<T>(operation: Operation<T>): Promise<T> {
    return operation.read(await this.runner.unary(this.controlPool, operation.rpc, operation.request, this.controlMetadata));
  }

  /** A call to the data server that names no cache (Ping). */
  async toDataServer<T>(operation: Operation<T>): Promise<T> {
    return operation.read(await this.runner.unary(this.dataPool, operation.rpc, operation.request, this.controlMetadata));
  }

  /** Fails queued and in-flight calls with ConnectionError and closes every connection. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.topics.closeAll();
    this.runner.close();
    this.#protosocket?.close();
    this.dataPool.close();
    if (this.controlPool !== this.dataPool) this.controlPool.close();
  }

  metadataFor(cacheName: string): Readonly<Record<string, string>> {
    let metadata = this.metadataByCache.get(cacheName);
    if (metadata === undefined) {
      const headers: Record<string, string> = { cache: cacheName };
      if (this.authorization !== undefined) headers.authorization = this.authorization;
      metadata = Object.freeze(headers);
      this.metadataByCache.set(cacheName, metadata);
    }
    return metadata;
  }

  #settle(): Promise<void> {
    this.#asking ??= this.decide(Date.now() + this.knobs.deadlineMs).finally(() => {
      this.#asking = undefined;
    });
    return this.#asking;
  }
}
