// Sorted sets: distinct values, each with a finite score, ordered by score
// and, for equal scores, by value bytes. Request builders and answer
// readers; CacheClient sends them. A missing sorted set reads as an empty
// one (sdk/spec.json `missing_collection`).
import { fromBinary } from '@bufbuild/protobuf';
import { type Bytes, describe, toBytes } from '../codec.js';
import * as scs from '../gen/cacheclient_pb.js';
import { RPCS } from '../rpcs.gen.js';
import {
  bytesList,
  checkedSlice,
  collectionName,
  encode,
  type Entries,
  finite,
  integerIn,
  invalid,
  oneOf,
  type Operation,
  pairsOf,
  type Slice,
  uint32,
  unbounded,
  type WireTtl,
} from './common.js';

/** One element of a sorted set, as fetches answer it. */
export interface SortedSetElement {
  value: Uint8Array;
  score: number;
}

/** Values and their scores: a Map or BytesMap, [value, score] pairs, or a Record (values as UTF-8). */
export type SortedSetEntries = Entries<Bytes, number>;

/** Ascending: lowest score first, ties by value bytes; descending is that order reversed. */
export type SortedSetOrder = 'ascending' | 'descending';

/** How sortedSetUnionStore combines a value's weighted scores from several sources. */
export type SortedSetAggregate = 'sum' | 'min' | 'max';

/** A score range: each bound inclusive unless marked exclusive; an omitted bound is open. */
export interface SortedSetScoreBounds {
  minScore?: number;
  maxScore?: number;
  /** Leave out elements scoring exactly `minScore`. @default false */
  exclusiveMin?: boolean;
  /** Leave out elements scoring exactly `maxScore`. @default false */
  exclusiveMax?: boolean;
}

/** sortedSetFetchByRank: a slice of the set in `order`, as listFetch takes one. */
export interface SortedSetRankRange extends Slice {
  /** @default 'ascending' */
  order?: SortedSetOrder;
}

/** sortedSetFetchByScore: the elements within the bounds, in `order`, then `offset` skipped and at most `count` answered. */
export interface SortedSetScoreRange extends SortedSetScoreBounds {
  /** @default 'ascending' */
  order?: SortedSetOrder;
  /** Elements to skip, after ordering. @default 0 */
  offset?: number;
  /** The most elements to answer (at least 1). @default all */
  count?: number;
}

/** sortedSetUnionStore's options. */
export interface SortedSetUnionStoreOptions {
  /** How a value's weighted scores combine. @default 'sum' */
  aggregate?: SortedSetAggregate;
  /** TTL of the destination; the client's `defaultTtlMs` when left out. */
  ttlMs?: number;
}

const name = (setName: Bytes): Uint8Array => collectionName(setName, 'sorted set');

const ORDERS: Readonly<Record<SortedSetOrder, scs._SortedSetFetchRequest_Order>> = {
  ascending: scs._SortedSetFetchRequest_Order.ASCENDING,
  descending: scs._SortedSetFetchRequest_Order.DESCENDING,
};

const RANK_ORDERS: Readonly<Record<SortedSetOrder, scs._SortedSetGetRankRequest_Order>> = {
  ascending: scs._SortedSetGetRankRequest_Order.ASCENDING,
  descending: scs._SortedSetGetRankRequest_Order.DESCENDING,
};

const AGGREGATES: Readonly<Record<SortedSetAggregate, scs._SortedSetUnionStoreRequest_AggregateFunction>> = {
  sum: scs._SortedSetUnionStoreRequest_AggregateFunction.SUM,
  min: scs._SortedSetUnionStoreRequest_AggregateFunction.MIN,
  max: scs._SortedSetUnionStoreRequest_AggregateFunction.MAX,
};

const orderToWire = (order: SortedSetOrder | undefined): scs._SortedSetFetchRequest_Order => oneOf(ORDERS, order, 'ascending', 'order');

function readElements(answer: Uint8Array): SortedSetElement[] {
  const { sortedSet } = fromBinary(scs._SortedSetFetchResponseSchema, answer);
  if (sortedSet.case !== 'found' || sortedSet.value.elements.case !== 'valuesWithScores') return [];
  return sortedSet.value.elements.value.elements.map(({ value, score }) => ({ value, score }));
}

