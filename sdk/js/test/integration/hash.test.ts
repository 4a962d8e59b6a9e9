// getWithHash and setIfHash against a real jiffy-server, on each transport.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { LimitExceededError, type SetIfHashCondition, WrongTypeError } from '../../src/index.js';
import { LIMITS, text, useServer } from '../support/collection-fixture.js';
import { TRANSPORTS } from '../support/transports.js';

/** jiffy-server's hash of a value: SHA-1 as 40 lowercase hex bytes (README, "What it answers"). */
const sha1Hex = (value: string): string => createHash('sha1').update(value).digest('hex');

for (const transport of TRANSPORTS) {
  describe(`hash calls over ${transport}`, () => {
    const fixture = useServer(transport);
    const cache = fixture.cache;

    test('getWithHash: the value and its hash, undefined on a miss', async () => {
      const { client } = fixture;
      await client.set(cache, 'h1', 'hello');
      const found = await client.getWithHash(cache, 'h1');
      assert.ok(found !== undefined);
      assert.equal(text(found.value), 'hello');
      assert.ok(found.hash instanceof Uint8Array);
      assert.equal(text(found.hash), sha1Hex('hello'));
      assert.equal(await client.getWithHash(cache, 'absent'), undefined);
    });

    test('setIfHash: each condition, held and not held', async () => {
      const { client } = fixture;
      const hashOf = async (key: string): Promise<Uint8Array> => (await client.getWithHash(cache, key))!.hash;
      await client.set(cache, 'h2', 'one');
      const one = await hashOf('h2');
      const other = sha1Hex('something else');
      const cases: [string, SetIfHashCondition, boolean][] = [
        ['h2', { presentAndHashEqual: one }, true], // h2 becomes 'v'
        ['h2', { presentAndHashEqual: one }, false], // no longer 'one'
        ['absent-1', { presentAndHashEqual: one }, false],
        ['h2', { presentAndNotHashEqual: other }, true],
        ['h2', { presentAndNotHashEqual: sha1Hex('v') }, false],
        ['absent-2', { presentAndNotHashEqual: other }, false],
        ['absent-3', { absentOrHashEqual: other }, true],
        ['h2', { absentOrHashEqual: sha1Hex('v') }, true],
        ['h2', { absentOrHashEqual: other }, false],
        ['absent-4', { absentOrNotHashEqual: other }, true],
        ['h2', { absentOrNotHashEqual: other }, true],
        ['h2', { absentOrNotHashEqual: sha1Hex('v') }, false],
        ['h2', { unconditional: true }, true],
        ['absent-5', { unconditional: true }, true],
      ];
      for (const [key, condition, stored] of cases) {
        assert.equal(await client.setIfHash(cache, key, 'v', condition), stored, `${key} ${JSON.stringify(condition)}`);
        if (stored) assert.equal(await client.getString(cache, key), 'v');
      }
      assert.equal(await client.get(cache, 'absent-1'), undefined);
      assert.equal(await client.get(cache, 'absent-2'), undefined);
    });

    test('setIfHash takes ttlMs, or the default TTL', async () => {
      const { client } = fixture;
      assert.equal(await client.setIfHash(cache, 'h3', 'v', { unconditional: true }, { ttlMs: 5_000 }), true);
      const left = await client.getTtl(cache, 'h3');
      assert.ok(left !== undefined && left <= 5_000, `ttl ${left}`);
      assert.equal(await client.setIfHash(cache, 'h3', 'v', { unconditional: true }), true);
      assert.ok((await client.getTtl(cache, 'h3'))! > 5_000);
    });

    test('on a collection: reads and conditional writes reject with WrongTypeError', async () => {
      const { client } = fixture;
      await client.listPushBack(cache, 'h-list', 'v');
      await assert.rejects(client.getWithHash(cache, 'h-list'), WrongTypeError);
      await assert.rejects(client.setIfHash(cache, 'h-list', 'x', { presentAndHashEqual: sha1Hex('v') }), WrongTypeError);
      assert.equal(await client.listLength(cache, 'h-list'), 1);
    });

    test('a value over --max-value-size is refused and leaves the old one', async () => {
      const { client } = fixture;
      await client.set(cache, 'h4', 'kept');
      await assert.rejects(client.setIfHash(cache, 'h4', 'x'.repeat(LIMITS.valueBytes + 1), { unconditional: true }), LimitExceededError);
      assert.equal(await client.getString(cache, 'h4'), 'kept');
    });
  });
}
