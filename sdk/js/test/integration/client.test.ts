// Every call of CacheClient against a real jiffy-server, on each transport.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AlreadyExistsError,
  CacheClient,
  CacheNotFoundError,
  ConnectionError,
  InvalidArgumentError,
  LimitExceededError,
  WrongTypeError,
} from '../../src/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const MAX_VALUE_SIZE = 1024;

for (const transport of TRANSPORTS) {
  describe(`CacheClient over ${transport}`, () => {
    let server: RunningServer;
    let client: CacheClient;
    const cache = 'calls';

    before(async () => {
      server = await startServer(['--max-value-size', `${MAX_VALUE_SIZE}B`, '--max-caches', '3', '--max-ttl', '1h']);
      client = await CacheClient.create({ endpoint: server.endpoint, transport, channels: 2 });
      await client.createCache(cache);
    });

    after(async () => {
      client?.close();
      await server?.stop();
    });

    test('set then get; a miss is undefined', async () => {
      await client.set(cache, 'k', 'v');
      assert.equal(await client.getString(cache, 'k'), 'v');
      assert.deepEqual(await client.get(cache, 'k'), Buffer.from('v'));
      assert.equal(await client.get(cache, 'absent'), undefined);
      assert.equal(await client.getString(cache, 'absent'), undefined);
    });

    test('bytes keys and values round-trip', async () => {
      const key = Uint8Array.of(0, 255, 1);
      const value = Uint8Array.from({ length: 300 }, (_u, i) => i % 256);
      await client.set(cache, key, value);
      assert.deepEqual(new Uint8Array(await client.get(cache, key) ?? []), value);
    });

    test('delete', async () => {
      await client.set(cache, 'gone', 'x');
      await client.delete(cache, 'gone');
      assert.equal(await client.get(cache, 'gone'), undefined);
      await client.delete(cache, 'never-there');
    });

    test('setIf: the six conditions', async () => {
      await client.set(cache, 'c', 'one');
      assert.equal(await client.setIf(cache, 'c', 'two', { present: true }), true);
      assert.equal(await client.setIf(cache, 'c-missing', 'x', { present: true }), false);
      assert.equal(await client.setIf(cache, 'c', 'x', { absent: true }), false);
      assert.equal(await client.setIf(cache, 'c-new', 'x', { absent: true }), true);
      assert.equal(await client.setIf(cache, 'c', 'three', { equal: 'two' }), true);
      assert.equal(await client.setIf(cache, 'c', 'x', { equal: 'two' }), false);
      assert.equal(await client.setIf(cache, 'c', 'four', { notEqual: 'two' }), true);
      assert.equal(await client.setIf(cache, 'c', 'x', { notEqual: 'four' }), false);
      assert.equal(await client.setIf(cache, 'c', 'five', { presentAndNotEqual: 'two' }), true);
      assert.equal(await client.setIf(cache, 'c-missing', 'x', { presentAndNotEqual: 'two' }), false);
      assert.equal(await client.setIf(cache, 'c', 'six', { absentOrEqual: 'five' }), true);
      assert.equal(await client.setIf(cache, 'c-other', 'x', { absentOrEqual: 'zzz' }), true);
      assert.equal(await client.setIf(cache, 'c', 'x', { absentOrEqual: 'five' }), false);
      assert.equal(await client.getString(cache, 'c'), 'six');
    });

    test('setIfAbsent', async () => {
      assert.equal(await client.setIfAbsent(cache, 'once', 'first'), true);
      assert.equal(await client.setIfAbsent(cache, 'once', 'second'), false);
      assert.equal(await client.getString(cache, 'once'), 'first');
    });

    test('increment creates, adds, and rejects a non-integer with WrongTypeError', async () => {
      assert.equal(await client.increment(cache, 'n'), 1);
      assert.equal(await client.increment(cache, 'n', 41), 42);
      assert.equal(await client.increment(cache, 'n', -2), 40);
      await client.set(cache, 'text', 'abc');
      await assert.rejects(client.increment(cache, 'text'), WrongTypeError);
    });

    test('increment past 2^53: exact as a bigint, refused (not rounded) as a number', async () => {
      const big = 2n ** 60n;
      assert.equal(await client.increment(cache, 'big', big), big);
      assert.equal(await client.increment(cache, 'big', 1n), big + 1n);
      await assert.rejects(client.increment(cache, 'big', 1), (error: unknown) => {
        assert.ok(error instanceof InvalidArgumentError);
        assert.match(error.message, new RegExp(`stored ${big + 2n}.*bigint`));
        return true;
      });
      await assert.rejects(client.increment(cache, 'big', 2n ** 64n), InvalidArgumentError);
    });

    test('misuse is an InvalidArgumentError and changes nothing', async () => {
      await client.set(cache, 'misuse', 'kept');
      const misuse: Array<[string, () => Promise<unknown>, RegExp]> = [
        ['null value', () => client.set(cache, 'misuse', null as unknown as string), /got null/],
        ['undefined value', () => client.set(cache, 'misuse', undefined as unknown as string), /got undefined/],
        ['number value', () => client.set(cache, 'misuse', 42 as unknown as string), /got 42 \(a number\)/],
        ['object key', () => client.set(cache, {} as unknown as string, 'v'), /got an instance of Object/],
        ['string TTL', () => client.set(cache, 'misuse', 'v', { ttlMs: '30' as unknown as number }), /`ttlMs` is a number of milliseconds; got '30'/],
        ['TTL 0', () => client.set(cache, 'misuse', 'v', { ttlMs: 0 }), /at least 1 ms/],
        ['fractional amount', () => client.increment(cache, 'misuse-n', 1.5), /safe integer/],
      ];
      for (const [what, call, message] of misuse) {
        await assert.rejects(call(), (error: unknown) => {
          assert.ok(error instanceof InvalidArgumentError, what);
          assert.match(error.message, message, what);
          return true;
        });
      }
      assert.equal(await client.getString(cache, 'misuse'), 'kept');
      assert.equal(await client.get(cache, 'misuse-n'), undefined);
    });

    test('keysExist', async () => {
      await client.set(cache, 'e1', 'x');
      assert.deepEqual(await client.keysExist(cache, ['e1', 'e2', 'e1']), [true, false, true]);
    });

    test('getTtl, updateTtl, getType', async () => {
      await client.set(cache, 't', 'x', { ttlMs: 60_000 });
      const left = await client.getTtl(cache, 't');
      assert.ok(left !== undefined && left > 50_000 && left <= 60_000, `ttl left ${left}`);
      assert.equal(await client.updateTtl(cache, 't', 120_000, 'increase'), true);
      assert.equal(await client.updateTtl(cache, 't', 200_000, 'decrease'), false);
      assert.equal(await client.updateTtl(cache, 't', 5_000), true);
      assert.ok((await client.getTtl(cache, 't'))! <= 5_000);
      assert.equal(await client.updateTtl(cache, 'absent', 5_000), false);
      assert.equal(await client.getTtl(cache, 'absent'), undefined);
      assert.equal(await client.getType(cache, 't'), 'scalar');
      assert.equal(await client.getType(cache, 'absent'), undefined);
    });

    test('items expire after their TTL', async () => {
      await client.set(cache, 'short', 'x', { ttlMs: 150 });
      assert.equal(await client.getString(cache, 'short'), 'x');
      await sleep(400);
      assert.equal(await client.get(cache, 'short'), undefined);
    });

    test('getMany and setMany', async () => {
      await client.setMany(cache, { m1: 'a', m2: 'b' });
      await client.setMany(cache, [[Uint8Array.of(9), 'c']]);
      const values = await client.getMany(cache, ['m1', 'missing', 'm2', Uint8Array.of(9)]);
      assert.deepEqual(values.map((v) => (v === undefined ? undefined : Buffer.from(v).toString())), ['a', undefined, 'b', 'c']);
    });

    test('createCache, listCaches, flushCache, deleteCache', async () => {
      await client.createCache('second');
      await assert.rejects(client.createCache('second'), AlreadyExistsError);
      assert.deepEqual((await client.listCaches()).sort(), ['calls', 'second']);
      await client.set('second', 'k', 'v');
      await client.flushCache('second');
      assert.equal(await client.get('second', 'k'), undefined);
      await client.deleteCache('second');
      await assert.rejects(client.deleteCache('second'), CacheNotFoundError);
      await assert.rejects(client.flushCache('second'), CacheNotFoundError);
      assert.deepEqual(await client.listCaches(), ['calls']);
    });

    test('ping', async () => {
      await client.ping();
    });

    test('an unknown cache rejects with CacheNotFoundError', async () => {
      await assert.rejects(client.get('no-such-cache', 'k'), CacheNotFoundError);
      await assert.rejects(client.set('no-such-cache', 'k', 'v'), CacheNotFoundError);
    });

    test('a value over the server limit rejects with LimitExceededError and its reason', async () => {
      await assert.rejects(client.set(cache, 'big', new Uint8Array(MAX_VALUE_SIZE + 1)), (err: unknown) => {
        assert.ok(err instanceof LimitExceededError);
        assert.equal(err.reason, 'item_size_limit_exceeded');
        assert.match(err.message, /--max-value-size/);
        return true;
      });
    });

    test('too many caches rejects with LimitExceededError', async () => {
      await client.createCache('extra-1');
      await client.createCache('extra-2');
      await assert.rejects(client.createCache('extra-3'), LimitExceededError);
      await client.deleteCache('extra-1');
      await client.deleteCache('extra-2');
    });

    test('a TTL over the maximum or an oversized key rejects with InvalidArgumentError', async () => {
      await assert.rejects(client.set(cache, 'k', 'v', { ttlMs: 2 * 3600_000 }), InvalidArgumentError);
      await assert.rejects(client.set(cache, 'x'.repeat(5000), 'v'), InvalidArgumentError);
      await assert.rejects(client.set(cache, 'k', 'v', { ttlMs: 0 }), InvalidArgumentError);
    });

    test('a server that is not there: create rejects with ConnectionError', async () => {
      // Port 1 on loopback: nothing listens there, so the connection is refused
      // at once. A port freed by a stopped server could be taken meanwhile by a
      // listener of a test running beside this one.
      const endpoint = '127.0.0.1:1';
      await assert.rejects(
        CacheClient.create({ endpoint, transport, eagerConnectTimeoutMs: 500 }),
        (err: unknown) => err instanceof ConnectionError && /connection refused/.test(err.message),
      );
    });

    test('after close, calls reject with ConnectionError', async () => {
      const other = await CacheClient.create({ endpoint: server.endpoint, transport });
      other.close();
      await assert.rejects(other.get(cache, 'k'), ConnectionError);
    });
  });
}
