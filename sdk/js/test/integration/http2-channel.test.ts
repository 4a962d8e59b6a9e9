// The node:http2 channel alone (no client, pool or retries) against a real
// jiffy-server: unary calls, a server stream, error trailers, the deadline,
// and a restart of the server on the same port.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import * as scs from '../../src/gen/cacheclient_pb.js';
import { _CreateCacheRequestSchema } from '../../src/gen/controlclient_pb.js';
import { StatusError, type Channel } from '../../src/transport/channel.js';
import { createHttp2Channel } from '../../src/transport/http2-channel.js';
import { Code } from '../../src/transport/http2-status.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';

const CACHE = 'h2';
const metadata = { cache: CACHE, authorization: '' };
const within = (ms: number) => ({ deadline: Date.now() + ms, metadata });

function encode<S extends DescMessage>(schema: S, init: MessageInitShape<S>): Uint8Array {
  return toBinary(schema, create(schema, init));
}

const set = (key: string, value: Uint8Array) =>
  encode(scs._SetRequestSchema, { cacheKey: Buffer.from(key), cacheBody: value, ttlMilliseconds: 60_000n });
const get = (key: string) => encode(scs._GetRequestSchema, { cacheKey: Buffer.from(key) });

async function statusOf(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof StatusError);
    return error;
  }
  assert.fail('the call should have failed');
}

describe('http2 channel against jiffy-server', () => {
  let server: RunningServer;
  let channel: Channel;

  before(async () => {
    server = await startServer();
    channel = createHttp2Channel({
      host: server.host,
      port: server.port,
      keepaliveTimeMs: 1_000,
      keepaliveTimeoutMs: 1_000,
      maxReceiveMessageBytes: 8 << 20,
    });
    await channel.connect(Date.now() + 5_000);
    await channel.unary('/control_client.ScsControl/CreateCache', encode(_CreateCacheRequestSchema, { cacheName: CACHE }), within(5_000));
  });

  after(async () => {
    channel?.close();
    await server?.stop();
  });

  test('set then get: hit with the value, and a miss', async () => {
    const stored = fromBinary(scs._SetResponseSchema, await channel.unary('/cache_client.Scs/Set', set('k', Buffer.from('v1')), within(5_000)));
    assert.equal(stored.result, scs.ECacheResult.Ok);
    const hit = fromBinary(scs._GetResponseSchema, await channel.unary('/cache_client.Scs/Get', get('k'), within(5_000)));
    assert.equal(hit.result, scs.ECacheResult.Hit);
    assert.equal(Buffer.from(hit.cacheBody).toString(), 'v1');
    const miss = fromBinary(scs._GetResponseSchema, await channel.unary('/cache_client.Scs/Get', get('absent'), within(5_000)));
    assert.equal(miss.result, scs.ECacheResult.Miss);
  });

  test('a value of 1 MiB travels both ways (many DATA frames)', async () => {
    const value = Buffer.alloc(1 << 20, 0x5a);
    await channel.unary('/cache_client.Scs/Set', set('big', value), within(10_000));
    const hit = fromBinary(scs._GetResponseSchema, await channel.unary('/cache_client.Scs/Get', get('big'), within(10_000)));
    assert.ok(Buffer.from(hit.cacheBody).equals(value));
  });

  test('GetBatch streams one response per key, in order', async () => {
    await channel.unary('/cache_client.Scs/Set', set('b1', Buffer.from('one')), within(5_000));
    await channel.unary('/cache_client.Scs/Set', set('b3', Buffer.from('three')), within(5_000));
    const keys = ['b1', 'b2', 'b3'];
    const request = encode(scs._GetBatchRequestSchema, { items: keys.map((k) => ({ cacheKey: Buffer.from(k) })) });
    const messages = await channel.serverStream('/cache_client.Scs/GetBatch', request, within(5_000));
    const responses = messages.map((m) => fromBinary(scs._GetResponseSchema, m));
    assert.deepEqual(
      responses.map((r) => [r.result, Buffer.from(r.cacheBody).toString()]),
      [
        [scs.ECacheResult.Hit, 'one'],
        [scs.ECacheResult.Miss, ''],
        [scs.ECacheResult.Hit, 'three'],
      ],
    );
  });

  test('more calls at once than the server allows streams (100) queue instead of failing', async () => {
    const calls = Array.from({ length: 250 }, (_, i) => channel.unary('/cache_client.Scs/Get', get(`q${i}`), within(10_000)));
    const answers = await Promise.all(calls);
    assert.equal(answers.filter((a) => fromBinary(scs._GetResponseSchema, a).result === scs.ECacheResult.Miss).length, 250);
  });

  test('a value over the size limit: RESOURCE_EXHAUSTED with err item_size_limit_exceeded', async () => {
    const error = await statusOf(channel.unary('/cache_client.Scs/Set', set('huge', Buffer.alloc((5 << 20) + 1)), within(10_000)));
    assert.equal(error.code, Code.RESOURCE_EXHAUSTED);
    assert.equal(error.trailers.err, 'item_size_limit_exceeded');
    assert.match(error.details, /max-value-size/);
  });

  test('an unknown cache: NOT_FOUND; a response over maxReceiveMessageBytes: RESOURCE_EXHAUSTED', async () => {
    const missing = await statusOf(channel.unary('/cache_client.Scs/Get', get('k'), { deadline: Date.now() + 5_000, metadata: { cache: 'nope' } }));
    assert.equal(missing.code, Code.NOT_FOUND);
    const small = createHttp2Channel({ host: server.host, port: server.port, keepaliveTimeMs: 0, keepaliveTimeoutMs: 0, maxReceiveMessageBytes: 1_000 });
    try {
      const error = await statusOf(small.unary('/cache_client.Scs/Get', get('big'), within(5_000)));
      assert.equal(error.code, Code.RESOURCE_EXHAUSTED);
    } finally {
      small.close();
    }
  });

  test('a deadline already spent fails locally with DEADLINE_EXCEEDED', async () => {
    const error = await statusOf(channel.unary('/cache_client.Scs/Get', get('k'), { deadline: Date.now() - 1, metadata }));
    assert.equal(error.code, Code.DEADLINE_EXCEEDED);
  });

  test('a server restart on the same port: UNAVAILABLE while down, then the same channel works', async () => {
    await server.stop();
    const down = await statusOf(channel.unary('/cache_client.Scs/Get', get('k'), within(2_000)));
    assert.equal(down.code, Code.UNAVAILABLE);
    await server.restart();
    const create = encode(_CreateCacheRequestSchema, { cacheName: CACHE });
    for (let attempt = 0; ; attempt++) {
      try {
        await channel.unary('/control_client.ScsControl/CreateCache', create, within(2_000));
        break;
      } catch (error) {
        if (!(error instanceof StatusError) || error.code !== Code.UNAVAILABLE || attempt > 100) throw error;
        await sleep(50);
      }
    }
    await channel.unary('/cache_client.Scs/Set', set('k', Buffer.from('after')), within(5_000));
    const hit = fromBinary(scs._GetResponseSchema, await channel.unary('/cache_client.Scs/Get', get('k'), within(5_000)));
    assert.equal(Buffer.from(hit.cacheBody).toString(), 'after');
    assert.ok(channel.isConnected());
  });
});
