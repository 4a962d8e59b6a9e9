// The official SDK's TopicClient through an outage made with the admin
// port (`--admin-listen`), as the SDK's own retry test does against
// momento-local: subscribe, GET /block, the subscription reports its
// connection lost and gets no heartbeats, GET /unblock, heartbeats resume
// on the SDK's own resubscription.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheClient,
  Configurations,
  CredentialProvider,
  TopicClient,
  TopicConfigurations,
  TopicSubscribe,
} from '@gomomento/sdk';

import { startJiffyServer } from '../support/jiffy-server.mjs';
import { sleep, uniqueCacheName } from '../support/suite.mjs';

const WAIT_MS = 10_000;

/** Waits (up to WAIT_MS) until `done()` holds. */
async function until(done, what) {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function admin(server, path) {
  const answer = await fetch(`http://127.0.0.1:${server.adminPort}${path}`);
  assert.equal(answer.status, 200, `${path} answered ${answer.status}`);
}

export function registerAdminPortTests() {
  describe('admin port (momento-local /block and /unblock)', () => {
    test('a subscription survives a block and an unblock', async () => {
      const server = await startJiffyServer([
        '--admin-listen',
        '127.0.0.1:0',
        '--topic-heartbeat-interval',
        '100ms',
      ]);
      const credentialProvider = CredentialProvider.forMomentoLocal({
        hostname: server.host,
        port: server.port,
      });
      const cacheClient = await CacheClient.create({
        configuration: Configurations.Laptop.v1(),
        credentialProvider,
        defaultTtlSeconds: 60,
      });
      const topicClient = new TopicClient({
        configuration: TopicConfigurations.Default.latest(),
        credentialProvider,
      });
      let subscription;
      try {
        const cache = uniqueCacheName();
        await cacheClient.createCache(cache);
        let heartbeats = 0;
        let lost = 0;
        const subscribed = await topicClient.subscribe(cache, 'topic', {
          onItem: () => {},
          onError: () => {},
          onHeartbeat: () => {
            heartbeats += 1;
          },
          onConnectionLost: () => {
            lost += 1;
          },
        });
        assert.ok(subscribed instanceof TopicSubscribe.Subscription, `${subscribed}`);
        subscription = subscribed;
        await until(() => heartbeats >= 5, 'five heartbeats');

        await admin(server, '/block');
        await until(() => lost === 1, 'the connection reported lost');
        const duringBlock = heartbeats;
        await sleep(1_000);
        assert.equal(heartbeats, duringBlock, 'no heartbeats while blocked');

        await admin(server, '/unblock');
        await until(() => heartbeats > duringBlock, 'heartbeats after the unblock');
        assert.equal(lost, 1, 'the connection was lost once');
      } finally {
        subscription?.unsubscribe();
        cacheClient.close();
        assert.equal(await server.stop(), 0);
      }
    });
  });
}