export function putElements(setName: Bytes, entries: SortedSetEntries, ttl: WireTtl): Operation<void> {
  const elements = pairsOf<Bytes, number>(entries, 'sorted set elements').map(([value, score]) => ({
    value: toBytes(value),
    score: finite(score, 'score'),
  }));
  return {
    rpc: RPCS.SortedSetPut,
    request: encode(scs._SortedSetPutRequestSchema, { setName: name(setName), elements, ...ttl }),
    read: () => undefined,
  };
}

/**
 * Ranks the wrong way round (both from the front or both from the back,
 * start not before end) select nothing, as a Python slice would; the server
 * refuses them instead, so they are sent as the empty slice [0:0]. The call
 * still goes out, so a missing cache or an item of another type is still
 * reported. Mixed signs depend on the length: the server resolves those.
 */
function sendableRanks({ start, end }: Slice): Slice {
  if (start === undefined || end === undefined) return { start, end };
  const sameSide = (start >= 0 && end >= 0) || (start < 0 && end < 0);
  return sameSide && start >= end ? { start: 0, end: 0 } : { start, end };
}

export function fetchByRank(setName: Bytes, range: SortedSetRankRange): Operation<SortedSetElement[]> {
  const { start, end } = sendableRanks(checkedSlice(range));
  const byIndex = {
    start:
      start === undefined
        ? { case: 'unboundedStart' as const, value: unbounded() }
        : { case: 'inclusiveStartIndex' as const, value: start },
    end: end === undefined ? { case: 'unboundedEnd' as const, value: unbounded() } : { case: 'exclusiveEndIndex' as const, value: end },
  };
  return {
    rpc: RPCS.SortedSetFetch,
    request: encode(scs._SortedSetFetchRequestSchema, {
      setName: name(setName),
      order: orderToWire(range.order),
      withScores: true,
      range: { case: 'byIndex', value: byIndex },
    }),
    read: readElements,
  };
}

/** Bounds as numbers: NaN refused, infinities allowed, the min not over the max. */
function checkedBounds(bounds: SortedSetScoreBounds): { min: number | undefined; max: number | undefined } {
  const bound = (value: unknown, option: string): number | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || Number.isNaN(value)) throw invalid(`\`${option}\` must be a number; got ${describe(value)}`);
    return value;
  };
  const min = bound(bounds.minScore, 'minScore');
  const max = bound(bounds.maxScore, 'maxScore');
  if (min !== undefined && max !== undefined && min > max) throw invalid(`minScore (${min}) must not be over maxScore (${max})`);
  return { min, max };
}

export function fetchByScore(setName: Bytes, range: SortedSetScoreRange): Operation<SortedSetElement[]> {
  const { min, max } = checkedBounds(range);
  const byScore = {
    min:
      min === undefined
        ? { case: 'unboundedMin' as const, value: unbounded() }
        : { case: 'minScore' as const, value: { score: min, exclusive: range.exclusiveMin === true } },
    max:
      max === undefined
        ? { case: 'unboundedMax' as const, value: unbounded() }
        : { case: 'maxScore' as const, value: { score: max, exclusive: range.exclusiveMax === true } },
    offset: range.offset === undefined ? 0 : uint32(range.offset, 'offset'),
    // A negative count asks for all of them; 0 is refused by the server.
    count: range.count === undefined ? -1 : integerIn(range.count, 'count', 1, 0x7fff_ffff),
  };
  return {
    rpc: RPCS.SortedSetFetch,
    request: encode(scs._SortedSetFetchRequestSchema, {
      setName: name(setName),
      order: orderToWire(range.order),
      withScores: true,
      range: { case: 'byScore', value: byScore },
    }),
    read: readElements,
  };
}

export function getScores(setName: Bytes, values: readonly Bytes[]): Operation<(number | undefined)[]> {
  const wireValues = bytesList(values, 'values');
  return {
    rpc: RPCS.SortedSetGetScore,
    request: encode(scs._SortedSetGetScoreRequestSchema, { setName: name(setName), values: wireValues }),
    read(answer) {
      const { sortedSet } = fromBinary(scs._SortedSetGetScoreResponseSchema, answer);
      if (sortedSet.case !== 'found') return wireValues.map(() => undefined);
      return sortedSet.value.elements.map((part) => (part.result === scs.ECacheResult.Hit ? part.score : undefined));
    },
  };
}

