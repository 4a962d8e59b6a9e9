// List calls against a real jiffy-server, on each transport. listFetch and
// listRetain are checked against a model of Python's slicing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, LimitExceededError, WrongTypeError } from '../../src/index.js';
import { checkCollectionTtl, LIMITS, text, texts, useServer } from '../support/collection-fixture.js';
import { TRANSPORTS } from '../support/transports.js';

/** Python's `values[start:end]` for a step of 1, written from its definition. */
function pythonSlice<T>(values: readonly T[], start: number | undefined, end: number | undefined): T[] {
  const n = values.length;
  const clip = (index: number): number => Math.min(Math.max(index < 0 ? index + n : index, 0), n);
  const from = start === undefined ? 0 : clip(start);
  const to = end === undefined ? n : clip(end);
  return values.slice(from, Math.max(from, to));
}

const SLICE_INDICES = [undefined, -9, -6, -5, -3, -1, 0, 1, 2, 4, 5, 6, 9];

for (const transport of TRANSPORTS) {
  describe(`lists over ${transport}`, () => {
    const fixture = useServer(transport);
    const cache = fixture.cache;

    test('push and concatenate at both ends resolve to the new length and keep order', async () => {
      const { client } = fixture;
      assert.equal(await client.listPushBack(cache, 'l1', 'b'), 1);
      assert.equal(await client.listPushFront(cache, 'l1', 'a'), 2);
      assert.equal(await client.listConcatenateBack(cache, 'l1', ['c', 'd']), 4);
      assert.equal(await client.listConcatenateFront(cache, 'l1', ['y', 'z']), 6);
      assert.equal(await client.listPushBack(cache, 'l1', Uint8Array.of()), 7);
      assert.deepEqual(texts(await client.listFetch(cache, 'l1')), ['y', 'z', 'a', 'b', 'c', 'd', '']);
      assert.equal(await client.listLength(cache, 'l1'), 7);
      assert.equal(await client.getType(cache, 'l1'), 'list');
    });

    test('truncation drops values from the other end in the same step', async () => {
      const { client } = fixture;
      await client.listConcatenateBack(cache, 'l2', ['1', '2', '3']);
      assert.equal(await client.listPushBack(cache, 'l2', '4', { truncateFrontToSize: 3 }), 3);
      assert.deepEqual(texts(await client.listFetch(cache, 'l2')), ['2', '3', '4']);
      assert.equal(await client.listPushFront(cache, 'l2', '0', { truncateBackToSize: 2 }), 2);
      assert.deepEqual(texts(await client.listFetch(cache, 'l2')), ['0', '2']);
      assert.equal(await client.listConcatenateBack(cache, 'l2', ['a', 'b', 'c'], { truncateFrontToSize: 4 }), 4);
      assert.deepEqual(texts(await client.listFetch(cache, 'l2')), ['2', 'a', 'b', 'c']);
      assert.equal(await client.listConcatenateFront(cache, 'l2', ['x', 'y'], { truncateBackToSize: 3 }), 3);
      assert.deepEqual(texts(await client.listFetch(cache, 'l2')), ['x', 'y', '2']);
    });

    test('listFetch takes slices as Python does, over every pair of indices', async () => {
      const { client } = fixture;
      const values = ['v0', 'v1', 'v2', 'v3', 'v4'];
      await client.listConcatenateBack(cache, 'slices', values);
      for (const start of SLICE_INDICES) {
        for (const end of SLICE_INDICES) {
          const slice = { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
          assert.deepEqual(texts(await client.listFetch(cache, 'slices', slice)), pythonSlice(values, start, end), `[${start}:${end}]`);
        }
      }
    });

    test('listRetain keeps the slice Python would take; an empty one removes the list', async () => {
      const { client } = fixture;
      const values = ['v0', 'v1', 'v2', 'v3', 'v4', 'v5'];
      for (const [start, end] of [[1, -1], [undefined, 2], [-2, undefined], [3, 100], [-100, 2]] as const) {
        await client.delete(cache, 'retain');
        await client.listConcatenateBack(cache, 'retain', values);
        const expected = pythonSlice(values, start, end);
        assert.equal(await client.listRetain(cache, 'retain', { start, end }), expected.length, `[${start}:${end}]`);
        assert.deepEqual(texts(await client.listFetch(cache, 'retain')), expected, `[${start}:${end}]`);
      }
      assert.equal(await client.listRetain(cache, 'retain', { start: 4, end: 1 }), 0);
      assert.equal(await client.getType(cache, 'retain'), undefined);
    });

    test('pops take from either end; popping the last value removes the list', async () => {
      const { client } = fixture;
      await client.listConcatenateBack(cache, 'pops', ['a', 'b', 'c']);
      assert.equal(text(await client.listPopFront(cache, 'pops')), 'a');
      assert.equal(text(await client.listPopBack(cache, 'pops')), 'c');
      assert.equal(text(await client.listPopBack(cache, 'pops')), 'b');
      assert.equal(await client.listPopFront(cache, 'pops'), undefined);
      assert.equal(await client.listPopBack(cache, 'pops'), undefined);
      assert.equal(await client.getType(cache, 'pops'), undefined);
    });

    test('listRemoveValue removes every copy and resolves to the length left', async () => {
      const { client } = fixture;
      await client.listConcatenateBack(cache, 'rm', ['x', 'a', 'x', 'b', 'x']);
      assert.equal(await client.listRemoveValue(cache, 'rm', 'x'), 2);
      assert.deepEqual(texts(await client.listFetch(cache, 'rm')), ['a', 'b']);
      assert.equal(await client.listRemoveValue(cache, 'rm', 'absent'), 2);
    });

    test("listErase removes the slice Python's del would, over every pair of indices >= 0", async () => {
      const { client } = fixture;
      const values = ['v0', 'v1', 'v2', 'v3', 'v4'];
      const indices = [undefined, 0, 1, 2, 4, 5, 6, 9];
      for (const start of indices) {
        for (const end of indices) {
          await client.delete(cache, 'erase');
          await client.listConcatenateBack(cache, 'erase', values);
          // del values[start:end] keeps what lies before start and from end on.
          const erased = pythonSlice(values, start, end);
          const from = start === undefined ? 0 : Math.min(start, values.length);
          const expected = [...values.slice(0, from), ...values.slice(from + erased.length)];
          const slice = { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
          // An empty slice sends no ListErase but still resolves to the length.
          assert.equal(await client.listErase(cache, 'erase', slice), expected.length, `[${start}:${end}]`);
          assert.deepEqual(texts(await client.listFetch(cache, 'erase')), expected, `[${start}:${end}]`);
        }
      }
      assert.equal(await client.listErase(cache, 'erase', { start: 0 }), 0);
      assert.equal(await client.getType(cache, 'erase'), undefined);
      await client.listConcatenateBack(cache, 'erase', values);
      assert.equal(await client.listErase(cache, 'erase'), 0);
      assert.equal(await client.getType(cache, 'erase'), undefined);
    });

    test('a missing list reads as empty', async () => {
      const { client } = fixture;
      assert.deepEqual(await client.listFetch(cache, 'nope'), []);
      assert.deepEqual(await client.listFetch(cache, 'nope', { start: 1, end: 3 }), []);
      assert.equal(await client.listLength(cache, 'nope'), 0);
      assert.equal(await client.listPopFront(cache, 'nope'), undefined);
      assert.equal(await client.listRemoveValue(cache, 'nope', 'x'), 0);
      assert.equal(await client.listRetain(cache, 'nope', { start: 1 }), 0);
      assert.equal(await client.listErase(cache, 'nope'), 0);
      assert.equal(await client.listErase(cache, 'nope', { start: 1, end: 3 }), 0);
      assert.equal(await client.listErase(cache, 'nope', { start: 3, end: 1 }), 0);
      assert.equal(await client.getType(cache, 'nope'), undefined);
    });

    test('collection TTL: pushes, concatenations and retain; refreshTtl false keeps the TTL', async () => {
      const { client } = fixture;
      await checkCollectionTtl(
        fixture,
        'ttl-push',
        (options) => client.listPushBack(cache, 'ttl-push', 'a', options),
        (options) => client.listPushFront(cache, 'ttl-push', 'b', options),
      );
      await checkCollectionTtl(
        fixture,
        'ttl-concat',
        (options) => client.listConcatenateFront(cache, 'ttl-concat', ['a', 'b', 'c', 'd'], options),
        (options) => client.listConcatenateBack(cache, 'ttl-concat', ['e'], options),
      );
      await checkCollectionTtl(
        fixture,
        'ttl-retain',
        (options) => client.listConcatenateBack(cache, 'ttl-retain', ['a', 'b', 'c', 'd'], options),
        (options) => client.listRetain(cache, 'ttl-retain', { start: 0, ...options }),
      );
      await client.listPushBack(cache, 'ttl-expire', 'a', { ttlMs: 150 });
      await sleep(400);
      assert.deepEqual(await client.listFetch(cache, 'ttl-expire'), []);
    });

    test('a list call on an item of another type rejects with WrongTypeError', async () => {
      const { client } = fixture;
      await client.set(cache, 'scalar', 'x');
      await client.setAddElements(cache, 'a-set', ['x']);
      const calls = [
        () => client.listPushFront(cache, 'scalar', 'v'),
        () => client.listPushBack(cache, 'a-set', 'v'),
        () => client.listConcatenateFront(cache, 'scalar', ['v']),
        () => client.listConcatenateBack(cache, 'a-set', ['v']),
        () => client.listFetch(cache, 'scalar'),
        () => client.listPopFront(cache, 'a-set'),
        () => client.listPopBack(cache, 'scalar'),
        () => client.listRemoveValue(cache, 'a-set', 'v'),
        () => client.listRetain(cache, 'scalar', { start: 1 }),
        () => client.listErase(cache, 'a-set'),
        () => client.listLength(cache, 'scalar'),
      ];
      for (const call of calls) await assert.rejects(call(), WrongTypeError);
    });

    test('limits: value size, values per call, values per list', async () => {
      const { client } = fixture;
      await assert.rejects(client.listPushBack(cache, 'big', 'x'.repeat(LIMITS.valueBytes + 1)), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'element_size_limit_exceeded');
        return true;
      });
      const tooMany = Array.from({ length: LIMITS.requestItems + 1 }, (_u, i) => `v${i}`);
      await assert.rejects(client.listConcatenateBack(cache, 'big', tooMany), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'request_size_limit_exceeded');
        return true;
      });
      const ten = Array.from({ length: 10 }, (_u, i) => `v${i}`);
      for (let i = 0; i < LIMITS.collectionElements / 10; i += 1) await client.listConcatenateBack(cache, 'big', ten);
      await assert.rejects(client.listPushBack(cache, 'big', 'one more'), LimitExceededError);
      // Truncation counts: a push that leaves the list at the limit is allowed.
      assert.equal(await client.listPushBack(cache, 'big', 'one more', { truncateFrontToSize: LIMITS.collectionElements }), LIMITS.collectionElements);
    });

    test('bad arguments reject before the call', async () => {
      const { client } = fixture;
      await assert.rejects(client.listConcatenateBack(cache, 'l1', []), InvalidArgumentError);
      await assert.rejects(client.listFetch(cache, 'l1', { start: 1.5 }), InvalidArgumentError);
    });
  });
}
