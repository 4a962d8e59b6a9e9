// Control plane: create, list, flush and delete caches.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheFlush,
  CacheGet,
  CacheSet,
  CreateCache,
  DeleteCache,
  ListCaches,
  MomentoErrorCode,
} from '@gomomento/sdk';

import { assertIs, uniqueCacheName } from '../support/suite.mjs';

export function registerCacheLifecycleTests(suite) {
  async function listedNames() {
    const listed = assertIs(await suite.client.listCaches(), ListCaches.Success);
    return listed.getCaches().map((cache) => cache.getName());
  }

  describe('cache lifecycle', () => {
    test('create, list and delete a cache', async () => {
      const name = uniqueCacheName('lifecycle');
      assertIs(await suite.client.createCache(name), CreateCache.Success);
      assert.ok((await listedNames()).includes(name));

      assertIs(await suite.client.deleteCache(name), DeleteCache.Success);
      assert.ok(!(await listedNames()).includes(name));
    });

    test('creating an existing cache answers AlreadyExists', async () => {
      const name = await suite.newCache('exists');
      assertIs(await suite.client.createCache(name), CreateCache.AlreadyExists);
    });

    test('deleting a missing cache is NOT_FOUND', async () => {
      const deleted = assertIs(
        await suite.client.deleteCache(uniqueCacheName('missing')),
        DeleteCache.Error,
      );
      assert.equal(deleted.errorCode(), MomentoErrorCode.CACHE_NOT_FOUND_ERROR);
    });

    test('flushing a missing cache is NOT_FOUND', async () => {
      const flushed = assertIs(
        await suite.client.flushCache(uniqueCacheName('missing')),
        CacheFlush.Error,
      );
      assert.equal(flushed.errorCode(), MomentoErrorCode.CACHE_NOT_FOUND_ERROR);
    });

    test('flush removes every item but keeps the cache', async () => {
      const name = await suite.newCache('flush');
      for (const key of ['a', 'b']) {
        assertIs(await suite.client.set(name, key, 'v'), CacheSet.Success);
      }

      assertIs(await suite.client.flushCache(name), CacheFlush.Success);

      for (const key of ['a', 'b']) {
        assertIs(await suite.client.get(name, key), CacheGet.Miss);
      }
      assert.ok((await listedNames()).includes(name));
    });

    test('a data call to a missing cache is NOT_FOUND', async () => {
      const name = uniqueCacheName('missing');
      const got = assertIs(await suite.client.get(name, 'k'), CacheGet.Error);
      assert.equal(got.errorCode(), MomentoErrorCode.CACHE_NOT_FOUND_ERROR);

      const stored = assertIs(await suite.client.set(name, 'k', 'v'), CacheSet.Error);
      assert.equal(stored.errorCode(), MomentoErrorCode.CACHE_NOT_FOUND_ERROR);
    });

    test('an empty cache name is rejected by the SDK', async () => {
      const got = assertIs(await suite.client.get('', 'k'), CacheGet.Error);
      assert.equal(got.errorCode(), MomentoErrorCode.INVALID_ARGUMENT_ERROR);
    });
  });
}
