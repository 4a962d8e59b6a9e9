// gRPC message framing on HTTP/2 DATA: each message is a 5-byte prefix (a
// compressed flag, then the length as a big-endian uint32) followed by the
// message bytes. Frames and messages need not line up: one DATA chunk may hold
// several messages, and one message may span several chunks.
//
// The deframer copies only when a message spans chunks; a message wholly
// inside one chunk is returned as a view of that chunk.

import { Code } from './http2-status.js';

const PREFIX_BYTES = 5;
const EMPTY = Buffer.alloc(0);

/** A message framed for the wire: one allocation, one copy. */
export function frameMessage(message: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  framed[0] = 0; // not compressed: the transport never asks for compression
  framed.writeUInt32BE(message.length, 1);
  framed.set(message, PREFIX_BYTES);
  return framed;
}

/** Why a response stream could not be read; a gRPC code and a sentence. */
export interface DeframeError {
  code: number;
  details: string;
}

/**
 * Cuts a stream of DATA chunks into messages, handing each to `onMessage`.
 * `push` returns a DeframeError when the stream breaks the rules (a
 * compressed message, one larger than allowed); the call is then over and the
 * deframer must not be used again.
 *
 * Abstract rather than taking a callback so that a call object can be its own
 * deframer: one allocation per call instead of three.
 */
export abstract class MessageDeframer {
  /** Bytes of an unfinished prefix or message, when one spans chunks. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Length of the message being read, or -1 while reading a prefix. */
  private messageBytes = -1;

  constructor(private readonly maxMessageBytes: number) {}

  /** Receives each complete message, in order. */
  protected abstract onMessage(message: Buffer): void;

  /** True when no partial prefix or message is waiting for more bytes. */
  get deframerIdle(): boolean {
    return this.pendingBytes === 0 && this.messageBytes === -1;
  }

  push(chunk: Buffer): DeframeError | undefined {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.messageBytes === -1) {
        // Reading a prefix: the fast path has all 5 bytes in this chunk.
        let length: number | DeframeError;
        if (this.pendingBytes === 0 && chunk.length - offset >= PREFIX_BYTES) {
          length = this.startMessage(chunk, offset);
          offset += PREFIX_BYTES;
        } else {
          const take = Math.min(PREFIX_BYTES - this.pendingBytes, chunk.length - offset);
          this.keep(chunk.subarray(offset, offset + take));
          offset += take;
          if (this.pendingBytes < PREFIX_BYTES) return undefined;
          length = this.startMessage(this.takePending(), 0);
        }
        if (typeof length !== 'number') return length;
        if (length === 0) this.finish(EMPTY);
        continue;
      }
      const missing = this.messageBytes - this.pendingBytes;
      const available = chunk.length - offset;
      if (this.pendingBytes === 0 && available >= missing) {
        this.finish(chunk.subarray(offset, offset + missing));
        offset += missing;
      } else if (available >= missing) {
        this.keep(chunk.subarray(offset, offset + missing));
        offset += missing;
        this.finish(this.takePending());
      } else {
        this.keep(chunk.subarray(offset));
        offset = chunk.length;
      }
    }
    return undefined;
  }

  /** Reads a prefix; the message length, or why the message is refused. */
  private startMessage(source: Buffer, at: number): number | DeframeError {
    if (source[at] !== 0) {
      return { code: Code.INTERNAL, details: 'compressed response message, but no compression was negotiated' };
    }
    const length = source.readUInt32BE(at + 1);
    if (length > this.maxMessageBytes) {
      return {
        code: Code.RESOURCE_EXHAUSTED,
        details: `response message of ${length} bytes is larger than maxReceiveMessageBytes (${this.maxMessageBytes})`,
      };
    }
    this.messageBytes = length;
    return length;
  }

  private finish(message: Buffer): void {
    this.messageBytes = -1;
    this.onMessage(message);
  }

  private keep(part: Buffer): void {
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private takePending(): Buffer {
    const whole = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return whole;
  }
}
