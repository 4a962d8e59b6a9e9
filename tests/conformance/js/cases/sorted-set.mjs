// Sorted sets: put, fetch by rank and by score, scores, rank, increment,
// remove, length, length by score, union store, the collection TTL, through
// the SDK's own calls and response types.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheDelete,
  CacheItemGetType,
  CacheSet,
  CacheSortedSetFetch,
  CacheSortedSetGetRank,
  CacheSortedSetGetScore,
  CacheSortedSetGetScores,
  CacheSortedSetIncrementScore,
  CacheSortedSetLength,
  CacheSortedSetLengthByScore,
  CacheSortedSetPutElement,
  CacheSortedSetPutElements,
  CacheSortedSetRemoveElement,
  CacheSortedSetRemoveElements,
  CacheSortedSetUnionStore,
  CreateCache,
  ItemType,
  MomentoErrorCode,
  SortedSetAggregate,
  SortedSetOrder,
} from '@gomomento/sdk';

import {
  VALUE_LIMIT_BYTES,
  assertIs,
  uniqueCacheName,
  writeKeptAndRefreshed,
} from '../support/suite.mjs';

// The set of the official suites' examples.
const MENU = {
  bam: 1000,
  foo: 1,
  taco: 90210,
  bar: 2,
  burrito: 9000,
  baz: 42,
  habanero: 68,
  jalapeno: 1_000_000,
};
const ASCENDING = ['foo', 'bar', 'baz', 'habanero', 'bam', 'burrito', 'taco', 'jalapeno'];

