// Sorted set calls against a real jiffy-server, on each transport.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, LimitExceededError, type SortedSetElement, WrongTypeError } from '../../src/index.js';
import { checkCollectionTtl, LIMITS, useServer } from '../support/collection-fixture.js';
import { TRANSPORTS } from '../support/transports.js';

/** Elements as [value, score] pairs with text values, for comparing. */
const pairs = (elements: readonly SortedSetElement[]): [string, number][] =>
  elements.map(({ value, score }) => [Buffer.from(value).toString(), score]);

// Scores with ties: ties are ordered by value bytes ('a' < 'b' < 'c').
const SCORES: [string, number][] = [
  ['low', -5.5],
  ['c', 1],
  ['a', 1],
  ['b', 1],
  ['mid', 2.25],
  ['top', 1e300],
];
const ASCENDING: [string, number][] = [
  ['low', -5.5],
  ['a', 1],
  ['b', 1],
  ['c', 1],
  ['mid', 2.25],
  ['top', 1e300],
];

for (const transport of TRANSPORTS) {
  describe(`sorted sets over ${transport}`, () => {
    const fixture = useServer(transport);
    const cache = fixture.cache;

    test('put elements; fetch by rank orders by score, ties by value bytes, either way', async () => {
      const { client } = fixture;
      await client.sortedSetPutElements(cache, 'z1', SCORES.slice(0, 3));
      await client.sortedSetPutElements(cache, 'z1', new Map(SCORES.slice(3, 5)));
      await client.sortedSetPutElement(cache, 'z1', 'top', 1e300);
      assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'z1')), ASCENDING);
      assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'z1', { order: 'descending' })), [...ASCENDING].reverse());
      assert.equal(await client.sortedSetLength(cache, 'z1'), 6);
      assert.equal(await client.getType(cache, 'z1'), 'sorted_set');
      // A value put again takes its new score; a Record works too.
      await client.sortedSetPutElements(cache, 'z1', { low: 3 });
      assert.equal(await client.sortedSetGetScore(cache, 'z1', 'low'), 3);
      await client.sortedSetPutElement(cache, 'z1', 'low', -5.5);
    });

    test('fetch by rank: slices as listFetch, in the order asked', async () => {
      const { client } = fixture;
      const cases: [number | undefined, number | undefined][] = [
        [0, 2], [1, undefined], [undefined, -2], [-3, -1], [-3, undefined], [2, 100], [-100, 2], [4, 4], [-2, 2],
        [4, 1], [0, 0], [-1, -3], [-2, -2], [3, -3], [-9, 9],
      ];
      for (const [start, end] of cases) {
        const n = ASCENDING.length;
        const clip = (index: number): number => Math.min(Math.max(index < 0 ? index + n : index, 0), n);
        const from = start === undefined ? 0 : clip(start);
        const to = end === undefined ? n : clip(end);
        const expected = ASCENDING.slice(from, Math.max(from, to));
        assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'z1', { start, end })), expected, `[${start}:${end}]`);
        const descending = [...ASCENDING].reverse().slice(from, Math.max(from, to));
        assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'z1', { start, end, order: 'descending' })), descending);
      }
    });

    test('fetch by score: inclusive and exclusive bounds, infinities, offset and count', async () => {
      const { client } = fixture;
      const byScore = async (range: Parameters<typeof client.sortedSetFetchByScore>[2]) =>
        pairs(await client.sortedSetFetchByScore(cache, 'z1', range));
      assert.deepEqual(await byScore({}), ASCENDING);
      assert.deepEqual(await byScore({ minScore: 1, maxScore: 2.25 }), ASCENDING.slice(1, 5));
      assert.deepEqual(await byScore({ minScore: 1, maxScore: 2.25, exclusiveMin: true }), [['mid', 2.25]]);
      assert.deepEqual(await byScore({ minScore: 1, maxScore: 2.25, exclusiveMax: true }), ASCENDING.slice(1, 4));
      assert.deepEqual(await byScore({ minScore: -Infinity, maxScore: 0 }), [['low', -5.5]]);
      assert.deepEqual(await byScore({ minScore: 2, maxScore: Infinity }), ASCENDING.slice(4));
      assert.deepEqual(await byScore({ minScore: 1, order: 'descending' }), ASCENDING.slice(1).reverse());
      assert.deepEqual(await byScore({ offset: 1, count: 2 }), ASCENDING.slice(1, 3));
      assert.deepEqual(await byScore({ minScore: 1, order: 'descending', offset: 1, count: 2 }), [['mid', 2.25], ['c', 1]]);
      assert.deepEqual(await byScore({ offset: 100 }), []);
      assert.deepEqual(await byScore({ minScore: 50, maxScore: 60 }), []);
    });

    test('scores and ranks; absent ones are undefined', async () => {
      const { client } = fixture;
      assert.equal(await client.sortedSetGetScore(cache, 'z1', 'mid'), 2.25);
      assert.equal(await client.sortedSetGetScore(cache, 'z1', 'absent'), undefined);
      assert.deepEqual(await client.sortedSetGetScores(cache, 'z1', ['top', 'absent', 'low']), [1e300, undefined, -5.5]);
      assert.equal(await client.sortedSetGetRank(cache, 'z1', 'low'), 0);
      assert.equal(await client.sortedSetGetRank(cache, 'z1', 'b'), 2);
      assert.equal(await client.sortedSetGetRank(cache, 'z1', 'b', { order: 'descending' }), 3);
      assert.equal(await client.sortedSetGetRank(cache, 'z1', 'top', { order: 'descending' }), 0);
      assert.equal(await client.sortedSetGetRank(cache, 'z1', 'absent'), undefined);
    });

    test('lengths: all, and by score with each kind of bound', async () => {
      const { client } = fixture;
      assert.equal(await client.sortedSetLengthByScore(cache, 'z1'), 6);
      assert.equal(await client.sortedSetLengthByScore(cache, 'z1', { minScore: 1, maxScore: 1 }), 3);
      assert.equal(await client.sortedSetLengthByScore(cache, 'z1', { minScore: 1, maxScore: 2.25, exclusiveMin: true }), 1);
      assert.equal(await client.sortedSetLengthByScore(cache, 'z1', { maxScore: 2.25, exclusiveMax: true }), 4);
      assert.equal(await client.sortedSetLengthByScore(cache, 'z1', { minScore: 100 }), 1);
    });

    test('increment score: creates at the amount, adds, negative and fractional', async () => {
      const { client } = fixture;
      assert.equal(await client.sortedSetIncrementScore(cache, 'inc', 'v'), 1);
      assert.equal(await client.sortedSetIncrementScore(cache, 'inc', 'v', 2.5), 3.5);
      assert.equal(await client.sortedSetIncrementScore(cache, 'inc', 'v', -10), -6.5);
      assert.equal(await client.sortedSetGetScore(cache, 'inc', 'v'), -6.5);
      await client.sortedSetPutElement(cache, 'inc', 'huge', 1.7e308);
      await assert.rejects(client.sortedSetIncrementScore(cache, 'inc', 'huge', 1.7e308), WrongTypeError);
    });

    test('remove elements; removing the last one removes the set', async () => {
      const { client } = fixture;
      await client.sortedSetPutElements(cache, 'rm', [['a', 1], ['b', 2]]);
      await client.sortedSetRemoveElements(cache, 'rm', ['a', 'absent']);
      assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'rm')), [['b', 2]]);
      await client.sortedSetRemoveElements(cache, 'rm', ['b']);
      assert.equal(await client.getType(cache, 'rm'), undefined);
    });

    test('a missing sorted set reads as empty', async () => {
      const { client } = fixture;
      assert.deepEqual(await client.sortedSetFetchByRank(cache, 'nope'), []);
      assert.deepEqual(await client.sortedSetFetchByScore(cache, 'nope', { minScore: 0 }), []);
      assert.equal(await client.sortedSetGetScore(cache, 'nope', 'a'), undefined);
      assert.deepEqual(await client.sortedSetGetScores(cache, 'nope', ['a', 'b']), [undefined, undefined]);
      assert.equal(await client.sortedSetGetRank(cache, 'nope', 'a'), undefined);
      assert.equal(await client.sortedSetLength(cache, 'nope'), 0);
      assert.equal(await client.sortedSetLengthByScore(cache, 'nope', { minScore: 0 }), 0);
      await client.sortedSetRemoveElements(cache, 'nope', ['a']);
    });

    test('union store: weights, sum / min / max, missing sources, an empty union removes the destination', async () => {
      const { client } = fixture;
      await client.sortedSetPutElements(cache, 'u-a', [['x', 1], ['y', 2]]);
      await client.sortedSetPutElements(cache, 'u-b', [['y', 10], ['z', 3]]);
      const sources = { 'u-a': 2, 'u-b': -1, 'u-missing': 5 };
      assert.equal(await client.sortedSetUnionStore(cache, 'u-dest', sources), 3);
      assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'u-dest')), [['y', -6], ['z', -3], ['x', 2]]);
      assert.equal(await client.sortedSetUnionStore(cache, 'u-dest', sources, { aggregate: 'min' }), 3);
      assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'u-dest')), [['y', -10], ['z', -3], ['x', 2]]);
      assert.equal(await client.sortedSetUnionStore(cache, 'u-dest', new Map([['u-a', 1], ['u-b', 1]]), { aggregate: 'max' }), 3);
      assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'u-dest')), [['x', 1], ['z', 3], ['y', 10]]);
      // The destination is replaced, not merged, and is a source only if listed.
      assert.equal(await client.sortedSetUnionStore(cache, 'u-dest', { 'u-b': 1 }), 2);
      assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'u-dest')), [['z', 3], ['y', 10]]);
      assert.equal(await client.sortedSetUnionStore(cache, 'u-dest', { 'u-dest': 1, 'u-a': 1 }), 3);
      assert.deepEqual(pairs(await client.sortedSetFetchByRank(cache, 'u-dest')), [['x', 1], ['z', 3], ['y', 12]]);
      // The destination takes the call's TTL.
      await client.sortedSetUnionStore(cache, 'u-dest', { 'u-a': 1 }, { ttlMs: 5_000 });
      const left = await client.getTtl(cache, 'u-dest');
      assert.ok(left !== undefined && left <= 5_000, `ttl ${left}`);
      assert.equal(await client.sortedSetUnionStore(cache, 'u-dest', { 'u-missing': 1 }), 0);
      assert.equal(await client.getType(cache, 'u-dest'), undefined);
    });

    test('collection TTL: put and increment take ttlMs; refreshTtl false keeps the TTL, true resets it', async () => {
      const { client } = fixture;
      await checkCollectionTtl(
        fixture,
        'ttl-put',
        (options) => client.sortedSetPutElement(cache, 'ttl-put', 'a', 1, options),
        (options) => client.sortedSetPutElements(cache, 'ttl-put', [['b', 2]], options),
      );
      await checkCollectionTtl(
        fixture,
        'ttl-incr',
        (options) => client.sortedSetIncrementScore(cache, 'ttl-incr', 'a', 1, options),
        (options) => client.sortedSetIncrementScore(cache, 'ttl-incr', 'a', 1, options),
      );
      await client.sortedSetPutElement(cache, 'ttl-expire', 'a', 1, { ttlMs: 150 });
      await sleep(400);
      assert.equal(await client.sortedSetLength(cache, 'ttl-expire'), 0);
    });

    test('a sorted set call on an item of another type rejects with WrongTypeError', async () => {
      const { client } = fixture;
      await client.set(cache, 'scalar', 'x');
      await client.setAddElements(cache, 'a-set', ['x']);
      const calls = [
        () => client.sortedSetPutElement(cache, 'scalar', 'v', 1),
        () => client.sortedSetPutElements(cache, 'a-set', [['v', 1]]),
        () => client.sortedSetFetchByRank(cache, 'scalar'),
        () => client.sortedSetFetchByScore(cache, 'a-set'),
        () => client.sortedSetGetScore(cache, 'scalar', 'v'),
        () => client.sortedSetGetScores(cache, 'a-set', ['v']),
        () => client.sortedSetGetRank(cache, 'scalar', 'v'),
        () => client.sortedSetIncrementScore(cache, 'a-set', 'v'),
        () => client.sortedSetRemoveElements(cache, 'scalar', ['v']),
        () => client.sortedSetLength(cache, 'a-set'),
        () => client.sortedSetLengthByScore(cache, 'scalar'),
        () => client.sortedSetUnionStore(cache, 'scalar', { 'z1': 1 }),
        () => client.sortedSetUnionStore(cache, 'union-out', { 'a-set': 1 }),
      ];
      for (const call of calls) await assert.rejects(call(), WrongTypeError);
    });

    test('limits: value size, elements per call, elements per set', async () => {
      const { client } = fixture;
      await assert.rejects(client.sortedSetPutElement(cache, 'big', 'x'.repeat(LIMITS.valueBytes + 1), 1), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'element_size_limit_exceeded');
        return true;
      });
      const tooMany = Array.from({ length: LIMITS.requestItems + 1 }, (_u, i) => [`v${i}`, i] as [string, number]);
      await assert.rejects(client.sortedSetPutElements(cache, 'big', tooMany), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'request_size_limit_exceeded');
        return true;
      });
      for (let start = 0; start < LIMITS.collectionElements; start += 10) {
        await client.sortedSetPutElements(cache, 'big', Array.from({ length: 10 }, (_u, i) => [`v${start + i}`, i] as [string, number]));
      }
      await assert.rejects(client.sortedSetPutElement(cache, 'big', 'one more', 0), LimitExceededError);
      assert.equal(await client.sortedSetLength(cache, 'big'), LIMITS.collectionElements);
    });

    test('bad arguments reject before the call', async () => {
      const { client } = fixture;
      await assert.rejects(client.sortedSetPutElement(cache, 'z1', 'v', Number.NaN), InvalidArgumentError);
      await assert.rejects(client.sortedSetFetchByScore(cache, 'z1', { minScore: 3, maxScore: 1 }), InvalidArgumentError);
    });
  });
}
