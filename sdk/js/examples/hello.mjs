// Hello from the TypeScript SDK: `node examples/hello.mjs` with JIFFY_ENDPOINT
// set to a running jiffy-server (host:port). Imports the built package.
import { AlreadyExistsError, CacheClient } from '@jiffy/sdk';

const client = await CacheClient.create({ endpoint: process.env.JIFFY_ENDPOINT ?? '127.0.0.1:8080' });
try {
  try {
    await client.createCache('demo');
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err;
  }
  await client.set('demo', 'greeting', 'hello from the TypeScript SDK');
  const greeting = await client.getString('demo', 'greeting');
  console.log(`js: set and got back "${greeting}" (cache demo, ${client.connectedChannels()} connections)`);
} finally {
  client.close();
}
