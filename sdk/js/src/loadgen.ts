#!/usr/bin/env node
// Load generator for this SDK (docs/LOADGEN.md): `node dist/loadgen.js --help`.
//   node dist/loadgen.js --endpoint 127.0.0.1:8080 --concurrency 50 --duration 10 --json
import { AlreadyExistsError, CacheClient, CacheError, presetByName } from './index.js';
import { routeOf } from './cache-client.js';
import { type CacheClientOptions, DEFAULT_TRANSPORT, type TransportName } from './config.js';
import { withExtraHeaders } from './transport/extra-headers.js';
import { channelFactoryFor } from './transport/index.js';
import { type Driver, type LoadgenConfig, USAGE, countTcpConnections, nodeRuntime, runLoadgenCli } from './loadgen/index.js';
import { SDK_NAME, SDK_VERSION } from './version.js';


async function makeDriver(config: LoadgenConfig): Promise<Driver> {
  const options: CacheClientOptions = { ...presetByName(config.preset).latest(), endpoint: config.endpoint };
  if (config.channels !== undefined) options.channels = config.channels;
  if (config.maxConcurrentRequests !== undefined) options.maxConcurrentRequests = config.maxConcurrentRequests;
  if (config.transport === 'protosocket') {
    // Gets and sets over protosocket; createCache (and any other call) over http2.
    options.protosocketEndpoint = config.protosocketEndpoint;
  } else if (config.transport !== 'auto') {
    options.transport = config.transport as TransportName;
    options.protosocketEndpoint = null;
  }
  if (config.delayMs > 0) {
    // A gRPC header: protosocket commands cannot carry it.
    options.protosocketEndpoint = null;
    // The fault-injection header on every call: the server waits that long before answering.
    const delay = Object.freeze({ 'delay-ms': String(config.delayMs) });
    options.channelFactory = withExtraHeaders(await channelFactoryFor(options.transport ?? DEFAULT_TRANSPORT), () => delay);
  }
  const client = await CacheClient.create(options);
  try {
    await client.createCache(config.cache);
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err;
  }
  const cache = config.cache;
  const portOf = (endpoint: string): number => Number(endpoint.split(':').pop());
  // With protosocket the client holds connections to both ports: count both.
  const psEndpoint = config.protosocketEndpoint ?? routeOf(client).protosocketAddress;
  const transport = client.transport === 'protosocket' ? 'protosocket' : client.knobs.transport;
  const connections =
    psEndpoint === undefined
      ? undefined
      : (): number | undefined => {
          const grpc = countTcpConnections(portOf(config.endpoint));
          const protosocket = countTcpConnections(portOf(psEndpoint));
          return grpc === undefined || protosocket === undefined ? undefined : grpc + protosocket;
        };
  return {
    sdk: SDK_NAME,
    sdkVersion: SDK_VERSION,
    runtime: `${nodeRuntime()} transport=${transport}`,
    transport,
    get: (key) => client.get(cache, key),
    set: (key, value) => client.set(cache, key, value),
    // The collection workloads (loadgen/workloads.ts).
    dictionaryGet: (key, field) => client.dictionaryGetField(cache, key, field),
    dictionarySet: (key, field, value) => client.dictionarySetField(cache, key, field, value),
    listFetch: (key) => client.listFetch(cache, key),
    listPushBack: (key, value, keep) => client.listPushBack(cache, key, value, { truncateFrontToSize: keep }),
    sortedSetTop: (key, count) => client.sortedSetFetchByRank(cache, key, { start: 0, end: count, order: 'descending' }),
    sortedSetPut: (key, member, score) => client.sortedSetPutElement(cache, key, member, score),
    errorName: (err) => (err instanceof CacheError && err.status !== undefined ? err.status : 'UNKNOWN'),
    effective: { channels: client.knobs.channels, maxConcurrentRequests: client.knobs.maxConcurrentRequests },
    inFlightLimit: () => client.inFlightLimit(),
    faultDelay: true,
    ...(connections === undefined ? {} : { connections }),
    close: () => client.close(),
  };
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`usage: jiffy-js-loadgen [flags]\n${USAGE}\n`);
} else {
  await runLoadgenCli(process.argv.slice(2), makeDriver);
}
