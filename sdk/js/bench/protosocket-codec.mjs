// Per-call allocation and time of the protosocket codec against the
// @bufbuild/protobuf code the gRPC calls use, on messages of the same shape
// (Get and Set of a string key and a 100-byte value, and their answers).
// Allocation is counted as scavenges x the young generation's size: run
// with a fixed, small young generation so the count is exact enough.
//
//   npx tsc -p tsconfig.build.json --outDir /tmp/ps-dist
//   node --max-semi-space-size=1 --min-semi-space-size=1 bench/protosocket-codec.mjs --dist /tmp/ps-dist
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';

const { values } = parseArgs({ options: { dist: { type: 'string', default: 'dist' }, n: { type: 'string', default: '2000000' } } });
const dist = new URL(`file://${values.dist.startsWith('/') ? values.dist : `${process.cwd()}/${values.dist}`}/`);
const codec = await import(new URL('transport/protosocket-codec.js', dist).href);
const scs = await import(new URL('gen/cacheclient_pb.js', dist).href);
const N = Number(values.n);
const SEMI_SPACE_BYTES = 1 << 20;

let scavenges = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges += 1;
}).observe({ entryTypes: ['gc'] });

const value = 'x'.repeat(100);
const namespace = Buffer.from('loadgen');

// Answers as the server sends them.
const getAnswerGrpc = toBinary(scs._GetResponseSchema, create(scs._GetResponseSchema, { result: scs.ECacheResult.Hit, cacheBody: Buffer.from(value) }));
const setAnswerGrpc = toBinary(scs._SetResponseSchema, create(scs._SetResponseSchema, {}));
const getAnswerPs = Buffer.from([0x08, 0x05, 0x5a, 102, 0x0a, 100, ...Buffer.from(value)]);
const setAnswerPs = Buffer.from([0x08, 0x06, 0x62, 0x00]);

function protobufEs(i) {
  const key = `key-${i % 10000}`;
  const get = toBinary(scs._GetRequestSchema, create(scs._GetRequestSchema, { cacheKey: Buffer.from(key) }));
  const set = toBinary(scs._SetRequestSchema, create(scs._SetRequestSchema, { cacheKey: Buffer.from(key), cacheBody: Buffer.from(value), ttlMilliseconds: 60000n }));
  const hit = fromBinary(scs._GetResponseSchema, getAnswerGrpc);
  fromBinary(scs._SetResponseSchema, setAnswerGrpc);
  return get.length + set.length + hit.cacheBody.length;
}

const layout = new codec.CommandLayout();
const reader = new codec.ResponseReader();
const out = Buffer.allocUnsafeSlow(64 << 10);
let at = 0;
function handWritten(i) {
  const key = `key-${i % 10000}`;
  if (at > 60_000) at = 0; // the connection moves to a fresh region; the buffer is reused here
  layout.plan(codec.Command.GET, i, namespace.length, codec.fieldBytes(key));
  at = codec.writeCommand(out, at, layout, namespace, key, undefined);
  layout.plan(codec.Command.SET, i, namespace.length, codec.fieldBytes(key), 100, 60000);
  at = codec.writeCommand(out, at, layout, namespace, key, value);
  reader.read(getAnswerPs, 0, getAnswerPs.length);
  const hit = reader.value();
  reader.read(setAnswerPs, 0, setAnswerPs.length);
  return at + hit.length;
}

async function measure(name, body) {
  for (let i = 0; i < 200_000; i++) body(i); // warm-up: JIT
  await new Promise((resolve) => setTimeout(resolve, 0));
  scavenges = 0;
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sink += body(i);
  const ns = Number(process.hrtime.bigint() - started);
  await new Promise((resolve) => setTimeout(resolve, 50)); // let the observer run
  const bytesPerPair = (scavenges * SEMI_SPACE_BYTES) / N;
  console.log(`${name.padEnd(20)} ${(ns / N / 1000).toFixed(3)} us per Get+Set pair, ~${Math.round(bytesPerPair)} bytes allocated per pair (${scavenges} scavenges) [${sink > 0}]`);
}

await measure('@bufbuild/protobuf', protobufEs);
await measure('hand-written', handWritten);
