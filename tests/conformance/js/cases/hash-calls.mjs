// The hash calls: setWithHash and getWithHash agree on a value's hash, and
// each setIf...Hash... condition stores once where it holds and not where it
// does not, the stored value checked afterwards either way.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheGet,
  CacheGetWithHash,
  CacheSetIfAbsentOrHashEqual,
  CacheSetIfAbsentOrHashNotEqual,
  CacheSetIfPresentAndHashEqual,
  CacheSetIfPresentAndHashNotEqual,
  CacheSetWithHash,
} from '@gomomento/sdk';

import { assertIs } from '../support/suite.mjs';

export function registerHashCallTests(suite) {
  /** The hash the server gives `value`, from setWithHash on a scratch key. */
  async function hashOf(cacheName, value) {
    const stored = await suite.client.setWithHash(cacheName, `scratch-${value}`, value);
    return assertIs(stored, CacheSetWithHash.Stored).hashUint8Array();
  }

  async function valueOf(cacheName, key) {
    const got = await suite.client.get(cacheName, key);
    return got instanceof CacheGet.Hit ? got.valueString() : undefined;
  }

  // [name, method, response namespace, value before (undefined: absent), hash of, stores?]
  const CASES = [
    ['setIfPresentAndHashEqual stores when the hash matches',
      'setIfPresentAndHashEqual', CacheSetIfPresentAndHashEqual, 'old', 'old', true],
    ['setIfPresentAndHashEqual does not store when it differs',
      'setIfPresentAndHashEqual', CacheSetIfPresentAndHashEqual, 'old', 'other', false],
    ['setIfPresentAndHashEqual does not store on an absent key',
      'setIfPresentAndHashEqual', CacheSetIfPresentAndHashEqual, undefined, 'old', false],
    ['setIfPresentAndHashNotEqual stores when the hash differs',
      'setIfPresentAndHashNotEqual', CacheSetIfPresentAndHashNotEqual, 'old', 'other', true],
    ['setIfPresentAndHashNotEqual does not store when it matches',
      'setIfPresentAndHashNotEqual', CacheSetIfPresentAndHashNotEqual, 'old', 'old', false],
    ['setIfPresentAndHashNotEqual does not store on an absent key',
      'setIfPresentAndHashNotEqual', CacheSetIfPresentAndHashNotEqual, undefined, 'other', false],
    ['setIfAbsentOrHashEqual stores on an absent key',
      'setIfAbsentOrHashEqual', CacheSetIfAbsentOrHashEqual, undefined, 'old', true],
    ['setIfAbsentOrHashEqual stores when the hash matches',
      'setIfAbsentOrHashEqual', CacheSetIfAbsentOrHashEqual, 'old', 'old', true],
    ['setIfAbsentOrHashEqual does not store when it differs',
      'setIfAbsentOrHashEqual', CacheSetIfAbsentOrHashEqual, 'old', 'other', false],
    ['setIfAbsentOrHashNotEqual stores on an absent key',
      'setIfAbsentOrHashNotEqual', CacheSetIfAbsentOrHashNotEqual, undefined, 'other', true],
    ['setIfAbsentOrHashNotEqual stores when the hash differs',
      'setIfAbsentOrHashNotEqual', CacheSetIfAbsentOrHashNotEqual, 'old', 'other', true],
    ['setIfAbsentOrHashNotEqual does not store when it matches',
      'setIfAbsentOrHashNotEqual', CacheSetIfAbsentOrHashNotEqual, 'old', 'old', false],
  ];

  describe('hash calls', () => {
    test('setWithHash and getWithHash give the same hash', async () => {
      const name = await suite.newCache('hash');
      const stored = assertIs(await suite.client.setWithHash(name, 'k', 'héllo'), CacheSetWithHash.Stored);
      const got = assertIs(await suite.client.getWithHash(name, 'k'), CacheGetWithHash.Hit);
      assert.equal(got.valueString(), 'héllo');
      assert.deepEqual(got.hashUint8Array(), stored.hashUint8Array());
      assert.notDeepEqual(await hashOf(name, 'other'), stored.hashUint8Array());
      assertIs(await suite.client.getWithHash(name, 'never-set'), CacheGetWithHash.Miss);
    });

    for (const [title, method, Namespace, before, hashed, stores] of CASES) {
      test(title, async () => {
        const name = await suite.newCache('hash-if');
        const hash = await hashOf(name, hashed);
        if (before !== undefined) {
          await suite.client.set(name, 'k', before);
        }
        const answer = await suite.client[method](name, 'k', 'new', hash);
        if (stores) {
          const stored = assertIs(answer, Namespace.Stored);
          assert.deepEqual(stored.hashUint8Array(), await hashOf(name, 'new'));
          assert.equal(await valueOf(name, 'k'), 'new');
        } else {
          assertIs(answer, Namespace.NotStored);
          assert.equal(await valueOf(name, 'k'), before);
        }
      });
    }
  });
}
