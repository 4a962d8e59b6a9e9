// The official SDK's AuthClient against a jiffy-server with auth on: it
// mints disposable tokens and api keys (the minting key travels inside the
// request message, as the SDK sends it), and the SDK's own CacheClient and
// TopicClient, given each minted token, may do exactly what it grants.
//
// The root key is what `jiffy-server token create --role admin --caches all
// --format momento-v1` prints, as a user would make it. The auth front-ends
// share the suite's store: over a Redis Cluster, tokens are minted on one
// jiffy-server and used on the other (any front-end of the same secret
// verifies them).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  AllCaches,
  AllDataReadWrite,
  AuthClient,
  CacheClient,
  CacheGet,
  CacheIncrement,
  CacheRole,
  CacheSet,
  CacheSetIfAbsent,
  Configurations,
  CreateCache,
  CredentialProvider,
  ExpiresIn,
  GenerateApiKey,
  GenerateDisposableToken,
  MomentoErrorCode,
  RefreshApiKey,
  TopicClient,
  TopicConfigurations,
  TopicPublish,
  TopicRole,
  TopicSubscribe,
} from '@gomomento/sdk';

import { createAdminToken, startJiffyServer } from '../support/jiffy-server.mjs';
import { assertIs, sleep, uniqueCacheName } from '../support/suite.mjs';

const WAIT_MS = 5_000;

/** The official SDK's credentials for `key`, pointed at `server`. */
function credentials(key, { host, port }) {
  const endpoint = `${host}:${port}`;
  return CredentialProvider.fromString({
    apiKey: key,
    endpointOverrides: {
      cacheEndpoint: endpoint,
      controlEndpoint: endpoint,
      tokenEndpoint: endpoint,
      secureConnection: false,
    },
  });
}

function clientsFor(key, server) {
  const credentialProvider = credentials(key, server);
  return {
    cache: new CacheClient({
      configuration: Configurations.Laptop.latest(),
      credentialProvider,
      defaultTtlSeconds: 60,
    }),
    topics: new TopicClient({
      configuration: TopicConfigurations.Default.latest(),
      credentialProvider,
    }),
    auth: new AuthClient({ credentialProvider }),
  };
}

async function refused(call, code) {
  const response = await call;
  assert.equal(
    response.errorCode?.(),
    code,
    `expected ${code}, got ${response?.constructor?.name}: ${response}`,
  );
}

