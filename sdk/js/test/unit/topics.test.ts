// The subscription's own logic against a scripted channel: where it resumes
// after a broken stream, which failures end it, heartbeats, the idle limit,
// back-pressure, and the ways it stops. The same against a real server is
// test/integration/topics.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { CacheClient, CacheNotFoundError, ConnectionError, InvalidArgumentError, TimeoutError, positionAfter } from '../../src/index.js';
import type { TopicItem, TopicSubscription } from '../../src/index.js';
import { _SubscriptionItemSchema, _SubscriptionRequestSchema } from '../../src/gen/cachepubsub_pb.js';
import { Status } from '../../src/status.js';
import { StatusError } from '../../src/transport/channel.js';
import { type FakeStream, fakeFactory } from '../support/fake-channel.js';

type ItemInit = MessageInitShape<typeof _SubscriptionItemSchema>;

const heartbeat = (): Uint8Array => toBinary(_SubscriptionItemSchema, create(_SubscriptionItemSchema, { kind: { case: 'heartbeat', value: {} } }));

function item(sequence: number, value: string | Uint8Array, page = 7): Uint8Array {
  const kind = typeof value === 'string' ? { case: 'text' as const, value } : { case: 'binary' as const, value };
  const init: ItemInit = {
    kind: {
      case: 'item',
      value: { topicSequenceNumber: BigInt(sequence), sequencePage: BigInt(page), value: { kind }, publisherId: 'p' },
    },
  };
  return toBinary(_SubscriptionItemSchema, create(_SubscriptionItemSchema, init));
}

function gap(last: number, next: number, page: number): Uint8Array {
  const init: ItemInit = {
    kind: {
      case: 'discontinuity',
      value: { lastTopicSequence: BigInt(last), newTopicSequence: BigInt(next), newSequencePage: BigInt(page) },
    },
  };
  return toBinary(_SubscriptionItemSchema, create(_SubscriptionItemSchema, init));
}

interface Opened {
  resumeAt: number;
  page: number;
}

/**
 * A client over one fake channel. Each Subscribe is answered by `open` (by
 * default a heartbeat); `opened` records where each asked to resume.
 */
async function setup(open: (attempt: number) => Promise<Uint8Array> = () => Promise.resolve(heartbeat()), idleOptions = {}) {
  const opened: Opened[] = [];
  const factory = fakeFactory((path, request) => {
    if (!path.endsWith('/Subscribe')) return Promise.resolve(new Uint8Array(0));
    const asked = fromBinary(_SubscriptionRequestSchema, request);
    opened.push({ resumeAt: Number(asked.resumeAtTopicSequenceNumber), page: Number(asked.sequencePage) });
    return open(opened.length);
  });
  const client = await CacheClient.create({
    endpoint: '127.0.0.1:1',
    channelFactory: factory,
    eagerConnectTimeoutMs: 0,
    deadlineMs: 500,
    retry: { maxAttempts: 3, initialBackoffMs: 1, maxBackoffMs: 5 },
    ...idleOptions,
  });
  const streams = (): FakeStream[] => factory.channels[0]!.streams;
  const lastStream = (): FakeStream => streams().at(-1)!;
  return { client, opened, streams, lastStream };
}

