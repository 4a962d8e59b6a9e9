// protosocketEndpoint with auth on (--auth-secret-file: the Authenticate
// command carries the same token as the gRPC `authorization` header) and
// over TLS (the server's --tls-cert covers both ports; the client uses the
// gRPC side's `tls` settings for both).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AuthenticationError, CacheClient, ConnectionError, PermissionError } from '../../src/index.js';
import { serverBinary, startServer, type RunningServer } from '../support/jiffy-server.js';

const SECRET = 'a-test-secret-that-is-long-enough-for-hs256';

describe('protosocket with auth', () => {
  let dir: string;
  let secretFile: string;
  let server: RunningServer;
  const cache = 'auth-ps';

  const token = (caches: string, role: string): string =>
    execFileSync(serverBinary(), [
      'token', 'create', '--auth-secret-file', secretFile,
      '--caches', caches, '--role', role, '--expires-in', '1h',
    ], { encoding: 'utf8' }).trim();

  const connect = (apiKey: string): Promise<CacheClient> =>
    CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: server.protosocketEndpoint, apiKey });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jiffy-ps-auth-'));
    secretFile = join(dir, 'secret');
    writeFileSync(secretFile, `${SECRET}\n`);
    server = await startServer(['--auth-secret-file', secretFile], { protosocket: true });
    const admin = await CacheClient.create({ endpoint: server.endpoint, apiKey: token('all', 'admin') });
    try {
      await admin.createCache(cache);
    } finally {
      admin.close();
    }
  });

  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a good token: set, get and delete over protosocket', async () => {
    const client = await connect(token(cache, 'write'));
    try {
      await client.set(cache, 'k', 'with a token');
      assert.equal(await client.getString(cache, 'k'), 'with a token');
      await client.delete(cache, 'k');
      assert.equal(await client.get(cache, 'k'), undefined);
    } finally {
      client.close();
    }
  });

  test('a bad token: every protosocket call is AuthenticationError', async () => {
    const client = await connect('not-a-token');
    try {
      await assert.rejects(client.get(cache, 'k'), AuthenticationError);
      await assert.rejects(client.set(cache, 'k', 'v'), AuthenticationError);
    } finally {
      client.close();
    }
  });

  test('no token: AuthenticationError', async () => {
    const client = await CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: server.protosocketEndpoint, apiKey: '' });
    try {
      await assert.rejects(client.get(cache, 'k'), AuthenticationError);
    } finally {
      client.close();
    }
  });

  test('a read-only token may get but not set; another cache is refused', async () => {
    const client = await connect(token(cache, 'read'));
    try {
      assert.equal(await client.get(cache, 'absent'), undefined);
      await assert.rejects(client.set(cache, 'k', 'v'), PermissionError);
      await assert.rejects(client.get('other-cache', 'k'), PermissionError);
    } finally {
      client.close();
    }
  });
});

describe('protosocket over TLS', () => {
  let dir: string;
  let server: RunningServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jiffy-ps-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=jiffy-test',
      '-addext', 'subjectAltName=DNS:jiffy-test,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    server = await startServer(['--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')], { protosocket: true });
  });

  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('trusts the server through tls.caFile on both ports', async () => {
    const client = await CacheClient.create({
      endpoint: server.endpoint,
      protosocketEndpoint: server.protosocketEndpoint,
      tls: { caFile: join(dir, 'cert.pem') },
    });
    try {
      await client.createCache('tls-ps');
      await client.set('tls-ps', 'k', 'secure');
      assert.equal(await client.getString('tls-ps', 'k'), 'secure');
      const sets = (await server.metrics()).split('\n').find((line) => line.includes('rpc="Set"') && line.includes('transport="protosocket"'));
      assert.ok(sets, 'the Set went over protosocket');
    } finally {
      client.close();
    }
  });

  test('a certificate the client cannot verify: create() and a lazy client\'s calls fail with ConnectionError', async () => {
    const options = { endpoint: server.endpoint, protosocketEndpoint: server.protosocketEndpoint, tls: true };
    await assert.rejects(CacheClient.create({ ...options, eagerConnectTimeoutMs: 2_000 }), ConnectionError);
    const lazy = await CacheClient.create({ ...options, eagerConnectTimeoutMs: 0 });
    try {
      await assert.rejects(lazy.get('tls-ps', 'k'), (err: Error) => {
        assert.ok(err instanceof ConnectionError, String(err));
        assert.match(err.message, /certificate/);
        return true;
      });
    } finally {
      lazy.close();
    }
  });
});