export function getRank(setName: Bytes, value: Bytes, order: SortedSetOrder | undefined): Operation<number | undefined> {
  return {
    rpc: RPCS.SortedSetGetRank,
    request: encode(scs._SortedSetGetRankRequestSchema, {
      setName: name(setName),
      value: toBytes(value),
      order: oneOf(RANK_ORDERS, order, 'ascending', 'order'),
    }),
    read(answer) {
      const { rank } = fromBinary(scs._SortedSetGetRankResponseSchema, answer);
      return rank.case === 'elementRank' && rank.value.result === scs.ECacheResult.Hit ? Number(rank.value.rank) : undefined;
    },
  };
}

export function incrementScore(setName: Bytes, value: Bytes, amount: number, ttl: WireTtl): Operation<number> {
  return {
    rpc: RPCS.SortedSetIncrement,
    request: encode(scs._SortedSetIncrementRequestSchema, {
      setName: name(setName),
      value: toBytes(value),
      amount: finite(amount, 'amount'),
      ...ttl,
    }),
    read: (answer) => fromBinary(scs._SortedSetIncrementResponseSchema, answer).score,
  };
}

export function removeElements(setName: Bytes, values: readonly Bytes[]): Operation<void> {
  const some = { values: bytesList(values, 'values') };
  return {
    rpc: RPCS.SortedSetRemove,
    request: encode(scs._SortedSetRemoveRequestSchema, { setName: name(setName), removeElements: { case: 'some', value: some } }),
    read: () => undefined,
  };
}

export function length(setName: Bytes): Operation<number> {
  return {
    rpc: RPCS.SortedSetLength,
    request: encode(scs._SortedSetLengthRequestSchema, { setName: name(setName) }),
    read(answer) {
      const { sortedSet } = fromBinary(scs._SortedSetLengthResponseSchema, answer);
      return sortedSet.case === 'found' ? sortedSet.value.length : 0;
    },
  };
}

export function lengthByScore(setName: Bytes, bounds: SortedSetScoreBounds): Operation<number> {
  const { min, max } = checkedBounds(bounds);
  const minBound =
    min === undefined
      ? { case: 'unboundedMin' as const, value: unbounded() }
      : bounds.exclusiveMin === true
        ? { case: 'exclusiveMin' as const, value: min }
        : { case: 'inclusiveMin' as const, value: min };
  const maxBound =
    max === undefined
      ? { case: 'unboundedMax' as const, value: unbounded() }
      : bounds.exclusiveMax === true
        ? { case: 'exclusiveMax' as const, value: max }
        : { case: 'inclusiveMax' as const, value: max };
  return {
    rpc: RPCS.SortedSetLengthByScore,
    request: encode(scs._SortedSetLengthByScoreRequestSchema, { setName: name(setName), min: minBound, max: maxBound }),
    read(answer) {
      const { sortedSet } = fromBinary(scs._SortedSetLengthByScoreResponseSchema, answer);
      return sortedSet.case === 'found' ? sortedSet.value.length : 0;
    },
  };
}

/** Sources of a union and their weights: a Record (names as UTF-8) or a Map. */
export type SortedSetUnionSources = Readonly<Record<string, number>> | ReadonlyMap<Bytes, number>;

/** The weight as the wire's 32-bit float: one that overflows it to infinity is refused, as NaN is. */
function weight(value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(Math.fround(value))) {
    throw invalid(`a source's weight must be a finite 32-bit float; got ${describe(value)}`);
  }
  return value;
}

export function unionStore(
  destination: Bytes,
  sources: SortedSetUnionSources,
  aggregate: SortedSetAggregate | undefined,
  ttlMilliseconds: bigint,
): Operation<number> {
  if (Array.isArray(sources)) throw invalid('sortedSetUnionStore sources are a Record or a Map of set name to weight');
  const wireSources = pairsOf<Bytes, number>(sources, 'sortedSetUnionStore sources').map(([setName, sourceWeight]) => ({
    setName: collectionName(setName, 'source sorted set'),
    weight: weight(sourceWeight),
  }));
  return {
    rpc: RPCS.SortedSetUnionStore,
    request: encode(scs._SortedSetUnionStoreRequestSchema, {
      setName: name(destination),
      sources: wireSources,
      aggregate: oneOf(AGGREGATES, aggregate, 'sum', 'aggregate'),
      ttlMilliseconds,
    }),
    read: (answer) => fromBinary(scs._SortedSetUnionStoreResponseSchema, answer).length,
  };
}
