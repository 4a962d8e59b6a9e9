// A server restart on the same port mid-run: calls fail fast with
// ConnectionError while it is down, and the same client works again after.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CacheClient, ConnectionError } from '../../src/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const RECOVERY_LIMIT_MS = 15_000;

for (const transport of TRANSPORTS) {
  describe(`server restart over ${transport}`, () => {
    let server: RunningServer;

    before(async () => {
      server = await startServer();
    });

    after(async () => {
      await server?.stop();
    });

    test('the client survives without being recreated', async () => {
      const client = await CacheClient.create({
        endpoint: server.endpoint,
        transport,
        channels: 2,
        deadlineMs: 2_000,
        retry: { maxAttempts: 2, initialBackoffMs: 5, maxBackoffMs: 20 },
      });
      try {
        await client.createCache('r');
        await client.set('r', 'k', 'before');
        assert.equal(await client.getString('r', 'k'), 'before');

        await server.stop();
        const started = Date.now();
        await assert.rejects(client.get('r', 'k'), ConnectionError);
        // Fails fast: well inside the deadline, not by timing out.
        assert.ok(Date.now() - started < 2_000, 'a call to a stopped server should not wait for its deadline');

        await server.restart();
        // The new server is empty; the client reconnects on its next calls.
        const deadline = Date.now() + RECOVERY_LIMIT_MS;
        for (;;) {
          try {
            await client.createCache('r');
            break;
          } catch (err) {
            if (!(err instanceof ConnectionError) || Date.now() > deadline) throw err;
            await sleep(50);
          }
        }
        await client.set('r', 'k', 'after');
        assert.equal(await client.getString('r', 'k'), 'after');
      } finally {
        client.close();
      }
    });
  });
}
