// The hand-written protosocket codec and framing against @bufbuild/protobuf's
// own wire writer and reader (the reference encoding of the same fields):
// commands byte for byte, answers read back, varints at their edges, and
// frames cut at every point, several to a chunk.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import {
  AUTH_MESSAGE_ID,
  Command,
  CommandLayout,
  Kind,
  MalformedResponse,
  ResponseReader,
  cancelFrameBytes,
  fieldBytes,
  varintSize,
  writeCancel,
  writeCommand,
  writeTtl,
  writeVarint,
} from '../../src/transport/protosocket-codec.js';
import { FrameDecoder, FrameError } from '../../src/transport/protosocket-framing.js';

/** CacheCommand as the reference writer encodes it, framed. */
function referenceCommand(
  messageId: number,
  unary: (w: BinaryWriter) => void,
  controlCode = 0,
): Buffer {
  const w = new BinaryWriter();
  w.tag(2, 0).uint64(messageId);
  if (controlCode !== 0) w.tag(3, 0).uint32(controlCode);
  else {
    w.tag(10, 2).fork();
    unary(w);
    w.join();
  }
  const message = w.finish();
  return Buffer.from(new BinaryWriter().bytes(message).finish());
}

function encoded(layout: CommandLayout, namespace: string, key: string | Uint8Array, value?: string | Uint8Array): Buffer {
  const buffer = Buffer.alloc(layout.frameBytes + 8, 0xee);
  const end = writeCommand(buffer, 0, layout, namespace, key, value);
  assert.equal(end, layout.frameBytes, 'writes exactly the planned size');
  return buffer.subarray(0, end);
}

/** A CacheResponse as the server would send it (the reference writer). */
function response(messageId: number, kind: (w: BinaryWriter) => void): Buffer {
  const w = new BinaryWriter();
  w.tag(1, 0).uint64(messageId);
  kind(w);
  return Buffer.from(w.finish());
}

describe('protosocket varints', () => {
  const edges = [0, 1, 127, 128, 16_383, 16_384, 2 ** 21 - 1, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31, 2 ** 32 + 5, 0xdeadbeef, 2 ** 35, 2 ** 53 - 1];
  for (const value of edges) {
    test(`${value}: size and bytes as protobuf's`, () => {
      const reference = new BinaryWriter().uint64(value).finish();
      const mine = Buffer.alloc(10);
      const end = writeVarint(mine, 0, value);
      assert.equal(end, reference.length);
      assert.equal(varintSize(value), reference.length);
      assert.deepEqual([...mine.subarray(0, end)], [...reference]);
    });
  }
});

describe('protosocket commands', () => {
  const layout = new CommandLayout();

  test('Get, with a string key and with bytes', () => {
    const expected = referenceCommand(7, (w) => w.tag(2, 2).fork().tag(1, 2).string('cache').tag(2, 2).bytes(Buffer.from('k€y')).join());
    assert.deepEqual(encoded(layout.plan(Command.GET, 7, 5, fieldBytes('k€y')), 'cache', 'k€y'), expected);
    assert.deepEqual(encoded(layout.plan(Command.GET, 7, 5, 5), 'cache', Buffer.from('k€y')), expected);
  });

  test('Set with a TTL, and a large message id', () => {
    const id = 2 ** 40 + 3;
    const value = Buffer.alloc(300, 7);
    const expected = referenceCommand(id, (w) =>
      w.tag(3, 2).fork().tag(1, 2).string('c').tag(2, 2).bytes(Buffer.from('key')).tag(3, 2).bytes(value).tag(4, 0).uint64(60_000).join(),
    );
    assert.deepEqual(encoded(layout.plan(Command.SET, id, 1, 3, 300, 60_000), 'c', 'key', value), expected);
  });

  test('Set written in two parts: head, the value apart, then the TTL', () => {
    const value = Buffer.from('a value written uncopied');
    layout.plan(Command.SET, 9, 1, 1, value.length, 1_000);
    const whole = encoded(layout, 'c', 'k', value);
    const head = Buffer.alloc(layout.headBytes);
    assert.equal(writeCommand(head, 0, layout, 'c', 'k', value, false), layout.headBytes);
    const tail = Buffer.alloc(layout.tailBytes - value.length);
    writeTtl(tail, 0, layout);
    assert.deepEqual(Buffer.concat([head, value, tail]), whole);
  });

  test('Set of an empty value leaves the field out, as proto3 does', () => {
    const expected = referenceCommand(1, (w) => w.tag(3, 2).fork().tag(1, 2).string('c').tag(2, 2).bytes(Buffer.from('k')).tag(4, 0).uint64(5).join());
    assert.deepEqual(encoded(layout.plan(Command.SET, 1, 1, 1, 0, 5), 'c', 'k', ''), expected);
  });

  test('Delete', () => {
    const expected = referenceCommand(3, (w) => w.tag(4, 2).fork().tag(1, 2).string('ns').tag(2, 2).bytes(Buffer.from('k')).join());
    assert.deepEqual(encoded(layout.plan(Command.DELETE, 3, 2, 1), 'ns', 'k'), expected);
  });

  test('Authenticate under 0xDEADBEEF, with a token and without one', () => {
    const expected = referenceCommand(AUTH_MESSAGE_ID, (w) => w.tag(1, 2).fork().tag(1, 2).string('tok').join());
    assert.deepEqual(encoded(layout.plan(Command.AUTH, AUTH_MESSAGE_ID, 0, 3), '', 'tok'), expected);
    const empty = referenceCommand(AUTH_MESSAGE_ID, (w) => w.tag(1, 2).fork().join());
    assert.deepEqual(encoded(layout.plan(Command.AUTH, AUTH_MESSAGE_ID, 0, 0), '', ''), empty);
  });

  test('cancel: control code 1 and the id', () => {
    const expected = referenceCommand(300, () => undefined, 1);
    const mine = Buffer.alloc(cancelFrameBytes(300));
    assert.equal(writeCancel(mine, 0, 300), mine.length);
    assert.deepEqual(mine, expected);
  });
});

