// Retries over a real connection: a tiny HTTP/2 server that answers every
// gRPC call with UNAVAILABLE and counts the attempts per method.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CacheClient, ConnectionError } from '../../src/index.js';
import { TRANSPORTS } from '../support/transports.js';

const MAX_ATTEMPTS = 4;

describe('retries', () => {
  let server: Http2Server;
  let endpoint: string;
  const attempts = new Map<string, number>();

  before(async () => {
    server = createServer();
    server.on('stream', (stream, headers) => {
      const path = String(headers[':path']);
      attempts.set(path, (attempts.get(path) ?? 0) + 1);
      stream.on('error', () => {});
      stream.resume();
      // A trailers-only response: the status travels in the headers.
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14', 'grpc-message': 'try later' },
        { endStream: true },
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.close();
  });

  for (const transport of TRANSPORTS) {
    test(`${transport}: Get is sent maxAttempts times, Increment, SetIf, SetIfNotExists and UpdateTtl once; collection calls as sdk/spec.json says`, async () => {
      attempts.clear();
      const client = await CacheClient.create({
        endpoint,
        transport,
        channels: 1,
        retry: { maxAttempts: MAX_ATTEMPTS, initialBackoffMs: 1, maxBackoffMs: 5 },
        // Every attempt of the calls is counted: no Ping asking for protosocket.
        protosocketEndpoint: null,
      });
      try {
        await assert.rejects(client.get('c', 'k'), ConnectionError);
        await assert.rejects(client.set('c', 'k', 'v'), ConnectionError);
        await assert.rejects(client.increment('c', 'k'), ConnectionError);
        await assert.rejects(client.setIf('c', 'k', 'v', { absent: true }), ConnectionError);
        await assert.rejects(client.setIfAbsent('c', 'k', 'v'), ConnectionError);
        await assert.rejects(client.updateTtl('c', 'k', 1000), ConnectionError);
        await assert.rejects(client.getMany('c', ['k']), ConnectionError);
        // Collections: reads and repeatable writes are retried, the rest not (sdk/spec.json).
        await assert.rejects(client.listFetch('c', 'l'), ConnectionError);
        await assert.rejects(client.listPushBack('c', 'l', 'v'), ConnectionError);
        await assert.rejects(client.dictionarySetField('c', 'd', 'f', 'v'), ConnectionError);
        await assert.rejects(client.dictionaryIncrement('c', 'd', 'f'), ConnectionError);
        await assert.rejects(client.sortedSetPutElement('c', 'z', 'v', 1), ConnectionError);
        await assert.rejects(client.sortedSetUnionStore('c', 'z', { a: 1 }), ConnectionError);
        await assert.rejects(client.getWithHash('c', 'k'), ConnectionError);
        await assert.rejects(client.setIfHash('c', 'k', 'v', { unconditional: true }), ConnectionError);
      } finally {
        client.close();
      }
      assert.deepEqual(Object.fromEntries(attempts), {
        '/cache_client.Scs/Get': MAX_ATTEMPTS,
        '/cache_client.Scs/Set': MAX_ATTEMPTS,
        '/cache_client.Scs/Increment': 1,
        '/cache_client.Scs/SetIf': 1,
        '/cache_client.Scs/SetIfNotExists': 1,
        '/cache_client.Scs/UpdateTtl': 1,
        '/cache_client.Scs/GetBatch': MAX_ATTEMPTS,
        '/cache_client.Scs/ListFetch': MAX_ATTEMPTS,
        '/cache_client.Scs/ListPushBack': 1,
        '/cache_client.Scs/DictionarySet': MAX_ATTEMPTS,
        '/cache_client.Scs/DictionaryIncrement': 1,
        '/cache_client.Scs/SortedSetPut': MAX_ATTEMPTS,
        '/cache_client.Scs/SortedSetUnionStore': 1,
        '/cache_client.Scs/GetWithHash': MAX_ATTEMPTS,
        '/cache_client.Scs/SetIfHash': 1,
      });
    });
  }
});
