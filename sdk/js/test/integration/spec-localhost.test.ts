// sdk/spec.json's endpoint rules against a real server: `localhost` is a host
// name like any other, resolved when connecting, and reaches a server that
// listens on 127.0.0.1 only. Where localhost resolves to ::1 first, this also
// checks that the next address is tried; where it resolves to 127.0.0.1 alone
// (as on the CI machine), only that the name is resolved. The same test runs
// in the Python SDK (tests/test_spec_config.py).
import { after, before, describe, test } from 'node:test';
import { CacheClient } from '../../src/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

describe('JIFFY_ENDPOINT=localhost:PORT', () => {
  let server: RunningServer;
  let saved: string | undefined;

  before(async () => {
    server = await startServer();
    saved = process.env.JIFFY_ENDPOINT;
  });

  after(async () => {
    if (saved === undefined) delete process.env.JIFFY_ENDPOINT;
    else process.env.JIFFY_ENDPOINT = saved;
    await server.stop();
  });

  for (const transport of TRANSPORTS) {
    test(`${transport}: connects and pings`, async () => {
      process.env.JIFFY_ENDPOINT = `localhost:${server.port}`;
      const client = await CacheClient.create({ transport, eagerConnectTimeoutMs: 5_000 });
      try {
        await client.ping();
      } finally {
        client.close();
      }
    });
  }
});
