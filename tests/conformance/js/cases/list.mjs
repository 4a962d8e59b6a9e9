// Lists: push, concatenate, pop, fetch (with slices), length, removeValue,
// retain, the collection TTL and truncation, through the SDK's own calls.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheDelete,
  CacheItemGetType,
  CacheListConcatenateBack,
  CacheListConcatenateFront,
  CacheListFetch,
  CacheListLength,
  CacheListPopBack,
  CacheListPopFront,
  CacheListPushBack,
  CacheListPushFront,
  CacheListRemoveValue,
  CacheListRetain,
  CacheSet,
  CollectionTtl,
  CreateCache,
  ItemType,
  MomentoErrorCode,
} from '@gomomento/sdk';

import {
  VALUE_LIMIT_BYTES,
  assertIs,
  sleep,
  uniqueCacheName,
  writeKeptAndRefreshed,
} from '../support/suite.mjs';

const TEN = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

export function registerListTests(suite) {
  async function fetched(cacheName, listName, options) {
    const hit = assertIs(await suite.client.listFetch(cacheName, listName, options), CacheListFetch.Hit);
    return hit.valueListString();
  }

  async function cacheWithTen(label) {
    const name = await suite.newCache(label);
    assertIs(await suite.client.listConcatenateBack(name, 'l', TEN), CacheListConcatenateBack.Success);
    return name;
  }

  describe('lists', () => {
    test('pushes answer the new length and keep order', async () => {
      const name = await suite.newCache('list-push');
      for (const [i, value] of ['b', 'c'].entries()) {
        const pushed = assertIs(await suite.client.listPushBack(name, 'l', value), CacheListPushBack.Success);
        assert.equal(pushed.listLength(), i + 1);
      }
      const front = assertIs(await suite.client.listPushFront(name, 'l', 'a'), CacheListPushFront.Success);
      assert.equal(front.listLength(), 3);
      assert.deepEqual(await fetched(name, 'l'), ['a', 'b', 'c']);
    });

    test('values are bytes and may be empty', async () => {
      const name = await suite.newCache('list-bytes');
      const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);
      await suite.client.listPushBack(name, 'l', allBytes);
      await suite.client.listPushBack(name, 'l', new Uint8Array(0));
      const hit = assertIs(await suite.client.listFetch(name, 'l'), CacheListFetch.Hit);
      assert.deepEqual(hit.valueListUint8Array(), [allBytes, new Uint8Array(0)]);
    });

    test('concatenations keep the order of their values', async () => {
      const name = await suite.newCache('list-concat');
      const back = assertIs(
        await suite.client.listConcatenateBack(name, 'l', ['1', '2', '3', '4']),
        CacheListConcatenateBack.Success,
      );
      assert.equal(back.listLength(), 4);
      const front = assertIs(
        await suite.client.listConcatenateFront(name, 'l', ['this', 'that']),
        CacheListConcatenateFront.Success,
      );
      assert.equal(front.listLength(), 6);
      assert.deepEqual(await fetched(name, 'l'), ['this', 'that', '1', '2', '3', '4']);
    });

    test('pushes truncate the other end after the write', async () => {
      const name = await suite.newCache('list-truncate');
      for (const value of ['one', 'two', 'three']) {
        await suite.client.listPushBack(name, 'back', value, { truncateFrontToSize: 2 });
        await suite.client.listPushFront(name, 'front', value, { truncateBackToSize: 2 });
      }
      assert.deepEqual(await fetched(name, 'back'), ['two', 'three']);
      assert.deepEqual(await fetched(name, 'front'), ['three', 'two']);

      await suite.client.listConcatenateBack(name, 'concat', ['one', 'two', 'three']);
      const capped = assertIs(
        await suite.client.listConcatenateBack(name, 'concat', ['four', 'five', 'six'], {
          truncateFrontToSize: 4,
        }),
        CacheListConcatenateBack.Success,
      );
      assert.equal(capped.listLength(), 4);
      assert.deepEqual(await fetched(name, 'concat'), ['three', 'four', 'five', 'six']);
    });

    test('pops take from each end and miss once the list is gone', async () => {
      const name = await suite.newCache('list-pop');
      await suite.client.listConcatenateFront(name, 'l', ['lol', 'two', 'three']);
      const front = assertIs(await suite.client.listPopFront(name, 'l'), CacheListPopFront.Hit);
      assert.equal(front.valueString(), 'lol');
      assert.deepEqual(front.valueUint8Array(), Uint8Array.of(108, 111, 108));
      assert.equal(assertIs(await suite.client.listPopBack(name, 'l'), CacheListPopBack.Hit).value(), 'three');
      assertIs(await suite.client.listPopBack(name, 'l'), CacheListPopBack.Hit);
      assertIs(await suite.client.listPopFront(name, 'l'), CacheListPopFront.Miss);
      assertIs(await suite.client.listPopBack(name, 'l'), CacheListPopBack.Miss);
      assertIs(await suite.client.listFetch(name, 'l'), CacheListFetch.Miss);
    });

    test('length hits and misses', async () => {
      const name = await suite.newCache('list-length');
      assertIs(await suite.client.listLength(name, 'l'), CacheListLength.Miss);
      await suite.client.listConcatenateFront(name, 'l', ['one', 'two', 'three']);
      assert.equal(assertIs(await suite.client.listLength(name, 'l'), CacheListLength.Hit).length(), 3);
    });

    test('fetch slices: start inclusive, end exclusive, negative from the end', async () => {
      const name = await cacheWithTen('list-slices');
      assert.deepEqual(await fetched(name, 'l', { startIndex: 2, endIndex: 4 }), ['2', '3']);
      assert.deepEqual(await fetched(name, 'l', { startIndex: 7 }), ['7', '8', '9']);
      assert.deepEqual(await fetched(name, 'l', { endIndex: 2 }), ['0', '1']);
      assert.deepEqual(await fetched(name, 'l', { startIndex: -2 }), ['8', '9']);
      assert.deepEqual(await fetched(name, 'l', { startIndex: -7, endIndex: -5 }), ['3', '4']);
      assert.deepEqual(await fetched(name, 'l', { startIndex: 2, endIndex: -6 }), ['2', '3']);
      // Past either end: clipped.
      assert.deepEqual(await fetched(name, 'l', { startIndex: 8, endIndex: 100 }), ['8', '9']);
      assert.deepEqual(await fetched(name, 'l', { startIndex: -100, endIndex: 1 }), ['0']);
    });

    test('a slice that selects nothing misses', async () => {
      const name = await cacheWithTen('list-empty-slice');
      // Inverted, or past the end: the SDK sends these, and the server selects nothing.
      assertIs(await suite.client.listFetch(name, 'l', { startIndex: 5, endIndex: 2 }), CacheListFetch.Miss);
      assertIs(await suite.client.listFetch(name, 'l', { startIndex: 10 }), CacheListFetch.Miss);
      assertIs(await suite.client.listFetch(name, 'l', { startIndex: -2, endIndex: -6 }), CacheListFetch.Miss);
    });

    test('the SDK refuses an inverted slice it can check itself', async () => {
      const name = await cacheWithTen('list-sdk-check');
      const refused = assertIs(
        await suite.client.listFetch(name, 'l', { startIndex: 0, endIndex: 0 }),
        CacheListFetch.Error,
      );
      assert.equal(refused.errorCode(), MomentoErrorCode.INVALID_ARGUMENT_ERROR);
    });

    test('removeValue removes every occurrence', async () => {
      const name = await suite.newCache('list-remove');
      await suite.client.listConcatenateFront(name, 'l', ['number 9', 'turn me on', 'number 9', 'dead man', 'number 9']);
      assertIs(await suite.client.listRemoveValue(name, 'l', 'number 9'), CacheListRemoveValue.Success);
      assert.deepEqual(await fetched(name, 'l'), ['turn me on', 'dead man']);
      assertIs(await suite.client.listRemoveValue(name, 'none', 'x'), CacheListRemoveValue.Success);
      assertIs(await suite.client.listFetch(name, 'none'), CacheListFetch.Miss);
    });

    test('retain keeps a slice; retaining nothing removes the list', async () => {
      const name = await cacheWithTen('list-retain');
      assertIs(await suite.client.listRetain(name, 'l', { startIndex: 1, endIndex: 8 }), CacheListRetain.Success);
      assertIs(await suite.client.listRetain(name, 'l', { startIndex: -3 }), CacheListRetain.Success);
      assert.deepEqual(await fetched(name, 'l'), ['5', '6', '7']);

      assertIs(await suite.client.listRetain(name, 'l', { startIndex: 5, endIndex: 9 }), CacheListRetain.Success);
      assertIs(await suite.client.listLength(name, 'l'), CacheListLength.Miss);
      // On a list that does not exist: success, and nothing is created.
      assertIs(await suite.client.listRetain(name, 'none'), CacheListRetain.Success);
      assertIs(await suite.client.listFetch(name, 'none'), CacheListFetch.Miss);
    });

    test('a list expires after its TTL', async () => {
      const name = await suite.newCache('list-ttl');
      for (const value of ['one', 'two', 'three']) {
        await suite.client.listPushBack(name, 'l', value, { ttl: new CollectionTtl(1, false) });
      }
      assert.deepEqual(await fetched(name, 'l'), ['one', 'two', 'three']);
      await sleep(1500);
      assertIs(await suite.client.listFetch(name, 'l'), CacheListFetch.Miss);
    });

    test('refreshTtl keeps a written list alive', async () => {
      const name = await suite.newCache('list-refresh');
      await writeKeptAndRefreshed(
        (value, ttl) => suite.client.listPushBack(name, 'kept', value, { ttl }),
        (value, ttl) => suite.client.listPushBack(name, 'refreshed', value, { ttl }),
      );
      assert.deepEqual(await fetched(name, 'refreshed'), ['one', 'two', 'three']);
      assertIs(await suite.client.listFetch(name, 'kept'), CacheListFetch.Miss);
    });

    test('list calls on a scalar fail the precondition; scalar calls see a list', async () => {
      const name = await suite.newCache('list-types');
      assertIs(await suite.client.set(name, 'k', 'v'), CacheSet.Success);
      const answers = [
        await suite.client.listPushBack(name, 'k', 'x'),
        await suite.client.listConcatenateFront(name, 'k', ['x']),
        await suite.client.listFetch(name, 'k'),
        await suite.client.listLength(name, 'k'),
        await suite.client.listPopBack(name, 'k'),
        await suite.client.listRemoveValue(name, 'k', 'v'),
        await suite.client.listRetain(name, 'k'),
      ];
      for (const answer of answers) {
        assert.equal(answer.errorCode?.(), MomentoErrorCode.FAILED_PRECONDITION_ERROR, `${answer}`);
      }

      await suite.client.listPushBack(name, 'l', 'v');
      const found = assertIs(await suite.client.itemGetType(name, 'l'), CacheItemGetType.Hit);
      assert.equal(found.itemType(), ItemType.LIST);
      assertIs(await suite.client.delete(name, 'l'), CacheDelete.Success);
      assertIs(await suite.client.listFetch(name, 'l'), CacheListFetch.Miss);
    });

    test('a value over the limit is refused whole', async () => {
      const name = uniqueCacheName('list-limit');
      assertIs(await suite.smallLimitClient.createCache(name), CreateCache.Success);
      await suite.smallLimitClient.listPushBack(name, 'l', 'kept');
      const tooLarge = new Uint8Array(VALUE_LIMIT_BYTES + 1).fill(0x78);

      const refused = assertIs(
        await suite.smallLimitClient.listConcatenateBack(name, 'l', ['fits', tooLarge]),
        CacheListConcatenateBack.Error,
      );

      assert.equal(refused.errorCode(), MomentoErrorCode.LIMIT_EXCEEDED_ERROR);
      const hit = assertIs(await suite.smallLimitClient.listFetch(name, 'l'), CacheListFetch.Hit);
      assert.deepEqual(hit.valueListString(), ['kept']);
    });
  });
}
