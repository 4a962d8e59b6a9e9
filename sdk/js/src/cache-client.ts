// CacheClient: the public client. Each method builds its request, runs it
// through the CallRunner (cap, deadline, retries, errors) and reads the
// answer. A miss resolves to undefined; every failure rejects with a
// CacheError (errors.ts).
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import * as scs from './gen/cacheclient_pb.js';
import * as common from './gen/common_pb.js';
import * as control from './gen/controlclient_pb.js';
import { _PingRequestSchema } from './gen/cacheping_pb.js';
import { type CallRunner, controlRpc, newCallRunner, scsRpc, type Rpc } from './call-runner.js';
import type { InFlightLimitChange } from './adaptive-limit.js';
import { ChannelPool } from './channel-pool.js';
import { type Bytes, int64ToWire, safeNumberFromWire, toBytes, toUtf8, ttlMsToWire, ttlToWire } from './codec.js';
import { type CacheClientOptions, PROTOSOCKET_AUTO, type ResolvedKnobs, resolveKnobs } from './config.js';
import { type HostPort, parseProtosocketEndpoint, resolveEndpoints } from './endpoints.js';
import { ProtosocketCalls, tooLargeToRead } from './protosocket-calls.js';
import {
  AUTO_PROTOSOCKET_TIMEOUT_MS,
  type ScalarCalls,
  Undecided,
  askForProtosocketPort,
  warnStayingOnGrpc,
} from './protosocket-auto.js';
import { type ProbeTarget, connectEagerly } from './eager-connect.js';
import type { ProtosocketTarget } from './transport/protosocket-connection.js';
import type { ChannelTarget } from './transport/channel.js';
import { channelFactoryFor } from './transport/index.js';
import { type CollectionOptions, type Operation, type Slice, type WireTtl, wireTtl } from './collections/common.js';
import * as dictionary from './collections/dictionary.js';
import { type DictionaryEntries } from './collections/dictionary.js';
import * as hash from './collections/hash.js';
import { type SetIfHashCondition, type ValueWithHash } from './collections/hash.js';
import * as list from './collections/list.js';
import { type ListPushBackOptions, type ListPushFrontOptions, type ListRetainOptions } from './collections/list.js';
import * as sets from './collections/set.js';
import * as sortedSet from './collections/sorted-set.js';
import type {
  SortedSetElement,
  SortedSetEntries,
  SortedSetOrder,
  SortedSetRankRange,
  SortedSetScoreBounds,
  SortedSetScoreRange,
  SortedSetUnionSources,
  SortedSetUnionStoreOptions,
} from './collections/sorted-set.js';
import type { TopicSubscription } from './topics/subscription.js';
import { type SubscribeOptions, Topics } from './topics/topics.js';

/** Condition of setIf: the six of the protocol. */
export type SetIfCondition =
  | { present: true }
  | { absent: true }
  | { equal: Bytes }
  | { notEqual: Bytes }
  | { presentAndNotEqual: Bytes }
  | { absentOrEqual: Bytes };

export type ItemType = 'scalar' | 'dictionary' | 'set' | 'list' | 'sorted_set';

/** How updateTtl changes the TTL: always, or only if longer / shorter than what is left. */
export type TtlUpdate = 'overwrite' | 'increase' | 'decrease';

export interface WriteOptions {
  /** TTL of the item; the client's `defaultTtlMs` when left out. */
  ttlMs?: number;
}

const ITEM_TYPES: readonly ItemType[] = ['scalar', 'dictionary', 'set', 'list', 'sorted_set'];
const PING_RPC: Rpc = { method: 'Ping', path: '/cache_client.Ping/Ping', cacheCall: false, capped: false };
const RPC = {
  get: scsRpc('Get'),
  getBatch: scsRpc('GetBatch'),
  set: scsRpc('Set'),
  setBatch: scsRpc('SetBatch'),
  setIf: scsRpc('SetIf'),
  setIfNotExists: scsRpc('SetIfNotExists'),
  delete: scsRpc('Delete'),
  keysExist: scsRpc('KeysExist'),
  increment: scsRpc('Increment'),
  updateTtl: scsRpc('UpdateTtl'),
  itemGetTtl: scsRpc('ItemGetTtl'),
  itemGetType: scsRpc('ItemGetType'),
  createCache: controlRpc('CreateCache', false),
  deleteCache: controlRpc('DeleteCache', true),
  listCaches: controlRpc('ListCaches', false),
  flushCache: controlRpc('FlushCache', true),
} as const;

/**
 * For the loadgen (src/loadgen.ts), which counts the connections to both
 * ports: host:port of the protosocket port a client's get, set and delete
 * go to, or undefined over gRPC. Not part of the package's API.
 */
export let protosocketAddressOf: (client: CacheClient) => string | undefined;

function encode<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): Uint8Array {
  return toBinary(schema, create(schema, init));
}

// The gRPC Get, Set and Delete, built and read in one place (#getOverGrpc
// and its twins, which the calls and what 'auto' sends over gRPC share).
function getRequest(key: Bytes): Uint8Array {
  return encode(scs._GetRequestSchema, { cacheKey: toBytes(key) });
}

function readGet(response: Uint8Array): Uint8Array | undefined {
  const read = fromBinary(scs._GetResponseSchema, response);
  return read.result === scs.ECacheResult.Hit ? read.cacheBody : undefined;
}

function setRequest(key: Bytes, value: Bytes, ttl: bigint): Uint8Array {
  return encode(scs._SetRequestSchema, { cacheKey: toBytes(key), cacheBody: toBytes(value), ttlMilliseconds: ttl });
}

