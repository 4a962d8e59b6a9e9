// Dictionary calls against a real jiffy-server, on each transport.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeUtf8, InvalidArgumentError, LimitExceededError, WrongTypeError } from '../../src/index.js';
import { checkCollectionTtl, LIMITS, text, texts, ttlLeft, useServer } from '../support/collection-fixture.js';
import { TRANSPORTS } from '../support/transports.js';

for (const transport of TRANSPORTS) {
  describe(`dictionaries over ${transport}`, () => {
    const fixture = useServer(transport);
    const cache = fixture.cache;

    test('set fields, get them back; absent fields are undefined', async () => {
      const { client } = fixture;
      await client.dictionarySetField(cache, 'd1', 'a', 'one');
      await client.dictionarySetFields(cache, 'd1', { b: 'two', c: Uint8Array.of(0, 255) });
      await client.dictionarySetFields(cache, 'd1', new Map([['d', 'four']]));
      await client.dictionarySetFields(cache, 'd1', [['e', 'five'], ['e', 'last wins']]);
      assert.equal(text(await client.dictionaryGetField(cache, 'd1', 'a')), 'one');
      assert.equal(await client.dictionaryGetField(cache, 'd1', 'zz'), undefined);
      assert.deepEqual(texts(await client.dictionaryGetFields(cache, 'd1', ['b', 'zz', 'e', 'a'])), ['two', undefined, 'last wins', 'one']);
      assert.deepEqual(await client.dictionaryGetField(cache, 'd1', 'c'), Buffer.from([0, 255]));
      assert.equal(await client.dictionaryLength(cache, 'd1'), 5);
    });

    test('fetch: every field in ascending byte order, names as bytes; fetchStrings decodes both', async () => {
      const { client } = fixture;
      await client.dictionarySetFields(cache, 'd2', [['zeta', 'z'], ['alpha', 'a'], ['émigré', 'é'], ['', 'empty field']]);
      const fetched = await client.dictionaryFetch(cache, 'd2');
      assert.deepEqual(decodeUtf8(fetched.keys()), ['', 'alpha', 'zeta', 'émigré']);
      assert.equal(text(fetched.get('alpha')), 'a');
      assert.equal(text(fetched.get(Buffer.from('émigré'))), 'é');
      assert.deepEqual(await client.dictionaryFetchStrings(cache, 'd2'), new Map([['', 'empty field'], ['alpha', 'a'], ['zeta', 'z'], ['émigré', 'é']]));
    });

    test('fetch keeps field names that are not UTF-8 apart, and its answer can be written back', async () => {
      const { client } = fixture;
      // Both decode to U+FFFD: as strings they would be one field.
      const [ff, fe] = [Uint8Array.of(0xff), Uint8Array.of(0xfe)];
      await client.dictionarySetFields(cache, 'd-bytes', [[ff, 'ff'], [fe, 'fe']]);
      const fetched = await client.dictionaryFetch(cache, 'd-bytes');
      assert.equal(fetched.size, 2);
      assert.deepEqual([text(fetched.get(fe)), text(fetched.get(ff))], ['fe', 'ff']);
      await client.dictionarySetFields(cache, 'd-copy', fetched);
      assert.deepEqual(texts(await client.dictionaryGetFields(cache, 'd-copy', [ff, fe])), ['ff', 'fe']);
    });

    test('a missing dictionary reads as empty', async () => {
      const { client } = fixture;
      assert.equal((await client.dictionaryFetch(cache, 'nope')).size, 0);
      assert.deepEqual(await client.dictionaryFetchStrings(cache, 'nope'), new Map());
      assert.equal(await client.dictionaryGetField(cache, 'nope', 'a'), undefined);
      assert.deepEqual(await client.dictionaryGetFields(cache, 'nope', ['a', 'b']), [undefined, undefined]);
      assert.equal(await client.dictionaryLength(cache, 'nope'), 0);
      await client.dictionaryRemoveFields(cache, 'nope', ['a']);
      assert.equal(await client.getType(cache, 'nope'), undefined);
    });

    test('remove fields; removing the last one removes the dictionary', async () => {
      const { client } = fixture;
      await client.dictionarySetFields(cache, 'd3', { a: '1', b: '2', c: '3' });
      await client.dictionaryRemoveFields(cache, 'd3', ['a', 'absent']);
      assert.deepEqual([...(await client.dictionaryFetchStrings(cache, 'd3')).keys()], ['b', 'c']);
      await client.dictionaryRemoveFields(cache, 'd3', ['b', 'c']);
      assert.equal(await client.dictionaryLength(cache, 'd3'), 0);
      assert.equal(await client.getType(cache, 'd3'), undefined);
    });

    test('increment: creates, adds, as number or bigint; a non-integer field is WrongTypeError', async () => {
      const { client } = fixture;
      assert.equal(await client.dictionaryIncrement(cache, 'counts', 'hits'), 1);
      assert.equal(await client.dictionaryIncrement(cache, 'counts', 'hits', 41), 42);
      assert.equal(await client.dictionaryIncrement(cache, 'counts', 'hits', -50), -8);
      assert.equal(text(await client.dictionaryGetField(cache, 'counts', 'hits')), '-8');
      assert.equal(await client.dictionaryIncrement(cache, 'counts', 'big', 2n ** 60n), 2n ** 60n);
      await assert.rejects(client.dictionaryIncrement(cache, 'counts', 'big', 2 ** 52), /dictionaryIncrement stored \d+, past Number.MAX_SAFE_INTEGER/);
      await client.dictionarySetField(cache, 'counts', 'word', 'abc');
      await assert.rejects(client.dictionaryIncrement(cache, 'counts', 'word'), WrongTypeError);
      await client.dictionarySetField(cache, 'counts', 'max', String(2n ** 63n - 1n));
      await assert.rejects(client.dictionaryIncrement(cache, 'counts', 'max', 1n), WrongTypeError);
    });

    test('collection TTL: set and increment take ttlMs; refreshTtl false keeps the TTL, true resets it', async () => {
      const { client } = fixture;
      await checkCollectionTtl(
        fixture,
        'ttl-set',
        (options) => client.dictionarySetField(cache, 'ttl-set', 'a', '1', options),
        (options) => client.dictionarySetFields(cache, 'ttl-set', { b: '2' }, options),
      );
      await checkCollectionTtl(
        fixture,
        'ttl-incr',
        (options) => client.dictionaryIncrement(cache, 'ttl-incr', 'n', 1, options),
        (options) => client.dictionaryIncrement(cache, 'ttl-incr', 'n', 1, options),
      );
      await client.dictionarySetField(cache, 'ttl-default', 'a', '1');
      const left = await ttlLeft(fixture, 'ttl-default');
      assert.ok(left > 50_000 && left <= 60_000, `the client's defaultTtlMs: ${left}`);
      await client.dictionarySetField(cache, 'ttl-expire', 'a', '1', { ttlMs: 150 });
      await sleep(400);
      assert.equal(await client.dictionaryLength(cache, 'ttl-expire'), 0);
    });

    test('a dictionary call on an item of another type rejects with WrongTypeError', async () => {
      const { client } = fixture;
      await client.set(cache, 'scalar', 'x');
      await client.listPushBack(cache, 'a-list', 'x');
      const calls = [
        () => client.dictionaryGetField(cache, 'scalar', 'a'),
        () => client.dictionaryGetFields(cache, 'a-list', ['a']),
        () => client.dictionaryFetch(cache, 'scalar'),
        () => client.dictionaryFetchStrings(cache, 'a-list'),
        () => client.dictionarySetField(cache, 'scalar', 'a', 'b'),
        () => client.dictionarySetFields(cache, 'a-list', { a: 'b' }),
        () => client.dictionaryIncrement(cache, 'scalar', 'a'),
        () => client.dictionaryRemoveFields(cache, 'a-list', ['a']),
        () => client.dictionaryLength(cache, 'scalar'),
      ];
      for (const call of calls) await assert.rejects(call(), WrongTypeError);
      assert.equal(await client.getString(cache, 'scalar'), 'x');
    });

    test('limits: a value over --max-value-size, more fields than --max-request-items, a dictionary past --max-collection-elements', async () => {
      const { client } = fixture;
      await assert.rejects(client.dictionarySetField(cache, 'big', 'a', 'x'.repeat(LIMITS.valueBytes + 1)), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'element_size_limit_exceeded');
        return true;
      });
      const tooMany = Array.from({ length: LIMITS.requestItems + 1 }, (_u, i) => [`f${i}`, 'v'] as [string, string]);
      await assert.rejects(client.dictionarySetFields(cache, 'big', tooMany), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'request_size_limit_exceeded');
        return true;
      });
      for (let start = 0; start < LIMITS.collectionElements; start += 10) {
        await client.dictionarySetFields(cache, 'big', Array.from({ length: 10 }, (_u, i) => [`f${start + i}`, 'v'] as [string, string]));
      }
      await assert.rejects(client.dictionarySetField(cache, 'big', 'one-more', 'v'), LimitExceededError);
      assert.equal(await client.dictionaryLength(cache, 'big'), LIMITS.collectionElements);
    });

    test('bad arguments reject before the call', async () => {
      const { client } = fixture;
      await assert.rejects(client.dictionaryGetFields(cache, 'd1', []), InvalidArgumentError);
      await assert.rejects(client.dictionarySetField(cache, '', 'a', 'b'), InvalidArgumentError);
    });
  });
}
