#!/usr/bin/env node
// The docs/LOADGEN.md contract over bare @grpc/grpc-js stubs (proto-loader, no
// SDK): the raw ceiling an SDK built on grpc-js can approach. One stub per
// channel (local subchannel pool, so each is its own connection), calls
// spread round robin, no in-flight cap, no retries; --preset and
// --transport are ignored. Reuses the jiffy loadgen library for the loop,
// histograms and JSON.
//
//   node bench/js/bare-grpc-js-loadgen.mjs --endpoint 127.0.0.1:8080 --channels 2 --json
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeRuntime, runLoadgenCli } from '../../sdk/js/dist/loadgen/index.js';

const PROTO_DIR = fileURLToPath(new URL('../../proto', import.meta.url));
const GRPC_VERSION = JSON.parse(
  readFileSync(new URL('../node_modules/@grpc/grpc-js/package.json', import.meta.url), 'utf8'),
).version;
const STATUS_NAMES = Object.fromEntries(Object.entries(grpc.status).map(([name, code]) => [code, name]));
const DEADLINE_MS = 5_000;

function unary(stub, method, request, metadata) {
  return new Promise((resolve, reject) => {
    stub[method](request, metadata, { deadline: Date.now() + DEADLINE_MS }, (err, response) =>
      err ? reject(err) : resolve(response),
    );
  });
}

async function makeDriver(config) {
  const definition = protoLoader.loadSync(['cacheclient.proto', 'controlclient.proto'], {
    includeDirs: [PROTO_DIR],
    keepCase: true,
    longs: Number,
    defaults: false,
  });
  const proto = grpc.loadPackageDefinition(definition);
  const channels = config.channels ?? 1;
  const options = { 'grpc.use_local_subchannel_pool': 1 };
  const stubs = Array.from(
    { length: channels },
    () => new proto.cache_client.Scs(config.endpoint, grpc.credentials.createInsecure(), options),
  );
  const control = new proto.control_client.ScsControl(config.endpoint, grpc.credentials.createInsecure(), options);
  await Promise.all(
    stubs.map((stub) => new Promise((resolve, reject) =>
      stub.waitForReady(Date.now() + DEADLINE_MS, (err) => (err ? reject(err) : resolve())))),
  );
  try {
    await unary(control, 'CreateCache', { cache_name: config.cache }, new grpc.Metadata());
  } catch (err) {
    if (err.code !== grpc.status.ALREADY_EXISTS) throw err;
  }
  control.close();
  const metadata = new grpc.Metadata();
  metadata.set('cache', config.cache);
  let next = 0;
  const pick = () => {
    next = (next + 1) % channels;
    return stubs[next];
  };
  return {
    sdk: 'bare-grpc-js',
    sdkVersion: GRPC_VERSION,
    runtime: nodeRuntime(),
    get: (key) => unary(pick(), 'Get', { cache_key: Buffer.from(key) }, metadata),
    set: (key, value) =>
      unary(pick(), 'Set', { cache_key: Buffer.from(key), cache_body: value, ttl_milliseconds: 60_000 }, metadata),
    errorName: (err) => STATUS_NAMES[err?.code] ?? 'UNKNOWN',
    effective: { channels, maxConcurrentRequests: 0 },
    close: () => stubs.forEach((stub) => stub.close()),
  };
}

await runLoadgenCli(process.argv.slice(2), makeDriver);
