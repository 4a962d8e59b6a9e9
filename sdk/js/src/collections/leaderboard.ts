// Leaderboards: ids ranked by score. Request builders and answer readers;
// Leaderboard (src/leaderboard.ts) sends them.
//
// An id is an integer from 0 to 2^32 - 1: the protocol carries ids as
// uint32, so every id is exactly a JavaScript number (no bigint needed). A
// score is a finite number. Rank 0 is the lowest score in 'ascending' order,
// the highest in 'descending'; equal scores are ordered by id. A missing
// leaderboard reads as an empty one.
import { fromBinary } from '@bufbuild/protobuf';
import { describe } from '../codec.js';
import * as lb from '../gen/leaderboard_pb.js';
import { RPCS } from '../rpcs.gen.js';
import { encode, finite, integerIn, invalid, oneOf, type Operation, pairsOf, uint32, unbounded } from './common.js';

/** The most elements one call may carry or answer: the protocol's limit. */
export const LEADERBOARD_MAX_ELEMENTS = 8192;

/** One element of an answer: the id, its score, and its rank in the order asked. */
export interface LeaderboardElement {
  id: number;
  score: number;
  rank: number;
}

/** Ids and their scores: a Map or any iterable of [id, score] pairs, or a Record (ids as its keys). */
export type LeaderboardEntries = Iterable<readonly [number, number]> | Readonly<Record<number, number>>;

/** 'ascending': rank 0 is the lowest score; 'descending': the highest. */
export type LeaderboardOrder = 'ascending' | 'descending';

/** fetchByRank and getRank: the order ranks are counted in. */
export interface LeaderboardOrderOptions {
  /** @default 'ascending' */
  order?: LeaderboardOrder;
}

/** fetchByScore: the elements scored in [minScore, maxScore), in `order`, then `offset` skipped and at most `count` answered. */
export interface LeaderboardScoreRange extends LeaderboardOrderOptions {
  /** Lowest score answered (inclusive). @default no bound */
  minScore?: number;
  /** Score to stop before (exclusive). @default no bound */
  maxScore?: number;
  /** Elements to skip, after ordering. @default 0 */
  offset?: number;
  /** The most elements to answer (1 to 8192). @default 8192 */
  count?: number;
}

const ORDERS: Readonly<Record<LeaderboardOrder, lb._Order>> = {
  ascending: lb._Order.ASCENDING,
  descending: lb._Order.DESCENDING,
};

const orderToWire = (options: LeaderboardOrderOptions): lb._Order => oneOf(ORDERS, options.order, 'ascending', 'order');

/** A leaderboard's name: a non-empty string. */
export function checkedName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) throw invalid(`a leaderboard's name is a non-empty string; got ${describe(name)}`);
  return name;
}

/** An id; a Record's keys arrive as strings and are read back as the integers they were. */
function id(value: unknown): number {
  return uint32(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value, 'id');
}

function ids(values: readonly number[]): number[] {
  if (!Array.isArray(values)) throw invalid(`ids are an array of integers; got ${describe(values)}`);
  return values.map(id);
}

function readElements(elements: readonly lb._RankedElement[]): LeaderboardElement[] {
  return elements.map(({ id: elementId, score, rank }) => ({ id: elementId, score, rank }));
}

export function upsert(leaderboard: string, entries: LeaderboardEntries): Operation<void> {
  // A Map or an array iterates its pairs; a Record is not iterable.
  const iterable = typeof entries === 'object' && entries !== null && Symbol.iterator in entries;
  const listed = iterable ? [...entries] : (entries as Readonly<Record<string, number>>);
  const elements = pairsOf<number, number>(listed, 'leaderboard elements').map(([elementId, score]) => ({
    id: id(elementId),
    score: finite(score, 'score'),
  }));
  return {
    rpc: RPCS.UpsertElements,
    request: encode(lb._UpsertElementsRequestSchema, { leaderboard, elements }),
    read: () => undefined,
  };
}

