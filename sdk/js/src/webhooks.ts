// Webhooks: request builders and answer readers for the webhook calls (as
// caches.ts's), and the check a receiver makes of what it is sent.
//
// A webhook POSTs each message of a topic to a URL (docs/WEBHOOKS.md). Each
// POST carries a `momento-signature` header: the lowercase hex HMAC
// SHA3-256 of the raw body, keyed with the webhook's secret, as Momento
// signs them; verifyWebhookSignature checks it in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { fromBinary } from '@bufbuild/protobuf';
import { encode, invalid, type Operation } from './collections/common.js';
import { AuthenticationError } from './errors.js';
import * as hook from './gen/webhook_pb.js';
import { RPCS } from './rpcs.gen.js';

/** Webhook `name` of `cache`: each message published to `topic` is POSTed to `url`. */
export interface Webhook {
  readonly cache: string;
  readonly name: string;
  readonly topic: string;
  readonly url: string;
}

const done = (): void => undefined;

export function putWebhook(cache: string, name: string, topic: string, url: string): Operation<string> {
  const request = encode(hook._PutWebhookRequestSchema, {
    webhook: {
      webhookId: { cacheName: cache, webhookName: name },
      topicName: topic,
      destination: { kind: { case: 'postUrl', value: url } },
    },
  });
  return { rpc: RPCS.PutWebhook, request, read: (answer) => fromBinary(hook._PutWebhookResponseSchema, answer).secretString };
}

export function deleteWebhook(cache: string, name: string): Operation<void> {
  const request = encode(hook._DeleteWebhookRequestSchema, { webhookId: { cacheName: cache, webhookName: name } });
  return { rpc: RPCS.DeleteWebhook, request, read: done };
}

export function listWebhooks(cache: string): Operation<Webhook[]> {
  return {
    rpc: RPCS.ListWebhooks,
    request: encode(hook._ListWebhookRequestSchema, { cacheName: cache }),
    read(answer) {
      return fromBinary(hook._ListWebhooksResponseSchema, answer).webhook.map((found) => ({
        cache: found.webhookId?.cacheName ?? cache,
        name: found.webhookId?.webhookName ?? '',
        topic: found.topicName,
        url: found.destination?.kind.case === 'postUrl' ? found.destination.kind.value : '',
      }));
    },
  };
}

export function getWebhookSecret(cache: string, name: string): Operation<string> {
  return {
    rpc: RPCS.GetWebhookSecret,
    request: encode(hook._GetWebhookSecretRequestSchema, { cacheName: cache, webhookName: name }),
    read: (answer) => fromBinary(hook._GetWebhookSecretResponseSchema, answer).secretString,
  };
}

export function rotateWebhookSecret(cache: string, name: string): Operation<string> {
  const request = encode(hook._RotateWebhookSecretRequestSchema, { webhookId: { cacheName: cache, webhookName: name } });
  return {
    rpc: RPCS.RotateWebhookSecret,
    request,
    read: (answer) => fromBinary(hook._RotateWebhookSecretResponseSchema, answer).secretString,
  };
}

/**
 * Checks that `body` (the raw request body, as received) was signed with
 * `signingSecret`: `signature` is the request's `momento-signature` header.
 * Throws AuthenticationError when it was not (a forged or altered request),
 * InvalidArgumentError when the signature or the secret is missing.
 */
export function verifyWebhookSignature(
  body: string | Uint8Array,
  signature: string | undefined | null,
  signingSecret: string,
): void {
  if (typeof signingSecret !== 'string' || signingSecret === '') {
    throw invalid("`signingSecret` is empty: pass the webhook's secret");
  }
  if (typeof signature !== 'string' || signature === '') {
    throw invalid('no `signature`: pass the momento-signature header');
  }
  const expected = createHmac('sha3-256', signingSecret).update(body).digest();
  const given = Buffer.from(signature.trim().toLowerCase(), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AuthenticationError("the webhook request's signature does not match its body and signingSecret");
  }
}
