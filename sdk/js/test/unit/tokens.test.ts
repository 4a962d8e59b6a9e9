// Token vending without a server: each call sends the client's own token in
// the message (and as `authorization`), the permissions in their wire form,
// and misuse rejects with InvalidArgumentError before anything is sent
// (test/integration/auth.test.ts mints against a server).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as auth from '../../src/gen/auth_pb.js';
import * as pm from '../../src/gen/permissionmessages_pb.js';
import * as tk from '../../src/gen/token_pb.js';
import { CacheClient, InvalidArgumentError, type Permissions } from '../../src/index.js';
import { RecordingFactory } from '../support/fake-channel.js';

describe('token vending without a server', () => {
  let client: CacheClient;
  const sent = new RecordingFactory();

  before(async () => {
    client = await sent.client('my-token');
  });

  after(() => client.close());

  test('a disposable token request carries the token, the expiry, the token id and each permission', async () => {
    const permissions: Permissions = [
      { role: 'readOnly', cache: 'pets', keyPrefix: 'fish-' },
      { role: 'writeOnly', key: new Uint8Array([0, 107]) },
      { role: 'publishOnly', cache: 'pets', topic: 'news' },
      { role: 'subscribeOnly', topicPrefix: 'alerts-' },
    ];
    const sentRequest = await sent.request(tk._GenerateDisposableTokenRequestSchema, () =>
      client.generateDisposableToken(permissions, 300_000, { tokenId: 'app-7' }),
    );
    assert.equal(sent.calls.at(-1)!.path, '/token.Token/GenerateDisposableToken');
    assert.equal(sent.calls.at(-1)!.metadata?.authorization, 'my-token');
    assert.equal(sent.calls.at(-1)!.metadata?.cache, undefined);
    assert.equal(sentRequest.authToken, 'my-token');
    assert.equal(sentRequest.tokenId, 'app-7');
    assert.equal(sentRequest.expires?.validForSeconds, 300);
    assert.equal(sentRequest.permissions?.kind.case, 'explicit');
    const [first, second, third, fourth] = sentRequest.permissions.kind.value.permissions.map((p) => p.kind);
    assert.ok(first?.case === 'cachePermissions' && first.value.role === pm.CacheRole.CacheReadOnly);
    assert.ok(first.value.cache.case === 'cacheSelector');
    assert.equal(first.value.cache.value.kind.value, 'pets');
    assert.ok(first.value.cacheItem.case === 'itemSelector' && first.value.cacheItem.value.kind.case === 'keyPrefix');
    assert.deepEqual(first.value.cacheItem.value.kind.value, new TextEncoder().encode('fish-'));
    assert.ok(second?.case === 'cachePermissions' && second.value.role === pm.CacheRole.CacheWriteOnly);
    assert.equal(second.value.cache.case, 'allCaches');
    assert.ok(second.value.cacheItem.case === 'itemSelector' && second.value.cacheItem.value.kind.case === 'key');
    assert.deepEqual(second.value.cacheItem.value.kind.value, new Uint8Array([0, 107]));
    assert.ok(third?.case === 'topicPermissions' && third.value.role === pm.TopicRole.TopicWriteOnly);
    assert.ok(third.value.topic.case === 'topicSelector' && third.value.topic.value.kind.case === 'topicName');
    assert.equal(third.value.topic.value.kind.value, 'news');
    assert.ok(fourth?.case === 'topicPermissions' && fourth.value.role === pm.TopicRole.TopicReadOnly);
    assert.equal(fourth.value.cache.case, 'allCaches');
    assert.ok(fourth.value.topic.case === 'topicSelector' && fourth.value.topic.value.kind.case === 'topicNamePrefix');
    assert.equal(fourth.value.topic.value.kind.value, 'alerts-');
  });

  test('the presets, and an api key that never expires', async () => {
    const superUser = await sent.request(auth._GenerateApiTokenRequestSchema, () => client.generateApiKey('superUser'));
    assert.equal(sent.calls.at(-1)!.path, '/auth.Auth/GenerateApiToken');
    assert.equal(superUser.authToken, 'my-token');
    assert.equal(superUser.permissions?.kind.case, 'superUser');
    assert.equal(superUser.expiry.case, 'never');
    const allData = await sent.request(auth._GenerateApiTokenRequestSchema, () => client.generateApiKey('allDataReadWrite', 86_400_000));
    assert.ok(allData.expiry.case === 'expires');
    assert.equal(allData.expiry.value.validForSeconds, 86_400);
    assert.ok(allData.permissions?.kind.case === 'explicit');
    const [cache, topic] = allData.permissions.kind.value.permissions.map((p) => p.kind);
    assert.ok(cache?.case === 'cachePermissions' && cache.value.role === pm.CacheRole.CacheReadWrite);
    assert.deepEqual([cache.value.cache.case, cache.value.cacheItem.case], ['allCaches', 'allItems']);
    assert.ok(topic?.case === 'topicPermissions' && topic.value.role === pm.TopicRole.TopicReadWrite);
    assert.deepEqual([topic.value.cache.case, topic.value.topic.case], ['allCaches', 'allTopics']);
  });

  test("a refresh sends the client's key and the refresh token", async () => {
    const refresh = await sent.request(auth._RefreshApiTokenRequestSchema, () => client.refreshApiKey('the-refresh-token'));
    assert.equal(sent.calls.at(-1)!.path, '/auth.Auth/RefreshApiToken');
    assert.deepEqual([refresh.apiKey, refresh.refreshToken], ['my-token', 'the-refresh-token']);
  });

  const MISUSE: readonly [string, () => Promise<unknown>, RegExp][] = [
    ['an empty list', () => client.generateDisposableToken([], 60_000), /empty/],
    ['no expiry', () => client.generateDisposableToken('superUser', 0), /expiresInMs/],
    ['over an hour', () => client.generateDisposableToken('superUser', 3_601_000), /expiresInMs/],
    ['part of a second', () => client.generateDisposableToken('superUser', 1_500), /expiresInMs/],
    ['an unknown preset', () => client.generateDisposableToken('everything' as Permissions, 60_000), /superUser/],
    ['an unknown role', () => client.generateDisposableToken([{ role: 'readWriteX' } as never], 60_000), /role/],
    ['a key and a prefix', () => client.generateDisposableToken([{ role: 'readOnly', key: 'a', keyPrefix: 'b' }], 60_000), /not both/],
    ['an empty cache name', () => client.generateDisposableToken([{ role: 'readOnly', cache: '' }], 60_000), /cache/],
    ['a negative api key expiry', () => client.generateApiKey('superUser', -1_000), /expiresInMs/],
    ['an empty refresh token', () => client.refreshApiKey(''), /refreshToken/],
  ];
  for (const [what, call, message] of MISUSE) {
    test(`misuse is refused before sending: ${what}`, async () => {
      const before = sent.calls.length;
      await assert.rejects(call(), (err: unknown) => err instanceof InvalidArgumentError && message.test(err.message));
      assert.equal(sent.calls.length, before);
    });
  }
});
