import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseHostPort, resolveEndpoints } from '../../src/endpoints.js';
import { InvalidArgumentError } from '../../src/errors.js';

const v1Key = (apiKey: string, endpoint: string): string =>
  Buffer.from(JSON.stringify({ api_key: apiKey, endpoint })).toString('base64');
const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

describe('resolveEndpoints', () => {
  test('no endpoint anywhere is an error naming JIFFY_ENDPOINT, not a guess', () => {
    assert.throws(() => resolveEndpoints({}, {}), (err: Error) => err instanceof InvalidArgumentError && /JIFFY_ENDPOINT/.test(err.message));
  });

  test('the endpoint option takes the forms JIFFY_ENDPOINT takes', () => {
    const local = resolveEndpoints({ endpoint: 'localhost' }, {});
    assert.deepEqual(local.data, { host: 'localhost', port: 8080 });
    assert.equal(local.tls, undefined);
    const secure = resolveEndpoints({ endpoint: 'https://cache.example.com' }, {});
    assert.deepEqual(secure.data, { host: 'cache.example.com', port: 443 });
    assert.deepEqual(secure.tls, {});
    assert.equal(resolveEndpoints({ endpoint: 'https://cache.example.com', tls: false }, {}).tls, undefined);
  });

  test('JIFFY_ENDPOINT and JIFFY_API_KEY; the option wins over the variable', () => {
    const env = { JIFFY_ENDPOINT: 'cache.local:9000', JIFFY_API_KEY: 'secret' };
    assert.deepEqual(resolveEndpoints({}, env).data, { host: 'cache.local', port: 9000 });
    assert.equal(resolveEndpoints({}, env).authorization, 'secret');
    assert.deepEqual(resolveEndpoints({ endpoint: '[::1]:7000' }, env).data, { host: '::1', port: 7000 });
  });

  test('a v1 Momento key: cache. and control. endpoints on 443 over TLS, the bare key as authorization', () => {
    const endpoints = resolveEndpoints({ apiKey: v1Key('the-key', 'cell-1.example.com') }, {});
    assert.deepEqual(endpoints.data, { host: 'cache.cell-1.example.com', port: 443 });
    assert.deepEqual(endpoints.control, { host: 'control.cell-1.example.com', port: 443 });
    assert.deepEqual(endpoints.tls, {});
    assert.equal(endpoints.authorization, 'the-key');
  });

  test('a v2 key (JWT) with MOMENTO_ENDPOINT', () => {
    const endpoints = resolveEndpoints({}, { MOMENTO_API_KEY: jwt, MOMENTO_ENDPOINT: 'cell-2.example.com' });
    assert.deepEqual(endpoints.data, { host: 'cache.cell-2.example.com', port: 443 });
    assert.deepEqual(endpoints.control, { host: 'control.cell-2.example.com', port: 443 });
    assert.equal(endpoints.authorization, jwt);
  });

  test('a jiffy-server token (also a JWT) is not taken for a Momento v2 key when MOMENTO_ENDPOINT is set', () => {
    const plain = (endpoints: ReturnType<typeof resolveEndpoints>, port: number) => {
      assert.deepEqual(endpoints.data, { host: '127.0.0.1', port });
      assert.deepEqual(endpoints.control, endpoints.data);
      assert.equal(endpoints.tls, undefined);
      assert.equal(endpoints.authorization, jwt);
    };
    const momentoEnv = { MOMENTO_ENDPOINT: 'cell-2.example.com' };
    // JIFFY_API_KEY goes with a jiffy endpoint; alone it names no server.
    assert.throws(() => resolveEndpoints({}, { ...momentoEnv, JIFFY_API_KEY: jwt }), /JIFFY_ENDPOINT/);
    plain(resolveEndpoints({}, { ...momentoEnv, JIFFY_API_KEY: jwt, JIFFY_ENDPOINT: '127.0.0.1:8080' }), 8080);
    plain(resolveEndpoints({ apiKey: jwt, endpoint: '127.0.0.1:9000' }, momentoEnv), 9000);
    plain(resolveEndpoints({ apiKey: jwt }, { ...momentoEnv, JIFFY_ENDPOINT: '127.0.0.1:9001' }), 9001);
    // Given alone, the key is still a Momento one.
    assert.equal(resolveEndpoints({ apiKey: jwt }, momentoEnv).data.host, 'cache.cell-2.example.com');
  });

  test('TLS with a CA file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jiffy-ca-'));
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, 'PEM');
    const endpoints = resolveEndpoints({ endpoint: '127.0.0.1:8080', tls: { caFile, serverName: 'jiffy' } }, {});
    assert.equal(Buffer.from(endpoints.tls!.ca!).toString(), 'PEM');
    assert.equal(endpoints.tls!.serverName, 'jiffy');
    assert.throws(() => resolveEndpoints({ endpoint: '127.0.0.1:8080', tls: { caFile: join(dir, 'missing.pem') } }, {}), /`tls\.caFile`/);
  });

  test('a bad endpoint names the option', () => {
    assert.throws(() => parseHostPort('localhost:http', 'endpoint'), /`endpoint` must be host:port/);
    assert.throws(() => parseHostPort('h:70000', 'endpoint'), /`endpoint`/);
  });
});
