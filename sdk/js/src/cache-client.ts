// CacheClient: the public client, a façade. Each method builds its call
// with an operation module (scalars.ts, caches.ts, collections/), hands it
// to the Route (route.ts), which chooses the transport, runs it through the
// CallRunner (cap, deadline, retries, errors) and reads the answer. A miss
// resolves to undefined; every failure rejects with a CacheError (errors.ts).
import type { InFlightLimitChange } from './adaptive-limit.js';
import type { BytesMap, BytesSet } from './bytes-collections.js';
import * as caches from './caches.js';
import { type Bytes, toUtf8, ttlToWire } from './codec.js';
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
import type { CacheClientOptions, ResolvedKnobs } from './config.js';
import { openRoute } from './connection-setup.js';
import { Leaderboard } from './leaderboard.js';
import type { Route } from './route.js';
import * as scalars from './scalars.js';
import type { ItemType, SetIfCondition, TtlUpdate } from './scalars.js';
import * as tokens from './tokens.js';
import type { ApiKey, DisposableToken, Permissions } from './tokens.js';
import type { TopicSubscription } from './topics/subscription.js';
import type { SubscribeOptions } from './topics/topics.js';
import * as signingKeys from './signing-keys.js';
import type { SigningKey } from './signing-keys.js';
import * as webhooks from './webhooks.js';
import type { Webhook } from './webhooks.js';

export interface WriteOptions {
  /** TTL of the item; the client's `defaultTtlMs` when left out. */
  ttlMs?: number;
}

// Each client's route, for routeOf.
const ROUTES = new WeakMap<CacheClient, Route>();

/**
 * The route under a client: for the loadgen (src/loadgen.ts), which counts
 * the connections to both ports, and for tests that watch the in-flight
 * queue. Internal: src/index.ts does not export it.
 */
export function routeOf(client: CacheClient): Route {
  return ROUTES.get(client)!;
}

export class CacheClient {
  readonly knobs: Readonly<ResolvedKnobs>;
  readonly #route: Route;

  private constructor(route: Route) {
    this.knobs = route.knobs;
    this.#route = route;
    ROUTES.set(this, route);
  }

  /**
   * Builds a client and, unless `eagerConnectTimeoutMs` is 0, waits until
   * every data channel is connected. Rejects with a ConnectionError naming
   * the cause: at once for an unknown host or a TLS mismatch, after 1 s of
   * refused connections, after `eagerConnectTimeoutMs` when the server never
   * answers (eager-connect.ts).
   */
  static async create(options: CacheClientOptions = {}): Promise<CacheClient> {
    return new CacheClient(await openRoute(options));
  }

  /**
   * What carries get, getString, set and delete: 'protosocket' or 'grpc';
   * every other call is gRPC (over `knobs.transport`, the gRPC
   * implementation). Under protosocketEndpoint 'auto' with lazy connect it
   * is 'grpc' until the first of those calls has asked the server.
   */
  get transport(): 'grpc' | 'protosocket' {
    return this.#route.transport;
  }

  /** The value of `key`, or undefined on a miss. */
  async get(cacheName: string, key: Bytes): Promise<Uint8Array | undefined> {
    return this.#route.send(cacheName, scalars.get(key));
  }

  /** The value of `key` decoded as UTF-8, or undefined on a miss. */
  async getString(cacheName: string, key: Bytes): Promise<string | undefined> {
    const value = await this.get(cacheName, key);
    return value === undefined ? undefined : toUtf8(value);
  }

  async set(cacheName: string, key: Bytes, value: Bytes, options: WriteOptions = {}): Promise<void> {
    await this.#route.send(cacheName, scalars.set(key, value, options.ttlMs ?? this.knobs.defaultTtlMs));
  }

  async delete(cacheName: string, key: Bytes): Promise<void> {
    await this.#route.send(cacheName, scalars.remove(key));
  }

  /** Stores `value` only if `condition` holds; resolves to whether it was stored. Never retried. */
  async setIf(cacheName: string, key: Bytes, value: Bytes, condition: SetIfCondition, options: WriteOptions = {}): Promise<boolean> {
    return this.#run(cacheName, scalars.setIf(key, value, condition, this.#ttl(options)));
  }

  /** Stores `value` only if `key` is absent; resolves to whether it was stored. Never retried. */
  async setIfAbsent(cacheName: string, key: Bytes, value: Bytes, options: WriteOptions = {}): Promise<boolean> {
    return this.#run(cacheName, scalars.setIfAbsent(key, value, this.#ttl(options)));
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
    return this.#run(cacheName, scalars.increment(key, amount, this.#ttl(options)));
  }

  /** Which of `keys` exist, in order. */
  async keysExist(cacheName: string, keys: readonly Bytes[]): Promise<boolean[]> {
    return this.#run(cacheName, scalars.keysExist(keys));
  }

