// The node:http2 channel over TLS against jiffy-server started with a fresh
// self-signed certificate (openssl), the way it reaches the Momento service:
// https, ALPN h2, the CA given as PEM, the authorization header sent.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import { _CreateCacheRequestSchema } from '../../src/gen/controlclient_pb.js';
import { StatusError } from '../../src/transport/channel.js';
import { createHttp2Channel } from '../../src/transport/http2-channel.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';

const createCache = toBinary(_CreateCacheRequestSchema, create(_CreateCacheRequestSchema, { cacheName: 'tls' }));

describe('http2 channel over TLS', () => {
  let dir: string;
  let server: RunningServer;
  let ca: Buffer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jiffy-h2-tls-'));
    const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=jiffy-test', '-addext', 'subjectAltName=DNS:jiffy-test,IP:127.0.0.1',
      '-keyout', key, '-out', cert,
    ], { stdio: 'ignore' });
    ca = readFileSync(cert);
    server = await startServer(['--tls-cert', cert, '--tls-key', key]);
  });

  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const target = (tls: { ca?: Uint8Array; serverName?: string }) => ({
    host: server.host, port: server.port, tls, keepaliveTimeMs: 0, keepaliveTimeoutMs: 0, maxReceiveMessageBytes: 1 << 20,
  });
  const options = () => ({ deadline: Date.now() + 5_000, metadata: { authorization: 'a-token' } });

  test('calls succeed with the CA, by IP and by server name', async () => {
    for (const tls of [{ ca }, { ca, serverName: 'jiffy-test' }]) {
      const channel = createHttp2Channel(target(tls));
      try {
        await channel.connect(Date.now() + 5_000);
        try {
          await channel.unary('/control_client.ScsControl/CreateCache', createCache, options());
        } catch (error) {
          assert.ok(error instanceof StatusError && error.code === 6, `unexpected ${String(error)}`); // ALREADY_EXISTS
        }
        assert.ok(channel.isConnected());
      } finally {
        channel.close();
      }
    }
  });

  test('an untrusted certificate is UNAVAILABLE, not a hang', async () => {
    const channel = createHttp2Channel(target({}));
    try {
      await assert.rejects(channel.connect(Date.now() + 5_000), (error: unknown) => error instanceof StatusError && error.code === 14);
    } finally {
      channel.close();
    }
  });
});
