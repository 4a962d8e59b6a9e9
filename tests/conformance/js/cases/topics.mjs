// Topics through the official SDK's TopicClient: publish, subscribe, text
// and binary, two subscribers, a missing cache, a deleted cache, and the
// SDK's own resume after its stream breaks.
//
// Subscribers are on the first front-end and publishers on the last: over
// a Redis Cluster (two front-ends) every message crosses from one
// jiffy-server to the other.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';

import {
  CredentialProvider,
  MomentoErrorCode,
  TopicClient,
  TopicConfigurations,
  TopicPublish,
  TopicSubscribe,
} from '@gomomento/sdk';

import { assertIs, sleep, uniqueCacheName } from '../support/suite.mjs';

const WAIT_MS = 5_000;

function topicClient({ host, port }) {
  return new TopicClient({
    configuration: TopicConfigurations.Default.latest(),
    credentialProvider: CredentialProvider.forMomentoLocal({ hostname: host, port }),
  });
}

/** Waits (up to WAIT_MS) until `done()` holds. */
async function until(done, what) {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A subscription that records what it receives. */
async function subscribe(client, cache, topic, extra = {}) {
  const got = { items: [], errors: [], discontinuities: [] };
  const response = await client.subscribe(cache, topic, {
    onItem: (item) => got.items.push(item),
    onError: (error) => got.errors.push(error),
    onDiscontinuity: (gap) => got.discontinuities.push(gap),
    ...extra,
  });
  got.subscription = assertIs(response, TopicSubscribe.Subscription);
  return got;
}

export function registerTopicTests(suite) {
  const subscriber = () => topicClient(suite.frontEnds[0]);
  const publisher = () => topicClient(suite.frontEnds[suite.frontEnds.length - 1]);
  const newTopic = () => `topic-${randomUUID()}`;

  describe('topics', () => {
    test('text and binary arrive in order, numbered from 1', async () => {
      const cache = await suite.newCache('topics');
      const topic = newTopic();
      const got = await subscribe(subscriber(), cache, topic);
      const pub = publisher();
      const values = ['value1', 'value2', new TextEncoder().encode('value3')];
      for (const value of values) {
        assertIs(await pub.publish(cache, topic, value), TopicPublish.Success);
      }
      await until(() => got.items.length === 3, 'three items');
      assert.deepEqual(got.items.map((item) => item.value()), values);
      assert.deepEqual(got.items.map((item) => item.sequenceNumber()), [1, 2, 3]);
      assert.deepEqual(got.errors, []);
      got.subscription.unsubscribe();
    });

    test('two subscribers get the same messages under the same numbers', async () => {
      const cache = await suite.newCache('topics-two');
      const topic = newTopic();
      const first = await subscribe(subscriber(), cache, topic);
      const second = await subscribe(publisher(), cache, topic);
      const pub = publisher();
      for (let n = 0; n < 5; n++) {
        assertIs(await pub.publish(cache, topic, `m${n}`), TopicPublish.Success);
      }
      await until(() => first.items.length === 5 && second.items.length === 5, 'five items each');
      const seen = (got) => got.items.map((item) => [item.sequenceNumber(), item.valueString()]);
      assert.deepEqual(seen(first), seen(second));
      assert.deepEqual(seen(first), [0, 1, 2, 3, 4].map((n) => [n + 1, `m${n}`]));
      first.subscription.unsubscribe();
      second.subscription.unsubscribe();
    });

    test('a missing cache is CACHE_NOT_FOUND for both calls', async () => {
      const missing = uniqueCacheName('missing');
      const published = assertIs(await publisher().publish(missing, 't', 'x'), TopicPublish.Error);
      assert.equal(published.errorCode(), MomentoErrorCode.CACHE_NOT_FOUND_ERROR);
      const subscribed = await subscriber().subscribe(missing, 't', { onItem: () => {} });
      assertIs(subscribed, TopicSubscribe.Error);
      assert.equal(subscribed.errorCode(), MomentoErrorCode.CACHE_NOT_FOUND_ERROR);
    });

    test('deleting the cache ends the subscription with CACHE_NOT_FOUND', async () => {
      const cache = await suite.newCache('topics-delete');
      const got = await subscribe(subscriber(), cache, newTopic());
      await sleep(200);
      await suite.client.deleteCache(cache);
      await until(() => got.errors.length === 1, 'the error');
      assert.equal(got.errors[0].errorCode(), MomentoErrorCode.CACHE_NOT_FOUND_ERROR);
      assert.equal(got.subscription.isSubscribed, false);
    });

    // The SDK gives a subscription's first call a deadline (5 s by default,
    // here 1 s); when it passes, the SDK subscribes again from the last
    // number it saw. What is published in between is replayed.
    test('the SDK resumes after its stream breaks, missing nothing', async () => {
      const cache = await suite.newCache('topics-resume');
      const topic = newTopic();
      const { host, port } = suite.frontEnds[0];
      const shortDeadline = new TopicClient({
        configuration: TopicConfigurations.Default.latest().withClientTimeoutMillis(1_000),
        credentialProvider: CredentialProvider.forMomentoLocal({ hostname: host, port }),
      });
      const pub = publisher();
      let lost = 0;
      const got = await subscribe(shortDeadline, cache, topic, {
        onConnectionLost: () => {
          lost += 1;
        },
      });
      assertIs(await pub.publish(cache, topic, 'before'), TopicPublish.Success);
      await until(() => got.items.length === 1, 'the first item');
      await until(() => lost === 1, 'the broken stream');
      // The SDK waits 500 ms before it subscribes again: publish meanwhile.
      for (const value of ['while-away-1', 'while-away-2']) {
        assertIs(await pub.publish(cache, topic, value), TopicPublish.Success);
      }
      await until(() => got.items.length === 3, 'the replayed items');
      assert.deepEqual(
        got.items.map((item) => [item.sequenceNumber(), item.valueString()]),
        [
          [1, 'before'],
          [2, 'while-away-1'],
          [3, 'while-away-2'],
        ],
      );
      assert.deepEqual(got.discontinuities, []);
      got.subscription.unsubscribe();
    });
  });
}
