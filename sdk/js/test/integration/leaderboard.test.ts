// Leaderboard calls against a real jiffy-server, on each gRPC transport; and
// on a client whose get and set go over protosocket, still over gRPC.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CacheClient, CacheNotFoundError, InvalidArgumentError, type LeaderboardElement } from '../../src/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const ids = (elements: readonly LeaderboardElement[]): number[] => elements.map(({ id }) => id);

describe('leaderboards', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer([], { protosocket: true });
  });
  after(async () => {
    await server?.stop();
  });

  for (const transport of TRANSPORTS) {
    describe(`over ${transport}`, () => {
      let client: CacheClient;
      const cache = `lb-${transport}`;
      before(async () => {
        client = await CacheClient.create({ endpoint: server.endpoint, transport, protosocketEndpoint: null });
        await client.createCache(cache);
      });
      after(() => client?.close());

      test('upsert, fetch by rank and score, ranks, length, remove and delete', async () => {
        const board = client.leaderboard(cache, 'board');
        await board.upsert({ 1: 10, 2: 20, 3: 30 });
        assert.equal(await board.length(), 3);
        assert.deepEqual(await board.fetchByRank(0, 2), [
          { id: 1, score: 10, rank: 0 },
          { id: 2, score: 20, rank: 1 },
        ]);
        assert.deepEqual(await board.fetchByRank(0, 2, { order: 'descending' }), [
          { id: 3, score: 30, rank: 0 },
          { id: 2, score: 20, rank: 1 },
        ]);
        assert.deepEqual(await board.fetchByScore({ minScore: 15, maxScore: 30 }), [{ id: 2, score: 20, rank: 1 }]);
        assert.deepEqual(await board.getRank([3, 99]), [{ id: 3, score: 30, rank: 2 }]);
        assert.deepEqual(await board.getCompetitionRank([3]), [{ id: 3, score: 30, rank: 0 }]);
        await board.removeElements([1, 99]);
        assert.equal(await board.length(), 2);
        await board.delete();
        assert.equal(await board.length(), 0);
      });

      test('a missing leaderboard reads as empty', async () => {
        const board = client.leaderboard(cache, 'none');
        assert.equal(await board.length(), 0);
        assert.deepEqual(await board.fetchByRank(0, 10), []);
        assert.deepEqual(await board.fetchByScore(), []);
        assert.deepEqual(await board.getRank([1]), []);
        await board.removeElements([1]);
        await board.delete();
      });

      test('ties are ordered by id; scores are paged by offset and count; the last score given wins', async () => {
        const board = client.leaderboard(cache, 'ties');
        await board.upsert([
          [30, 5],
          [10, 5],
          [20, 5],
          [1, -2.5],
          [99, 100],
        ]);
        await board.upsert([
          [1, 0.5],
          [1, 1],
        ]);
        assert.deepEqual(await board.fetchByRank(0, 8192), [
          { id: 1, score: 1, rank: 0 },
          { id: 10, score: 5, rank: 1 },
          { id: 20, score: 5, rank: 2 },
          { id: 30, score: 5, rank: 3 },
          { id: 99, score: 100, rank: 4 },
        ]);
        assert.deepEqual(ids(await board.fetchByScore({ minScore: 1, maxScore: 100 })), [1, 10, 20, 30]);
        assert.deepEqual(ids(await board.fetchByScore({ minScore: 1, maxScore: 100, offset: 1, count: 2 })), [10, 20]);
        const shared = await board.getCompetitionRank([10, 20, 30, 1]);
        assert.deepEqual(
          shared.map(({ id, rank }) => [id, rank]),
          [
            [10, 1],
            [20, 1],
            [30, 1],
            [1, 4],
          ],
        );
      });

      test('ids span uint32, each exact as a number', async () => {
        const board = client.leaderboard(cache, 'ids');
        await board.upsert(new Map([[0, 1], [2 ** 32 - 1, 2]]));
        assert.deepEqual(ids(await board.fetchByRank(0, 2)), [0, 2 ** 32 - 1]);
      });

      test("the server's refusals reject, and a refused upsert changes nothing", async () => {
        const board = client.leaderboard(cache, 'refused');
        await assert.rejects(board.fetchByRank(0, 8193), InvalidArgumentError);
        const tooMany = new Map(Array.from({ length: 8193 }, (_, id) => [id, 1] as const));
        await assert.rejects(board.upsert(tooMany), InvalidArgumentError);
        assert.equal(await board.length(), 0);
        await assert.rejects(client.leaderboard('no-such-cache', 'board').length(), CacheNotFoundError);
      });
    });
  }

  test('a client whose get and set go over protosocket sends leaderboards over gRPC', async () => {
    const client = await CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: server.protosocketEndpoint });
    try {
      assert.equal(client.transport, 'protosocket');
      await client.createCache('lb-ps');
      const board = client.leaderboard('lb-ps', 'board');
      await board.upsert({ 7: 1.5 });
      assert.deepEqual(await board.getRank([7]), [{ id: 7, score: 1.5, rank: 0 }]);
      const served = (await server.metrics()).split('\n').filter((line) => line.startsWith('jiffy_requests_total{') && line.includes('rpc="UpsertElements"'));
      assert.ok(served.length > 0 && served.every((line) => line.includes('transport="grpc"')), served.join('\n'));
    } finally {
      client.close();
    }
  });
});
