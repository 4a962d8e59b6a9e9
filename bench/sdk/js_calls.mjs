// The fixed client workload of python_calls.py for the TypeScript SDK:
// PAIRS get+set pairs of 100-byte values over 1,000 keys, from one caller,
// over protosocket (or 'auto', or gRPC with no protosocket endpoint).
//   node bench/sdk/js_calls.mjs SDK_ENTRY ENDPOINT PROTOSOCKET_ENDPOINT|auto|none PAIRS
// SDK_ENTRY is a built SDK's dist/index.js, so any version of it can run
// this; prints the transport that carried the calls.
const [entry, endpoint, protosocket, pairs] = process.argv.slice(2);
const { AlreadyExistsError, CacheClient } = await import(entry);

const CACHE = 'bench';
const KEYS = 1000;
const value = new Uint8Array(100).fill(0x76);
// Long deadlines: under callgrind the client runs some 50 times slower.
const client = await CacheClient.create({
  endpoint,
  protosocketEndpoint: protosocket === 'none' ? null : protosocket,
  deadlineMs: 60_000,
  eagerConnectTimeoutMs: 60_000,
});
try {
  try {
    await client.createCache(CACHE);
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err;
  }
  for (let i = 0; i < Number(pairs); i++) {
    const key = `key-${i % KEYS}`;
    await client.set(CACHE, key, value);
    await client.get(CACHE, key);
  }
  console.log(client.transport);
} finally {
  client.close();
}