export function registerSortedSetTests(suite) {
  async function withMenu(label) {
    const name = await suite.newCache(label);
    assertIs(await suite.client.sortedSetPutElements(name, 'menu', MENU), CacheSortedSetPutElements.Success);
    return name;
  }

  async function byRank(cacheName, setName, options) {
    const hit = assertIs(await suite.client.sortedSetFetchByRank(cacheName, setName, options), CacheSortedSetFetch.Hit);
    return hit.valueArray().map(e => e.value);
  }

  async function byScore(cacheName, setName, options) {
    const hit = assertIs(await suite.client.sortedSetFetchByScore(cacheName, setName, options), CacheSortedSetFetch.Hit);
    return hit.valueArray().map(e => e.value);
  }

  describe('sorted sets', () => {
    test('fetch by rank in either order, with negative ranks', async () => {
      const name = await withMenu('zset-rank');
      const whole = assertIs(await suite.client.sortedSetFetchByRank(name, 'menu'), CacheSortedSetFetch.Hit);
      assert.deepEqual(
        whole.valueArray(),
        ASCENDING.map(value => ({ value, score: MENU[value] })),
      );
      assert.deepEqual(await byRank(name, 'menu', { startRank: 4 }), ASCENDING.slice(4));
      assert.deepEqual(await byRank(name, 'menu', { startRank: 1, endRank: 5 }), ASCENDING.slice(1, 5));
      assert.deepEqual(await byRank(name, 'menu', { startRank: -5, endRank: -2 }), ASCENDING.slice(-5, -2));
      assert.deepEqual(await byRank(name, 'menu', { startRank: 10 }), []);
      const descending = { order: SortedSetOrder.Descending, startRank: 3, endRank: 5 };
      assert.deepEqual(await byRank(name, 'menu', descending), ['bam', 'habanero']);
      assertIs(await suite.client.sortedSetFetchByRank(name, 'nope'), CacheSortedSetFetch.Miss);
    });

    test('fetch by score with offset and count', async () => {
      const name = await withMenu('zset-score');
      assert.deepEqual(await byScore(name, 'menu', { minScore: 100 }), ASCENDING.slice(4));
      assert.deepEqual(await byScore(name, 'menu', { minScore: 100, maxScore: 10_000 }), ['bam', 'burrito']);
      assert.deepEqual(await byScore(name, 'menu', { minScore: 10, offset: 2, count: 3 }), [
        'bam',
        'burrito',
        'taco',
      ]);
      const descending = { order: SortedSetOrder.Descending, minScore: 20, maxScore: 100_000, offset: 2, count: 2 };
      assert.deepEqual(await byScore(name, 'menu', descending), ['bam', 'habanero']);
      assert.deepEqual(await byScore(name, 'menu', { minScore: 2_000_000 }), []);
      assert.deepEqual(await byScore(name, 'menu', { minScore: 100, offset: 5 }), []);
      assertIs(await suite.client.sortedSetFetchByScore(name, 'nope'), CacheSortedSetFetch.Miss);
    });

    test('scores and ranks hit or miss', async () => {
      const name = await suite.newCache('zset-lookups');
      await suite.client.sortedSetPutElements(name, 's', { foo: 42, bar: 84, baz: 90210 });
      const score = assertIs(await suite.client.sortedSetGetScore(name, 's', 'bar'), CacheSortedSetGetScore.Hit);
      assert.equal(score.score(), 84);
      assertIs(await suite.client.sortedSetGetScore(name, 's', 'taco'), CacheSortedSetGetScore.Miss);
      const scores = assertIs(
        await suite.client.sortedSetGetScores(name, 's', ['bar', 'taco', 'baz']),
        CacheSortedSetGetScores.Hit,
      );
      assert.deepEqual(scores.valueRecord(), { bar: 84, baz: 90210 });
      assertIs(await suite.client.sortedSetGetScores(name, 'nope', ['bar']), CacheSortedSetGetScores.Miss);

      const rank = assertIs(await suite.client.sortedSetGetRank(name, 's', 'baz'), CacheSortedSetGetRank.Hit);
      assert.equal(rank.rank(), 2);
      const descending = assertIs(
        await suite.client.sortedSetGetRank(name, 's', 'baz', { order: SortedSetOrder.Descending }),
        CacheSortedSetGetRank.Hit,
      );
      assert.equal(descending.rank(), 0);
      assertIs(await suite.client.sortedSetGetRank(name, 's', 'taco'), CacheSortedSetGetRank.Miss);
      assertIs(await suite.client.sortedSetGetRank(name, 'nope', 'taco'), CacheSortedSetGetRank.Miss);
    });

    test('increment counts an absent value as zero', async () => {
      const name = await suite.newCache('zset-increment');
      const first = assertIs(
        await suite.client.sortedSetIncrementScore(name, 's', 'foo'),
        CacheSortedSetIncrementScore.Success,
      );
      assert.equal(first.score(), 1);
      const second = assertIs(
        await suite.client.sortedSetIncrementScore(name, 's', 'bar', 42),
        CacheSortedSetIncrementScore.Success,
      );
      assert.equal(second.score(), 42);
      const third = assertIs(
        await suite.client.sortedSetIncrementScore(name, 's', 'bar', -0.5),
        CacheSortedSetIncrementScore.Success,
      );
      assert.equal(third.score(), 41.5);
      assert.deepEqual(await byRank(name, 's'), ['foo', 'bar']);

      await suite.client.sortedSetPutElement(name, 's', 'big', Number.MAX_VALUE);
      const refused = assertIs(
        await suite.client.sortedSetIncrementScore(name, 's', 'big', Number.MAX_VALUE),
        CacheSortedSetIncrementScore.Error,
      );
      assert.equal(refused.errorCode(), MomentoErrorCode.FAILED_PRECONDITION_ERROR);
    });

    test('remove some or all, and the emptied set is gone', async () => {
      const name = await withMenu('zset-remove');
      assertIs(await suite.client.sortedSetRemoveElement(name, 'menu', 'foo'), CacheSortedSetRemoveElement.Success);
      assertIs(
        await suite.client.sortedSetRemoveElements(name, 'menu', ['bar', 'nope']),
        CacheSortedSetRemoveElements.Success,
      );
      assert.deepEqual(await byRank(name, 'menu'), ASCENDING.slice(2));
      await suite.client.sortedSetRemoveElements(name, 'menu', ASCENDING.slice(2));
      assertIs(await suite.client.sortedSetFetchByRank(name, 'menu'), CacheSortedSetFetch.Miss);
      assertIs(await suite.client.sortedSetLength(name, 'menu'), CacheSortedSetLength.Miss);
    });

    test('length and length by score', async () => {
      const name = await withMenu('zset-length');
      const length = assertIs(await suite.client.sortedSetLength(name, 'menu'), CacheSortedSetLength.Hit);
      assert.equal(length.length(), 8);
      const counted = assertIs(
        await suite.client.sortedSetLengthByScore(name, 'menu', { minScore: 2, maxScore: 68 }),
        CacheSortedSetLengthByScore.Hit,
      );
      assert.equal(counted.length(), 3);
      const all = assertIs(await suite.client.sortedSetLengthByScore(name, 'menu'), CacheSortedSetLengthByScore.Hit);
      assert.equal(all.length(), 8);
      assertIs(await suite.client.sortedSetLengthByScore(name, 'nope'), CacheSortedSetLengthByScore.Miss);
    });

    test('union store weighs and aggregates; an empty union removes the destination', async () => {
      const name = await suite.newCache('zset-union');
      await suite.client.sortedSetPutElements(name, 'a', { x: 1, y: 2 });
      await suite.client.sortedSetPutElements(name, 'b', { y: 10, z: 3 });
      const sources = [
        { sortedSetName: 'a', weight: 1 },
        { sortedSetName: 'b', weight: 2 },
        { sortedSetName: 'missing', weight: 5 },
      ];
      const summed = assertIs(
        await suite.client.sortedSetUnionStore(name, 'dest', sources),
        CacheSortedSetUnionStore.Success,
      );
      assert.equal(summed.length(), 3);
      const hit = assertIs(await suite.client.sortedSetFetchByRank(name, 'dest'), CacheSortedSetFetch.Hit);
      assert.deepEqual(hit.valueArray(), [
        { value: 'x', score: 1 },
        { value: 'z', score: 6 },
        { value: 'y', score: 22 },
      ]);
      await suite.client.sortedSetUnionStore(name, 'dest', sources, { aggregate: SortedSetAggregate.MAX });
      const max = assertIs(await suite.client.sortedSetGetScore(name, 'dest', 'y'), CacheSortedSetGetScore.Hit);
      assert.equal(max.score(), 20);
      await suite.client.sortedSetUnionStore(name, 'dest', sources, { aggregate: SortedSetAggregate.MIN });
      const min = assertIs(await suite.client.sortedSetGetScore(name, 'dest', 'y'), CacheSortedSetGetScore.Hit);
      assert.equal(min.score(), 2);

      const empty = assertIs(
        await suite.client.sortedSetUnionStore(name, 'dest', [{ sortedSetName: 'missing', weight: 1 }]),
        CacheSortedSetUnionStore.Success,
      );
      assert.equal(empty.length(), 0);
      assertIs(await suite.client.sortedSetFetchByRank(name, 'dest'), CacheSortedSetFetch.Miss);
    });

    test('a new set gets the TTL and a write refreshes it only when asked', async () => {
      const name = await suite.newCache('zset-ttl');
      await writeKeptAndRefreshed(
        (value, ttl) => suite.client.sortedSetPutElement(name, 'kept', value, 1, { ttl }),
        (value, ttl) => suite.client.sortedSetIncrementScore(name, 'refreshed', value, 1, { ttl }),
      );
      assert.deepEqual(await byRank(name, 'refreshed'), ['one', 'three', 'two']);
      assertIs(await suite.client.sortedSetFetchByRank(name, 'kept'), CacheSortedSetFetch.Miss);
    });

    test('sorted set calls on a scalar fail the precondition; item calls see a sorted set', async () => {
      const name = await suite.newCache('zset-types');
      assertIs(await suite.client.set(name, 'k', 'v'), CacheSet.Success);
      const answers = [
        await suite.client.sortedSetPutElement(name, 'k', 'x', 1),
        await suite.client.sortedSetFetchByRank(name, 'k'),
        await suite.client.sortedSetFetchByScore(name, 'k'),
        await suite.client.sortedSetGetScore(name, 'k', 'x'),
        await suite.client.sortedSetGetRank(name, 'k', 'x'),
        await suite.client.sortedSetIncrementScore(name, 'k', 'x'),
        await suite.client.sortedSetRemoveElement(name, 'k', 'x'),
        await suite.client.sortedSetLength(name, 'k'),
        await suite.client.sortedSetLengthByScore(name, 'k'),
        await suite.client.sortedSetUnionStore(name, 'k', [{ sortedSetName: 'a', weight: 1 }]),
      ];
      for (const answer of answers) {
        assert.equal(answer.errorCode?.(), MomentoErrorCode.FAILED_PRECONDITION_ERROR, `${answer}`);
      }

      assertIs(await suite.client.sortedSetPutElement(name, 'z', 'v', 1), CacheSortedSetPutElement.Success);
      const found = assertIs(await suite.client.itemGetType(name, 'z'), CacheItemGetType.Hit);
      assert.equal(found.itemType(), ItemType.SORTED_SET);
      assertIs(await suite.client.delete(name, 'z'), CacheDelete.Success);
      assertIs(await suite.client.sortedSetFetchByRank(name, 'z'), CacheSortedSetFetch.Miss);
    });

    test('a NaN score is refused', async () => {
      const name = await suite.newCache('zset-nan');
      const refused = await suite.client.sortedSetPutElement(name, 's', 'v', NaN);
      assert.equal(refused.errorCode?.(), MomentoErrorCode.INVALID_ARGUMENT_ERROR, `${refused}`);
      assertIs(await suite.client.sortedSetFetchByRank(name, 's'), CacheSortedSetFetch.Miss);
    });

    test('a value over the limit is refused whole', async () => {
      const name = uniqueCacheName('zset-limit');
      assertIs(await suite.smallLimitClient.createCache(name), CreateCache.Success);
      await suite.smallLimitClient.sortedSetPutElement(name, 's', 'kept', 1);
      const tooLarge = new Uint8Array(VALUE_LIMIT_BYTES + 1).fill(0x78);

      const refused = assertIs(
        await suite.smallLimitClient.sortedSetPutElements(name, 's', new Map([['fits', 2], [tooLarge, 3]])),
        CacheSortedSetPutElements.Error,
      );

      assert.equal(refused.errorCode(), MomentoErrorCode.LIMIT_EXCEEDED_ERROR);
      const hit = assertIs(await suite.smallLimitClient.sortedSetFetchByRank(name, 's'), CacheSortedSetFetch.Hit);
      assert.deepEqual(hit.valueArray(), [{ value: 'kept', score: 1 }]);
    });
  });
}
