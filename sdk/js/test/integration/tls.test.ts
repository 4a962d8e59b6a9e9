// TLS with a CA file: the server runs with a self-signed certificate made
// by the openssl command line for the test; the client trusts it through
// `tls.caFile` and fails to connect without it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CacheClient, ConnectionError } from '../../src/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

describe('TLS', () => {
  let dir: string;
  let server: RunningServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jiffy-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=jiffy-test',
      '-addext', 'subjectAltName=DNS:jiffy-test,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    server = await startServer(['--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')]);
  });

  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const transport of TRANSPORTS) {
    test(`${transport}: trusts the server through tls.caFile`, async () => {
      const client = await CacheClient.create({ endpoint: server.endpoint, transport, tls: { caFile: join(dir, 'cert.pem') } });
      try {
        await client.createCache(`tls-${transport}`);
        await client.set(`tls-${transport}`, 'k', 'secure');
        assert.equal(await client.getString(`tls-${transport}`, 'k'), 'secure');
      } finally {
        client.close();
      }
    });

    test(`${transport}: refuses a certificate it cannot verify`, async () => {
      await assert.rejects(
        CacheClient.create({ endpoint: server.endpoint, transport, tls: true, eagerConnectTimeoutMs: 2_000 }),
        ConnectionError,
      );
    });
  }
});
