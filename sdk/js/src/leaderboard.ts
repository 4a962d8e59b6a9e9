// Leaderboard: one leaderboard of one cache, as client.leaderboard(cacheName,
// name) answers it. A façade over the operations of collections/leaderboard.ts
// (which says what ids, scores and ranks are), sent through the client's
// Route: the same cap, deadline, retries and errors as every other call, and
// always gRPC (the protosocket port does not carry leaderboards).
import * as ops from './collections/leaderboard.js';
import type { LeaderboardElement, LeaderboardEntries, LeaderboardOrderOptions, LeaderboardScoreRange } from './collections/leaderboard.js';
import type { Route } from './route.js';

export class Leaderboard {
  readonly cacheName: string;
  readonly name: string;
  readonly #route: Route;

  /** Internal: made by CacheClient.leaderboard. Holds no state of its own, so any number may name one leaderboard. */
  constructor(route: Route, cacheName: string, name: string) {
    this.#route = route;
    this.cacheName = cacheName;
    this.name = ops.checkedName(name);
  }

  /**
   * Gives each id its score (1 to 8192 of them), adding the ids not held; an
   * id given twice keeps the last score. The leaderboard is created by its
   * first upsert.
   */
  async upsert(elements: LeaderboardEntries): Promise<void> {
    await this.#route.send(this.cacheName, ops.upsert(this.name, elements));
  }

  /** The elements at ranks [start, end) in `order` (at most 8192 ranks); fewer where the leaderboard ends. */
  async fetchByRank(start: number, end: number, options: LeaderboardOrderOptions = {}): Promise<LeaderboardElement[]> {
    return this.#route.send(this.cacheName, ops.fetchByRank(this.name, start, end, options));
  }

  /**
   * The elements scored in [minScore, maxScore) in `order`, an omitted bound
   * open; of those, `offset` skipped and at most `count` answered. Ranks are
   * the elements' ranks in the whole leaderboard.
   */
  async fetchByScore(range: LeaderboardScoreRange = {}): Promise<LeaderboardElement[]> {
    return this.#route.send(this.cacheName, ops.fetchByScore(this.name, range));
  }

  /** The elements of `ids` the leaderboard holds, with their ranks in `order`; ids it does not hold are left out. */
  async getRank(ids: readonly number[], options: LeaderboardOrderOptions = {}): Promise<LeaderboardElement[]> {
    return this.#route.send(this.cacheName, ops.getRank(this.name, ids, options));
  }

  /**
   * As getRank, but tied scores share a rank: the number of elements scored
   * strictly ahead in `order`, which is 'descending' (the highest score is
   * rank 0) unless given.
   */
  async getCompetitionRank(ids: readonly number[], options: LeaderboardOrderOptions = {}): Promise<LeaderboardElement[]> {
    return this.#route.send(this.cacheName, ops.getCompetitionRank(this.name, ids, options));
  }

  /** How many ids the leaderboard holds; 0 when it is missing. */
  async length(): Promise<number> {
    return this.#route.send(this.cacheName, ops.length(this.name));
  }

  /** Removes `ids` (at most 8192; those not held are ignored). */
  async removeElements(ids: readonly number[]): Promise<void> {
    await this.#route.send(this.cacheName, ops.removeElements(this.name, ids));
  }

  /** Removes the whole leaderboard; deleting a missing one is not an error. */
  async delete(): Promise<void> {
    await this.#route.send(this.cacheName, ops.remove(this.name));
  }
}
