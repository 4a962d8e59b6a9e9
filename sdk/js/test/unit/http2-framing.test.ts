import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MessageDeframer, frameMessage } from '../../src/transport/http2-framing.js';
import { Code } from '../../src/transport/http2-status.js';

/** Collects what the deframer hands out, as hex for easy comparison. */
class Collector extends MessageDeframer {
  readonly messages: string[] = [];
  protected onMessage(message: Buffer): void {
    this.messages.push(message.toString('hex'));
  }
}

const framed = (...messages: string[]): Buffer =>
  Buffer.concat(messages.map((hex) => frameMessage(Buffer.from(hex, 'hex'))));

describe('frameMessage', () => {
  test('writes the uncompressed flag, a big-endian length and the bytes', () => {
    assert.equal(frameMessage(Buffer.from('abcdef', 'hex')).toString('hex'), '0000000003abcdef');
    assert.equal(frameMessage(new Uint8Array(0)).toString('hex'), '0000000000');
    const large = frameMessage(new Uint8Array(70_000));
    assert.equal(large.readUInt32BE(1), 70_000);
    assert.equal(large.length, 70_005);
  });
});

describe('MessageDeframer', () => {
  test('one message in one chunk', () => {
    const d = new Collector(1024);
    assert.equal(d.push(framed('0102')), undefined);
    assert.deepEqual(d.messages, ['0102']);
    assert.ok(d.deframerIdle);
  });

  test('several messages in one chunk, an empty one among them', () => {
    const d = new Collector(1024);
    d.push(framed('aa', '', 'bbcc'));
    assert.deepEqual(d.messages, ['aa', '', 'bbcc']);
  });

  test('every split point of a two-message stream gives the same messages', () => {
    const whole = framed('0102030405', 'ff');
    for (let cut = 0; cut <= whole.length; cut++) {
      const d = new Collector(1024);
      d.push(whole.subarray(0, cut));
      d.push(whole.subarray(cut));
      assert.deepEqual(d.messages, ['0102030405', 'ff'], `cut at ${cut}`);
      assert.ok(d.deframerIdle);
    }
  });

  test('one byte per chunk, prefix included', () => {
    const whole = framed('deadbeef', '', '01');
    const d = new Collector(1024);
    for (const byte of whole) d.push(Buffer.from([byte]));
    assert.deepEqual(d.messages, ['deadbeef', '', '01']);
  });

  test('reports a partial message as not idle', () => {
    const d = new Collector(1024);
    d.push(framed('010203').subarray(0, 6));
    assert.deepEqual(d.messages, []);
    assert.equal(d.deframerIdle, false);
    const p = new Collector(1024);
    p.push(Buffer.from([0, 0]));
    assert.equal(p.deframerIdle, false);
  });

  test('a message over the limit is RESOURCE_EXHAUSTED before its bytes arrive', () => {
    const d = new Collector(4);
    const prefix = Buffer.from([0, 0, 0, 0, 5]);
    const error = d.push(prefix);
    assert.equal(error?.code, Code.RESOURCE_EXHAUSTED);
    assert.match(error?.details ?? '', /maxReceiveMessageBytes/);
    assert.deepEqual(d.messages, []);
  });

  test('a message exactly at the limit is accepted', () => {
    const d = new Collector(4);
    assert.equal(d.push(framed('01020304')), undefined);
    assert.deepEqual(d.messages, ['01020304']);
  });

  test('a compressed message is INTERNAL (no compression was negotiated)', () => {
    const d = new Collector(1024);
    const error = d.push(Buffer.from([1, 0, 0, 0, 1, 7]));
    assert.equal(error?.code, Code.INTERNAL);
  });

  test('a message inside one chunk is a view, one spanning chunks is a copy', () => {
    const kept: Buffer[] = [];
    class Keep extends MessageDeframer {
      protected onMessage(message: Buffer): void {
        kept.push(message);
      }
    }
    const whole = framed('0a0b');
    new Keep(1024).push(whole);
    const first = Buffer.from(whole.subarray(0, 6));
    const second = Buffer.from(whole.subarray(6));
    const spanning = new Keep(1024);
    spanning.push(first);
    spanning.push(second);
    whole[5] = 0xff; // seen through the view
    first[5] = 0xff; // not seen: the spanning message was copied out
    assert.deepEqual(
      kept.map((m) => m.toString('hex')),
      ['ff0b', '0a0b'],
    );
  });
});
