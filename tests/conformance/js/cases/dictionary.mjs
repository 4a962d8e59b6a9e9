// Dictionaries: set one field or many, get one or many, fetch, increment,
// remove one or many, length, the collection TTL and wrong types, through
// the SDK's own calls.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheDelete,
  CacheDictionaryFetch,
  CacheDictionaryGetField,
  CacheDictionaryGetFields,
  CacheDictionaryIncrement,
  CacheDictionaryLength,
  CacheDictionaryRemoveField,
  CacheDictionaryRemoveFields,
  CacheDictionarySetField,
  CacheDictionarySetFields,
  CacheItemGetType,
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

export function registerDictionaryTests(suite) {
  async function fetched(cacheName, name, client = suite.client) {
    const hit = assertIs(await client.dictionaryFetch(cacheName, name), CacheDictionaryFetch.Hit);
    return hit.valueRecord();
  }

  describe('dictionaries', () => {
    test('set fields, then get and fetch them', async () => {
      const name = await suite.newCache('dict-set');
      assertIs(await suite.client.dictionarySetField(name, 'd', 'a', '1'), CacheDictionarySetField.Success);
      assertIs(
        await suite.client.dictionarySetFields(name, 'd', new Map([['b', '2'], ['c', '3']])),
        CacheDictionarySetFields.Success,
      );
      assertIs(await suite.client.dictionarySetFields(name, 'd', { a: 'one' }), CacheDictionarySetFields.Success);

      const got = assertIs(await suite.client.dictionaryGetField(name, 'd', 'b'), CacheDictionaryGetField.Hit);
      assert.equal(got.valueString(), '2');
      assert.equal(got.fieldString(), 'b');
      assertIs(await suite.client.dictionaryGetField(name, 'd', 'x'), CacheDictionaryGetField.Miss);
      assert.deepEqual(await fetched(name, 'd'), { a: 'one', b: '2', c: '3' });
    });

    test('get fields answers each field asked, hit or miss', async () => {
      const name = await suite.newCache('dict-get-fields');
      await suite.client.dictionarySetFields(name, 'd', { a: '1', c: '3' });
      const hit = assertIs(
        await suite.client.dictionaryGetFields(name, 'd', ['c', 'b', 'a']),
        CacheDictionaryGetFields.Hit,
      );
      assert.deepEqual(
        hit.responses.map(part => part.constructor),
        [CacheDictionaryGetField.Hit, CacheDictionaryGetField.Miss, CacheDictionaryGetField.Hit],
      );
      assert.deepEqual(hit.valueRecord(), { c: '3', a: '1' });
    });

    test('a missing dictionary misses', async () => {
      const name = await suite.newCache('dict-miss');
      assertIs(await suite.client.dictionaryFetch(name, 'none'), CacheDictionaryFetch.Miss);
      assertIs(await suite.client.dictionaryGetField(name, 'none', 'a'), CacheDictionaryGetField.Miss);
      assertIs(await suite.client.dictionaryGetFields(name, 'none', ['a', 'b']), CacheDictionaryGetFields.Miss);
      assertIs(await suite.client.dictionaryLength(name, 'none'), CacheDictionaryLength.Miss);
    });

    test('fields and values are bytes', async () => {
      const name = await suite.newCache('dict-bytes');
      const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);
      await suite.client.dictionarySetField(name, 'd', allBytes, new Uint8Array(0));
      const got = assertIs(await suite.client.dictionaryGetField(name, 'd', allBytes), CacheDictionaryGetField.Hit);
      assert.deepEqual(got.valueUint8Array(), new Uint8Array(0));
      await suite.client.dictionarySetField(name, 'd', 'text', allBytes);
      const hit = assertIs(await suite.client.dictionaryFetch(name, 'd'), CacheDictionaryFetch.Hit);
      assert.deepEqual(hit.valueMapStringUint8Array().get('text'), allBytes);
      assert.equal(hit.valueMapStringUint8Array().size, 2);
    });

    test('increment counts a missing field as zero and answers the sum', async () => {
      const name = await suite.newCache('dict-increment');
      const first = assertIs(await suite.client.dictionaryIncrement(name, 'd', 'n'), CacheDictionaryIncrement.Success);
      assert.equal(first.value(), 1);
      const next = assertIs(
        await suite.client.dictionaryIncrement(name, 'd', 'n', 41),
        CacheDictionaryIncrement.Success,
      );
      assert.equal(next.value(), 42);
      const down = assertIs(
        await suite.client.dictionaryIncrement(name, 'd', 'n', -50),
        CacheDictionaryIncrement.Success,
      );
      assert.equal(down.value(), -8);
      assert.deepEqual(await fetched(name, 'd'), { n: '-8' });
    });

    test('increment of text fails the precondition and changes nothing', async () => {
      const name = await suite.newCache('dict-increment-text');
      await suite.client.dictionarySetField(name, 'd', 'f', 'abcxyz');
      const refused = assertIs(
        await suite.client.dictionaryIncrement(name, 'd', 'f'),
        CacheDictionaryIncrement.Error,
      );
      assert.equal(refused.errorCode(), MomentoErrorCode.FAILED_PRECONDITION_ERROR);
      assert.deepEqual(await fetched(name, 'd'), { f: 'abcxyz' });
    });

    test('remove fields, and the last removes the dictionary', async () => {
      const name = await suite.newCache('dict-remove');
      await suite.client.dictionarySetFields(name, 'd', { a: '1', b: '2', c: '3' });
      assertIs(await suite.client.dictionaryRemoveField(name, 'd', 'a'), CacheDictionaryRemoveField.Success);
      assert.equal(assertIs(await suite.client.dictionaryLength(name, 'd'), CacheDictionaryLength.Hit).length(), 2);
      assertIs(
        await suite.client.dictionaryRemoveFields(name, 'd', ['b', 'absent', 'c']),
        CacheDictionaryRemoveFields.Success,
      );
      assertIs(await suite.client.dictionaryFetch(name, 'd'), CacheDictionaryFetch.Miss);
      assertIs(await suite.client.dictionaryRemoveField(name, 'none', 'a'), CacheDictionaryRemoveField.Success);
      assertIs(await suite.client.dictionaryFetch(name, 'none'), CacheDictionaryFetch.Miss);
    });

    test('a dictionary expires after its TTL', async () => {
      const name = await suite.newCache('dict-ttl');
      const ttl = new CollectionTtl(1, false);
      await suite.client.dictionarySetFields(name, 'd', { a: '1' }, { ttl });
      await suite.client.dictionaryIncrement(name, 'd', 'n', 1, { ttl });
      assert.deepEqual(await fetched(name, 'd'), { a: '1', n: '1' });
      await sleep(1500);
      assertIs(await suite.client.dictionaryFetch(name, 'd'), CacheDictionaryFetch.Miss);
    });

    test('refreshTtl keeps a written dictionary alive', async () => {
      const name = await suite.newCache('dict-refresh');
      await writeKeptAndRefreshed(
        (value, ttl) => suite.client.dictionarySetField(name, 'kept', value, value, { ttl }),
        (value, ttl) => suite.client.dictionarySetField(name, 'refreshed', value, value, { ttl }),
      );
      assert.deepEqual(await fetched(name, 'refreshed'), { one: 'one', two: 'two', three: 'three' });
      assertIs(await suite.client.dictionaryFetch(name, 'kept'), CacheDictionaryFetch.Miss);
    });

    test('dictionary calls on a scalar fail the precondition; scalar calls see a dictionary', async () => {
      const name = await suite.newCache('dict-types');
      assertIs(await suite.client.set(name, 'k', 'v'), CacheSet.Success);
      const answers = [
        await suite.client.dictionarySetField(name, 'k', 'f', 'x'),
        await suite.client.dictionarySetFields(name, 'k', { f: 'x' }),
        await suite.client.dictionaryGetField(name, 'k', 'f'),
        await suite.client.dictionaryGetFields(name, 'k', ['f']),
        await suite.client.dictionaryFetch(name, 'k'),
        await suite.client.dictionaryIncrement(name, 'k', 'f'),
        await suite.client.dictionaryRemoveField(name, 'k', 'f'),
        await suite.client.dictionaryLength(name, 'k'),
      ];
      for (const answer of answers) {
        assert.equal(answer.errorCode?.(), MomentoErrorCode.FAILED_PRECONDITION_ERROR, `${answer}`);
      }

      await suite.client.dictionarySetField(name, 'd', 'f', 'v');
      const found = assertIs(await suite.client.itemGetType(name, 'd'), CacheItemGetType.Hit);
      assert.equal(found.itemType(), ItemType.DICTIONARY);
      assert.equal((await suite.client.get(name, 'd')).errorCode?.(), MomentoErrorCode.FAILED_PRECONDITION_ERROR);
      assertIs(await suite.client.delete(name, 'd'), CacheDelete.Success);
      assertIs(await suite.client.dictionaryFetch(name, 'd'), CacheDictionaryFetch.Miss);
    });

    test('a value over the limit is refused whole', async () => {
      const name = uniqueCacheName('dict-limit');
      assertIs(await suite.smallLimitClient.createCache(name), CreateCache.Success);
      await suite.smallLimitClient.dictionarySetField(name, 'd', 'kept', 'v');
      const tooLarge = new Uint8Array(VALUE_LIMIT_BYTES + 1).fill(0x78);

      const refused = assertIs(
        await suite.smallLimitClient.dictionarySetFields(name, 'd', new Map([['fits', 'v'], ['big', tooLarge]])),
        CacheDictionarySetFields.Error,
      );

      assert.equal(refused.errorCode(), MomentoErrorCode.LIMIT_EXCEEDED_ERROR);
      assert.deepEqual(await fetched(name, 'd', suite.smallLimitClient), { kept: 'v' });
    });
  });
}
