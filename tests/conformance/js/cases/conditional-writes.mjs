// The setIf* family: each condition once where it stores and once where it
// does not, checking the stored value afterwards either way.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheGet,
  CacheSetIfAbsent,
  CacheSetIfAbsentOrEqual,
  CacheSetIfEqual,
  CacheSetIfNotEqual,
  CacheSetIfPresent,
  CacheSetIfPresentAndNotEqual,
} from '@gomomento/sdk';

import { assertIs } from '../support/suite.mjs';

const OLD = 'old';
const NEW = 'new';
const OTHER = 'other';

// [name, call(client, cache), response namespace, value before (undefined: absent), stores?]
const CASES = [
  ['setIfPresent stores over a present key',
    (c, n) => c.setIfPresent(n, 'k', NEW), CacheSetIfPresent, OLD, true],
  ['setIfPresent does not store on an absent key',
    (c, n) => c.setIfPresent(n, 'k', NEW), CacheSetIfPresent, undefined, false],
  ['setIfPresentAndNotEqual stores when the value differs',
    (c, n) => c.setIfPresentAndNotEqual(n, 'k', NEW, OTHER), CacheSetIfPresentAndNotEqual, OLD, true],
  ['setIfPresentAndNotEqual does not store when the value is equal',
    (c, n) => c.setIfPresentAndNotEqual(n, 'k', NEW, OLD), CacheSetIfPresentAndNotEqual, OLD, false],
  ['setIfPresentAndNotEqual does not store on an absent key',
    (c, n) => c.setIfPresentAndNotEqual(n, 'k', NEW, OTHER), CacheSetIfPresentAndNotEqual, undefined, false],
  ['setIfAbsent stores on an absent key',
    (c, n) => c.setIfAbsent(n, 'k', NEW), CacheSetIfAbsent, undefined, true],
  ['setIfAbsent does not store over a present key',
    (c, n) => c.setIfAbsent(n, 'k', NEW), CacheSetIfAbsent, OLD, false],
  ['setIfEqual stores when the value is equal',
    (c, n) => c.setIfEqual(n, 'k', NEW, OLD), CacheSetIfEqual, OLD, true],
  ['setIfEqual does not store when the value differs',
    (c, n) => c.setIfEqual(n, 'k', NEW, OTHER), CacheSetIfEqual, OLD, false],
  ['setIfEqual does not store on an absent key',
    (c, n) => c.setIfEqual(n, 'k', NEW, OLD), CacheSetIfEqual, undefined, false],
  ['setIfAbsentOrEqual stores on an absent key',
    (c, n) => c.setIfAbsentOrEqual(n, 'k', NEW, OTHER), CacheSetIfAbsentOrEqual, undefined, true],
  ['setIfAbsentOrEqual stores when the value is equal',
    (c, n) => c.setIfAbsentOrEqual(n, 'k', NEW, OLD), CacheSetIfAbsentOrEqual, OLD, true],
  ['setIfAbsentOrEqual does not store when the value differs',
    (c, n) => c.setIfAbsentOrEqual(n, 'k', NEW, OTHER), CacheSetIfAbsentOrEqual, OLD, false],
  ['setIfNotEqual stores on an absent key',
    (c, n) => c.setIfNotEqual(n, 'k', NEW, OLD), CacheSetIfNotEqual, undefined, true],
  ['setIfNotEqual stores when the value differs',
    (c, n) => c.setIfNotEqual(n, 'k', NEW, OTHER), CacheSetIfNotEqual, OLD, true],
  ['setIfNotEqual does not store when the value is equal',
    (c, n) => c.setIfNotEqual(n, 'k', NEW, OLD), CacheSetIfNotEqual, OLD, false],
];

export function registerConditionalWriteTests(suite) {
  describe('conditional writes', () => {
    for (const [name, call, responses, before, stores] of CASES) {
      test(name, async () => {
        const cacheName = await suite.newCache('set-if');
        if (before !== undefined) await suite.client.set(cacheName, 'k', before);

        const answer = await call(suite.client, cacheName);

        assertIs(answer, stores ? responses.Stored : responses.NotStored);
        const expected = stores ? NEW : before;
        const after = await suite.client.get(cacheName, 'k');
        if (expected === undefined) {
          assertIs(after, CacheGet.Miss);
        } else {
          assert.equal(assertIs(after, CacheGet.Hit).valueString(), expected);
        }
      });
    }
  });
}
