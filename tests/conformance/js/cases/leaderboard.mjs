// Leaderboards through the official SDK's PreviewLeaderboardClient: upsert,
// fetch by rank and by score, rank, length, remove, delete, ties, the
// calls on a board that does not exist, and the errors the SDK maps.
//
// One client per front-end, and each board behind the round-robin wrapper,
// so that over a Redis Cluster consecutive calls go to different
// jiffy-servers. 1.118.1 has no getCompetitionRank.
//
// The SDK refuses some bad input itself, before any call (an empty upsert,
// negative ranks, a start over a positive end, a negative offset or count, a
// min score over the max); the server answers the rest (more than 8,192
// elements, ids or ranks, an empty rank range from 0, a count over 8,192).
// Both reach the application as the same INVALID_ARGUMENT error response.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  CredentialProvider,
  InvalidArgumentError,
  LeaderboardConfigurations,
  LeaderboardDelete,
  LeaderboardFetch,
  LeaderboardLength,
  LeaderboardOrder,
  LeaderboardRemoveElements,
  LeaderboardUpsert,
  MomentoErrorCode,
  PreviewLeaderboardClient,
} from '@gomomento/sdk';

import { roundRobin } from '../support/round-robin.mjs';
import { assertIs, uniqueCacheName } from '../support/suite.mjs';

const { Ascending, Descending } = LeaderboardOrder;
const PER_CALL = 8192;

// The official suite's example board: ids and scores, ascending.
const BOARD = new Map([
  [123, 10],
  [234, 100],
  [345, 250],
  [456, 500],
  [567, 750],
  [678, 1000],
  [789, 1500],
  [890, 2000],
]);
const ASCENDING = [...BOARD].map(([id, score], rank) => ({ id, score, rank }));

/** The elements of a successful fetch, or fails showing the response. */
async function elements(call) {
  return assertIs(await call, LeaderboardFetch.Success).values();
}

async function refused(call, responseClass, code) {
  const error = assertIs(await call, responseClass);
  assert.equal(error.errorCode(), code, error.message());
}

async function length(board) {
  return assertIs(await board.length(), LeaderboardLength.Success).length();
}

function leaderboardClient({ host, port }, { throwOnErrors = false } = {}) {
  return new PreviewLeaderboardClient({
    configuration: LeaderboardConfigurations.Laptop.latest().withThrowOnErrors(throwOnErrors),
    credentialProvider: CredentialProvider.forMomentoLocal({ hostname: host, port }),
  });
}

