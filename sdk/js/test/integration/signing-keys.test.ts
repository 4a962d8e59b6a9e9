// Signing keys against a real server with its HTTP API: a key created,
// listed and revoked, and the presigned URLs it signs served until then.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CacheClient, createPresignedUrl, NotFoundError } from '../../src/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('signing keys', () => {
  let server: RunningServer;
  let client: CacheClient;
  let baseUrl: string;
  const cache = `js-signing-${Date.now()}`;

  before(async () => {
    const port = await freePort();
    server = await startServer(['--http-listen', `127.0.0.1:${port}`]);
    baseUrl = `http://127.0.0.1:${port}`;
    client = await CacheClient.create({ endpoint: server.endpoint });
    await client.createCache(cache);
  });

  after(async () => {
    client.close();
    await server.stop();
  });

  test('a key signs URLs the server serves until it is revoked', async () => {
    const key = await client.createSigningKey(600_000);
    assert.equal(key.endpoint, server.endpoint);
    const lifetime = key.expiresAt.getTime() - Date.now();
    assert.ok(lifetime > 540_000 && lifetime <= 600_000, String(lifetime));
    assert.deepEqual(await client.listSigningKeys(), [{ keyId: key.keyId, endpoint: server.endpoint, expiresAt: key.expiresAt }]);

    const set = createPresignedUrl(key, { baseUrl, cache, key: 'k', operation: 'set', expiresInMs: 60_000, ttlMs: 300_000 });
    assert.equal((await fetch(set, { method: 'PUT', body: 'presigned' })).status, 204);
    assert.equal(await client.getString(cache, 'k'), 'presigned');
    const get = createPresignedUrl(key, { baseUrl, cache, key: 'k', operation: 'get', expiresInMs: 60_000 });
    const got = await fetch(get);
    assert.deepEqual([got.status, await got.text()], [200, 'presigned']);
    // Signed for "k", not for the key its path names instead.
    assert.equal((await fetch(get.replace('/k?', '/other?'))).status, 403);

    await client.revokeSigningKey(key.keyId);
    assert.deepEqual(await client.listSigningKeys(), []);
    assert.equal((await fetch(get)).status, 401);
    await assert.rejects(client.revokeSigningKey(key.keyId), NotFoundError);
  });
});
