// Sets (the collection; the scalar Set is in scalar-items.mjs): addElement(s),
// fetch, containsElement(s), removeElement(s), length, pop, sample, the
// collection TTL and wrong types, through the SDK's own calls.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheDelete,
  CacheItemGetType,
  CacheSet,
  CacheSetAddElement,
  CacheSetAddElements,
  CacheSetContainsElement,
  CacheSetContainsElements,
  CacheSetFetch,
  CacheSetRemoveElement,
  CacheSetRemoveElements,
  CacheSetSample,
  CreateCache,
  ItemType,
  MomentoErrorCode,
} from '@gomomento/sdk';
// @gomomento/sdk 1.118.1 declares these two in its types but does not export
// them at run time; its client builds them from sdk-core, its own dependency
// at the same version, so these are the classes its answers are instances of.
import { CacheSetLength, CacheSetPop } from '@gomomento/sdk-core';

import {
  VALUE_LIMIT_BYTES,
  assertIs,
  uniqueCacheName,
  writeKeptAndRefreshed,
} from '../support/suite.mjs';

const FIVE = ['apples', 'bananas', 'carrots', 'dates', 'elderberries'];

export function registerSetCollectionTests(suite) {
  async function fetched(cacheName, setName) {
    return assertIs(await suite.client.setFetch(cacheName, setName), CacheSetFetch.Hit).valueSet();
  }

  async function cacheWithFive(label) {
    const name = await suite.newCache(label);
    assertIs(await suite.client.setAddElements(name, 's', FIVE), CacheSetAddElements.Success);
    return name;
  }

  describe('sets', () => {
    test('addElements counts each element once', async () => {
      const name = await suite.newCache('set-add');
      assertIs(await suite.client.setAddElements(name, 's', ['a', 'b', 'a']), CacheSetAddElements.Success);
      assertIs(await suite.client.setAddElement(name, 's', 'c'), CacheSetAddElement.Success);
      assertIs(await suite.client.setAddElements(name, 's', ['b', 'c']), CacheSetAddElements.Success);
      assert.deepEqual(await fetched(name, 's'), new Set(['a', 'b', 'c']));
      const hit = assertIs(await suite.client.setFetch(name, 's'), CacheSetFetch.Hit);
      assert.equal(hit.valueArray().length, 3);
    });

    test('elements are bytes and may be empty', async () => {
      const name = await suite.newCache('set-bytes');
      const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);
      await suite.client.setAddElements(name, 's', [allBytes, new Uint8Array(0)]);
      const hit = assertIs(await suite.client.setFetch(name, 's'), CacheSetFetch.Hit);
      assert.deepEqual(hit.valueSetUint8Array(), new Set([allBytes, new Uint8Array(0)]));
    });

    test('fetch, contains and length miss on a missing set', async () => {
      const name = await suite.newCache('set-miss');
      assertIs(await suite.client.setFetch(name, 's'), CacheSetFetch.Miss);
      assertIs(await suite.client.setContainsElement(name, 's', 'a'), CacheSetContainsElement.Miss);
      assertIs(await suite.client.setContainsElements(name, 's', ['a', 'b']), CacheSetContainsElements.Miss);
      assertIs(await suite.client.setLength(name, 's'), CacheSetLength.Miss);
    });

    test('containsElement(s) answer for each element', async () => {
      const name = await suite.newCache('set-contains');
      await suite.client.setAddElements(name, 's', ['foo', 'bar']);
      const one = assertIs(await suite.client.setContainsElement(name, 's', 'foo'), CacheSetContainsElement.Hit);
      assert.equal(one.containsElement(), true);
      const none = assertIs(await suite.client.setContainsElement(name, 's', 'baz'), CacheSetContainsElement.Hit);
      assert.equal(none.containsElement(), false);
      const some = assertIs(
        await suite.client.setContainsElements(name, 's', ['foo', 'baz']),
        CacheSetContainsElements.Hit,
      );
      assert.deepEqual(some.containsElements(), { foo: true, baz: false });
    });

    test('removeElement(s) ignore absent elements; removing the last removes the set', async () => {
      const name = await cacheWithFive('set-remove');
      assertIs(
        await suite.client.setRemoveElements(name, 's', ['bananas', 'figs', 'dates']),
        CacheSetRemoveElements.Success,
      );
      assertIs(await suite.client.setRemoveElement(name, 's', 'apples'), CacheSetRemoveElement.Success);
      assert.deepEqual(await fetched(name, 's'), new Set(['carrots', 'elderberries']));
      await suite.client.setRemoveElements(name, 's', ['carrots', 'elderberries']);
      assertIs(await suite.client.setFetch(name, 's'), CacheSetFetch.Miss);
      // On a set that does not exist: success, and nothing is created.
      assertIs(await suite.client.setRemoveElement(name, 'none', 'x'), CacheSetRemoveElement.Success);
      assertIs(await suite.client.setFetch(name, 'none'), CacheSetFetch.Miss);
    });

    test('length counts the elements', async () => {
      const name = await cacheWithFive('set-length');
      assert.equal(assertIs(await suite.client.setLength(name, 's'), CacheSetLength.Hit).length(), 5);
    });

    test('sample answers distinct elements and leaves them; a limit of 0 is a hit', async () => {
      const name = await cacheWithFive('set-sample');
      assertIs(await suite.client.setSample(name, 'none', 3), CacheSetSample.Miss);
      const zero = assertIs(await suite.client.setSample(name, 's', 0), CacheSetSample.Hit);
      assert.deepEqual(zero.valueArray(), []);
      for (const [limit, answered] of [
        [1, 1],
        [3, 3],
        [5, 5],
        [10, 5],
      ]) {
        const hit = assertIs(await suite.client.setSample(name, 's', limit), CacheSetSample.Hit);
        assert.equal(hit.valueArray().length, answered);
        assert.equal(hit.valueSet().size, answered);
        for (const element of hit.valueArray()) assert.ok(FIVE.includes(element), element);
      }
      assert.deepEqual(await fetched(name, 's'), new Set(FIVE));
    });

    test('the SDK refuses a negative sample limit and a pop count under 1', async () => {
      const name = await cacheWithFive('set-sdk-check');
      const sample = assertIs(await suite.client.setSample(name, 's', -1), CacheSetSample.Error);
      assert.equal(sample.errorCode(), MomentoErrorCode.INVALID_ARGUMENT_ERROR);
      for (const count of [0, -1]) {
        const pop = assertIs(await suite.client.setPop(name, 's', count), CacheSetPop.Error);
        assert.equal(pop.errorCode(), MomentoErrorCode.INVALID_ARGUMENT_ERROR);
      }
      assert.deepEqual(await fetched(name, 's'), new Set(FIVE));
    });

    test('pop takes random elements until the set is gone', async () => {
      const name = await cacheWithFive('set-pop');
      assertIs(await suite.client.setPop(name, 'none', 1), CacheSetPop.Miss);
      const first = assertIs(await suite.client.setPop(name, 's', 3), CacheSetPop.Hit);
      assert.equal(first.valueArray().length, 3);
      assert.equal(assertIs(await suite.client.setLength(name, 's'), CacheSetLength.Hit).length(), 2);
      const rest = await fetched(name, 's');
      for (const element of first.valueArray()) assert.ok(!rest.has(element), element);

      const last = assertIs(await suite.client.setPop(name, 's', 10), CacheSetPop.Hit);
      assert.deepEqual(last.valueSet(), rest);
      assertIs(await suite.client.setLength(name, 's'), CacheSetLength.Miss);
      assertIs(await suite.client.setPop(name, 's', 1), CacheSetPop.Miss);
    });

    test('a set expires after its TTL; refreshTtl keeps a written set alive', async () => {
      const name = await suite.newCache('set-ttl');
      await writeKeptAndRefreshed(
        (element, ttl) => suite.client.setAddElement(name, 'kept', element, { ttl }),
        (element, ttl) => suite.client.setAddElement(name, 'refreshed', element, { ttl }),
      );
      assert.deepEqual(await fetched(name, 'refreshed'), new Set(['one', 'two', 'three']));
      assertIs(await suite.client.setFetch(name, 'kept'), CacheSetFetch.Miss);
    });

    test('set calls on a scalar fail the precondition; item calls see a set', async () => {
      const name = await suite.newCache('set-types');
      assertIs(await suite.client.set(name, 'k', 'v'), CacheSet.Success);
      const answers = [
        await suite.client.setAddElement(name, 'k', 'x'),
        await suite.client.setAddElements(name, 'k', ['x']),
        await suite.client.setFetch(name, 'k'),
        await suite.client.setContainsElement(name, 'k', 'v'),
        await suite.client.setLength(name, 'k'),
        await suite.client.setRemoveElement(name, 'k', 'v'),
        await suite.client.setPop(name, 'k', 1),
        await suite.client.setSample(name, 'k', 1),
      ];
      for (const answer of answers) {
        assert.equal(answer.errorCode?.(), MomentoErrorCode.FAILED_PRECONDITION_ERROR, `${answer}`);
      }

      await suite.client.setAddElement(name, 's', 'v');
      const found = assertIs(await suite.client.itemGetType(name, 's'), CacheItemGetType.Hit);
      assert.equal(found.itemType(), ItemType.SET);
      assertIs(await suite.client.delete(name, 's'), CacheDelete.Success);
      assertIs(await suite.client.setFetch(name, 's'), CacheSetFetch.Miss);
    });

    test('an element over the limit is refused whole', async () => {
      const name = uniqueCacheName('set-limit');
      assertIs(await suite.smallLimitClient.createCache(name), CreateCache.Success);
      await suite.smallLimitClient.setAddElement(name, 's', 'kept');
      const tooLarge = new Uint8Array(VALUE_LIMIT_BYTES + 1).fill(0x78);

      const refused = assertIs(
        await suite.smallLimitClient.setAddElements(name, 's', ['fits', tooLarge]),
        CacheSetAddElements.Error,
      );

      assert.equal(refused.errorCode(), MomentoErrorCode.LIMIT_EXCEEDED_ERROR);
      const hit = assertIs(await suite.smallLimitClient.setFetch(name, 's'), CacheSetFetch.Hit);
      assert.deepEqual(hit.valueSet(), new Set(['kept']));
    });
  });
}
