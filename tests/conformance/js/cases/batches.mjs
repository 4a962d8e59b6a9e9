// getBatch / setBatch (server-streaming RPCs under the SDK).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { CacheGet, CacheGetBatch, CacheSet, CacheSetBatch } from '@gomomento/sdk';

import { assertIs } from '../support/suite.mjs';

export function registerBatchTests(suite) {
  describe('batches', () => {
    test('setBatch stores every item', async () => {
      const name = await suite.newCache('set-batch');
      const stored = assertIs(
        await suite.client.setBatch(name, { a: 'aa', b: 'bb', c: 'cc' }),
        CacheSetBatch.Success,
      );
      assert.equal(stored.results().length, 3);
      for (const result of stored.results()) assertIs(result, CacheSet.Success);

      for (const key of ['a', 'b', 'c']) {
        const got = assertIs(await suite.client.get(name, key), CacheGet.Hit);
        assert.equal(got.valueString(), key + key);
      }
    });

    test('getBatch answers hits and misses in request order', async () => {
      const name = await suite.newCache('get-batch');
      await suite.client.set(name, 'a', 'v-a');
      await suite.client.set(name, 'b', 'v-b');

      const answer = assertIs(
        await suite.client.getBatch(name, ['a', 'missing', 'b']),
        CacheGetBatch.Success,
      );

      const [a, missing, b] = answer.results();
      assert.equal(assertIs(a, CacheGet.Hit).valueString(), 'v-a');
      assertIs(missing, CacheGet.Miss);
      assert.equal(assertIs(b, CacheGet.Hit).valueString(), 'v-b');
      assert.deepEqual(answer.values(), { a: 'v-a', b: 'v-b' });
    });
  });
}
