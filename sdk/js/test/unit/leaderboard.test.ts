// Leaderboard calls without a server: bad arguments reject with
// InvalidArgumentError before anything is sent, good ones are encoded as the
// protocol wants (ids, half-open rank ranges, score ranges, order), and
// answers are read into plain { id, score, rank } elements.
import assert from 'node:assert/strict';
import { create, toBinary } from '@bufbuild/protobuf';
import { after, before, describe, test } from 'node:test';
import * as lb from '../../src/gen/leaderboard_pb.js';
import { CacheClient, InvalidArgumentError, type Leaderboard } from '../../src/index.js';
import { RecordingFactory } from '../support/fake-channel.js';

describe('leaderboard calls without a server', () => {
  let client: CacheClient;
  let board: Leaderboard;
  const sent = new RecordingFactory();

  before(async () => {
    client = await CacheClient.create({ endpoint: '127.0.0.1:1', channelFactory: sent.factory, eagerConnectTimeoutMs: 0, protosocketEndpoint: null });
    board = client.leaderboard('game', 'scores');
  });

  after(() => client.close());

  test('a leaderboard names its cache and itself; an empty or non-string name is refused at once', () => {
    assert.equal(board.cacheName, 'game');
    assert.equal(board.name, 'scores');
    assert.throws(() => client.leaderboard('game', ''), InvalidArgumentError);
    assert.throws(() => client.leaderboard('game', 7 as unknown as string), /non-empty string/);
  });

  test('upsert sends each id and score, from a Map, a Record, pairs or any iterable of them, to the cache named', async () => {
    const fromMap = await sent.request(lb._UpsertElementsRequestSchema, () => board.upsert(new Map([[1, 2.5], [4_294_967_295, -1]])));
    assert.equal(fromMap.leaderboard, 'scores');
    assert.deepEqual(fromMap.elements.map(({ id, score }) => [id, score]), [[1, 2.5], [4_294_967_295, -1]]);
    assert.equal(sent.calls.at(-1)!.path, '/leaderboard.Leaderboard/UpsertElements');
    assert.equal(sent.calls.at(-1)!.metadata?.cache, 'game');
    const fromRecord = await sent.request(lb._UpsertElementsRequestSchema, () => board.upsert({ 10: 1, 2: 3 }));
    assert.deepEqual(fromRecord.elements.map(({ id, score }) => [id, score]), [[2, 3], [10, 1]]);
    const fromPairs = await sent.request(lb._UpsertElementsRequestSchema, () => board.upsert([[5, 0.5]]));
    assert.deepEqual(fromPairs.elements.map(({ id, score }) => [id, score]), [[5, 0.5]]);
    function* generated(): Generator<readonly [number, number]> {
      yield [9, 4];
    }
    const fromIterable = await sent.request(lb._UpsertElementsRequestSchema, () => board.upsert(generated()));
    assert.deepEqual(fromIterable.elements.map(({ id, score }) => [id, score]), [[9, 4]]);
  });

  test('fetchByRank sends the half-open range and the order', async () => {
    const ascending = await sent.request(lb._GetByRankRequestSchema, () => board.fetchByRank(0, 10));
    assert.deepEqual([ascending.rankRange?.startInclusive, ascending.rankRange?.endExclusive, ascending.order], [0, 10, lb._Order.ASCENDING]);
    const descending = await sent.request(lb._GetByRankRequestSchema, () => board.fetchByRank(3, 4, { order: 'descending' }));
    assert.deepEqual([descending.rankRange?.startInclusive, descending.rankRange?.endExclusive, descending.order], [3, 4, lb._Order.DESCENDING]);
  });

  test('fetchByScore sends open bounds by default, 8192 elements at most, and what it is given', async () => {
    const all = await sent.request(lb._GetByScoreRequestSchema, () => board.fetchByScore());
    assert.deepEqual([all.scoreRange?.min.case, all.scoreRange?.max.case, all.offset, all.limitElements], ['unboundedMin', 'unboundedMax', 0, 8192]);
    const some = await sent.request(lb._GetByScoreRequestSchema, () =>
      board.fetchByScore({ minScore: 1.5, maxScore: 9, offset: 2, count: 3, order: 'descending' }),
    );
    assert.deepEqual(
      [some.scoreRange?.min, some.scoreRange?.max, some.offset, some.limitElements, some.order],
      [{ case: 'minInclusive', value: 1.5 }, { case: 'maxExclusive', value: 9 }, 2, 3, lb._Order.DESCENDING],
    );
  });

  test('getRank, getCompetitionRank, removeElements, length and delete send their leaderboard and ids', async () => {
    const rank = await sent.request(lb._GetRankRequestSchema, () => board.getRank([3, 1], { order: 'descending' }));
    assert.deepEqual([rank.leaderboard, rank.ids, rank.order], ['scores', [3, 1], lb._Order.DESCENDING]);
    const competition = await sent.request(lb._GetCompetitionRankRequestSchema, () => board.getCompetitionRank([3]));
    assert.deepEqual([competition.ids, competition.order], [[3], lb._Order.DESCENDING], 'descending unless asked');
    const ascending = await sent.request(lb._GetCompetitionRankRequestSchema, () => board.getCompetitionRank([3], { order: 'ascending' }));
    assert.equal(ascending.order, lb._Order.ASCENDING);
    const removed = await sent.request(lb._RemoveElementsRequestSchema, () => board.removeElements([8]));
    assert.deepEqual([removed.leaderboard, removed.ids], ['scores', [8]]);
    assert.equal((await sent.request(lb._GetLeaderboardLengthRequestSchema, () => board.length())).leaderboard, 'scores');
    assert.equal((await sent.request(lb._DeleteLeaderboardRequestSchema, () => board.delete())).leaderboard, 'scores');
    assert.equal(sent.calls.at(-1)!.path, '/leaderboard.Leaderboard/DeleteLeaderboard');
  });

  test('answers are read as plain elements and counts', async () => {
    const elements = [create(lb._RankedElementSchema, { id: 4_000_000_000, score: 1.25, rank: 0 }), create(lb._RankedElementSchema, { id: 7, score: 2, rank: 1 })];
    sent.answer = toBinary(lb._GetByRankResponseSchema, create(lb._GetByRankResponseSchema, { elements }));
    try {
      const expected = [{ id: 4_000_000_000, score: 1.25, rank: 0 }, { id: 7, score: 2, rank: 1 }];
      assert.deepEqual(await board.fetchByRank(0, 2), expected);
      assert.deepEqual(await board.fetchByScore(), expected);
      assert.deepEqual(await board.getRank([7, 4_000_000_000]), expected);
      sent.answer = toBinary(lb._GetLeaderboardLengthResponseSchema, create(lb._GetLeaderboardLengthResponseSchema, { count: 12 }));
      assert.equal(await board.length(), 12);
    } finally {
      sent.answer = new Uint8Array();
    }
    assert.deepEqual(await board.fetchByRank(0, 2), [], 'an empty answer: no elements');
    assert.equal(await board.length(), 0, 'an empty answer: a missing leaderboard');
  });

  describe('bad arguments reject with InvalidArgumentError and send nothing', () => {
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      ['no elements', () => board.upsert(new Map()), /give at least one/],
      ['elements that are no entries', () => board.upsert(null as unknown as Map<number, number>), /are a Map, a Record or an array of pairs/],
      ['a negative id', () => board.upsert([[-1, 1]]), /`id` must be an integer from 0 to 4294967295/],
      ['an id past uint32', () => board.upsert([[2 ** 32, 1]]), /`id`/],
      ['a fractional id', () => board.getRank([1.5]), /`id`/],
      ['a bigint id', () => board.removeElements([1n as unknown as number]), /`id`/],
      ['a Record key that is no id', () => board.upsert({ x: 1 } as unknown as Record<number, number>), /`id`/],
      ['a NaN score', () => board.upsert([[1, Number.NaN]]), /`score` must be a finite number/],
      ['an infinite score', () => board.upsert([[1, Infinity]]), /`score`/],
      ['ids not an array', () => board.getRank(7 as unknown as number[]), /ids are an array/],
      ['start not below end', () => board.fetchByRank(5, 5), /must be below `end`/],
      ['a negative start', () => board.fetchByRank(-1, 5), /`start`/],
      ['an unknown order', () => board.fetchByRank(0, 5, { order: 'up' as 'ascending' }), /`order` is one of 'ascending', 'descending'/],
      ['min over max', () => board.fetchByScore({ minScore: 2, maxScore: 1 }), /must not be over maxScore/],
      ['an infinite bound', () => board.fetchByScore({ maxScore: Infinity }), /`maxScore`/],
      ['count 0', () => board.fetchByScore({ count: 0 }), /`count` must be an integer from 1 to 8192/],
      ['count past 8192', () => board.fetchByScore({ count: 8193 }), /`count`/],
      ['a negative offset', () => board.fetchByScore({ offset: -1 }), /`offset`/],
    ];
    for (const [name, call, message] of cases) {
      test(name, async () => {
        const before = sent.calls.length;
        await assert.rejects(call(), (err: Error) => err instanceof InvalidArgumentError && message.test(err.message));
        assert.equal(sent.calls.length, before, 'nothing sent');
      });
    }
  });
});
