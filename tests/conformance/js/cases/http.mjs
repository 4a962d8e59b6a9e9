// Momento's HTTP API against jiffy-server's HTTP port (--http-listen): the
// official JS SDK's HTTP API tests (common-integration-tests, http-apis.ts),
// with the requests they make, for two kinds of key: an api key minted by
// the official AuthClient (a Momento v1 key, sent as it is given), and a
// token from `jiffy-server token create`. Upstream sends them over HTTPS to
// api.cache.<endpoint>; here they go over plain HTTP to the local port.

import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  AllDataReadWrite,
  AuthClient,
  CacheClient,
  Configurations,
  CreateCache,
  CredentialProvider,
  ExpiresIn,
  GenerateApiKey,
} from '@gomomento/sdk';

import { createAdminToken, startJiffyServer } from '../support/jiffy-server.mjs';
import { assertIs, uniqueCacheName } from '../support/suite.mjs';

/** One request to the HTTP port: its status, status message and body. */
function makeRequest(port, method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let data = '';
      res.on('data', (chunk) => {
        data += chunk;
      });
      res.on('end', () =>
        resolve({ statusCode: res.statusCode, statusMessage: res.statusMessage, body: data }),
      );
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

const encode = encodeURIComponent;

// The three calls exactly as upstream makes them.
const putValue = (port, apiKey, cache, key, value, ttl) =>
  makeRequest(
    port,
    'PUT',
    `/cache/${encode(cache)}?key=${encode(key)}&value=${encode(value)}&ttl_seconds=${ttl}`,
    { Authorization: apiKey, 'Content-Type': 'application/json' },
    value,
  );
const getValue = (port, apiKey, cache, key) =>
  makeRequest(port, 'GET', `/cache/${encode(cache)}?key=${encode(key)}`, {
    Authorization: apiKey,
  });
const deleteValue = (port, apiKey, cache, key) =>
  makeRequest(port, 'DELETE', `/cache/${encode(cache)}?key=${encode(key)}`, {
    Authorization: apiKey,
  });

export function registerHttpApiTests(suite) {
  let secretDir;
  let server;
  let cacheName;
  const keys = {};

  describe('Momento HTTP API', () => {
    before(async () => {
      secretDir = mkdtempSync(join(tmpdir(), 'jiffy-http-'));
      const secretFile = join(secretDir, 'secret');
      writeFileSync(secretFile, randomBytes(48).toString('base64'));
      server = await startJiffyServer([
        ...suite.store.args,
        '--max-caches',
        '1000',
        '--auth-secret-file',
        secretFile,
        '--http-listen',
        '127.0.0.1:0',
      ]);
      const endpoint = `${server.host}:${server.port}`;
      const credentialProvider = CredentialProvider.fromString({
        apiKey: createAdminToken(secretFile, 'momento-v1'),
        endpointOverrides: {
          cacheEndpoint: endpoint,
          controlEndpoint: endpoint,
          tokenEndpoint: endpoint,
          secureConnection: false,
        },
      });
      const cache = new CacheClient({
        configuration: Configurations.Laptop.latest(),
        credentialProvider,
        defaultTtlSeconds: 60,
      });
      cacheName = uniqueCacheName('http-api');
      assertIs(await cache.createCache(cacheName), CreateCache.Success);
      cache.close();
      const minted = await new AuthClient({ credentialProvider }).generateApiKey(
        AllDataReadWrite,
        ExpiresIn.minutes(5),
      );
      keys['a minted api key'] = assertIs(minted, GenerateApiKey.Success).apiKey;
      keys['a jiffy token'] = createAdminToken(secretFile, 'jiffy');
    });

    after(async () => {
      assert.equal(await server.stop(), 0, server.stderr());
      rmSync(secretDir, { recursive: true, force: true });
    });

    for (const kind of ['a minted api key', 'a jiffy token']) {
      describe(`with ${kind}`, () => {
        test('should return error on non-existing cache', async () => {
          const [port, apiKey] = [server.httpPort, keys[kind]];
          const key = randomUUID();
          const value = randomUUID();
          const nonExistentCache = randomUUID();
          const putRes = await putValue(port, apiKey, nonExistentCache, key, value, 300);
          assert.equal(putRes.statusCode, 404);
          assert.equal(putRes.statusMessage?.toLowerCase(), 'not found');
          const getRes = await getValue(port, apiKey, nonExistentCache, key);
          assert.equal(getRes.statusCode, 404);
          assert.equal(getRes.statusMessage?.toLowerCase(), 'not found');
          const delRes = await deleteValue(port, apiKey, nonExistentCache, key);
          assert.equal(delRes.statusCode, 404);
          assert.equal(delRes.statusMessage?.toLowerCase(), 'not found');
        });

        test('should successfully PUT and GET a value from a cache', async () => {
          const [port, apiKey] = [server.httpPort, keys[kind]];
          const key = randomUUID();
          const value = randomUUID();
          const putRes = await putValue(port, apiKey, cacheName, key, value, 300);
          assert.equal(putRes.statusCode, 204);
          const getRes = await getValue(port, apiKey, cacheName, key);
          assert.equal(getRes.statusCode, 200);
          assert.equal(getRes.body, value);
        });

        test('should return error on GET on non-existing key', async () => {
          const [port, apiKey] = [server.httpPort, keys[kind]];
          const getRes = await getValue(port, apiKey, cacheName, randomUUID());
          assert.equal(getRes.statusCode, 404);
          assert.equal(getRes.statusMessage?.toLowerCase(), 'not found');
        });

        test('should successfully DELETE a value from a cache', async () => {
          const [port, apiKey] = [server.httpPort, keys[kind]];
          const key = randomUUID();
          const putRes = await putValue(port, apiKey, cacheName, key, randomUUID(), 300);
          assert.equal(putRes.statusCode, 204);
          const delRes = await deleteValue(port, apiKey, cacheName, key);
          assert.equal(delRes.statusCode, 204);
          const getRes = await getValue(port, apiKey, cacheName, key);
          assert.equal(getRes.statusCode, 404);
        });

        test('should return success on DELETE on non-existing key', async () => {
          const [port, apiKey] = [server.httpPort, keys[kind]];
          const delRes = await deleteValue(port, apiKey, cacheName, randomUUID());
          assert.equal(delRes.statusCode, 204);
        });
      });
    }
  });
}
