// Scalar items: set, get, delete, TTL expiry, increment, setIfNotExists.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheDelete,
  CacheGet,
  CacheIncrement,
  CacheSet,
  CacheSetIfNotExists,
  MomentoErrorCode,
} from '@gomomento/sdk';

import { assertIs, sleep } from '../support/suite.mjs';

// Every byte value, so a server that mangles non-UTF-8 data fails.
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);

export function registerScalarItemTests(suite) {
  async function getString(cacheName, key) {
    return assertIs(await suite.client.get(cacheName, key), CacheGet.Hit).valueString();
  }

  describe('scalar items', () => {
    test('set then get hits with the same string', async () => {
      const name = await suite.newCache('string');
      assertIs(await suite.client.set(name, 'greeting', 'héllo wörld'), CacheSet.Success);
      assert.equal(await getString(name, 'greeting'), 'héllo wörld');
    });

    test('set then get hits with the same bytes', async () => {
      const name = await suite.newCache('bytes');
      const key = Uint8Array.of(0, 0xff, 0x6b);
      assertIs(await suite.client.set(name, key, ALL_BYTES), CacheSet.Success);

      const got = assertIs(await suite.client.get(name, key), CacheGet.Hit);
      assert.deepEqual(got.valueUint8Array(), ALL_BYTES);
    });

    test('set overwrites', async () => {
      const name = await suite.newCache('overwrite');
      await suite.client.set(name, 'k', 'first');
      await suite.client.set(name, 'k', 'second');
      assert.equal(await getString(name, 'k'), 'second');
    });

    test('get of an unknown key misses', async () => {
      const name = await suite.newCache('miss');
      assertIs(await suite.client.get(name, 'never-set'), CacheGet.Miss);
    });

    test('delete then get misses', async () => {
      const name = await suite.newCache('delete');
      await suite.client.set(name, 'k', 'v');
      assertIs(await suite.client.delete(name, 'k'), CacheDelete.Success);
      assertIs(await suite.client.get(name, 'k'), CacheGet.Miss);
    });

    test('an item expires after its TTL', async () => {
      const name = await suite.newCache('ttl');
      await suite.client.set(name, 'short', 'v', { ttl: 1 });
      await suite.client.set(name, 'long', 'v', { ttl: 60 });
      assertIs(await suite.client.get(name, 'short'), CacheGet.Hit);

      await sleep(1500);

      assertIs(await suite.client.get(name, 'short'), CacheGet.Miss);
      assertIs(await suite.client.get(name, 'long'), CacheGet.Hit);
    });

    test('setIfNotExists (deprecated) stores only when absent', async () => {
      const name = await suite.newCache('set-if-not-exists');
      assertIs(await suite.client.setIfNotExists(name, 'k', 'first'), CacheSetIfNotExists.Stored);
      assertIs(
        await suite.client.setIfNotExists(name, 'k', 'second'),
        CacheSetIfNotExists.NotStored,
      );
      assert.equal(await getString(name, 'k'), 'first');
    });

    test('increment of a missing key creates it with the amount, then adds', async () => {
      const name = await suite.newCache('increment');
      const created = assertIs(await suite.client.increment(name, 'n', 5), CacheIncrement.Success);
      assert.equal(created.value(), 5);

      const added = assertIs(await suite.client.increment(name, 'n', 37), CacheIncrement.Success);
      assert.equal(added.value(), 42);
      assert.equal(await getString(name, 'n'), '42');
    });

    test('increment accepts negative amounts', async () => {
      const name = await suite.newCache('decrement');
      await suite.client.set(name, 'n', '10');
      const result = assertIs(await suite.client.increment(name, 'n', -15), CacheIncrement.Success);
      assert.equal(result.value(), -5);
    });

    test('increment of a non-integer value fails with FAILED_PRECONDITION', async () => {
      const name = await suite.newCache('increment-text');
      await suite.client.set(name, 'text', 'not a number');

      const result = assertIs(await suite.client.increment(name, 'text', 1), CacheIncrement.Error);

      assert.equal(result.errorCode(), MomentoErrorCode.FAILED_PRECONDITION_ERROR);
      assert.equal(await getString(name, 'text'), 'not a number');
    });
  });
}