describe('protosocket answers', () => {
  const reader = new ResponseReader();
  const read = (bytes: Buffer): ResponseReader => {
    reader.read(bytes, 0, bytes.length);
    return reader;
  };

  test('a hit: the value is a view of the bytes read', () => {
    const bytes = response(42, (w) => w.tag(11, 2).fork().tag(1, 2).bytes(Buffer.from('hello')).join());
    const r = read(bytes);
    assert.equal(r.messageId, 42);
    assert.equal(r.kind, Kind.GET);
    assert.equal(r.value().toString(), 'hello');
    assert.equal(r.value().buffer, bytes.buffer);
  });

  test('a hit of an empty value', () => {
    const r = read(response(1, (w) => w.tag(11, 2).fork().join()));
    assert.equal(r.kind, Kind.GET);
    assert.equal(r.value().length, 0);
  });

  test('a miss is NOT_FOUND with exactly "Key not found"; another NOT_FOUND is an error', () => {
    const miss = read(response(5, (w) => w.tag(9, 2).fork().tag(1, 0).int32(5).tag(2, 2).string('Key not found').join()));
    assert.equal(miss.kind, Kind.MISS);
    assert.equal(miss.errorMessage, '');
    const cache = read(response(5, (w) => w.tag(9, 2).fork().tag(1, 0).int32(5).tag(2, 2).string('cache `x` does not exist').join()));
    assert.equal(cache.kind, Kind.ERROR);
    assert.equal(cache.errorCode, 5);
    assert.equal(cache.errorMessage, 'cache `x` does not exist');
  });

  test("an error's reason (CommandError field 3) is read when sent, and empty otherwise", () => {
    const reason = 'answer_too_large_for_protosocket';
    const withReason = read(response(6, (w) => w.tag(9, 2).fork().tag(1, 0).int32(8).tag(2, 2).string('too large').tag(3, 2).string(reason).join()));
    assert.equal(withReason.kind, Kind.ERROR);
    assert.equal(withReason.errorCode, 8);
    assert.equal(withReason.errorMessage, 'too large');
    assert.equal(withReason.errorReason, reason);
    const without = read(response(7, (w) => w.tag(9, 2).fork().tag(1, 0).int32(8).tag(2, 2).string('too large').join()));
    assert.equal(without.errorReason, '', 'not kept from the answer before');
  });

  test('set, delete and auth answers; the id of 0xDEADBEEF', () => {
    assert.equal(read(response(2, (w) => w.tag(12, 2).fork().join())).kind, Kind.SET);
    assert.equal(read(response(2, (w) => w.tag(13, 2).fork().join())).kind, Kind.DELETE);
    const auth = read(response(AUTH_MESSAGE_ID, (w) => w.tag(10, 2).fork().join()));
    assert.equal(auth.kind, Kind.AUTH);
    assert.equal(auth.messageId, AUTH_MESSAGE_ID);
  });

  test('unknown fields are skipped, of every wire type', () => {
    const bytes = response(8, (w) => {
      w.tag(3, 0).uint64(99).tag(4, 1).fixed64(1).tag(5, 5).fixed32(2).tag(6, 2).bytes(Buffer.from('x'));
      w.tag(11, 2).fork().tag(7, 0).int32(1).tag(1, 2).bytes(Buffer.from('v')).join();
      w.tag(2, 0).uint32(0);
    });
    const r = read(bytes);
    assert.equal(r.messageId, 8);
    assert.equal(r.value().toString(), 'v');
  });

  test('truncated or malformed answers throw', () => {
    const good = response(1, (w) => w.tag(11, 2).fork().tag(1, 2).bytes(Buffer.from('hello')).join());
    // Cut inside a field (at 2 it is a whole answer holding only its id).
    for (let cut = 3; cut < good.length; cut++) {
      assert.throws(() => read(good.subarray(0, cut)), MalformedResponse, `cut at ${cut}`);
    }
    assert.throws(() => read(Buffer.from([0x0b])), MalformedResponse); // wire type 3
  });

  test('the reference reader agrees on the id', () => {
    const bytes = response(2 ** 45, (w) => w.tag(12, 2).fork().join());
    const reference = new BinaryReader(bytes);
    reference.tag();
    assert.equal(Number(reference.uint64()), read(bytes).messageId);
  });
});