function deleteRequest(key: Bytes): Uint8Array {
  return encode(scs._DeleteRequestSchema, { cacheKey: toBytes(key) });
}

function conditionToWire(condition: SetIfCondition): scs._SetIfRequest['condition'] {
  if ('present' in condition) return { case: 'present', value: create(common.PresentSchema) };
  if ('absent' in condition) return { case: 'absent', value: create(common.AbsentSchema) };
  if ('equal' in condition) {
    return { case: 'equal', value: create(common.EqualSchema, { valueToCheck: toBytes(condition.equal) }) };
  }
  if ('notEqual' in condition) {
    return { case: 'notEqual', value: create(common.NotEqualSchema, { valueToCheck: toBytes(condition.notEqual) }) };
  }
  if ('presentAndNotEqual' in condition) {
    const valueToCheck = toBytes(condition.presentAndNotEqual);
    return { case: 'presentAndNotEqual', value: create(common.PresentAndNotEqualSchema, { valueToCheck }) };
  }
  const valueToCheck = toBytes(condition.absentOrEqual);
  return { case: 'absentOrEqual', value: create(common.AbsentOrEqualSchema, { valueToCheck }) };
}

export class CacheClient {
  private readonly runner: CallRunner;
  private readonly dataPool: ChannelPool;
  private readonly controlPool: ChannelPool;
  private readonly controlMetadata: Readonly<Record<string, string>>;
  // One frozen header record per cache, built on first use: the transports
  // key their own per-call structures on it.
  private readonly metadataByCache = new Map<string, Readonly<Record<string, string>>>();
  private closed = false;
  readonly #topics: Topics;
  /**
   * Where get, set and delete go when not over gRPC (undefined): protosocket
   * connections, or under 'auto' with lazy connect, Undecided until the
   * server has been asked. Decided at connect: the calls check nothing else.
   */
  #protosocket: ProtosocketCalls | Undecided | undefined;
  /** protosocketEndpoint 'auto': what protosocket cannot carry goes over gRPC rather than failing. */
  #auto = false;
  /** 'auto': a protosocket port's connections to `endpoint`'s host, once the server named the port. */
  #openProtosocket: ((port: number) => { calls: ProtosocketCalls; probe: ProbeTarget }) | undefined;
  /** 'auto' with lazy connect: the question in flight, which the first calls share. */
  #asking: Promise<ScalarCalls> | undefined;
  /** get, set and delete over gRPC, for what 'auto' sends there. */
  readonly #overGrpc: ScalarCalls = {
    get: (cacheName, key) => this.#getOverGrpc(cacheName, key),
    set: (cacheName, key, value, ttlMs) => this.#setOverGrpc(cacheName, key, value, ttlToWire(ttlMs)),
    delete: (cacheName, key) => this.#deleteOverGrpc(cacheName, key),
  };

  static {
    protosocketAddressOf = (client) => (client.#protosocket instanceof ProtosocketCalls ? client.#protosocket.address : undefined);
  }

  private constructor(
    readonly knobs: Readonly<ResolvedKnobs>,
    private readonly authorization: string | undefined,
    dataPool: ChannelPool,
    controlPool: ChannelPool,
    target: string,
  ) {
    this.dataPool = dataPool;
    this.controlPool = controlPool;
    this.runner = newCallRunner(knobs, target);
    this.controlMetadata = Object.freeze(authorization === undefined ? {} : { authorization }) as Readonly<Record<string, string>>;
    const topicContext = { pool: dataPool, knobs, target, closed: () => this.closed };
    this.#topics = new Topics(topicContext, this.runner, (cacheName) => this.#metadataFor(cacheName));
  }

  /**
   * Builds a client and, unless `eagerConnectTimeoutMs` is 0, waits until
   * every data channel is connected. Rejects with a ConnectionError naming
   * the cause: at once for an unknown host or a TLS mismatch, after 1 s of
   * refused connections, after `eagerConnectTimeoutMs` when the server never
   * answers (eager-connect.ts).
   */
  static async create(options: CacheClientOptions = {}): Promise<CacheClient> {
    const knobs = resolveKnobs(options);
    const endpoints = resolveEndpoints(options);
    const factory = options.channelFactory ?? (await channelFactoryFor(knobs.transport));
    const target = (host: string, port: number): ChannelTarget => ({
      host,
      port,
      tls: endpoints.tls,
      keepaliveTimeMs: knobs.keepaliveTimeMs,
      keepaliveTimeoutMs: knobs.keepaliveTimeoutMs,
      maxReceiveMessageBytes: knobs.maxReceiveMessageBytes,
    });
    const { data, control: controlEndpoint } = endpoints;
    const dataPool = new ChannelPool(factory, target(data.host, data.port), knobs.channels);
    // Control calls share the data channels when both go to one server, so
    // the client holds exactly `channels` connections.
    const sameServer = data.host === controlEndpoint.host && data.port === controlEndpoint.port;
    const controlPool = sameServer ? dataPool : new ChannelPool(factory, target(controlEndpoint.host, controlEndpoint.port), 1);
    const client = new CacheClient(knobs, endpoints.authorization, dataPool, controlPool, `${data.host}:${data.port}`);
    const protosocketTarget = (at: HostPort): ProtosocketTarget => ({
      ...at,
      tls: endpoints.tls,
      token: endpoints.authorization,
      keepaliveTimeMs: knobs.keepaliveTimeMs,
      maxReceiveMessageBytes: knobs.maxReceiveMessageBytes,
    });
    const chosen = knobs.protosocketEndpoint;
    const protosocketAt = chosen === null || chosen === PROTOSOCKET_AUTO ? undefined : parseProtosocketEndpoint(chosen);
    const protosocket = protosocketAt === undefined ? undefined : new ProtosocketCalls(protosocketTarget(protosocketAt), knobs.channels, client.runner);
    client.#protosocket = protosocket;
    if (chosen === PROTOSOCKET_AUTO) {
      client.#auto = true;
      client.#openProtosocket = (port) => {
        const at = { host: data.host, port };
        const overGrpc = client.#overGrpc;
        const oversized: ScalarCalls['set'] = (cacheName, key, value, ttlMs) => overGrpc.set(cacheName, key, value, ttlMs);
        const calls = new ProtosocketCalls(protosocketTarget(at), knobs.channels, client.runner, oversized);
        return { calls, probe: { ...at, tls: endpoints.tls, protocol: 'protosocket' } };
      };
    }
    if (knobs.eagerConnectTimeoutMs > 0) {
      try {
        const timeoutMs = knobs.eagerConnectTimeoutMs;
        const giveUpAt = Date.now() + timeoutMs;
        await Promise.all([
          connectEagerly((deadline) => dataPool.connect(deadline), { ...data, tls: endpoints.tls }, timeoutMs),
          protosocket === undefined || protosocketAt === undefined
            ? undefined
            : connectEagerly(
                (deadline) => protosocket.connect(deadline),
                { ...protosocketAt, tls: endpoints.tls, protocol: 'protosocket' },
                timeoutMs,
              ),
        ]);
        if (client.#auto) await client.#decide(giveUpAt);
      } catch (err) {
        client.close();
        throw err;
      }
    } else if (client.#auto) {
      client.#protosocket = new Undecided(() => (client.#asking ??= client.#decide(Date.now() + knobs.deadlineMs)));
    }
    return client;
  }

  /**
   * protosocketEndpoint 'auto': asks the server for its protosocket port
   * (one gRPC Ping) and opens it; resolves to where get, set and delete go
   * from now on, and never rejects. A server that cannot be reached leaves
   * the question open (Undecided asks again at the next call).
   */
  async #decide(giveUpAt: number): Promise<ScalarCalls> {
    try {
      const answer = await askForProtosocketPort(this.dataPool, this.controlMetadata, giveUpAt);
      if (answer.kind === 'unreachable') return this.#overGrpc;
      this.#protosocket = undefined;
      if (answer.kind === 'invalid') warnStayingOnGrpc(`the server's Ping named protosocket port '${answer.value}', which is no port`);
      if (answer.kind !== 'port' || this.#openProtosocket === undefined) return this.#overGrpc;
      const { calls, probe } = this.#openProtosocket(answer.port);
      const timeoutMs = Math.min(Math.max(giveUpAt - Date.now(), 1_000), AUTO_PROTOSOCKET_TIMEOUT_MS);
      try {
        // No grace for refusals: the server is up and says it listens there.
        await connectEagerly((deadline) => calls.connect(deadline), probe, timeoutMs, 0);
      } catch (err) {
        calls.close();
        warnStayingOnGrpc((err as Error).message);
        return this.#overGrpc;
      }
      if (this.closed) {
        calls.close();
        return this.#overGrpc;
      }
      this.#protosocket = calls;
      return calls;
    } finally {
      this.#asking = undefined;
    }
  }

  /**
   * What carries get, getString, set and delete: 'protosocket' or 'grpc';
   * every other call is gRPC (over `knobs.transport`, the gRPC
   * implementation). Under protosocketEndpoint 'auto' with lazy connect it
   * is 'grpc' until the first of those calls has asked the server.
   */
  get transport(): 'grpc' | 'protosocket' {
    return this.#protosocket instanceof ProtosocketCalls ? 'protosocket' : 'grpc';
  }

  /** The value of `key`, or undefined on a miss. */
  async get(cacheName: string, key: Bytes): Promise<Uint8Array | undefined> {
    const protosocket = this.#protosocket;
    if (protosocket !== undefined) {
      try {
        return await protosocket.get(cacheName, key);
      } catch (err) {
        // 'auto' chose protosocket, so it must not fail what gRPC can do.
        if (!this.#auto || !tooLargeToRead(err)) throw err;
      }
    }
    return this.#getOverGrpc(cacheName, key);
  }

  /** The value of `key` decoded as UTF-8, or undefined on a miss. */
  async getString(cacheName: string, key: Bytes): Promise<string | undefined> {
    const value = await this.get(cacheName, key);
    return value === undefined ? undefined : toUtf8(value);
  }

  async set(cacheName: string, key: Bytes, value: Bytes, options: WriteOptions = {}): Promise<void> {
    if (this.#protosocket !== undefined) {
      return this.#protosocket.set(cacheName, key, value, ttlMsToWire(options.ttlMs ?? this.knobs.defaultTtlMs));
    }
    await this.#setOverGrpc(cacheName, key, value, this.#ttl(options));
  }

  async delete(cacheName: string, key: Bytes): Promise<void> {
    if (this.#protosocket !== undefined) return this.#protosocket.delete(cacheName, key);
    await this.#deleteOverGrpc(cacheName, key);
  }

  /** Stores `value` only if `condition` holds; resolves to whether it was stored. Never retried. */
  async setIf(cacheName: string, key: Bytes, value: Bytes, condition: SetIfCondition, options: WriteOptions = {}): Promise<boolean> {
    const request = encode(scs._SetIfRequestSchema, {
      cacheKey: toBytes(key),
      cacheBody: toBytes(value),
      ttlMilliseconds: this.#ttl(options),
      condition: conditionToWire(condition),
    });
    const response = fromBinary(scs._SetIfResponseSchema, await this.#data(RPC.setIf, cacheName, request));
    return response.result.case === 'stored';
  }

  /** Stores `value` only if `key` is absent; resolves to whether it was stored. Never retried. */
  async setIfAbsent(cacheName: string, key: Bytes, value: Bytes, options: WriteOptions = {}): Promise<boolean> {
    const request = encode(scs._SetIfNotExistsRequestSchema, {
      cacheKey: toBytes(key),
      cacheBody: toBytes(value),
      ttlMilliseconds: this.#ttl(options),
    });
    const response = fromBinary(scs._SetIfNotExistsResponseSchema, await this.#data(RPC.setIfNotExists, cacheName, request));
    return response.result.case === 'stored';
  }

  /**
   * Adds `amount` to the integer stored at `key` (a missing key counts as 0)
   * and resolves to the new value; the TTL is reset. Never retried.
   *
   * The server counts in signed 64 bits, past what a `number` holds exactly
   * (2^53). With a `number` amount the result is a `number`, and a result
   * past `Number.MAX_SAFE_INTEGER` rejects with an InvalidArgumentError that
   * gives the exact value (the increment did happen) rather than resolving
   * to a rounded one. Pass a `bigint` amount (`1n`) for a `bigint` result,
   * always exact.
   */
  async increment(cacheName: string, key: Bytes, amount?: number, options?: WriteOptions): Promise<number>;
  async increment(cacheName: string, key: Bytes, amount: bigint, options?: WriteOptions): Promise<bigint>;
  async increment(
    cacheName: string,
    key: Bytes,
    amount: number | bigint = 1,
    options: WriteOptions = {},
  ): Promise<number | bigint> {
    const request = encode(scs._IncrementRequestSchema, {
      cacheKey: toBytes(key),
      amount: int64ToWire(amount, 'amount'),
      ttlMilliseconds: this.#ttl(options),
    });
    const response = fromBinary(scs._IncrementResponseSchema, await this.#data(RPC.increment, cacheName, request));
    return typeof amount === 'bigint' ? response.value : safeNumberFromWire(response.value, 'increment');
  }

  /** Which of `keys` exist, in order. */
  async keysExist(cacheName: string, keys: readonly Bytes[]): Promise<boolean[]> {
    const request = encode(scs._KeysExistRequestSchema, { cacheKeys: keys.map(toBytes) });
    return fromBinary(scs._KeysExistResponseSchema, await this.#data(RPC.keysExist, cacheName, request)).exists;
  }

  /**
   * Sets the TTL of `key` to `ttlMs`: always ('overwrite'), or only if that
   * is longer ('increase') or shorter ('decrease') than what is left.
   * Resolves to whether the TTL changed (false for a missing key). Never retried.
   */
  async updateTtl(cacheName: string, key: Bytes, ttlMs: number, mode: TtlUpdate = 'overwrite'): Promise<boolean> {
    const value = ttlToWire(ttlMs);
    const updateTtl =
      mode === 'increase'
        ? { case: 'increaseToMilliseconds' as const, value }
        : mode === 'decrease'
          ? { case: 'decreaseToMilliseconds' as const, value }
          : { case: 'overwriteToMilliseconds' as const, value };
    const request = encode(scs._UpdateTtlRequestSchema, { cacheKey: toBytes(key), updateTtl });
    const response = fromBinary(scs._UpdateTtlResponseSchema, await this.#data(RPC.updateTtl, cacheName, request));
    return response.result.case === 'set';
  }

  /** Milliseconds `key` has left, or undefined on a miss. */
  async getTtl(cacheName: string, key: Bytes): Promise<number | undefined> {
    const request = encode(scs._ItemGetTtlRequestSchema, { cacheKey: toBytes(key) });
    const response = fromBinary(scs._ItemGetTtlResponseSchema, await this.#data(RPC.itemGetTtl, cacheName, request));
    return response.result.case === 'found' ? Number(response.result.value.remainingTtlMillis) : undefined;
  }

  /** The type of the item at `key`, or undefined on a miss. */
  async getType(cacheName: string, key: Bytes): Promise<ItemType | undefined> {
    const request = encode(scs._ItemGetTypeRequestSchema, { cacheKey: toBytes(key) });
    const response = fromBinary(scs._ItemGetTypeResponseSchema, await this.#data(RPC.itemGetType, cacheName, request));
    return response.result.case === 'found' ? (ITEM_TYPES[response.result.value.itemType] ?? 'scalar') : undefined;
  }

  /** The values of `keys` in order, undefined for each miss; one call. */
  async getMany(cacheName: string, keys: readonly Bytes[]): Promise<(Uint8Array | undefined)[]> {
    const request = encode(scs._GetBatchRequestSchema, { items: keys.map((key) => ({ cacheKey: toBytes(key) })) });
    const messages = await this.runner.serverStream(this.dataPool, RPC.getBatch, request, this.#metadataFor(cacheName));
    return messages.map((bytes) => {
      const response = fromBinary(scs._GetResponseSchema, bytes);
      return response.result === scs.ECacheResult.Hit ? response.cacheBody : undefined;
    });
  }

  /** Stores every entry, all with one TTL; one call. */
  async setMany(
    cacheName: string,
    entries: Iterable<readonly [Bytes, Bytes]> | Readonly<Record<string, Bytes>>,
    options: WriteOptions = {},
  ): Promise<void> {
    const pairs = Symbol.iterator in entries ? [...entries] : Object.entries(entries);
    const ttlMilliseconds = this.#ttl(options);
    const items = pairs.map(([key, value]) => ({ cacheKey: toBytes(key), cacheBody: toBytes(value), ttlMilliseconds }));
    await this.runner.serverStream(this.dataPool, RPC.setBatch, encode(scs._SetBatchRequestSchema, { items }), this.#metadataFor(cacheName));
  }

  // ---------------------------------------------------------------------
  // Hash calls: src/collections/hash.ts builds and reads them.

  /**
   * The value of `key` with the server's hash of it, or undefined on a miss.
   * Hand the hash back to setIfHash to write only if the value is (or is
   * not) still the one read.
   */
  async getWithHash(cacheName: string, key: Bytes): Promise<ValueWithHash | undefined> {
    return this.#run(cacheName, hash.getWithHash(key));
  }

  /**
   * Stores `value` only if `condition` on the hash of the stored value
   * holds (see SetIfHashCondition); resolves to whether it was stored.
   * Never retried.
   */
  async setIfHash(
    cacheName: string,
    key: Bytes,
    value: Bytes,
    condition: SetIfHashCondition,
    options: WriteOptions = {},
  ): Promise<boolean> {
    return this.#run(cacheName, hash.setIfHash(key, value, condition, this.#ttl(options)));
  }

  // ---------------------------------------------------------------------
  // Dictionaries: src/collections/dictionary.ts. A missing dictionary reads
  // as empty; writes take CollectionOptions ({ ttlMs, refreshTtl }).

  /** The value of one field, or undefined if the field (or the dictionary) is absent. */
  async dictionaryGetField(cacheName: string, dictionaryName: Bytes, field: Bytes): Promise<Uint8Array | undefined> {
    const [value] = await this.#run(cacheName, dictionary.getFields(dictionaryName, [field]));
    return value;
  }

  /** The values of `fields` in order (at least one), undefined for each absent one; one call. */
  async dictionaryGetFields(cacheName: string, dictionaryName: Bytes, fields: readonly Bytes[]): Promise<(Uint8Array | undefined)[]> {
    return this.#run(cacheName, dictionary.getFields(dictionaryName, fields));
  }

  /**
   * Every field and value, fields in ascending byte order. Field names are
   * decoded as UTF-8 (bytes that are not UTF-8 become U+FFFD, so two such
   * fields could share a name: use string fields to avoid it); empty Map for
   * a missing dictionary.
   */
  async dictionaryFetch(cacheName: string, dictionaryName: Bytes): Promise<Map<string, Uint8Array>> {
    return this.#run(cacheName, dictionary.fetch(dictionaryName));
  }

  /** As dictionaryFetch, with the values decoded as UTF-8 too. */
  async dictionaryFetchStrings(cacheName: string, dictionaryName: Bytes): Promise<Map<string, string>> {
    const fields = await this.#run(cacheName, dictionary.fetch(dictionaryName));
    return new Map([...fields].map(([field, value]) => [field, toUtf8(value)]));
  }

  /** Sets one field, creating the dictionary if needed. */
  async dictionarySetField(
    cacheName: string,
    dictionaryName: Bytes,
    field: Bytes,
    value: Bytes,
    options: CollectionOptions = {},
  ): Promise<void> {
    await this.#run(cacheName, dictionary.setFields(dictionaryName, [[field, value]], this.#collectionTtl(options)));
  }

  /**
   * Sets every field given (a Map, a Record, or [field, value] pairs; at
   * least one) in one call, creating the dictionary if needed. A field
   * given twice keeps its last value.
   */
  async dictionarySetFields(
    cacheName: string,
    dictionaryName: Bytes,
    entries: DictionaryEntries,
    options: CollectionOptions = {},
  ): Promise<void> {
    await this.#run(cacheName, dictionary.setFields(dictionaryName, entries, this.#collectionTtl(options)));
  }

  /**
   * Adds `amount` to the base-10 integer a field holds (an absent field
   * counts as 0; a missing dictionary is created) and resolves to the new
   * value. A field holding something else rejects with WrongTypeError.
   * As increment: a `number` result past 2^53 rejects rather than rounds;
   * pass a `bigint` amount for a `bigint` result. Never retried.
   */
  async dictionaryIncrement(
    cacheName: string,
    dictionaryName: Bytes,
    field: Bytes,
    amount?: number,
    options?: CollectionOptions,
  ): Promise<number>;
  async dictionaryIncrement(
    cacheName: string,
    dictionaryName: Bytes,
    field: Bytes,
    amount: bigint,
    options?: CollectionOptions,
  ): Promise<bigint>;
  async dictionaryIncrement(
    cacheName: string,
    dictionaryName: Bytes,
    field: Bytes,
    amount: number | bigint = 1,
    options: CollectionOptions = {},
  ): Promise<number | bigint> {
    return this.#run(cacheName, dictionary.increment(dictionaryName, field, amount, this.#collectionTtl(options)));
  }

  /** Removes `fields` (at least one; absent ones are skipped). The TTL is kept. */
  async dictionaryRemoveFields(cacheName: string, dictionaryName: Bytes, fields: readonly Bytes[]): Promise<void> {
    await this.#run(cacheName, dictionary.removeFields(dictionaryName, fields));
  }

  /** How many fields the dictionary holds; 0 for a missing one. */
  async dictionaryLength(cacheName: string, dictionaryName: Bytes): Promise<number> {
    return this.#run(cacheName, dictionary.length(dictionaryName));
  }

  // ---------------------------------------------------------------------
  // Lists: src/collections/list.ts. A missing list reads as empty.

  /**
   * Adds `value` at the front, creating the list; resolves to the new
   * length. `truncateBackToSize` then drops values from the back. Never retried.
   */
  async listPushFront(cacheName: string, listName: Bytes, value: Bytes, options: ListPushFrontOptions = {}): Promise<number> {
    return this.#run(cacheName, list.pushFront(listName, value, this.#collectionTtl(options), options));
  }

  /**
   * Adds `value` at the back, creating the list; resolves to the new
   * length. `truncateFrontToSize` then drops values from the front. Never retried.
   */
  async listPushBack(cacheName: string, listName: Bytes, value: Bytes, options: ListPushBackOptions = {}): Promise<number> {
    return this.#run(cacheName, list.pushBack(listName, value, this.#collectionTtl(options), options));
  }

  /**
   * Adds `values` (at least one) at the front, keeping their order
   * (`[a, b]` before `[x]` makes `[a, b, x]`); resolves to the new length.
   * Never retried.
   */
  async listConcatenateFront(
    cacheName: string,
    listName: Bytes,
    values: readonly Bytes[],
    options: ListPushFrontOptions = {},
  ): Promise<number> {
    return this.#run(cacheName, list.concatenateFront(listName, values, this.#collectionTtl(options), options));
  }

  /** Adds `values` (at least one) at the back, in order; resolves to the new length. Never retried. */
  async listConcatenateBack(
    cacheName: string,
    listName: Bytes,
    values: readonly Bytes[],
    options: ListPushBackOptions = {},
  ): Promise<number> {
    return this.#run(cacheName, list.concatenateBack(listName, values, this.#collectionTtl(options), options));
  }

  /**
   * The values in `slice`, taken as Python's `values[start:end]`: `start`
   * inclusive, `end` exclusive, a negative index counts from the end (-1 is
   * the last value), an omitted one is open, and indices past either end
   * are clipped. `{}` (the default) is the whole list; `{ start: -3 }` the
   * last three. An empty slice or a missing list is `[]`.
   */
  async listFetch(cacheName: string, listName: Bytes, slice: Slice = {}): Promise<Uint8Array[]> {
    return this.#run(cacheName, list.fetch(listName, slice));
  }

  /** Removes and resolves to the first value, or undefined for a missing list. Never retried. */
  async listPopFront(cacheName: string, listName: Bytes): Promise<Uint8Array | undefined> {
    return this.#run(cacheName, list.popFront(listName));
  }

  /** Removes and resolves to the last value, or undefined for a missing list. Never retried. */
  async listPopBack(cacheName: string, listName: Bytes): Promise<Uint8Array | undefined> {
    return this.#run(cacheName, list.popBack(listName));
  }

  /** Removes every value equal to `value`; resolves to the length left (0 for a missing list). */
  async listRemoveValue(cacheName: string, listName: Bytes, value: Bytes): Promise<number> {
    return this.#run(cacheName, list.removeValue(listName, value));
  }

  /**
   * Keeps only the values in the slice (as listFetch's) and resolves to the
   * length left; a slice selecting nothing removes the list (0). `ttlMs` /
   * `refreshTtl` as for any collection write. Never retried.
   */
  async listRetain(cacheName: string, listName: Bytes, options: ListRetainOptions = {}): Promise<number> {
    return this.#run(cacheName, list.retain(listName, this.#collectionTtl(options), options));
  }

  /**
   * Removes the values in `slice`, as Python's `del values[start:end]`:
   * `start` inclusive, `end` exclusive, an omitted one is open, and indices
   * past the end are clipped. `{}` (the default) removes every value;
   * `{ start: 2, end: 5 }` the third to fifth. Resolves to the length left
   * (0 for a missing list, or one this emptied). Unlike listFetch's, the
   * indices are >= 0 (InvalidArgumentError otherwise): the protocol counts
   * from the front, so from the back use listRetain. An empty slice
   * (`start >= end`) erases nothing: no ListErase is sent, and the length
   * is read instead. The TTL is kept. Never retried.
   */
  async listErase(cacheName: string, listName: Bytes, slice: Slice = {}): Promise<number> {
    return this.#run(cacheName, list.erase(listName, slice));
  }

  /** How many values the list holds; 0 for a missing one. */
  async listLength(cacheName: string, listName: Bytes): Promise<number> {
    return this.#run(cacheName, list.length(listName));
  }

  // ---------------------------------------------------------------------
  // Sets: src/collections/set.ts. A missing set reads as empty.

  /** Adds `elements` (duplicates count once), creating the set; adding none changes nothing. */
  async setAddElements(cacheName: string, setName: Bytes, elements: readonly Bytes[], options: CollectionOptions = {}): Promise<void> {
    await this.#run(cacheName, sets.addElements(setName, elements, this.#collectionTtl(options)));
  }

  /** Removes `elements` (absent ones are ignored). The TTL is kept. */
  async setRemoveElements(cacheName: string, setName: Bytes, elements: readonly Bytes[]): Promise<void> {
    await this.#run(cacheName, sets.removeElements(setName, elements));
  }

  /** Every element, in no particular order; `[]` for a missing set. `decodeUtf8` turns them into strings. */
  async setFetch(cacheName: string, setName: Bytes): Promise<Uint8Array[]> {
    return this.#run(cacheName, sets.fetch(setName));
  }

  /** Whether the set holds `element` (false for a missing set). */
  async setContainsElement(cacheName: string, setName: Bytes, element: Bytes): Promise<boolean> {
    const [contains] = await this.#run(cacheName, sets.containsElements(setName, [element]));
    return contains === true;
  }

  /** For each of `elements` in order, whether the set holds it; one call. */
  async setContainsElements(cacheName: string, setName: Bytes, elements: readonly Bytes[]): Promise<boolean[]> {
    return this.#run(cacheName, sets.containsElements(setName, elements));
  }

  /** How many elements the set holds; 0 for a missing one. */
  async setLength(cacheName: string, setName: Bytes): Promise<number> {
    return this.#run(cacheName, sets.length(setName));
  }

  /**
   * Removes and resolves to `count` (at least 1) elements chosen at random,
   * or all of them when the set holds no more; `[]` for a missing set.
   * Never retried.
   */
  async setPop(cacheName: string, setName: Bytes, count = 1): Promise<Uint8Array[]> {
    return this.#run(cacheName, sets.pop(setName, count));
  }

  /** Up to `limit` distinct elements chosen at random, left in the set; `[]` for a missing set. */
  async setSample(cacheName: string, setName: Bytes, limit: number): Promise<Uint8Array[]> {
    return this.#run(cacheName, sets.sample(setName, limit));
  }

  // ---------------------------------------------------------------------
  // Sorted sets: src/collections/sorted-set.ts. Ordered by score, ties by
  // value bytes; a missing sorted set reads as empty.

  /** Adds `value` with `score` (finite), or sets its score; creates the set. */
  async sortedSetPutElement(
    cacheName: string,
    setName: Bytes,
    value: Bytes,
    score: number,
    options: CollectionOptions = {},
  ): Promise<void> {
    await this.#run(cacheName, sortedSet.putElements(setName, [[value, score]], this.#collectionTtl(options)));
  }

  /**
   * Adds the elements (a Map, a Record or [value, score] pairs; at least
   * one) or sets the scores of values already held, in one call.
   */
  async sortedSetPutElements(
    cacheName: string,
    setName: Bytes,
    elements: SortedSetEntries,
    options: CollectionOptions = {},
  ): Promise<void> {
    await this.#run(cacheName, sortedSet.putElements(setName, elements, this.#collectionTtl(options)));
  }

  /**
   * The elements at ranks `start` (inclusive) to `end` (exclusive) in
   * `order`, as listFetch's slice (negatives count from the end, omitted =
   * open, clipped); `{}` is the whole set, and a start not before the end
   * selects nothing.
   */
  async sortedSetFetchByRank(cacheName: string, setName: Bytes, range: SortedSetRankRange = {}): Promise<SortedSetElement[]> {
    return this.#run(cacheName, sortedSet.fetchByRank(setName, range));
  }

  /**
   * The elements scoring between `minScore` and `maxScore` (each inclusive
   * unless `minExclusive` / `maxExclusive`, open when omitted) in `order`,
   * then `offset` of them skipped and at most `count` answered.
   */
  async sortedSetFetchByScore(cacheName: string, setName: Bytes, range: SortedSetScoreRange = {}): Promise<SortedSetElement[]> {
    return this.#run(cacheName, sortedSet.fetchByScore(setName, range));
  }

  /** The score of `value`, or undefined if it (or the set) is absent. */
  async sortedSetGetScore(cacheName: string, setName: Bytes, value: Bytes): Promise<number | undefined> {
    const [score] = await this.#run(cacheName, sortedSet.getScores(setName, [value]));
    return score;
  }

  /** The scores of `values` in order, undefined for each absent one; one call. */
  async sortedSetGetScores(cacheName: string, setName: Bytes, values: readonly Bytes[]): Promise<(number | undefined)[]> {
    return this.#run(cacheName, sortedSet.getScores(setName, values));
  }

  /** The 0-based rank of `value` in `order` (default ascending), or undefined if it (or the set) is absent. */
  async sortedSetGetRank(
    cacheName: string,
    setName: Bytes,
    value: Bytes,
    options: { order?: SortedSetOrder } = {},
  ): Promise<number | undefined> {
    return this.#run(cacheName, sortedSet.getRank(setName, value, options.order));
  }

  /**
   * Adds `amount` (finite) to the score of `value` (an absent value counts
   * as 0; a missing set is created) and resolves to the new score. Never retried.
   */
  async sortedSetIncrementScore(
    cacheName: string,
    setName: Bytes,
    value: Bytes,
    amount = 1,
    options: CollectionOptions = {},
  ): Promise<number> {
    return this.#run(cacheName, sortedSet.incrementScore(setName, value, amount, this.#collectionTtl(options)));
  }

  /** Removes `values` (those not held are ignored). The TTL is kept. */
  async sortedSetRemoveElements(cacheName: string, setName: Bytes, values: readonly Bytes[]): Promise<void> {
    await this.#run(cacheName, sortedSet.removeElements(setName, values));
  }

  /** How many elements the sorted set holds; 0 for a missing one. */
  async sortedSetLength(cacheName: string, setName: Bytes): Promise<number> {
    return this.#run(cacheName, sortedSet.length(setName));
  }

  /** How many elements score within the bounds (as sortedSetFetchByScore's); 0 for a missing set. */
  async sortedSetLengthByScore(cacheName: string, setName: Bytes, bounds: SortedSetScoreBounds = {}): Promise<number> {
    return this.#run(cacheName, sortedSet.lengthByScore(setName, bounds));
  }

  /**
   * Replaces `destination` with the union of `sources` (set name -> weight;
   * at least one; the destination is a source only if listed): each value
   * scores its score in each source holding it times that source's weight,
   * combined by `aggregate` ('sum', the default, 'min' or 'max'). A missing
   * source counts as empty. The destination gets `ttlMs` (the protocol has
   * no refresh flag here: it is written whole); an empty union removes it.
   * Resolves to the destination's length. Never retried.
   */
  async sortedSetUnionStore(
    cacheName: string,
    destination: Bytes,
    sources: SortedSetUnionSources,
    options: SortedSetUnionStoreOptions = {},
  ): Promise<number> {
    return this.#run(cacheName, sortedSet.unionStore(destination, sources, options.aggregate, this.#ttl(options)));
  }

  // ---------------------------------------------------------------------
  // Topics: src/topics/.

  /**
   * Publishes `value` to `topic`: a string arrives as a string, bytes as
   * bytes. Resolves once the server took it (not when subscribers read it).
   * Never retried: a second sending would be a second message.
   */
  async publish(cacheName: string, topic: string, value: Bytes): Promise<void> {
    await this.#topics.publish(cacheName, topic, value);
  }

  /**
   * Subscribes to `topic`; resolves once the stream is open. Iterate the
   * subscription (`for await`) for TopicMessage and TopicDiscontinuity
   * items, or pass `onItem` / `onError` (and `onDiscontinuity`) to have
   * them called instead. A broken stream is opened again where it left off
   * (src/topics/subscription.ts); `break`, close(), `signal` and the
   * client's close() end it.
   */
  subscribe(cacheName: string, topic: string, options: SubscribeOptions = {}): Promise<TopicSubscription> {
    return this.#topics.subscribe(cacheName, topic, options);
  }

  /** Creates a cache; rejects with AlreadyExistsError if it exists. */
  async createCache(cacheName: string): Promise<void> {
    await this.#control(RPC.createCache, encode(control._CreateCacheRequestSchema, { cacheName }));
  }

  /** Deletes a cache and its items; rejects with CacheNotFoundError if there is none. */
  async deleteCache(cacheName: string): Promise<void> {
    await this.#control(RPC.deleteCache, encode(control._DeleteCacheRequestSchema, { cacheName }));
  }

  /** Names of every cache, following the server's pages. */
  async listCaches(): Promise<string[]> {
    const names: string[] = [];
    let nextToken = '';
    do {
      const request = encode(control._ListCachesRequestSchema, { nextToken });
      const response = fromBinary(control._ListCachesResponseSchema, await this.#control(RPC.listCaches, request));
      for (const cache of response.cache) names.push(cache.cacheName);
      nextToken = response.nextToken;
    } while (nextToken !== '');
    return names;
  }

  /** Removes every item of a cache; the cache stays. */
  async flushCache(cacheName: string): Promise<void> {
    await this.#control(RPC.flushCache, encode(control._FlushCacheRequestSchema, { cacheName }));
  }

  /** One round trip to the data server. */
  async ping(): Promise<void> {
    await this.runner.unary(this.dataPool, PING_RPC, encode(_PingRequestSchema, {}), this.controlMetadata);
  }

  /**
   * Data channels (gRPC or HTTP/2) holding an open TCP connection now. With
   * `protosocketEndpoint` the gets and sets go over protosocket connections
   * of their own, which this does not count (the loadgen counts both ports).
   */
  connectedChannels(): number {
    return this.dataPool.connectedCount();
  }

  /** The most calls that were in flight at once (bounded by maxConcurrentRequests). */
  get inFlightHighWaterMark(): number {
    return this.runner.limiter.highWaterMark;
  }

  /** The cap on calls in flight now (0 = none): maxConcurrentRequests, or under 'auto' the limit it chose. */
  inFlightLimit(): number {
    return this.runner.inFlightLimit();
  }

  /**
   * The limit's changes: when (ms since the client was built) and to what,
   * at most one per 100 ms, the last 1000; one entry for a fixed cap.
   */
  inFlightLimitHistory(): InFlightLimitChange[] {
    return this.runner.limiter.history();
  }

  /** Fails queued and in-flight calls with ConnectionError and closes the connections. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#topics.closeAll();
    this.runner.close();
    this.#protosocket?.close();
    this.dataPool.close();
    if (this.controlPool !== this.dataPool) this.controlPool.close();
  }

  async #getOverGrpc(cacheName: string, key: Bytes): Promise<Uint8Array | undefined> {
    return readGet(await this.#data(RPC.get, cacheName, getRequest(key)));
  }

  async #setOverGrpc(cacheName: string, key: Bytes, value: Bytes, ttl: bigint): Promise<void> {
    await this.#data(RPC.set, cacheName, setRequest(key, value, ttl));
  }

  async #deleteOverGrpc(cacheName: string, key: Bytes): Promise<void> {
    await this.#data(RPC.delete, cacheName, deleteRequest(key));
  }

  #data(rpc: Rpc, cacheName: string, request: Uint8Array): Promise<Uint8Array> {
    return this.runner.unary(this.dataPool, rpc, request, this.#metadataFor(cacheName));
  }

  #control(rpc: Rpc, request: Uint8Array): Promise<Uint8Array> {
    return this.runner.unary(this.controlPool, rpc, request, this.controlMetadata);
  }

  #ttl(options: WriteOptions): bigint {
    return ttlToWire(options.ttlMs ?? this.knobs.defaultTtlMs);
  }

  #collectionTtl(options: CollectionOptions): WireTtl {
    return wireTtl(options, this.knobs.defaultTtlMs);
  }

  /** Sends a collection module's operation and reads its answer. */
  async #run<T>(cacheName: string, operation: Operation<T>): Promise<T> {
    return operation.read(await this.#data(operation.rpc, cacheName, operation.request));
  }

  #metadataFor(cacheName: string): Readonly<Record<string, string>> {
    let metadata = this.metadataByCache.get(cacheName);
    if (metadata === undefined) {
      const headers: Record<string, string> = { cache: cacheName };
      if (this.authorization !== undefined) headers.authorization = this.authorization;
      metadata = Object.freeze(headers);
      this.metadataByCache.set(cacheName, metadata);
    }
    return metadata;
  }
}
