// Webhooks without a server: the management calls' wire form and answers,
// and the signature check a receiver makes, against signatures computed as
// Momento's documentation computes them (HMAC SHA3-256 of the raw body, hex).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import * as wh from '../../src/gen/webhook_pb.js';
import { AuthenticationError, CacheClient, InvalidArgumentError, verifyWebhookSignature } from '../../src/index.js';
import { RecordingFactory } from '../support/fake-channel.js';

const momentoSignature = (secret: string, body: string): string =>
  createHmac('SHA3-256', secret).update(body).digest('hex');

describe('verifyWebhookSignature', () => {
  const body = '{"cache":"c","topic":"t","text":"hi"}';

  test('accepts the signature of the body under the secret, as text or bytes, in either case', () => {
    const signature = momentoSignature('s3cret', body);
    verifyWebhookSignature(body, signature, 's3cret');
    verifyWebhookSignature(new TextEncoder().encode(body), signature.toUpperCase(), 's3cret');
  });

  test('refuses another body, another secret or a malformed signature with AuthenticationError', () => {
    const signature = momentoSignature('s3cret', body);
    assert.throws(() => verifyWebhookSignature(`${body} `, signature, 's3cret'), AuthenticationError);
    assert.throws(() => verifyWebhookSignature(body, signature, 'other'), AuthenticationError);
    assert.throws(() => verifyWebhookSignature(body, 'zz', 's3cret'), AuthenticationError);
  });

  test('a missing signature or secret is InvalidArgumentError', () => {
    assert.throws(() => verifyWebhookSignature(body, undefined, 's3cret'), InvalidArgumentError);
    assert.throws(() => verifyWebhookSignature(body, momentoSignature('s', body), ''), InvalidArgumentError);
  });
});

describe('webhook calls without a server', () => {
  let client: CacheClient;
  const sent = new RecordingFactory();

  before(async () => {
    client = await sent.client('my-token');
  });

  after(() => client.close());

  test('put sends the webhook and answers its secret', async () => {
    sent.answer = toBinary(wh._PutWebhookResponseSchema, create(wh._PutWebhookResponseSchema, { secretString: 'sec' }));
    let secret = '';
    const request = await sent.request(wh._PutWebhookRequestSchema, async () => {
      secret = await client.putWebhook('c', 'h', 't', 'http://127.0.0.1:9/x');
    });
    assert.equal(sent.calls.at(-1)!.path, '/webhook.Webhook/PutWebhook');
    assert.equal(secret, 'sec');
    assert.equal(request.webhook?.webhookId?.cacheName, 'c');
    assert.equal(request.webhook?.webhookId?.webhookName, 'h');
    assert.equal(request.webhook?.topicName, 't');
    assert.deepEqual(request.webhook?.destination?.kind, { case: 'postUrl', value: 'http://127.0.0.1:9/x' });
  });

  test('list answers each webhook of the cache', async () => {
    sent.answer = toBinary(
      wh._ListWebhooksResponseSchema,
      create(wh._ListWebhooksResponseSchema, {
        webhook: [
          {
            webhookId: { cacheName: 'c', webhookName: 'h' },
            topicName: 't',
            destination: { kind: { case: 'postUrl', value: 'http://x/' } },
          },
        ],
      }),
    );
    const request = await sent.request(wh._ListWebhookRequestSchema, async () => {
      assert.deepEqual(await client.listWebhooks('c'), [{ cache: 'c', name: 'h', topic: 't', url: 'http://x/' }]);
    });
    assert.equal(request.cacheName, 'c');
  });
});
