// Set calls against a real jiffy-server, on each transport.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeUtf8, InvalidArgumentError, LimitExceededError, WrongTypeError } from '../../src/index.js';
import { checkCollectionTtl, LIMITS, useServer } from '../support/collection-fixture.js';
import { TRANSPORTS } from '../support/transports.js';

const sorted = (values: Iterable<Uint8Array>): string[] => decodeUtf8(values).sort();

for (const transport of TRANSPORTS) {
  describe(`sets over ${transport}`, () => {
    const fixture = useServer(transport);
    const cache = fixture.cache;

    test('add (duplicates count once), fetch, contains, length, remove', async () => {
      const { client } = fixture;
      await client.setAddElements(cache, 's1', ['a', 'b', 'a']);
      await client.setAddElements(cache, 's1', ['c', Uint8Array.of(0), '']);
      const fetched = await client.setFetch(cache, 's1');
      assert.deepEqual(sorted(fetched), ['', '\u0000', 'a', 'b', 'c']);
      assert.equal(fetched.size, 5);
      assert.ok(fetched.has('a') && fetched.has(Uint8Array.of(0)) && fetched.has(''), 'members are found by content');
      assert.equal(fetched.has('z'), false);
      assert.equal(await client.setLength(cache, 's1'), 5);
      assert.equal(await client.setContainsElement(cache, 's1', 'a'), true);
      assert.equal(await client.setContainsElement(cache, 's1', 'z'), false);
      assert.deepEqual(await client.setContainsElements(cache, 's1', ['z', 'b', '', 'a']), [false, true, true, true]);
      await client.setRemoveElements(cache, 's1', ['a', 'absent']);
      assert.deepEqual(sorted(await client.setFetch(cache, 's1')), ['', '\u0000', 'b', 'c']);
      assert.equal(await client.getType(cache, 's1'), 'set');
    });

    test('adding no elements changes nothing; removing the last one removes the set', async () => {
      const { client } = fixture;
      await client.setAddElements(cache, 's2', []);
      assert.equal(await client.getType(cache, 's2'), undefined);
      await client.setAddElements(cache, 's2', ['only']);
      await client.setRemoveElements(cache, 's2', ['only']);
      assert.equal(await client.getType(cache, 's2'), undefined);
    });

    test('a missing set reads as empty', async () => {
      const { client } = fixture;
      assert.equal((await client.setFetch(cache, 'nope')).size, 0);
      assert.equal(await client.setLength(cache, 'nope'), 0);
      assert.equal(await client.setContainsElement(cache, 'nope', 'a'), false);
      assert.deepEqual(await client.setContainsElements(cache, 'nope', ['a', 'b']), [false, false]);
      assert.deepEqual(await client.setPop(cache, 'nope'), []);
      assert.deepEqual(await client.setSample(cache, 'nope', 3), []);
      await client.setRemoveElements(cache, 'nope', ['a']);
    });

    test('setPop removes count elements at random (all when fewer), one by default', async () => {
      const { client } = fixture;
      const all = ['a', 'b', 'c', 'd', 'e'];
      await client.setAddElements(cache, 'pop', all);
      const one = await client.setPop(cache, 'pop');
      assert.equal(one.length, 1);
      const two = await client.setPop(cache, 'pop', 2);
      assert.equal(two.length, 2);
      const rest = await client.setFetch(cache, 'pop');
      assert.deepEqual([...decodeUtf8(one), ...decodeUtf8(two), ...decodeUtf8(rest)].sort(), all);
      assert.deepEqual(sorted(await client.setPop(cache, 'pop', 10)), sorted(rest));
      assert.equal(await client.getType(cache, 'pop'), undefined);
    });

    test('setSample answers up to limit distinct elements and leaves them', async () => {
      const { client } = fixture;
      const all = ['a', 'b', 'c', 'd', 'e'];
      await client.setAddElements(cache, 'sample', all);
      const three = decodeUtf8(await client.setSample(cache, 'sample', 3));
      assert.equal(new Set(three).size, 3);
      for (const element of three) assert.ok(all.includes(element), element);
      assert.deepEqual(sorted(await client.setSample(cache, 'sample', 50)), all);
      assert.deepEqual(await client.setSample(cache, 'sample', 0), []);
      assert.equal(await client.setLength(cache, 'sample'), 5);
    });

    test('collection TTL: adds take ttlMs; refreshTtl false keeps the TTL, true resets it', async () => {
      const { client } = fixture;
      await checkCollectionTtl(
        fixture,
        'ttl-set',
        (options) => client.setAddElements(cache, 'ttl-set', ['a'], options),
        (options) => client.setAddElements(cache, 'ttl-set', ['b'], options),
      );
      await client.setAddElements(cache, 'ttl-expire', ['a'], { ttlMs: 150 });
      await sleep(400);
      assert.equal(await client.setLength(cache, 'ttl-expire'), 0);
    });

    test('a set call on an item of another type rejects with WrongTypeError', async () => {
      const { client } = fixture;
      await client.set(cache, 'scalar', 'x');
      await client.dictionarySetField(cache, 'a-dict', 'f', 'v');
      const calls = [
        () => client.setAddElements(cache, 'scalar', ['a']),
        () => client.setRemoveElements(cache, 'a-dict', ['a']),
        () => client.setFetch(cache, 'scalar'),
        () => client.setContainsElement(cache, 'a-dict', 'a'),
        () => client.setContainsElements(cache, 'scalar', ['a']),
        () => client.setLength(cache, 'a-dict'),
        () => client.setPop(cache, 'scalar'),
        () => client.setSample(cache, 'a-dict', 1),
      ];
      for (const call of calls) await assert.rejects(call(), WrongTypeError);
    });

    test('limits: element size, elements per call, elements per set', async () => {
      const { client } = fixture;
      await assert.rejects(client.setAddElements(cache, 'big', ['x'.repeat(LIMITS.valueBytes + 1)]), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'element_size_limit_exceeded');
        return true;
      });
      const tooMany = Array.from({ length: LIMITS.requestItems + 1 }, (_u, i) => `e${i}`);
      await assert.rejects(client.setContainsElements(cache, 'big', tooMany), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'request_size_limit_exceeded');
        return true;
      });
      for (let start = 0; start < LIMITS.collectionElements; start += 10) {
        await client.setAddElements(cache, 'big', Array.from({ length: 10 }, (_u, i) => `e${start + i}`));
      }
      await assert.rejects(client.setAddElements(cache, 'big', ['one more']), LimitExceededError);
      assert.equal(await client.setLength(cache, 'big'), LIMITS.collectionElements);
    });

    test('bad arguments reject before the call', async () => {
      const { client } = fixture;
      await assert.rejects(client.setPop(cache, 's1', 0), InvalidArgumentError);
      await assert.rejects(client.setSample(cache, 's1', -1), InvalidArgumentError);
    });
  });
}
