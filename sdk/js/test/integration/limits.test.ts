// The in-flight cap and the channel count, observed from outside: the
// server's in-flight gauge and the TCP connections this process holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CacheClient } from '../../src/index.js';
import { countTcpConnections } from '../../src/loadgen/connections.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const CAP = 100;
const CALLS = 5_000;

for (const transport of TRANSPORTS) {
  describe(`limits over ${transport}`, () => {
    let server: RunningServer;

    before(async () => {
      server = await startServer();
    });

    after(async () => {
      await server?.stop();
    });

    test(`${CALLS} concurrent calls through a cap of ${CAP}: all succeed, at most ${CAP} on the wire`, async () => {
      const client = await CacheClient.create({ endpoint: server.endpoint, transport, maxConcurrentRequests: CAP, channels: 2 });
      try {
        await client.createCache('cap');
        const calls = Array.from({ length: CALLS }, (_u, i) =>
          i % 2 === 0 ? client.set('cap', `k${i % 500}`, 'v') : client.get('cap', `k${i % 500}`),
        );
        const results = await Promise.allSettled(calls);
        assert.equal(results.filter((r) => r.status === 'rejected').length, 0);
        assert.equal(client.inFlightHighWaterMark, CAP);
        // The server's own count: the most calls it handled at once.
        const serverMax = await server.metric('jiffy_requests_in_flight_max');
        assert.ok(serverMax !== undefined, 'jiffy-server exports no jiffy_requests_in_flight_max gauge');
        assert.ok(serverMax <= CAP && serverMax > 1, `server saw ${serverMax} calls in flight at most`);
      } finally {
        client.close();
      }
    });

    for (const channels of [1, 3]) {
      test(`${channels} channel(s) give ${channels} TCP connection(s)`, async () => {
        const client = await CacheClient.create({ endpoint: server.endpoint, transport, channels });
        try {
          assert.equal(client.connectedChannels(), channels);
          assert.equal(countTcpConnections(server.port), channels);
        } finally {
          client.close();
        }
      });
    }
  });
}