async function take(iterator: AsyncIterator<TopicItem>, count: number): Promise<TopicItem[]> {
  const items: TopicItem[] = [];
  while (items.length < count) {
    const next = await iterator.next();
    assert.equal(next.done, false);
    items.push(next.value);
  }
  return items;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    assert.ok(waited < 2_000, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('topics: subscription logic', () => {
  test('messages arrive in order with their values as published; heartbeats are swallowed', async () => {
    const { client, lastStream } = await setup();
    try {
      const subscription = await client.subscribe('c', 't');
      const iterator = subscription[Symbol.asyncIterator]();
      lastStream().push(item(1, 'one'));
      lastStream().push(heartbeat());
      lastStream().push(item(2, new Uint8Array([0, 255])));
      const [first, second] = await take(iterator, 2);
      assert.deepEqual(first, { kind: 'message', value: 'one', sequenceNumber: 1, sequencePage: 7, publisherId: 'p' });
      assert.ok(second?.kind === 'message' && second.value instanceof Uint8Array);
      assert.deepEqual([...(second.value)], [0, 255]);
      assert.deepEqual(positionAfter(second), { sequenceNumber: 3, sequencePage: 7 });
    } finally {
      client.close();
    }
  });

  test('a stream broken by UNAVAILABLE is opened again just after the last message, and a resent one is dropped', async () => {
    const { client, opened, streams, lastStream } = await setup();
    try {
      const subscription = await client.subscribe('c', 't', { resumeAt: { sequenceNumber: 4, sequencePage: 7 } });
      const iterator = subscription[Symbol.asyncIterator]();
      lastStream().push(item(4, 'four'));
      lastStream().push(item(5, 'five'));
      await take(iterator, 2);
      lastStream().end(new StatusError(Status.UNAVAILABLE, 'connection lost'));
      await until(() => streams().length === 2, 'the second stream');
      lastStream().push(item(5, 'five again'));
      lastStream().push(item(6, 'six'));
      const [next] = await take(iterator, 1);
      assert.equal(next?.kind === 'message' && next.value, 'six');
      assert.deepEqual(opened, [
        { resumeAt: 4, page: 7 },
        { resumeAt: 6, page: 7 },
      ]);
      assert.equal(subscription.reconnects, 1);
    } finally {
      client.close();
    }
  });

  test('an end without an error, and INTERNAL, are broken streams too; reopening retries until one opens', async () => {
    const { client, opened, streams, lastStream } = await setup((attempt) =>
      attempt === 2 || attempt === 3 ? Promise.reject(new StatusError(Status.UNAVAILABLE, 'down')) : Promise.resolve(heartbeat()),
    );
    try {
      const subscription = await client.subscribe('c', 't');
      const iterator = subscription[Symbol.asyncIterator]();
      lastStream().push(item(1, 'a'));
      await take(iterator, 1);
      lastStream().end();
      await until(() => streams().length === 4, 'three more openings');
      lastStream().end(new StatusError(Status.INTERNAL, 'reset'));
      await until(() => streams().length === 5, 'a fifth opening');
      lastStream().push(item(2, 'b'));
      assert.equal(((await take(iterator, 1))[0] as { value: string }).value, 'b');
      assert.deepEqual(
        opened.map((o) => o.resumeAt),
        [0, 2, 2, 2, 2],
      );
      assert.equal(subscription.reconnects, 2);
    } finally {
      client.close();
    }
  });

  test('a discontinuity is an item, and a later resume goes on after it', async () => {
    const { client, opened, streams, lastStream } = await setup();
    try {
      const subscription = await client.subscribe('c', 't');
      const iterator = subscription[Symbol.asyncIterator]();
      lastStream().push(item(3, 'x', 7));
      lastStream().push(gap(3, 10, 9));
      const [, discontinuity] = await take(iterator, 2);
      assert.deepEqual(discontinuity, { kind: 'discontinuity', lastSequenceNumber: 3, newSequenceNumber: 10, newSequencePage: 9 });
      lastStream().end(new StatusError(Status.UNAVAILABLE, 'gone'));
      await until(() => streams().length === 2, 'the second stream');
      assert.deepEqual(opened.at(-1), { resumeAt: 11, page: 9 });
    } finally {
      client.close();
    }
  });

  test('a failure that is not a broken stream ends the iteration with its CacheError', async () => {
    const { client, streams, lastStream } = await setup();
    try {
      const subscription = await client.subscribe('c', 't');
      const iterator = subscription[Symbol.asyncIterator]();
      lastStream().push(item(1, 'a'));
      await take(iterator, 1);
      lastStream().end(new StatusError(Status.NOT_FOUND, 'cache deleted'));
      await assert.rejects(iterator.next(), CacheNotFoundError);
      assert.deepEqual(await iterator.next(), { done: true, value: undefined });
      assert.equal(streams().length, 1, 'not reopened');
      assert.ok(subscription.closed);
    } finally {
      client.close();
    }
  });

  test('opening is retried on UNAVAILABLE up to maxAttempts, then rejects with ConnectionError', async () => {
    const { client, opened } = await setup(() => Promise.reject(new StatusError(Status.UNAVAILABLE, 'down')));
    try {
      await assert.rejects(client.subscribe('c', 't'), ConnectionError);
      assert.equal(opened.length, 3);
    } finally {
      client.close();
    }
  });

  test('a stream that says nothing within deadlineMs fails the opening with TimeoutError', async () => {
    const { client, streams } = await setup(() => new Promise<Uint8Array>(() => undefined));
    try {
      await assert.rejects(client.subscribe('c', 't'), TimeoutError);
      assert.ok(streams()[0]!.cancelled);
    } finally {
      client.close();
    }
  });

  test('silence past idleTimeoutMs counts as a dead stream: it is cancelled and opened again', async () => {
    const { client, streams } = await setup(undefined);
    try {
      const subscription = await client.subscribe('c', 't', { idleTimeoutMs: 50 });
      await until(() => streams().length === 2, 'a reopening after 50 ms of silence');
      assert.ok(streams()[0]!.cancelled);
      assert.equal(subscription.reconnects, 1);
      // Heartbeats keep a quiet stream alive.
      const keepAlive = setInterval(() => streams().at(-1)!.push(heartbeat()), 10);
      await new Promise((resolve) => setTimeout(resolve, 200));
      clearInterval(keepAlive);
      assert.equal(streams().length, 2);
    } finally {
      client.close();
    }
  });

  test('break, close(), an AbortSignal and the client closing each end it', async () => {
    const { client, streams, lastStream } = await setup();
    try {
      const broken = await client.subscribe('c', 't');
      lastStream().push(item(1, 'a'));
      for await (const received of broken) {
        assert.equal(received.kind, 'message');
        break;
      }
      assert.ok(broken.closed && streams()[0]!.cancelled);

      const closed = await client.subscribe('c', 't');
      const waiting = closed[Symbol.asyncIterator]().next();
      closed.close();
      assert.deepEqual(await waiting, { done: true, value: undefined });

      const controller = new AbortController();
      const aborted = await client.subscribe('c', 't', { signal: controller.signal });
      const pending = aborted[Symbol.asyncIterator]().next();
      controller.abort();
      assert.deepEqual(await pending, { done: true, value: undefined });
      assert.ok(lastStream().cancelled);
      await assert.rejects(client.subscribe('c', 't', { signal: controller.signal }), { name: 'AbortError' });

      const last = await client.subscribe('c', 't');
      const open = last[Symbol.asyncIterator]().next();
      client.close();
      assert.deepEqual(await open, { done: true, value: undefined });
      assert.ok(lastStream().cancelled);
      await assert.rejects(client.subscribe('c', 't'), ConnectionError);
    } finally {
      client.close();
    }
  });

  test('callbacks: onItem and onDiscontinuity in order, onError once at the end', async () => {
    const { client, lastStream } = await setup();
    try {
      const seen: string[] = [];
      let failed: unknown;
      const subscription: TopicSubscription = await client.subscribe('c', 't', {
        onItem: (message) => seen.push(`message ${message.sequenceNumber}`),
        onDiscontinuity: (discontinuity) => seen.push(`gap to ${discontinuity.newSequenceNumber}`),
        onError: (error) => (failed = error),
      });
      lastStream().push(item(1, 'a'));
      lastStream().push(gap(1, 4, 7));
      lastStream().push(item(5, 'b'));
      lastStream().end(new StatusError(Status.PERMISSION_DENIED, 'no'));
      assert.deepEqual(seen, ['message 1', 'gap to 4', 'message 5']);
      assert.equal((failed as Error).name, 'PermissionError');
      assert.ok(subscription.closed);
      assert.throws(() => subscription[Symbol.asyncIterator](), TypeError);
      await assert.rejects(client.subscribe('c', 't', { onItem: () => undefined }), InvalidArgumentError);
    } finally {
      client.close();
    }
  });

  test('a reader that falls behind pauses the stream, and reading on resumes it', async () => {
    const { client, lastStream } = await setup();
    try {
      const subscription = await client.subscribe('c', 't');
      for (let n = 1; n <= 300; n += 1) lastStream().push(item(n, `m${n}`));
      assert.ok(lastStream().paused);
      const iterator = subscription[Symbol.asyncIterator]();
      const items = await take(iterator, 200);
      const last = items.at(-1);
      assert.equal(last?.kind === 'message' && last.sequenceNumber, 200);
      assert.ok(!lastStream().paused);
    } finally {
      client.close();
    }
  });

  test('bad arguments are refused before anything is sent', async () => {
    const { client, opened } = await setup();
    try {
      await assert.rejects(client.subscribe('c', 't', { resumeAt: -1 }), InvalidArgumentError);
      await assert.rejects(client.subscribe('c', 't', { idleTimeoutMs: -5 }), InvalidArgumentError);
      await assert.rejects(client.subscribe('c', 42 as unknown as string), InvalidArgumentError);
      await assert.rejects(client.publish('c', 't', 42 as unknown as string), InvalidArgumentError);
      assert.equal(opened.length, 0);
    } finally {
      client.close();
    }
  });
});
