// CacheClient: the public client. Each method builds its request, runs it
// through the CallRunner (cap, deadline, retries, errors) and reads the
// answer. A miss resolves to undefined; every failure rejects with a
// CacheError (errors.ts).
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import * as scs from './gen/cacheclient_pb.js';
import * as common from './gen/common_pb.js';
import * as control from './gen/controlclient_pb.js';
import { _PingRequestSchema } from './gen/cacheping_pb.js';
import { CallRunner, controlRpc, scsRpc, type Rpc } from './call-runner.js';
import { ChannelPool } from './channel-pool.js';
import { type Bytes, int64ToWire, toBytes, toUtf8, ttlToWire } from './codec.js';
import { type CacheClientOptions, type ResolvedKnobs, resolveKnobs } from './config.js';
import { resolveEndpoints } from './endpoints.js';
import { ConnectionError, InvalidArgumentError } from './errors.js';
import type { ChannelTarget } from './transport/channel.js';
import { channelFactoryFor } from './transport/index.js';

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

function encode<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): Uint8Array {
  return toBinary(schema, create(schema, init));
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

  private constructor(
    readonly knobs: Readonly<ResolvedKnobs>,
    private readonly authorization: string | undefined,
    dataPool: ChannelPool,
    controlPool: ChannelPool,
    target: string,
  ) {
    this.dataPool = dataPool;
    this.controlPool = controlPool;
    this.runner = new CallRunner(knobs, target);
    this.controlMetadata = Object.freeze(authorization === undefined ? {} : { authorization }) as Readonly<Record<string, string>>;
  }

  /**
   * Builds a client and, unless `eagerConnectTimeoutMs` is 0, waits until
   * every data channel is connected; rejects with ConnectionError if they
   * are not within that time.
   */
  static async create(options: CacheClientOptions = {}): Promise<CacheClient> {
    const knobs = resolveKnobs(options);
    const endpoints = resolveEndpoints(options);
    const factory = options.channelFactory ?? channelFactoryFor(knobs.transport);
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
    if (knobs.eagerConnectTimeoutMs > 0) {
      try {
        await dataPool.connect(Date.now() + knobs.eagerConnectTimeoutMs);
      } catch (err) {
        client.close();
        throw new ConnectionError(
          `could not connect to ${data.host}:${data.port} within ${knobs.eagerConnectTimeoutMs} ms: ` +
            `${(err as Error).message}; check \`endpoint\` (JIFFY_ENDPOINT) or raise \`eagerConnectTimeoutMs\``,
          { status: 'UNAVAILABLE', cause: err },
        );
      }
    }
    return client;
  }

  /** The value of `key`, or undefined on a miss. */
  async get(cacheName: string, key: Bytes): Promise<Uint8Array | undefined> {
    const request = encode(scs._GetRequestSchema, { cacheKey: toBytes(key) });
    const response = fromBinary(scs._GetResponseSchema, await this.data(RPC.get, cacheName, request));
    return response.result === scs.ECacheResult.Hit ? response.cacheBody : undefined;
  }

  /** The value of `key` decoded as UTF-8, or undefined on a miss. */
  async getString(cacheName: string, key: Bytes): Promise<string | undefined> {
    const value = await this.get(cacheName, key);
    return value === undefined ? undefined : toUtf8(value);
  }

  async set(cacheName: string, key: Bytes, value: Bytes, options: WriteOptions = {}): Promise<void> {
    const request = encode(scs._SetRequestSchema, {
      cacheKey: toBytes(key),
      cacheBody: toBytes(value),
      ttlMilliseconds: this.ttl(options),
    });
    await this.data(RPC.set, cacheName, request);
  }

  async delete(cacheName: string, key: Bytes): Promise<void> {
    await this.data(RPC.delete, cacheName, encode(scs._DeleteRequestSchema, { cacheKey: toBytes(key) }));
  }

  /** Stores `value` only if `condition` holds; resolves to whether it was stored. Never retried. */
  async setIf(cacheName: string, key: Bytes, value: Bytes, condition: SetIfCondition, options: WriteOptions = {}): Promise<boolean> {
    const request = encode(scs._SetIfRequestSchema, {
      cacheKey: toBytes(key),
      cacheBody: toBytes(value),
      ttlMilliseconds: this.ttl(options),
      condition: conditionToWire(condition),
    });
    const response = fromBinary(scs._SetIfResponseSchema, await this.data(RPC.setIf, cacheName, request));
    return response.result.case === 'stored';
  }

  /** Stores `value` only if `key` is absent; resolves to whether it was stored. Never retried. */
  async setIfAbsent(cacheName: string, key: Bytes, value: Bytes, options: WriteOptions = {}): Promise<boolean> {
    const request = encode(scs._SetIfNotExistsRequestSchema, {
      cacheKey: toBytes(key),
      cacheBody: toBytes(value),
      ttlMilliseconds: this.ttl(options),
    });
    const response = fromBinary(scs._SetIfNotExistsResponseSchema, await this.data(RPC.setIfNotExists, cacheName, request));
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
      ttlMilliseconds: this.ttl(options),
    });
    const response = fromBinary(scs._IncrementResponseSchema, await this.data(RPC.increment, cacheName, request));
    if (typeof amount === 'bigint') return response.value;
    const value = Number(response.value);
    if (!Number.isSafeInteger(value)) {
      throw new InvalidArgumentError(
        `increment stored ${response.value}, past Number.MAX_SAFE_INTEGER: pass the amount as a bigint (e.g. 1n) for exact results`,
        { status: 'OUT_OF_RANGE' },
      );
    }
    return value;
  }

  /** Which of `keys` exist, in order. */
  async keysExist(cacheName: string, keys: readonly Bytes[]): Promise<boolean[]> {
    const request = encode(scs._KeysExistRequestSchema, { cacheKeys: keys.map(toBytes) });
    return fromBinary(scs._KeysExistResponseSchema, await this.data(RPC.keysExist, cacheName, request)).exists;
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
    const response = fromBinary(scs._UpdateTtlResponseSchema, await this.data(RPC.updateTtl, cacheName, request));
    return response.result.case === 'set';
  }

  /** Milliseconds `key` has left, or undefined on a miss. */
  async getTtl(cacheName: string, key: Bytes): Promise<number | undefined> {
    const request = encode(scs._ItemGetTtlRequestSchema, { cacheKey: toBytes(key) });
    const response = fromBinary(scs._ItemGetTtlResponseSchema, await this.data(RPC.itemGetTtl, cacheName, request));
    return response.result.case === 'found' ? Number(response.result.value.remainingTtlMillis) : undefined;
  }

  /** The type of the item at `key`, or undefined on a miss. */
  async getType(cacheName: string, key: Bytes): Promise<ItemType | undefined> {
    const request = encode(scs._ItemGetTypeRequestSchema, { cacheKey: toBytes(key) });
    const response = fromBinary(scs._ItemGetTypeResponseSchema, await this.data(RPC.itemGetType, cacheName, request));
    return response.result.case === 'found' ? (ITEM_TYPES[response.result.value.itemType] ?? 'scalar') : undefined;
  }

  /** The values of `keys` in order, undefined for each miss; one call. */
  async getMany(cacheName: string, keys: readonly Bytes[]): Promise<(Uint8Array | undefined)[]> {
    const request = encode(scs._GetBatchRequestSchema, { items: keys.map((key) => ({ cacheKey: toBytes(key) })) });
    const messages = await this.runner.serverStream(this.dataPool, RPC.getBatch, request, this.metadataFor(cacheName));
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
    const ttlMilliseconds = this.ttl(options);
    const items = pairs.map(([key, value]) => ({ cacheKey: toBytes(key), cacheBody: toBytes(value), ttlMilliseconds }));
    await this.runner.serverStream(this.dataPool, RPC.setBatch, encode(scs._SetBatchRequestSchema, { items }), this.metadataFor(cacheName));
  }

  /** Creates a cache; rejects with AlreadyExistsError if it exists. */
  async createCache(cacheName: string): Promise<void> {
    await this.control(RPC.createCache, encode(control._CreateCacheRequestSchema, { cacheName }));
  }

  /** Deletes a cache and its items; rejects with CacheNotFoundError if there is none. */
  async deleteCache(cacheName: string): Promise<void> {
    await this.control(RPC.deleteCache, encode(control._DeleteCacheRequestSchema, { cacheName }));
  }

  /** Names of every cache, following the server's pages. */
  async listCaches(): Promise<string[]> {
    const names: string[] = [];
    let nextToken = '';
    do {
      const request = encode(control._ListCachesRequestSchema, { nextToken });
      const response = fromBinary(control._ListCachesResponseSchema, await this.control(RPC.listCaches, request));
      for (const cache of response.cache) names.push(cache.cacheName);
      nextToken = response.nextToken;
    } while (nextToken !== '');
    return names;
  }

  /** Removes every item of a cache; the cache stays. */
  async flushCache(cacheName: string): Promise<void> {
    await this.control(RPC.flushCache, encode(control._FlushCacheRequestSchema, { cacheName }));
  }

  /** One round trip to the data server. */
  async ping(): Promise<void> {
    await this.runner.unary(this.dataPool, PING_RPC, encode(_PingRequestSchema, {}), this.controlMetadata);
  }

  /** Data channels holding an open TCP connection now. */
  connectedChannels(): number {
    return this.dataPool.connectedCount();
  }

  /** The most calls that were in flight at once (bounded by maxConcurrentRequests). */
  get inFlightHighWaterMark(): number {
    return this.runner.limiter.highWaterMark;
  }

  /** Fails queued and in-flight calls with ConnectionError and closes the connections. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.runner.close();
    this.dataPool.close();
    if (this.controlPool !== this.dataPool) this.controlPool.close();
  }

  private data(rpc: Rpc, cacheName: string, request: Uint8Array): Promise<Uint8Array> {
    return this.runner.unary(this.dataPool, rpc, request, this.metadataFor(cacheName));
  }

  private control(rpc: Rpc, request: Uint8Array): Promise<Uint8Array> {
    return this.runner.unary(this.controlPool, rpc, request, this.controlMetadata);
  }

  private ttl(options: WriteOptions): bigint {
    return ttlToWire(options.ttlMs ?? this.knobs.defaultTtlMs);
  }

  private metadataFor(cacheName: string): Readonly<Record<string, string>> {
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