  /**
   * Sets the TTL of `key` to `ttlMs`: always ('overwrite'), or only if that
   * is longer ('increase') or shorter ('decrease') than what is left.
   * Resolves to whether the TTL changed (false for a missing key). Never retried.
   */
  async updateTtl(cacheName: string, key: Bytes, ttlMs: number, mode: TtlUpdate = 'overwrite'): Promise<boolean> {
    return this.#run(cacheName, scalars.updateTtl(key, ttlToWire(ttlMs), mode));
  }

  /** Milliseconds `key` has left, or undefined on a miss. */
  async getTtl(cacheName: string, key: Bytes): Promise<number | undefined> {
    return this.#run(cacheName, scalars.getTtl(key));
  }

  /** The type of the item at `key`, or undefined on a miss. */
  async getType(cacheName: string, key: Bytes): Promise<ItemType | undefined> {
    return this.#run(cacheName, scalars.getType(key));
  }

  /** The values of `keys` in order, undefined for each miss; one call. */
  async getMany(cacheName: string, keys: readonly Bytes[]): Promise<(Uint8Array | undefined)[]> {
    return this.#route.stream(cacheName, scalars.getMany(keys));
  }

  /** Stores every entry, all with one TTL; one call. */
  async setMany(
    cacheName: string,
    entries: Iterable<readonly [Bytes, Bytes]> | Readonly<Record<string, Bytes>>,
    options: WriteOptions = {},
  ): Promise<void> {
    await this.#route.stream(cacheName, scalars.setMany(entries, this.#ttl(options)));
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
   * Every field and value, fields in ascending byte order; an empty map for
   * a missing dictionary. Field names are bytes, as the server keeps them:
   * `get('name')` and `has('name')` look up a string's UTF-8 bytes, and
   * `toStringMap()` keys the values by text (see BytesMap).
   */
  async dictionaryFetch(cacheName: string, dictionaryName: Bytes): Promise<BytesMap<Uint8Array>> {
    return this.#run(cacheName, dictionary.fetch(dictionaryName));
  }

  /** As dictionaryFetch, with the fields and values decoded as UTF-8: for dictionaries of text. */
  async dictionaryFetchStrings(cacheName: string, dictionaryName: Bytes): Promise<Map<string, string>> {
    const fields = await this.#run(cacheName, dictionary.fetch(dictionaryName));
    return new Map(Array.from(fields, ([field, value]) => [toUtf8(field), toUtf8(value)]));
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

  /**
   * Every element, in no particular order; an empty set for a missing one.
   * Elements are bytes compared by content: `has('a')` looks up a string's
   * UTF-8 bytes, and `decodeUtf8(set)` or `toStringSet()` give text (see BytesSet).
   */
  async setFetch(cacheName: string, setName: Bytes): Promise<BytesSet> {
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
   * unless `exclusiveMin` / `exclusiveMax`, open when omitted) in `order`,
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
   * The leaderboard `name` of `cacheName`, whose calls go through this
   * client. Sends nothing: a leaderboard exists once something is upserted.
   */
  leaderboard(cacheName: string, name: string): Leaderboard {
    return new Leaderboard(this.#route, cacheName, name);
  }

  /**
   * Publishes `value` to `topic`: a string arrives as a string, bytes as
   * bytes. Resolves once the server took it (not when subscribers read it).
   * Never retried: a second sending would be a second message.
   */
  async publish(cacheName: string, topic: string, value: Bytes): Promise<void> {
    await this.#route.topics.publish(cacheName, topic, value);
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
    return this.#route.topics.subscribe(cacheName, topic, options);
  }

  /** Creates a cache; rejects with AlreadyExistsError if it exists. */
  async createCache(cacheName: string): Promise<void> {
    await this.#route.control(caches.createCache(cacheName));
  }

  /** Deletes a cache and its items; rejects with CacheNotFoundError if there is none. */
  async deleteCache(cacheName: string): Promise<void> {
    await this.#route.control(caches.deleteCache(cacheName));
  }

  /** Names of every cache, following the server's pages. */
  async listCaches(): Promise<string[]> {
    const names: string[] = [];
    let nextToken = '';
    do {
      const page = await this.#route.control(caches.listCachesPage(nextToken));
      names.push(...page.names);
      nextToken = page.nextToken;
    } while (nextToken !== '');
    return names;
  }

  /** Removes every item of a cache; the cache stays. */
  async flushCache(cacheName: string): Promise<void> {
    await this.#route.control(caches.flushCache(cacheName));
  }

  /**
   * Mints a token of `permissions` ('superUser', 'allDataReadWrite' or an
   * array of cache and topic permissions) that expires in `expiresInMs`
   * (whole seconds, at most an hour); `tokenId` is the publisher
   * subscribers see on its messages. This client's token must be an admin
   * or super user one (PermissionError otherwise). Over gRPC on any
   * transport; never retried: each call mints another token.
   */
  async generateDisposableToken(
    permissions: Permissions,
    expiresInMs: number,
    options: { tokenId?: string } = {},
  ): Promise<DisposableToken> {
    return this.#route.control(tokens.generateDisposableToken(this.#ownToken, permissions, expiresInMs, options.tokenId));
  }

  /**
   * Mints an api key of `permissions` (as generateDisposableToken's) that
   * expires in `expiresInMs` (whole seconds; left out: never), with the
   * refresh token that renews it. Never retried.
   */
  async generateApiKey(permissions: Permissions, expiresInMs?: number): Promise<ApiKey> {
    return this.#route.control(tokens.generateApiKey(this.#ownToken, permissions, expiresInMs));
  }

  /** Renews this client's api key with its `refreshToken`: a new key and refresh token of the same permissions and lifetime. */
  async refreshApiKey(refreshToken: string): Promise<ApiKey> {
    return this.#route.control(tokens.refreshApiKey(this.#ownToken, refreshToken));
  }

  /**
   * Creates or replaces webhook `name` of `cache`, POSTing each message of
   * `topic` to `url`; resolves to its signing secret (kept when the webhook
   * is replaced). Needs an admin token of the cache.
   */
  async putWebhook(cache: string, name: string, topic: string, url: string): Promise<string> {
    return this.#route.control(webhooks.putWebhook(cache, name, topic, url));
  }

  /** Deletes webhook `name` of `cache`; one that is not there is no error. */
  async deleteWebhook(cache: string, name: string): Promise<void> {
    await this.#route.control(webhooks.deleteWebhook(cache, name));
  }

  /** The webhooks of `cache`, by name. */
  async listWebhooks(cache: string): Promise<Webhook[]> {
    return this.#route.control(webhooks.listWebhooks(cache));
  }

  /** The signing secret of webhook `name`; rejects with NotFoundError when it does not exist. */
  async getWebhookSecret(cache: string, name: string): Promise<string> {
    return this.#route.control(webhooks.getWebhookSecret(cache, name));
  }

  /** A new signing secret for webhook `name`, used from the next POST on; never retried. */
  async rotateWebhookSecret(cache: string, name: string): Promise<string> {
    return this.#route.control(webhooks.rotateWebhookSecret(cache, name));
  }

  /**
   * A new signing key that signs presigned URLs (createPresignedUrl) for
   * `ttlMs` (rounded up to whole minutes, at most a year); its `key` is the
   * private half, answered this once. Needs a token over every cache;
   * LimitExceededError past the server's --max-signing-keys. Never retried.
   */
  async createSigningKey(ttlMs: number): Promise<SigningKey> {
    return this.#route.control(signingKeys.createSigningKey(ttlMs, this.#route.target));
  }

  /** The live signing keys (without their private halves), soonest to expire first. */
  async listSigningKeys(): Promise<SigningKey[]> {
    return this.#route.control(signingKeys.listSigningKeys(this.#route.target));
  }

  /** Revokes signing key `keyId`: its URLs are refused from now on; NotFoundError when there is no such live key. */
  async revokeSigningKey(keyId: string): Promise<void> {
    await this.#route.control(signingKeys.revokeSigningKey(keyId));
  }

  /** One round trip to the data server. */
  async ping(): Promise<void> {
    await this.#route.toDataServer(caches.ping());
  }

  /**
   * Data channels (gRPC or HTTP/2) holding an open TCP connection now. With
   * `protosocketEndpoint` the gets and sets go over protosocket connections
   * of their own, which this does not count (the loadgen counts both ports).
   */
  connectedChannels(): number {
    return this.#route.connectedChannels();
  }

  /** The most calls that were in flight at once (bounded by maxConcurrentRequests). */
  get inFlightHighWaterMark(): number {
    return this.#route.runner.limiter.highWaterMark;
  }

  /** The cap on calls in flight now (0 = none): maxConcurrentRequests, or under 'auto' the limit it chose. */
  inFlightLimit(): number {
    return this.#route.runner.inFlightLimit();
  }

  /**
   * The limit's changes: when (ms since the client was built) and to what,
   * at most one per 100 ms, the last 1000; one entry for a fixed cap.
   */
  inFlightLimitHistory(): InFlightLimitChange[] {
    return this.#route.runner.limiter.history();
  }

  /** Fails queued and in-flight calls with ConnectionError and closes the connections. */
  close(): void {
    this.#route.close();
  }

  get #ownToken(): string {
    return this.#route.authorization ?? '';
  }

  #ttl(options: WriteOptions): bigint {
    return ttlToWire(options.ttlMs ?? this.knobs.defaultTtlMs);
  }

  #collectionTtl(options: CollectionOptions): WireTtl {
    return wireTtl(options, this.knobs.defaultTtlMs);
  }

  /** Sends an operation (collections/, scalars.ts) and reads its answer. */
  #run<T>(cacheName: string, operation: Operation<T>): Promise<T> {
    return this.#route.send(cacheName, operation);
  }
}