/** Collects frames as hex. */
class Frames extends FrameDecoder {
  readonly frames: string[] = [];
  protected onFrame(buffer: Buffer, start: number, end: number): void {
    this.frames.push(buffer.toString('hex', start, end));
  }
}

const frame = (hex: string): Buffer => {
  const body = Buffer.from(hex, 'hex');
  const prefix = Buffer.alloc(10);
  return Buffer.concat([prefix.subarray(0, writeVarint(prefix, 0, body.length)), body]);
};

describe('protosocket framing', () => {
  test('several frames in one chunk, an empty one among them', () => {
    const d = new Frames(1 << 20);
    d.pushChunk(Buffer.concat([frame('aa'), frame(''), frame('bbcc')]));
    assert.deepEqual(d.frames, ['aa', '', 'bbcc']);
  });

  test('every split point of a stream gives the same frames, a two-byte prefix included', () => {
    const long = 'ab'.repeat(200); // 200 bytes: a two-byte length prefix
    const whole = Buffer.concat([frame('0102030405'), frame(long), frame('ff')]);
    for (let cut = 0; cut <= whole.length; cut++) {
      const d = new Frames(1 << 20);
      d.pushChunk(whole.subarray(0, cut));
      d.pushChunk(whole.subarray(cut));
      assert.deepEqual(d.frames, ['0102030405', long, 'ff'], `cut at ${cut}`);
    }
  });

  test('one byte per chunk', () => {
    const long = 'cd'.repeat(20_000); // a three-byte prefix
    const whole = Buffer.concat([frame('deadbeef'), frame(''), frame(long), frame('01')]);
    const d = new Frames(1 << 20);
    for (const byte of whole) d.pushChunk(Buffer.from([byte]));
    assert.deepEqual(d.frames, ['deadbeef', '', long, '01']);
  });

  test('a frame inside one chunk is handed on in place, not copied', () => {
    const chunk = Buffer.concat([frame('aabb'), frame('cc')]);
    const seen: Buffer[] = [];
    class Same extends FrameDecoder {
      protected onFrame(buffer: Buffer): void {
        seen.push(buffer);
      }
    }
    new Same(100).pushChunk(chunk);
    assert.deepEqual(seen, [chunk, chunk]);
  });

  test('a length over the limit, and a prefix that is no varint, throw', () => {
    assert.throws(() => new Frames(10).pushChunk(frame('00'.repeat(11))), FrameError);
    assert.throws(() => new Frames(10).pushChunk(Buffer.alloc(11, 0xff)), FrameError);
    const split = new Frames(10);
    split.pushChunk(Buffer.alloc(6, 0xff));
    assert.throws(() => split.pushChunk(Buffer.alloc(6, 0xff)), FrameError);
  });

  test('resetFrames forgets a partial frame', () => {
    const d = new Frames(100);
    d.pushChunk(frame('aabbcc').subarray(0, 2));
    d.resetFrames();
    d.pushChunk(frame('dd'));
    assert.deepEqual(d.frames, ['dd']);
  });
});
