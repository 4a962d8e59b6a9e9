// Ping. CacheClient.ping() is a no-op in this SDK version (it is built
// without a ping client), so the SDK's own internal ping client is used.

import { describe, test } from 'node:test';

import { Configurations, CredentialProvider } from '@gomomento/sdk';
import pingClientModule from '@gomomento/sdk/dist/src/internal/ping-client.js';

const { InternalNodeGrpcPingClient } = pingClientModule;

export function registerPingTests(suite) {
  describe('ping', () => {
    test('Ping answers OK', async () => {
      const { host, port } = suite.server;
      const pingClient = new InternalNodeGrpcPingClient({
        configuration: Configurations.Laptop.latest(),
        credentialProvider: CredentialProvider.forMomentoLocal({ hostname: host, port }),
        endpoint: `${host}:${port}`,
      });
      await pingClient.ping();
    });
  });
}