export function fetchByRank(leaderboard: string, start: number, end: number, options: LeaderboardOrderOptions): Operation<LeaderboardElement[]> {
  const startInclusive = uint32(start, 'start');
  const endExclusive = uint32(end, 'end');
  if (startInclusive >= endExclusive) throw invalid(`\`start\` (${startInclusive}) must be below \`end\` (${endExclusive}): ranks are [start, end)`);
  return {
    rpc: RPCS.GetByRank,
    request: encode(lb._GetByRankRequestSchema, { leaderboard, rankRange: { startInclusive, endExclusive }, order: orderToWire(options) }),
    read: (answer) => readElements(fromBinary(lb._GetByRankResponseSchema, answer).elements),
  };
}

export function fetchByScore(leaderboard: string, range: LeaderboardScoreRange): Operation<LeaderboardElement[]> {
  const min = range.minScore === undefined ? undefined : finite(range.minScore, 'minScore');
  const max = range.maxScore === undefined ? undefined : finite(range.maxScore, 'maxScore');
  if (min !== undefined && max !== undefined && min > max) throw invalid(`minScore (${min}) must not be over maxScore (${max})`);
  const scoreRange = {
    min: min === undefined ? { case: 'unboundedMin' as const, value: unbounded() } : { case: 'minInclusive' as const, value: min },
    max: max === undefined ? { case: 'unboundedMax' as const, value: unbounded() } : { case: 'maxExclusive' as const, value: max },
  };
  return {
    rpc: RPCS.GetByScore,
    request: encode(lb._GetByScoreRequestSchema, {
      leaderboard,
      scoreRange,
      offset: range.offset === undefined ? 0 : uint32(range.offset, 'offset'),
      limitElements: range.count === undefined ? LEADERBOARD_MAX_ELEMENTS : integerIn(range.count, 'count', 1, LEADERBOARD_MAX_ELEMENTS),
      order: orderToWire(range),
    }),
    read: (answer) => readElements(fromBinary(lb._GetByScoreResponseSchema, answer).elements),
  };
}

export function getRank(leaderboard: string, elementIds: readonly number[], options: LeaderboardOrderOptions): Operation<LeaderboardElement[]> {
  return {
    rpc: RPCS.GetRank,
    request: encode(lb._GetRankRequestSchema, { leaderboard, ids: ids(elementIds), order: orderToWire(options) }),
    read: (answer) => readElements(fromBinary(lb._GetRankResponseSchema, answer).elements),
  };
}

/** As getRank, but tied scores share a rank; 'descending' unless `order` says otherwise. */
export function getCompetitionRank(leaderboard: string, elementIds: readonly number[], options: LeaderboardOrderOptions): Operation<LeaderboardElement[]> {
  return {
    rpc: RPCS.GetCompetitionRank,
    request: encode(lb._GetCompetitionRankRequestSchema, {
      leaderboard,
      ids: ids(elementIds),
      order: oneOf(ORDERS, options.order, 'descending', 'order'),
    }),
    read: (answer) => readElements(fromBinary(lb._GetCompetitionRankResponseSchema, answer).elements),
  };
}

export function length(leaderboard: string): Operation<number> {
  return {
    rpc: RPCS.GetLeaderboardLength,
    request: encode(lb._GetLeaderboardLengthRequestSchema, { leaderboard }),
    read: (answer) => fromBinary(lb._GetLeaderboardLengthResponseSchema, answer).count,
  };
}

export function removeElements(leaderboard: string, elementIds: readonly number[]): Operation<void> {
  return {
    rpc: RPCS.RemoveElements,
    request: encode(lb._RemoveElementsRequestSchema, { leaderboard, ids: ids(elementIds) }),
    read: () => undefined,
  };
}

export function remove(leaderboard: string): Operation<void> {
  return {
    rpc: RPCS.DeleteLeaderboard,
    request: encode(lb._DeleteLeaderboardRequestSchema, { leaderboard }),
    read: () => undefined,
  };
}
