// The value size limit, against the server started with --max-value-size 1MiB,
// and the request size limit of a server with the defaults.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { CacheGet, CacheSet, CreateCache, MomentoErrorCode } from '@gomomento/sdk';

import { VALUE_LIMIT_BYTES, assertIs, uniqueCacheName } from '../support/suite.mjs';

export function registerSizeLimitTests(suite) {
  async function newSmallLimitCache() {
    const name = uniqueCacheName('size-limit');
    assertIs(await suite.smallLimitClient.createCache(name), CreateCache.Success);
    return name;
  }

  describe('size limits', () => {
    test('a value over the limit is rejected with LIMIT_EXCEEDED', async () => {
      const name = await newSmallLimitCache();
      const value = new Uint8Array(VALUE_LIMIT_BYTES + 1).fill(0x78);

      const stored = assertIs(await suite.smallLimitClient.set(name, 'big', value), CacheSet.Error);

      assert.equal(stored.errorCode(), MomentoErrorCode.LIMIT_EXCEEDED_ERROR);
      // The SDK keeps the `err` trailer as errCause. (Its message wording ignores
      // it, an SDK bug in this version, and falls back to the status details.)
      assert.equal(stored.innerException().errCause, 'item_size_limit_exceeded');
      assertIs(await suite.smallLimitClient.get(name, 'big'), CacheGet.Miss);
    });

    test('a Set of 5.3 MB is the item-size error: its value is over --max-value-size', async () => {
      const name = await suite.newCache('request-limit');
      const value = new Uint8Array(5_300_000).fill(0x7a);

      const stored = assertIs(await suite.client.set(name, 'huge', value), CacheSet.Error);

      assert.equal(stored.errorCode(), MomentoErrorCode.LIMIT_EXCEEDED_ERROR);
      // The request limit leaves room for the largest value and key, so a
      // request over it is a value over the limit, answered as one.
      assert.equal(stored.innerException().errCause, 'item_size_limit_exceeded');
      assertIs(await suite.client.get(name, 'huge'), CacheGet.Miss);
    });

    test('a value under the limit is stored', async () => {
      const name = await newSmallLimitCache();
      const value = new Uint8Array(VALUE_LIMIT_BYTES / 2).fill(0x79);

      assertIs(await suite.smallLimitClient.set(name, 'half', value), CacheSet.Success);

      const got = assertIs(await suite.smallLimitClient.get(name, 'half'), CacheGet.Hit);
      assert.deepEqual(got.valueUint8Array(), value);
    });
  });
}
