// publish and subscribe against a real jiffy-server, on both transports.
// Broken streams come from a TCP forwarder between the client and the
// server (cut() drops its connections, freeze() holds their bytes) and from
// the server's stream fault injection, so the server and its topics live on
// while the client's stream dies.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type Server, type Socket, createConnection, createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CacheClient,
  CacheNotFoundError,
  ConnectionError,
  type CacheClientOptions,
  type ChannelFactory,
  type TopicItem,
  type TopicMessage,
  type TopicSubscription,
} from '../../src/index.js';
import type { TransportName } from '../../src/config.js';
import { channelFactoryFor } from '../../src/transport/index.js';
import { withExtraHeaders } from '../../src/transport/extra-headers.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const CACHE = 'topics';
const RETRY = { maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 100 };
// Heartbeats every 200 ms; a 5-message buffer, so a discontinuity is easy to make.
const SERVER_FLAGS = ['--enable-fault-injection', '--topic-heartbeat-interval', '200ms', '--topic-buffer-messages', '5'];

/** Forwards TCP connections to the server; cut() and freeze() break them. */
class Forwarder {
  connections = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private frozen = false;

  constructor(private readonly port: number) {
    this.server = createServer((client) => {
      this.connections += 1;
      const upstream = createConnection(this.port, '127.0.0.1');
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(from);
        from.on('data', (chunk) => {
          if (this.frozen) from.pause();
          to.write(chunk);
        });
        from.on('error', () => to.destroy());
        from.on('close', () => {
          this.sockets.delete(from);
          to.destroy();
        });
      }
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    assert.ok(address !== null && typeof address === 'object');
    return `127.0.0.1:${address.port}`;
  }

  /** Drops every connection at once (RST), as a failed network would. */
  cut(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  /** Holds the bytes of every connection from now on: they stay up, silent. */
  freeze(): void {
    this.frozen = true;
    for (const socket of this.sockets) socket.pause();
  }

  thaw(): void {
    this.frozen = false;
    for (const socket of this.sockets) socket.resume();
  }

  stop(): void {
    this.cut();
    this.server.close();
  }
}

/** The transport's channels, with `headers` (and a request-id of their own) added to every call and stream. */
async function withHeaders(transport: TransportName, headers: Record<string, string>): Promise<ChannelFactory> {
  const extra = Object.freeze({ 'request-id': randomUUID(), ...headers });
  return withExtraHeaders(await channelFactoryFor(transport), () => extra);
}

/** The next `count` items, which must all be messages, within 10 s. */
async function take(subscription: TopicSubscription, count: number): Promise<TopicMessage[]> {
  const iterator = subscription[Symbol.asyncIterator]();
  const messages: TopicMessage[] = [];
  const giveUp = sleep(10_000, undefined, { ref: false }).then(() => 'timeout' as const);
  while (messages.length < count) {
    const next = await Promise.race([iterator.next(), giveUp]);
    assert.notEqual(next, 'timeout', `only ${messages.length} of ${count} messages within 10 s`);
    const result = next as IteratorResult<TopicItem>;
    assert.equal(result.done, false, `the subscription ended after ${messages.length} of ${count} messages`);
    assert.equal(result.value.kind, 'message', JSON.stringify(result.value));
    messages.push(result.value);
  }
  return messages;
}

async function nextItem(subscription: TopicSubscription): Promise<TopicItem> {
  const result = await subscription[Symbol.asyncIterator]().next();
  assert.equal(result.done, false);
  return result.value;
}

for (const transport of TRANSPORTS) {
  describe(`topics over ${transport}`, () => {
    let server: RunningServer;
    let publisher: CacheClient;

    const client = (options: CacheClientOptions = {}): Promise<CacheClient> =>
      CacheClient.create({ endpoint: server.endpoint, transport, retry: RETRY, ...options });

    async function noSubscribersLeft(what: string): Promise<void> {
      for (let waited = 0; (await server.metric('jiffy_topic_subscribers')) !== 0; waited += 50) {
        assert.ok(waited < 10_000, `the server still counts subscribers after ${what}`);
        await sleep(50);
      }
    }

    before(async () => {
      server = await startServer(SERVER_FLAGS);
      publisher = await client();
      await publisher.createCache(CACHE);
    });

    after(async () => {
      publisher?.close();
      await server?.stop();
    });

    test('strings and bytes arrive as published, numbered in order', async () => {
      const subscription = await publisher.subscribe(CACHE, 'values');
      await publisher.publish(CACHE, 'values', 'héllo');
      await publisher.publish(CACHE, 'values', new Uint8Array([0, 255]));
      const [text, binary] = await take(subscription, 2);
      subscription.close();
      assert.equal(text!.value, 'héllo');
      assert.deepEqual([...(binary!.value as Uint8Array)], [0, 255]);
      assert.equal(binary!.sequenceNumber, text!.sequenceNumber + 1);
      assert.ok(text!.sequencePage > 0 && binary!.sequencePage === text!.sequencePage);
      assert.equal(text!.publisherId, '');
    });

    test('two subscribers see the same numbered messages', async () => {
      const first = await publisher.subscribe(CACHE, 'pair');
      const second = await publisher.subscribe(CACHE, 'pair');
      for (let n = 0; n < 5; n += 1) await publisher.publish(CACHE, 'pair', `m${n}`);
      const [one, two] = await Promise.all([take(first, 5), take(second, 5)]);
      first.close();
      second.close();
      assert.deepEqual(one, two);
      assert.deepEqual(
        one.map((m) => m.value),
        ['m0', 'm1', 'm2', 'm3', 'm4'],
      );
    });

    test('a cut connection resumes just after the last message', async () => {
      const forwarder = new Forwarder(server.port);
      const subscriber = await client({ endpoint: await forwarder.start() });
      try {
        const subscription = await subscriber.subscribe(CACHE, 'cut');
        await publisher.publish(CACHE, 'cut', 'before');
        const [first] = await take(subscription, 1);
        forwarder.cut();
        for (let n = 0; n < 3; n += 1) await publisher.publish(CACHE, 'cut', `during ${n}`);
        const later = await take(subscription, 3);
        assert.deepEqual(
          later.map((m) => m.value),
          ['during 0', 'during 1', 'during 2'],
        );
        assert.equal(later[0]!.sequenceNumber, first!.sequenceNumber + 1);
        assert.ok(subscription.reconnects >= 1 && forwarder.connections >= 2);
      } finally {
        subscriber.close();
        forwarder.stop();
      }
    });

    test('a stream broken again and again loses and repeats nothing', async () => {
      // Every Subscribe stream ends UNAVAILABLE after 3 messages (heartbeats count).
      const faults = { 'stream-error': 'unavailable', 'stream-error-message-limit': '3' };
      const subscriber = await client({ channelFactory: await withHeaders(transport, faults) });
      try {
        const subscription = await subscriber.subscribe(CACHE, 'faulty');
        const expected: string[] = [];
        const reading = take(subscription, 5);
        for (let n = 0; n < 5; n += 1) {
          expected.push(String(n));
          await publisher.publish(CACHE, 'faulty', String(n));
          await sleep(20); // within the 5-message buffer of each resume
        }
        assert.deepEqual(
          (await reading).map((m) => m.value),
          expected,
        );
        assert.ok(subscription.reconnects >= 2, `${subscription.reconnects} reconnects`);
      } finally {
        subscriber.close();
      }
    });

    test('a silent stream is taken for dead and opened again', async () => {
      const forwarder = new Forwarder(server.port);
      const subscriber = await client({ endpoint: await forwarder.start() });
      try {
        // Heartbeats come every 200 ms: 1 s of silence means the stream is dead.
        const subscription = await subscriber.subscribe(CACHE, 'silent', { idleTimeoutMs: 1_000 });
        forwarder.freeze();
        await publisher.publish(CACHE, 'silent', 'while frozen');
        await sleep(1_500);
        forwarder.thaw();
        const [message] = await take(subscription, 1);
        assert.equal(message!.value, 'while frozen');
        assert.ok(subscription.reconnects >= 1);
      } finally {
        subscriber.close();
        forwarder.stop();
      }
    });

    test('discontinuities are items: a resume point the topic dropped, and a flush', async () => {
      const cache = `gaps-${transport}`;
      await publisher.createCache(cache);
      for (let n = 1; n <= 20; n += 1) await publisher.publish(cache, 'gaps', String(n));
      const subscription = await publisher.subscribe(cache, 'gaps', { resumeAt: 2 });
      // Message 2 has left the 5-message buffer: a gap, then the oldest held (16).
      const gap = await nextItem(subscription);
      assert.equal(gap.kind, 'discontinuity');
      assert.deepEqual([gap.kind === 'discontinuity' && gap.lastSequenceNumber, gap.kind === 'discontinuity' && gap.newSequenceNumber], [1, 15]);
      const held = await take(subscription, 5);
      assert.deepEqual(
        held.map((m) => [m.value, m.sequenceNumber]),
        [16, 17, 18, 19, 20].map((n) => [String(n), n]),
      );
      const oldest = held[0];
      await publisher.flushCache(cache);
      await publisher.publish(cache, 'gaps', 'fresh');
      const restart = await nextItem(subscription);
      assert.ok(restart.kind === 'discontinuity' && restart.newSequencePage > oldest!.sequencePage);
      const [fresh] = await take(subscription, 1);
      assert.deepEqual([fresh!.value, fresh!.sequenceNumber, fresh!.sequencePage], ['fresh', 1, restart.newSequencePage]);
      subscription.close();
      await publisher.deleteCache(cache);
    });

    test('a missing cache rejects with CacheNotFoundError; deleting one ends its subscriptions so', async () => {
      await assert.rejects(publisher.publish('no-such-cache', 't', 'v'), CacheNotFoundError);
      await assert.rejects(publisher.subscribe('no-such-cache', 't'), CacheNotFoundError);
      const cache = `doomed-${transport}`;
      await publisher.createCache(cache);
      const subscription = await publisher.subscribe(cache, 't');
      await publisher.deleteCache(cache);
      await assert.rejects(subscription[Symbol.asyncIterator]().next(), CacheNotFoundError);
      assert.ok(subscription.closed);
    });

    test('callbacks: onItem for messages, onError when the subscription ends', async () => {
      const cache = `callbacks-${transport}`;
      await publisher.createCache(cache);
      const values: unknown[] = [];
      const failed = new Promise<Error>((resolve) => {
        void publisher.subscribe(cache, 't', { onItem: (message) => values.push(message.value), onError: resolve });
      });
      await sleep(100);
      await publisher.publish(cache, 't', 'a');
      await publisher.publish(cache, 't', 'b');
      for (let waited = 0; values.length < 2 && waited < 5_000; waited += 20) await sleep(20);
      await publisher.deleteCache(cache);
      assert.equal((await failed).name, 'CacheNotFoundError');
      assert.deepEqual(values, ['a', 'b']);
    });

    test('break, close(), an AbortSignal and the client closing each end it on the server too', async () => {
      await noSubscribersLeft('the tests before');
      const broken = await publisher.subscribe(CACHE, 'stop');
      await publisher.publish(CACHE, 'stop', 'x');
      for await (const item of broken) {
        assert.equal(item.kind, 'message');
        break;
      }
      await noSubscribersLeft('break');
      // Other topics from here on: a new subscription to 'stop' would start with its newest message, 'x'.

      (await publisher.subscribe(CACHE, 'stop-close')).close();
      await noSubscribersLeft('close()');

      const controller = new AbortController();
      const aborted = await publisher.subscribe(CACHE, 'stop-abort', { signal: controller.signal });
      const waiting = aborted[Symbol.asyncIterator]().next();
      controller.abort();
      assert.deepEqual(await waiting, { done: true, value: undefined });
      await noSubscribersLeft('abort');

      const own = await client();
      const subscription = await own.subscribe(CACHE, 'stop-client');
      const pending = subscription[Symbol.asyncIterator]().next();
      own.close();
      assert.deepEqual(await pending, { done: true, value: undefined });
      await noSubscribersLeft("the client's close()");
      await assert.rejects(own.subscribe(CACHE, 'stop'), ConnectionError);
    });

    test('publish is never retried', async () => {
      const before = (await server.metric('jiffy_request_duration_seconds_count{rpc="Publish",transport="grpc"}')) ?? 0;
      const faults = { 'return-error': 'unavailable', 'error-rpcs': 'publish', 'error-count': '1' };
      const faulty = await client({ channelFactory: await withHeaders(transport, faults) });
      try {
        const subscription = await publisher.subscribe(CACHE, 'once');
        await assert.rejects(faulty.publish(CACHE, 'once', 'lost'), ConnectionError);
        const after = (await server.metric('jiffy_request_duration_seconds_count{rpc="Publish",transport="grpc"}')) ?? 0;
        assert.equal(after - before, 1);
        await faulty.publish(CACHE, 'once', 'sent');
        const [message] = await take(subscription, 1);
        assert.equal(message!.value, 'sent');
        subscription.close();
      } finally {
        faulty.close();
      }
    });
  });
}
