// The node:http2 channel against tiny in-test HTTP/2 servers that misbehave
// on purpose: trailers-only answers, HTTP errors, split and merged messages,
// silence past the deadline, resets, GOAWAY, refused streams, unanswered PINGs.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as http2 from 'node:http2';
import type { IncomingHttpHeaders, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import * as net from 'node:net';
import { after, describe, test } from 'node:test';
import { StatusError, type ChannelTarget } from '../../src/transport/channel.js';
import { Http2Channel, createHttp2Channel } from '../../src/transport/http2-channel.js';
import { frameMessage } from '../../src/transport/http2-framing.js';
import { Code } from '../../src/transport/http2-status.js';

type Handler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer) => void;

interface TestServer {
  port: number;
  sessions: ServerHttp2Session[];
  /** The raw TCP sockets, to drop a connection without any HTTP/2 goodbye. */
  sockets: net.Socket[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** An HTTP/2 server that hands each request, body read, to `handler`. */
async function serve(handler: Handler): Promise<TestServer> {
  const server = http2.createServer();
  const sessions: ServerHttp2Session[] = [];
  const sockets: net.Socket[] = [];
  server.on('session', (session) => sessions.push(session));
  server.on('connection', (socket: net.Socket) => sockets.push(socket));
  server.on('stream', (stream, headers) => {
    const parts: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => parts.push(chunk));
    stream.on('error', () => {});
    stream.on('end', () => handler(stream, headers, Buffer.concat(parts)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const result: TestServer = {
    port: (server.address() as net.AddressInfo).port,
    sessions,
    sockets,
    close: async () => {
      for (const session of sessions) session.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  servers.push(result);
  return result;
}

/** A normal gRPC answer: 200, the messages as they are given (one write each), then trailers. */
function answer(stream: ServerHttp2Stream, writes: Buffer[], trailers: Record<string, string> = { 'grpc-status': '0' }): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers(trailers));
  for (const chunk of writes) stream.write(chunk);
  stream.end();
}

function target(port: number, overrides: Partial<ChannelTarget> = {}): ChannelTarget {
  return { host: '127.0.0.1', port, keepaliveTimeMs: 0, keepaliveTimeoutMs: 1_000, maxReceiveMessageBytes: 1 << 20, ...overrides };
}

const metadata = { cache: 'c', authorization: 'token' };
const within = (ms: number) => ({ deadline: Date.now() + ms, metadata });

async function rejection(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof StatusError, `expected a StatusError, got ${String(error)}`);
    return error;
  }
  assert.fail('the call should have failed');
}

describe('http2 channel: calls', () => {
  test('a unary call sends gRPC headers and a framed request, and returns the message', async () => {
    let seen: IncomingHttpHeaders = {};
    const server = await serve((stream, headers, body) => {
      seen = headers;
      answer(stream, [frameMessage(Buffer.concat([Buffer.from('echo:'), body.subarray(5)]))]);
    });
    const channel = createHttp2Channel(target(server.port));
    const response = await channel.unary('/svc/Echo', Buffer.from('hi'), within(5_000));
    assert.equal(Buffer.from(response).toString(), 'echo:hi');
    assert.equal(seen[':path'], '/svc/Echo');
    assert.equal(seen[':method'], 'POST');
    assert.equal(seen['content-type'], 'application/grpc');
    assert.equal(seen.te, 'trailers');
    assert.equal(seen.cache, 'c');
    assert.equal(seen.authorization, 'token');
    const timeout = Number(/^(\d+)m$/.exec(String(seen['grpc-timeout']))?.[1]);
    assert.ok(timeout > 4_000 && timeout <= 5_000, `grpc-timeout ${String(seen['grpc-timeout'])}`);
    channel.close();
  });

  test('a server stream: messages merged in one write and split over several', async () => {
    const a = frameMessage(Buffer.from('a'));
    const b = frameMessage(Buffer.from('bb'));
    const c = frameMessage(Buffer.alloc(100_000, 7));
    const server = await serve((stream) =>
      answer(stream, [Buffer.concat([a, b, frameMessage(Buffer.alloc(0))]), c.subarray(0, 3), c.subarray(3, 50_000), c.subarray(50_000)]),
    );
    const channel = createHttp2Channel(target(server.port));
    const messages = await channel.serverStream('/svc/Stream', Buffer.alloc(0), within(5_000));
    assert.deepEqual(
      messages.map((m) => m.length),
      [1, 2, 0, 100_000],
    );
    assert.equal(Buffer.from(messages[1] ?? []).toString(), 'bb');
    assert.ok(Buffer.from(messages[3] ?? []).every((byte) => byte === 7));
    channel.close();
  });

  test('error trailers: code, percent-decoded message and the err reason', async () => {
    const server = await serve((stream) =>
      answer(stream, [], { 'grpc-status': '8', 'grpc-message': 'too%20big%3A%205%20MiB', err: 'item_size_limit_exceeded' }),
    );
    const channel = createHttp2Channel(target(server.port));
    const error = await rejection(channel.unary('/svc/Set', Buffer.alloc(0), within(5_000)));
    assert.equal(error.code, Code.RESOURCE_EXHAUSTED);
    assert.equal(error.details, 'too big: 5 MiB');
    assert.equal(error.trailers.err, 'item_size_limit_exceeded');
    channel.close();
  });

  test('trailers-only: the status in the only headers block', async () => {
    const server = await serve((stream) =>
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5', 'grpc-message': 'no%20such%20cache' },
        { endStream: true },
      ),
    );
    const channel = createHttp2Channel(target(server.port));
    const error = await rejection(channel.unary('/svc/Get', Buffer.alloc(0), within(5_000)));
    assert.equal(error.code, Code.NOT_FOUND);
    assert.equal(error.details, 'no such cache');
    channel.close();
  });

  test('HTTP 503 without grpc-status is UNAVAILABLE; 200 without any status is INTERNAL', async () => {
    const server = await serve((stream, headers) => {
      if (headers[':path'] === '/svc/Busy') stream.respond({ ':status': 503 }, { endStream: true });
      else answer(stream, [frameMessage(Buffer.from('x'))], {});
    });
    const channel = createHttp2Channel(target(server.port));
    assert.equal((await rejection(channel.unary('/svc/Busy', Buffer.alloc(0), within(5_000)))).code, Code.UNAVAILABLE);
    assert.equal((await rejection(channel.unary('/svc/Mute', Buffer.alloc(0), within(5_000)))).code, Code.INTERNAL);
    channel.close();
  });

  test('a unary answer with no message, or two, is INTERNAL', async () => {
    const server = await serve((stream, headers) => {
      const count = headers[':path'] === '/svc/None' ? 0 : 2;
      answer(stream, Array.from({ length: count }, () => frameMessage(Buffer.from('m'))));
    });
    const channel = createHttp2Channel(target(server.port));
    assert.equal((await rejection(channel.unary('/svc/None', Buffer.alloc(0), within(5_000)))).code, Code.INTERNAL);
    assert.equal((await rejection(channel.unary('/svc/Two', Buffer.alloc(0), within(5_000)))).code, Code.INTERNAL);
    channel.close();
  });

  test('a message over maxReceiveMessageBytes is RESOURCE_EXHAUSTED', async () => {
    const server = await serve((stream) => answer(stream, [frameMessage(Buffer.alloc(2_000))]));
    const channel = createHttp2Channel(target(server.port, { maxReceiveMessageBytes: 1_000 }));
    const error = await rejection(channel.unary('/svc/Big', Buffer.alloc(0), within(5_000)));
    assert.equal(error.code, Code.RESOURCE_EXHAUSTED);
    channel.close();
  });

  test('the deadline fails the call, resets the stream with CANCEL and leaves no timer', async () => {
    let serverStream: ServerHttp2Stream | undefined;
    const server = await serve((stream) => {
      serverStream = stream; // never answers
    });
    const channel = createHttp2Channel(target(server.port));
    await channel.connect(Date.now() + 5_000);
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const error = await rejection(channel.unary('/svc/Slow', Buffer.alloc(0), within(50)));
    assert.equal(error.code, Code.DEADLINE_EXCEEDED);
    while (serverStream === undefined || !serverStream.closed) await new Promise((r) => setTimeout(r, 5));
    assert.equal(serverStream.rstCode, http2.constants.NGHTTP2_CANCEL);
    const timersAfter = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    assert.equal(timersAfter, timersBefore);
    const late = await rejection(channel.unary('/svc/Slow', Buffer.alloc(0), { deadline: Date.now() - 1, metadata }));
    assert.equal(late.code, Code.DEADLINE_EXCEEDED);
    channel.close();
  });
});

describe('http2 channel: connections', () => {
  test('a connection dropped mid-call is UNAVAILABLE, and the next call reconnects', async () => {
    let calls = 0;
    const server: TestServer = await serve((stream) => {
      calls++;
      if (calls === 1) server.sockets[0]?.destroy();
      else answer(stream, [frameMessage(Buffer.from('ok'))]);
    });
    const channel = createHttp2Channel(target(server.port));
    assert.equal((await rejection(channel.unary('/svc/A', Buffer.alloc(0), within(5_000)))).code, Code.UNAVAILABLE);
    assert.equal(Buffer.from(await channel.unary('/svc/A', Buffer.alloc(0), within(5_000))).toString(), 'ok');
    assert.equal(server.sessions.length, 2);
    channel.close();
  });

  test('after GOAWAY the channel opens a new connection for the next call', async () => {
    const server = await serve((stream) => answer(stream, [frameMessage(Buffer.from('ok'))]));
    const channel = createHttp2Channel(target(server.port));
    await channel.unary('/svc/A', Buffer.alloc(0), within(5_000));
    server.sessions[0]?.goaway(http2.constants.NGHTTP2_NO_ERROR);
    while (channel.isConnected()) await new Promise((r) => setTimeout(r, 5));
    await channel.unary('/svc/A', Buffer.alloc(0), within(5_000));
    assert.equal(server.sessions.length, 2);
    channel.close();
  });

  test('a stream refused unprocessed (REFUSED_STREAM) is sent again once', async () => {
    let attempts = 0;
    const server = await serve((stream, headers) => {
      attempts++;
      if (headers[':path'] === '/svc/Never' || attempts === 1) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      else answer(stream, [frameMessage(Buffer.from('ok'))]);
    });
    const channel = createHttp2Channel(target(server.port));
    assert.equal(Buffer.from(await channel.unary('/svc/A', Buffer.alloc(0), within(5_000))).toString(), 'ok');
    assert.equal(attempts, 2);
    const error = await rejection(channel.unary('/svc/Never', Buffer.alloc(0), within(5_000)));
    assert.equal(error.code, Code.UNAVAILABLE);
    assert.equal(attempts, 4, 'one retry only');
    channel.close();
  });

  test('a connection whose stream budget is spent is replaced, gracefully', async () => {
    const server = await serve((stream) => answer(stream, [frameMessage(Buffer.from('ok'))]));
    const channel = new Http2Channel(target(server.port), 3);
    await channel.connect(Date.now() + 5_000);
    // One call at a time: only a connected session is rotated (requests made
    // while one connects are held by node:http2), so calls sent at once pile
    // onto the next session while it connects, by timing, not by budget.
    const answers: Uint8Array[] = [];
    for (let call = 0; call < 7; call += 1) answers.push(await channel.unary('/svc/A', Buffer.alloc(0), within(5_000)));
    assert.deepEqual(new Set(answers.map((a) => Buffer.from(a).toString())), new Set(['ok']));
    assert.equal(server.sessions.length, 3);
    channel.close();
  });

  test('close() fails calls in flight and later calls with CANCELLED', async () => {
    const server = await serve(() => {});
    const channel = createHttp2Channel(target(server.port));
    const pending = channel.unary('/svc/Slow', Buffer.alloc(0), within(5_000));
    await channel.connect(Date.now() + 5_000);
    channel.close();
    assert.equal((await rejection(pending)).code, Code.CANCELLED);
    assert.equal((await rejection(channel.unary('/svc/A', Buffer.alloc(0), within(5_000)))).code, Code.CANCELLED);
    assert.equal(channel.isConnected(), false);
  });

  test('connect() to a closed port is UNAVAILABLE; to a silent TLS port, DEADLINE_EXCEEDED', async () => {
    const silent = net.createServer((socket) => socket.resume()); // reads, never answers the TLS handshake
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const port = (silent.address() as net.AddressInfo).port;
    const tlsChannel = createHttp2Channel(target(port, { tls: {} }));
    assert.equal((await rejection(tlsChannel.connect(Date.now() + 100))).code, Code.DEADLINE_EXCEEDED);
    tlsChannel.close();
    silent.close();
    const closedPort = createHttp2Channel(target(port));
    await once(silent, 'close');
    assert.equal((await rejection(closedPort.connect(Date.now() + 5_000))).code, Code.UNAVAILABLE);
    closedPort.close();
  });

  test('an unanswered keepalive PING drops the connection and fails its calls', async () => {
    // Speaks just enough HTTP/2 to connect (an empty SETTINGS frame), then ignores everything.
    const mute = net.createServer((socket) => {
      socket.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
      socket.on('data', () => {});
      socket.on('error', () => {});
    });
    mute.listen(0, '127.0.0.1');
    await once(mute, 'listening');
    const port = (mute.address() as net.AddressInfo).port;
    const channel = createHttp2Channel(target(port, { keepaliveTimeMs: 30, keepaliveTimeoutMs: 60 }));
    await channel.connect(Date.now() + 5_000);
    const error = await rejection(channel.unary('/svc/A', Buffer.alloc(0), within(10_000)));
    assert.equal(error.code, Code.UNAVAILABLE);
    assert.equal(channel.isConnected(), false);
    channel.close();
    mute.close();
  });
});
