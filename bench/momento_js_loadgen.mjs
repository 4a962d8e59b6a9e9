#!/usr/bin/env node
// The docs/LOADGEN.md contract driving the official Momento JS SDK
// (@gomomento/sdk, pinned in bench/package.json), against jiffy-server or
// any Momento-protocol server. The loop, histograms and JSON come from the
// jiffy SDK's loadgen library (sdk/js/dist/loadgen), so every client is
// measured by the same code.
//
//   node bench/momento_js_loadgen.mjs --endpoint 127.0.0.1:8080 --concurrency 50 --json
//
// --preset picks the SDK's own configuration (in_region -> InRegion.Default,
// low_latency -> InRegion.LowLatency, laptop -> Laptop, lambda -> Lambda),
// --channels sets its numClients (withNumConnections), and
// --max-concurrent-requests its maxConcurrentRequests, only when given.
// --transport is ignored. Every --workload is served, each operation by the
// SDK's own call for it (dictionaryGetField, listPushBack, ...).
import {
  CacheClient,
  CacheGet,
  CacheSet,
  Configurations,
  CreateCache,
  CredentialProvider,
  SortedSetOrder,
} from '@gomomento/sdk';
import { nodeRuntime, runLoadgenCli } from '../sdk/js/dist/loadgen/index.js';
import { readFileSync } from 'node:fs';

const SDK_VERSION = JSON.parse(
  readFileSync(new URL('./node_modules/@gomomento/sdk/package.json', import.meta.url), 'utf8'),
).version;

const PRESETS = {
  in_region: () => Configurations.InRegion.Default.latest(),
  low_latency: () => Configurations.InRegion.LowLatency.latest(),
  laptop: () => Configurations.Laptop.latest(),
  lambda: () => Configurations.Lambda.latest(),
};

// The SDK reports failures as codes of its own; the contract counts gRPC status names.
const STATUS_BY_CODE = {
  TIMEOUT_ERROR: 'DEADLINE_EXCEEDED',
  SERVER_UNAVAILABLE: 'UNAVAILABLE',
  CONNECTION_ERROR: 'UNAVAILABLE',
  INTERNAL_SERVER_ERROR: 'INTERNAL',
  CANCELLED_ERROR: 'CANCELLED',
  LIMIT_EXCEEDED_ERROR: 'RESOURCE_EXHAUSTED',
  CLIENT_RESOURCE_EXHAUSTED: 'RESOURCE_EXHAUSTED',
  NOT_FOUND_ERROR: 'NOT_FOUND',
  INVALID_ARGUMENT_ERROR: 'INVALID_ARGUMENT',
  BAD_REQUEST_ERROR: 'INVALID_ARGUMENT',
  AUTHENTICATION_ERROR: 'UNAUTHENTICATED',
  PERMISSION_ERROR: 'PERMISSION_DENIED',
  FAILED_PRECONDITION_ERROR: 'FAILED_PRECONDITION',
};

class ResponseError extends Error {
  constructor(response) {
    super(response.toString());
    this.code = response.errorCode();
  }
}

// Every error response of the SDK has errorCode(); no success response does.
async function checked(pending) {
  const response = await pending;
  if (typeof response.errorCode === 'function') throw new ResponseError(response);
  return response;
}

async function makeDriver(config) {
  const preset = PRESETS[config.preset];
  if (preset === undefined) throw new Error(`unknown preset ${config.preset}`);
  let configuration = preset();
  if (config.channels !== undefined) configuration = configuration.withNumConnections(config.channels);
  if (config.maxConcurrentRequests !== undefined && config.maxConcurrentRequests > 0) {
    configuration = configuration.withTransportStrategy(
      configuration.getTransportStrategy().withMaxConcurrentRequests(config.maxConcurrentRequests),
    );
  }
  const [hostname, port] = [config.endpoint.slice(0, config.endpoint.lastIndexOf(':')), Number(config.endpoint.split(':').pop())];
  const client = await CacheClient.create({
    configuration,
    credentialProvider: CredentialProvider.forMomentoLocal({ hostname, port }),
    defaultTtlSeconds: 60,
  });
  const created = await client.createCache(config.cache);
  if (created instanceof CreateCache.Error && created.errorCode() !== 'ALREADY_EXISTS_ERROR') {
    throw new Error(`createCache: ${created.toString()}`);
  }
  const grpc = configuration.getTransportStrategy().getGrpcConfig();
  return {
    sdk: 'momento-js',
    sdkVersion: SDK_VERSION,
    runtime: nodeRuntime(),
    async get(key) {
      const response = await client.get(config.cache, key);
      if (response instanceof CacheGet.Error) throw new ResponseError(response);
    },
    async set(key, value) {
      const response = await client.set(config.cache, key, value);
      if (response instanceof CacheSet.Error) throw new ResponseError(response);
    },
    // The collection workloads (sdk/js/src/loadgen/workloads.ts).
    dictionaryGet: (key, field) => checked(client.dictionaryGetField(config.cache, key, field)),
    dictionarySet: (key, field, value) => checked(client.dictionarySetField(config.cache, key, field, value)),
    listFetch: (key) => checked(client.listFetch(config.cache, key)),
    listPushBack: (key, value, keep) =>
      checked(client.listPushBack(config.cache, key, value, { truncateFrontToSize: keep })),
    sortedSetTop: (key, count) =>
      checked(client.sortedSetFetchByRank(config.cache, key, { startRank: 0, endRank: count, order: SortedSetOrder.Descending })),
    sortedSetPut: (key, member, score) => checked(client.sortedSetPutElement(config.cache, key, member, score)),
    errorName: (err) => STATUS_BY_CODE[err?.code] ?? 'UNKNOWN',
    effective: { channels: grpc.getNumClients(), maxConcurrentRequests: grpc.getMaxConcurrentRequests() ?? 0 },
    close: () => client.close(),
  };
}

await runLoadgenCli(process.argv.slice(2), makeDriver);