export function registerAuthTests(suite) {
  let secretDir;
  const servers = [];
  const opened = [];
  let rootKey;

  /** The clients of `key` on the `n`th auth front-end (round the ring). */
  const as = (key, n = 0) => {
    const clients = clientsFor(key, servers[n % servers.length]);
    opened.push(clients);
    return clients;
  };

  describe('auth: tokens minted by the official AuthClient', () => {
    before(async () => {
      secretDir = mkdtempSync(join(tmpdir(), 'jiffy-auth-'));
      const secretFile = join(secretDir, 'secret');
      writeFileSync(secretFile, randomBytes(48).toString('base64'));
      // Two front-ends over a shared store, one otherwise.
      const count = Math.max(suite.store.frontEnds, 1);
      for (let i = 0; i < count; i++) {
        servers.push(
          await startJiffyServer([
            ...suite.store.args,
            '--max-caches',
            '1000',
            '--auth-secret-file',
            secretFile,
          ]),
        );
      }
      rootKey = createAdminToken(secretFile, 'momento-v1');
    });

    after(async () => {
      for (const clients of opened) {
        clients.cache.close();
        clients.topics.close?.();
      }
      for (const server of servers) {
        assert.equal(await server.stop(), 0, server.stderr());
      }
      rmSync(secretDir, { recursive: true, force: true });
    });

    async function newCache(label) {
      const name = uniqueCacheName(label);
      assertIs(await as(rootKey).cache.createCache(name), CreateCache.Success);
      return name;
    }

    async function disposable(scope, props) {
      const minted = await as(rootKey).auth.generateDisposableToken(
        scope,
        ExpiresIn.minutes(5),
        props,
      );
      return assertIs(minted, GenerateDisposableToken.Success);
    }

    test('a disposable token reaches only its key and its key prefix', async () => {
      const cache = await newCache('auth-keys');
      const other = await newCache('auth-keys-other');
      const root = as(rootKey).cache;
      assertIs(await root.set(cache, 'cow', 'moo'), CacheSet.Success);
      const token = await disposable({
        permissions: [
          { role: CacheRole.ReadOnly, cache, item: { key: 'cow' } },
          { role: CacheRole.ReadWrite, cache: AllCaches, item: { keyPrefix: 'pet-' } },
        ],
      });
      assert.ok(token.expiresAt.doesExpire());
      const client = as(token.authToken, 1).cache;
      assert.equal(assertIs(await client.get(cache, 'cow'), CacheGet.Hit).valueString(), 'moo');
      await refused(client.set(cache, 'cow', 'oink'), MomentoErrorCode.PERMISSION_ERROR);
      await refused(client.get(cache, 'horse'), MomentoErrorCode.PERMISSION_ERROR);
      await refused(client.get(other, 'cow'), MomentoErrorCode.PERMISSION_ERROR);
      for (const name of [cache, other]) {
        assertIs(await client.set(name, 'pet-fish', 'blub'), CacheSet.Success);
        assertIs(await client.get(name, 'pet-fish'), CacheGet.Hit);
      }
      // Control calls need a super user.
      await refused(client.createCache(uniqueCacheName('nope')), MomentoErrorCode.PERMISSION_ERROR);
    });

    test('write-only writes, but neither reads nor writes conditionally', async () => {
      const cache = await newCache('auth-write-only');
      const token = await disposable({ permissions: [{ role: CacheRole.WriteOnly, cache }] });
      const client = as(token.authToken).cache;
      assertIs(await client.set(cache, 'k', 'v'), CacheSet.Success);
      await refused(client.get(cache, 'k'), MomentoErrorCode.PERMISSION_ERROR);
      await refused(client.setIfAbsent(cache, 'n', 'v'), MomentoErrorCode.PERMISSION_ERROR);
      await refused(client.increment(cache, 'n', 1), MomentoErrorCode.PERMISSION_ERROR);
      // The root still reads what it wrote.
      assertIs(await as(rootKey).cache.setIfAbsent(cache, 'x', 'y'), CacheSetIfAbsent.Stored);
      assertIs(await as(rootKey).cache.increment(cache, 'n', 1), CacheIncrement.Success);
    });

    test('topic roles, and the token id subscribers see as the publisher', async () => {
      const cache = await newCache('auth-topics');
      const publisher = await disposable(
        { permissions: [{ role: TopicRole.PublishOnly, cache, topic: 'news' }] },
        { tokenId: 'kiosk-7' },
      );
      const reader = await disposable({
        permissions: [{ role: TopicRole.SubscribeOnly, cache, topic: 'news' }],
      });
      const items = [];
      const subscription = assertIs(
        await as(reader.authToken).topics.subscribe(cache, 'news', {
          onItem: (item) => items.push(item),
          onError: () => {},
        }),
        TopicSubscribe.Subscription,
      );
      try {
        const topics = as(publisher.authToken, 1).topics;
        assertIs(await topics.publish(cache, 'news', 'hello'), TopicPublish.Success);
        const deadline = Date.now() + WAIT_MS;
        while (items.length === 0) {
          assert.ok(Date.now() < deadline, 'the message never arrived');
          await sleep(10);
        }
        assert.equal(items[0].valueString(), 'hello');
        assert.equal(items[0].tokenId(), 'kiosk-7');
        await refused(topics.publish(cache, 'sports', 'x'), MomentoErrorCode.PERMISSION_ERROR);
        const notHis = await topics.subscribe(cache, 'news', { onItem: () => {}, onError: () => {} });
        assert.equal(notHis.errorCode?.(), MomentoErrorCode.PERMISSION_ERROR, `${notHis}`);
        await refused(
          as(reader.authToken).topics.publish(cache, 'news', 'x'),
          MomentoErrorCode.PERMISSION_ERROR,
        );
      } finally {
        subscription.unsubscribe();
      }
    });

    test('expiry is at most an hour; minted tokens may not mint', async () => {
      const auth = as(rootKey).auth;
      await refused(
        auth.generateDisposableToken(AllDataReadWrite, ExpiresIn.hours(2)),
        MomentoErrorCode.INVALID_ARGUMENT_ERROR,
      );
      const token = await disposable(AllDataReadWrite);
      await refused(
        as(token.authToken).auth.generateDisposableToken(AllDataReadWrite, ExpiresIn.minutes(1)),
        MomentoErrorCode.PERMISSION_ERROR,
      );
      // AllDataReadWrite: data, not the control plane.
      const cache = await newCache('auth-all-data');
      const client = as(token.authToken).cache;
      assertIs(await client.set(cache, 'k', 'v'), CacheSet.Success);
      assertIs(await client.get(cache, 'k'), CacheGet.Hit);
      await refused(client.deleteCache(cache), MomentoErrorCode.PERMISSION_ERROR);
    });

    test('api keys refresh with the same permissions', async () => {
      const cache = await newCache('auth-api-keys');
      const scope = { permissions: [{ role: CacheRole.ReadOnly, cache }] };
      const first = assertIs(
        await as(rootKey).auth.generateApiKey(scope, ExpiresIn.minutes(10)),
        GenerateApiKey.Success,
      );
      assert.ok(first.expiresAt.doesExpire());
      const key = first.apiKey;
      assertIs(await as(key).cache.get(cache, 'k'), CacheGet.Miss);
      await refused(as(key).cache.set(cache, 'k', 'v'), MomentoErrorCode.PERMISSION_ERROR);
      const refreshed = assertIs(
        await as(key, 1).auth.refreshApiKey(first.refreshToken),
        RefreshApiKey.Success,
      );
      assertIs(await as(refreshed.apiKey).cache.get(cache, 'k'), CacheGet.Miss);
      await refused(
        as(refreshed.apiKey).cache.set(cache, 'k', 'v'),
        MomentoErrorCode.PERMISSION_ERROR,
      );
      // A refresh token renews its own key only, not another of the same
      // permissions minted the same second.
      const other = assertIs(
        await as(rootKey).auth.generateApiKey(scope, ExpiresIn.minutes(10)),
        GenerateApiKey.Success,
      );
      assert.notEqual(other.apiKey, refreshed.apiKey);
      await refused(
        as(other.apiKey).auth.refreshApiKey(refreshed.refreshToken),
        MomentoErrorCode.INVALID_ARGUMENT_ERROR,
      );
      const never = assertIs(
        await as(rootKey).auth.generateApiKey(AllDataReadWrite, ExpiresIn.never()),
        GenerateApiKey.Success,
      );
      assert.ok(!never.expiresAt.doesExpire());
    });
  });
}
