// keyExists / keysExist, itemGetTtl, itemGetType and the TTL updates.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheDecreaseTtl,
  CacheIncreaseTtl,
  CacheItemGetTtl,
  CacheItemGetType,
  CacheKeyExists,
  CacheKeysExist,
  CacheUpdateTtl,
  ItemType,
} from '@gomomento/sdk';

import { assertIs } from '../support/suite.mjs';

const MINUTE_MS = 60_000;

export function registerItemQueryTests(suite) {
  async function remainingTtlMs(cacheName, key) {
    const found = assertIs(await suite.client.itemGetTtl(cacheName, key), CacheItemGetTtl.Hit);
    return found.remainingTtlMillis();
  }

  async function cacheWithItem(label) {
    const name = await suite.newCache(label);
    await suite.client.set(name, 'k', 'v', { ttl: MINUTE_MS / 1000 });
    return name;
  }

  describe('item queries', () => {
    test('keysExist answers per key in request order', async () => {
      const name = await suite.newCache('keys-exist');
      await suite.client.set(name, 'a', 'v');
      await suite.client.set(name, 'c', 'v');

      const answer = assertIs(
        await suite.client.keysExist(name, ['a', 'b', 'c', 'a']),
        CacheKeysExist.Success,
      );
      assert.deepEqual(answer.exists(), [true, false, true, true]);
    });

    test('keyExists answers true and false', async () => {
      const name = await suite.newCache('key-exists');
      await suite.client.set(name, 'a', 'v');
      assert.equal(assertIs(await suite.client.keyExists(name, 'a'), CacheKeyExists.Success).exists(), true);
      assert.equal(assertIs(await suite.client.keyExists(name, 'b'), CacheKeyExists.Success).exists(), false);
    });

    test('itemGetTtl is within the TTL the item was set with', async () => {
      const name = await suite.newCache('get-ttl');
      await suite.client.set(name, 'k', 'v', { ttl: 30 });
      const remaining = await remainingTtlMs(name, 'k');
      assert.ok(remaining > 25_000 && remaining <= 30_000, `remaining ${remaining} ms`);
      assertIs(await suite.client.itemGetTtl(name, 'none'), CacheItemGetTtl.Miss);
    });

    test('itemGetType of a scalar, and of a missing key', async () => {
      const name = await cacheWithItem('get-type');
      const found = assertIs(await suite.client.itemGetType(name, 'k'), CacheItemGetType.Hit);
      assert.equal(found.itemType(), ItemType.SCALAR);
      assertIs(await suite.client.itemGetType(name, 'none'), CacheItemGetType.Miss);
    });

    test('updateTtl overwrites the TTL, and misses on a missing key', async () => {
      const name = await cacheWithItem('update-ttl');
      assertIs(await suite.client.updateTtl(name, 'k', 5_000), CacheUpdateTtl.Set);
      assert.ok((await remainingTtlMs(name, 'k')) <= 5_000);
      assertIs(await suite.client.updateTtl(name, 'none', 5_000), CacheUpdateTtl.Miss);
    });

    test('increaseTtl sets only a longer TTL', async () => {
      const name = await cacheWithItem('increase-ttl');
      assertIs(await suite.client.increaseTtl(name, 'k', 1_000), CacheIncreaseTtl.NotSet);
      assert.ok((await remainingTtlMs(name, 'k')) > 50_000);

      assertIs(await suite.client.increaseTtl(name, 'k', 2 * MINUTE_MS), CacheIncreaseTtl.Set);
      assert.ok((await remainingTtlMs(name, 'k')) > MINUTE_MS);

      assertIs(await suite.client.increaseTtl(name, 'none', MINUTE_MS), CacheIncreaseTtl.Miss);
    });

    test('decreaseTtl sets only a shorter TTL', async () => {
      const name = await cacheWithItem('decrease-ttl');
      assertIs(await suite.client.decreaseTtl(name, 'k', 2 * MINUTE_MS), CacheDecreaseTtl.NotSet);
      assert.ok((await remainingTtlMs(name, 'k')) <= MINUTE_MS);

      assertIs(await suite.client.decreaseTtl(name, 'k', 2_000), CacheDecreaseTtl.Set);
      assert.ok((await remainingTtlMs(name, 'k')) <= 2_000);

      assertIs(await suite.client.decreaseTtl(name, 'none', 2_000), CacheDecreaseTtl.Miss);
    });
  });
}
