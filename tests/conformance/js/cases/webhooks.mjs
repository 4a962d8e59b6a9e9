// The official SDK's webhook calls (TopicClient: putWebhook, listWebhooks,
// deleteWebhook, getWebhookSecret, rotateWebhookSecret) against
// jiffy-server, since the SDK's own webhook tests were removed upstream:
// put, list (the SDK's describe), the secret and its rotation, delete; and
// a receiver in the test that gets a published message POSTed, its
// momento-signature checked as the official helper checks it (HMAC
// SHA3-256 of the raw body, in hex).
//
// Over a shared store (a Redis Cluster, two front-ends) the webhook is put
// through one front-end and listed, described, published to, rotated and
// deleted through the other: the store keeps it, and whichever front-end
// holds its lease delivers it (docs/WEBHOOKS.md).

import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';

import {
  CredentialProvider,
  DeleteWebhook,
  GetWebhookSecret,
  ListWebhooks,
  MomentoErrorCode,
  PutWebhook,
  RotateWebhookSecret,
  TopicClient,
  TopicConfigurations,
  TopicPublish,
} from '@gomomento/sdk';

import { assertIs, sleep } from '../support/suite.mjs';

const WAIT_MS = 10_000;

function topicClient({ host, port }) {
  return new TopicClient({
    configuration: TopicConfigurations.Default.latest(),
    credentialProvider: CredentialProvider.forMomentoLocal({ hostname: host, port }),
  });
}

/** A receiver on a free loopback port that records each POST. */
async function receiver() {
  const got = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      got.push({ body: Buffer.concat(chunks), signature: request.headers['momento-signature'] });
      response.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { got, url: `http://127.0.0.1:${server.address().port}/hook`, close: () => server.close() };
}

export function registerWebhookTests(suite) {
  describe('webhooks', () => {
    test('put, list, the secret, its rotation and delete, with a signed delivery', async () => {
      const putter = topicClient(suite.frontEnds[0]);
      // The same front-end with the embedded store; the other one over Redis.
      const client = topicClient(suite.frontEnds.at(-1));
      const cache = await suite.newCache('webhooks');
      const topic = `topic-${randomUUID()}`;
      const hook = await receiver();
      try {
        const put = assertIs(
          await putter.putWebhook(cache, 'hook', { topicName: topic, destination: hook.url }),
          PutWebhook.Success,
        );
        const secret = put.secretString();
        assert.ok(secret.length >= 32, 'a secret');

        const listed = assertIs(await client.listWebhooks(cache), ListWebhooks.Success).getWebhooks();
        assert.equal(listed.length, 1);
        assert.deepEqual(listed[0].id, { cacheName: cache, webhookName: 'hook' });
        assert.equal(listed[0].topicName, topic);
        assert.equal(listed[0].destination.url(), hook.url);

        const described = assertIs(await client.getWebhookSecret(cache, 'hook'), GetWebhookSecret.Success);
        assert.equal(described.secret(), secret);
        assert.equal(described.webhookName(), 'hook');

        assertIs(await client.publish(cache, topic, 'hello'), TopicPublish.Success);
        const deadline = Date.now() + WAIT_MS;
        while (hook.got.length === 0) {
          assert.ok(Date.now() < deadline, 'the message was POSTed');
          await sleep(20);
        }
        const [delivery] = hook.got;
        const expected = createHmac('SHA3-256', secret).update(delivery.body).digest('hex');
        assert.equal(delivery.signature, expected);
        const event = JSON.parse(delivery.body.toString());
        assert.equal(event.cache, cache);
        assert.equal(event.topic, topic);
        assert.equal(event.text, 'hello');

        const rotated = assertIs(await client.rotateWebhookSecret(cache, 'hook'), RotateWebhookSecret.Success);
        assert.notEqual(rotated.secret(), secret);
        const after = assertIs(await client.getWebhookSecret(cache, 'hook'), GetWebhookSecret.Success);
        assert.equal(after.secret(), rotated.secret());

        assertIs(await client.deleteWebhook(cache, 'hook'), DeleteWebhook.Success);
        const empty = assertIs(await client.listWebhooks(cache), ListWebhooks.Success).getWebhooks();
        assert.deepEqual(empty, []);
        const gone = assertIs(await client.getWebhookSecret(cache, 'hook'), GetWebhookSecret.Error);
        assert.equal(gone.errorCode(), MomentoErrorCode.NOT_FOUND_ERROR);
      } finally {
        hook.close();
      }
    });
  });
}