export function registerLeaderboardTests(suite) {
  let clients = [];

  const board = (cacheName, name = 'board') =>
    roundRobin(clients.map((client) => client.leaderboard(cacheName, name)));

  async function fullBoard(label) {
    const b = board(await suite.newCache(label));
    assertIs(await b.upsert(BOARD), LeaderboardUpsert.Success);
    return b;
  }

  describe('leaderboards', () => {
    before(() => {
      clients = suite.frontEnds.map((frontEnd) => leaderboardClient(frontEnd));
    });
    after(() => clients.forEach((client) => client.close()));

    test('upsert inserts and updates, from a Map or a Record', async () => {
      const cacheName = await suite.newCache('lb-upsert');
      const b = board(cacheName);
      assertIs(await b.upsert(new Map([[123, 100], [456, 200], [789, 300]])), LeaderboardUpsert.Success);
      assertIs(await b.upsert({ 1234: 800, 5678: 900 }), LeaderboardUpsert.Success);
      assertIs(await b.upsert(new Map([[123, 500], [456, 600], [789, 700]])), LeaderboardUpsert.Success);
      assert.deepEqual(await elements(b.fetchByScore()), [
        { id: 123, score: 500, rank: 0 },
        { id: 456, score: 600, rank: 1 },
        { id: 789, score: 700, rank: 2 },
        { id: 1234, score: 800, rank: 3 },
        { id: 5678, score: 900, rank: 4 },
      ]);
      assert.equal(await length(b), 5);
      // Doubles, negatives and the largest id come back exactly.
      const doubles = board(cacheName, 'doubles');
      assertIs(await doubles.upsert({ 123: 27.004309862363737, 456: 16777217, 789: 300.5 }), LeaderboardUpsert.Success);
      assert.deepEqual(await elements(doubles.fetchByScore()), [
        { id: 123, score: 27.004309862363737, rank: 0 },
        { id: 789, score: 300.5, rank: 1 },
        { id: 456, score: 16777217, rank: 2 },
      ]);
      assertIs(await b.upsert({ 4294967295: -1.25, 7: 0.1 }), LeaderboardUpsert.Success);
      assert.deepEqual(await elements(b.fetchByRank(0, 2)), [
        { id: 4294967295, score: -1.25, rank: 0 },
        { id: 7, score: 0.1, rank: 1 },
      ]);
    });

    test('upsert refuses no elements and more than 8,192, changing nothing', async () => {
      const b = await fullBoard('lb-upsert-limits');
      await refused(b.upsert(new Map()), LeaderboardUpsert.Error, MomentoErrorCode.INVALID_ARGUMENT_ERROR);
      // From here on the server refuses.
      const tooMany = new Map(Array.from({ length: PER_CALL + 1 }, (_, i) => [10_000 + i, i]));
      await refused(b.upsert(tooMany), LeaderboardUpsert.Error, MomentoErrorCode.INVALID_ARGUMENT_ERROR);
      assert.deepEqual(await elements(b.fetchByScore()), ASCENDING);
      const most = new Map(Array.from({ length: PER_CALL }, (_, i) => [10_000 + i, 5_000 + i]));
      assertIs(await b.upsert(most), LeaderboardUpsert.Success);
      assert.equal(await length(b), BOARD.size + PER_CALL);
    });

    test('fetch by rank in either order, half-open, fewer past the end', async () => {
      const b = await fullBoard('lb-rank');
      assert.deepEqual(await elements(b.fetchByRank(0, 10)), ASCENDING);
      assert.deepEqual(await elements(b.fetchByRank(0, 10, { order: Ascending })), ASCENDING);
      assert.deepEqual(await elements(b.fetchByRank(2, 4)), ASCENDING.slice(2, 4));
      assert.deepEqual(
        await elements(b.fetchByRank(0, 3, { order: Descending })),
        ASCENDING.slice(-3)
          .reverse()
          .map((e, rank) => ({ ...e, rank })),
      );
      assert.deepEqual(await elements(b.fetchByRank(6, 100, { order: Descending })), [
        { id: 234, score: 100, rank: 6 },
        { id: 123, score: 10, rank: 7 },
      ]);
      assert.deepEqual(await elements(b.fetchByRank(8, 20)), []);
      assert.deepEqual(await elements(b.fetchByRank(0, PER_CALL)), ASCENDING);
    });

    test('fetch by rank refuses bad ranges and more than 8,192 ranks', async () => {
      const cacheName = await suite.newCache('lb-rank-bad');
      const b = board(cacheName);
      assertIs(await b.upsert(BOARD), LeaderboardUpsert.Success);
      const code = MomentoErrorCode.INVALID_ARGUMENT_ERROR;
      // The SDK's own checks
      await refused(b.fetchByRank(-10, -5), LeaderboardFetch.Error, code);
      await refused(b.fetchByRank(10, 5), LeaderboardFetch.Error, code);
      // and the server's
      await refused(b.fetchByRank(0, 0), LeaderboardFetch.Error, code);
      await refused(b.fetchByRank(0, PER_CALL + 1), LeaderboardFetch.Error, code);
      await refused(b.fetchByRank(1, PER_CALL + 2), LeaderboardFetch.Error, code);
      // With throwOnErrors the SDK throws the error instead.
      const throwing = leaderboardClient(suite.server, { throwOnErrors: true });
      try {
        const thrown = throwing.leaderboard(cacheName, 'board');
        await assert.rejects(thrown.fetchByRank(0, PER_CALL + 1), InvalidArgumentError);
      } finally {
        throwing.close();
      }
      assert.equal((await elements(b.fetchByRank(1, PER_CALL + 1))).length, BOARD.size - 1);
    });

    test('fetch by score: bounds, offset, count, order', async () => {
      const b = await fullBoard('lb-score');
      assert.deepEqual(await elements(b.fetchByScore()), ASCENDING);
      assert.deepEqual(await elements(b.fetchByScore({ offset: 2, count: 2 })), ASCENDING.slice(2, 4));
      // min inclusive, max exclusive
      assert.deepEqual(await elements(b.fetchByScore({ minScore: 750, maxScore: 1500 })), ASCENDING.slice(4, 6));
      assert.deepEqual(await elements(b.fetchByScore({ minScore: 1500 })), ASCENDING.slice(6));
      assert.deepEqual(await elements(b.fetchByScore({ maxScore: 100 })), ASCENDING.slice(0, 1));
      // each element carries its rank in the whole board, in the order asked
      assert.deepEqual(
        await elements(b.fetchByScore({ offset: 2, count: 10, minScore: 0, maxScore: 800, order: Descending })),
        [
          { id: 345, score: 250, rank: 5 },
          { id: 234, score: 100, rank: 6 },
          { id: 123, score: 10, rank: 7 },
        ],
      );
      assert.deepEqual(await elements(b.fetchByScore({ order: Descending, count: 1 })), [
        { id: 890, score: 2000, rank: 0 },
      ]);
      assert.deepEqual(await elements(b.fetchByScore({ offset: 10 })), []);
      assert.deepEqual(await elements(b.fetchByScore({ minScore: 3000 })), []);
    });

    test('fetch by score refuses a negative offset, a count out of 1..8,192 and a min over the max', async () => {
      const b = await fullBoard('lb-score-bad');
      const code = MomentoErrorCode.INVALID_ARGUMENT_ERROR;
      await refused(b.fetchByScore({ offset: -10 }), LeaderboardFetch.Error, code);
      await refused(b.fetchByScore({ count: -10 }), LeaderboardFetch.Error, code);
      await refused(b.fetchByScore({ minScore: 100, maxScore: 50 }), LeaderboardFetch.Error, code);
      // the server's
      await refused(b.fetchByScore({ count: PER_CALL + 1 }), LeaderboardFetch.Error, code);
      assert.deepEqual(await elements(b.fetchByScore({ count: PER_CALL })), ASCENDING);
    });

    test('ties rank by id, reversed when descending', async () => {
      const b = board(await suite.newCache('lb-ties'));
      assertIs(await b.upsert({ 30: 5, 10: 5, 20: 5, 40: 1, 50: 9 }), LeaderboardUpsert.Success);
      const ids = (list) => list.map((e) => e.id);
      assert.deepEqual(ids(await elements(b.fetchByRank(0, 5))), [40, 10, 20, 30, 50]);
      assert.deepEqual(ids(await elements(b.fetchByRank(0, 5, { order: Descending }))), [50, 30, 20, 10, 40]);
      assert.deepEqual(ids(await elements(b.fetchByScore({ minScore: 5, maxScore: 6 }))), [10, 20, 30]);
      assert.deepEqual(await elements(b.getRank([20, 30])), [
        { id: 20, score: 5, rank: 2 },
        { id: 30, score: 5, rank: 3 },
      ]);
    });

    test('getRank in either order, in the order asked, leaving out ids not held, 8,192 at most', async () => {
      const b = await fullBoard('lb-get-rank');
      assert.deepEqual(await elements(b.getRank([123, 789])), [ASCENDING[0], ASCENDING[6]]);
      assert.deepEqual(await elements(b.getRank([789, 123], { order: Ascending })), [ASCENDING[6], ASCENDING[0]]);
      assert.deepEqual(await elements(b.getRank([123, 789], { order: Descending })), [
        { id: 123, score: 10, rank: 7 },
        { id: 789, score: 1500, rank: 1 },
      ]);
      assert.deepEqual(await elements(b.getRank([999, 456, 1])), [ASCENDING[3]]);
      assert.deepEqual(await elements(b.getRank([999])), []);
      const absent = Array.from({ length: PER_CALL }, (_, i) => 100_000 + i);
      await refused(b.getRank([...absent, 456]), LeaderboardFetch.Error, MomentoErrorCode.INVALID_ARGUMENT_ERROR);
      assert.deepEqual(await elements(b.getRank([...absent.slice(1), 456])), [ASCENDING[3]]);
    });

    test('remove elements, ignoring ids not held', async () => {
      const b = board(await suite.newCache('lb-remove'));
      assertIs(await b.upsert({ 123: 100, 456: 200, 789: 300 }), LeaderboardUpsert.Success);
      assertIs(await b.removeElements([123, 789, 999]), LeaderboardRemoveElements.Success);
      assert.deepEqual(await elements(b.fetchByScore()), [{ id: 456, score: 200, rank: 0 }]);
      assertIs(await b.removeElements([456]), LeaderboardRemoveElements.Success);
      assert.equal(await length(b), 0);
      await refused(b.removeElements([]), LeaderboardRemoveElements.Error, MomentoErrorCode.INVALID_ARGUMENT_ERROR);
      const tooMany = Array.from({ length: PER_CALL + 1 }, (_, i) => i);
      await refused(
        b.removeElements(tooMany),
        LeaderboardRemoveElements.Error,
        MomentoErrorCode.INVALID_ARGUMENT_ERROR,
      );
    });

    test('delete drops the board; deleting again is no error', async () => {
      const b = await fullBoard('lb-delete');
      assert.equal(await length(b), BOARD.size);
      assertIs(await b.delete(), LeaderboardDelete.Success);
      assert.equal(await length(b), 0);
      assert.deepEqual(await elements(b.fetchByScore()), []);
      assertIs(await b.delete(), LeaderboardDelete.Success);
      // Another board of the same cache is untouched.
      const cacheName = await suite.newCache('lb-delete-two');
      const first = board(cacheName, 'first');
      const second = board(cacheName, 'second');
      assertIs(await first.upsert({ 1: 1 }), LeaderboardUpsert.Success);
      assertIs(await second.upsert({ 2: 2 }), LeaderboardUpsert.Success);
      assertIs(await first.delete(), LeaderboardDelete.Success);
      assert.deepEqual(await elements(second.fetchByScore()), [{ id: 2, score: 2, rank: 0 }]);
    });

    test('a board that does not exist reads as empty', async () => {
      const b = board(await suite.newCache('lb-missing'), 'never-written');
      assert.deepEqual(await elements(b.fetchByScore()), []);
      assert.deepEqual(await elements(b.fetchByRank(0, 100)), []);
      assert.deepEqual(await elements(b.getRank([123])), []);
      assert.equal(await length(b), 0);
      assertIs(await b.removeElements([123]), LeaderboardRemoveElements.Success);
      assertIs(await b.delete(), LeaderboardDelete.Success);
    });

    test('a missing cache is NOT_FOUND on every call', async () => {
      const b = board(uniqueCacheName('lb-no-cache'));
      const code = MomentoErrorCode.CACHE_NOT_FOUND_ERROR;
      await refused(b.upsert({ 1: 1 }), LeaderboardUpsert.Error, code);
      await refused(b.fetchByScore(), LeaderboardFetch.Error, code);
      await refused(b.fetchByRank(0, 10), LeaderboardFetch.Error, code);
      await refused(b.getRank([1]), LeaderboardFetch.Error, code);
      await refused(b.length(), LeaderboardLength.Error, code);
      await refused(b.removeElements([1]), LeaderboardRemoveElements.Error, code);
      await refused(b.delete(), LeaderboardDelete.Error, code);
    });

    test('the SDK refuses a blank cache or board name before calling', () => {
      assert.throws(() => clients[0].leaderboard('   ', 'board'), InvalidArgumentError);
      assert.throws(() => clients[0].leaderboard('cache', '   '), InvalidArgumentError);
    });
  });
}
