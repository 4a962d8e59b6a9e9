// Protosocket frames: a protobuf varint holding the message's length, then
// the message. Reads and frames need not line up: one chunk from the socket
// may hold several frames, and a frame (or its length prefix) may span
// several chunks.
//
// A frame wholly inside a chunk is handed on where it lies, as (chunk, start,
// end): no copy and no view object. A frame that spans chunks is copied
// once, into a buffer of exactly its size allocated when its length is
// known; a length prefix split between chunks waits in a 10-byte scratch.

/** Longest varint: ten bytes. */
const MAX_PREFIX_BYTES = 10;

/** Why a stream of frames cannot be read on. */
export class FrameError extends Error {}

/**
 * Cuts a byte stream into frames, handing each to `onFrame`. Abstract rather
 * than taking a callback so that a connection can be its own decoder.
 */
export abstract class FrameDecoder {
  private readonly prefix = Buffer.alloc(MAX_PREFIX_BYTES);
  private prefixBytes = 0;
  /** The frame being gathered across chunks, and how much of it is in. */
  private partial: Buffer | undefined;
  private partialBytes = 0;

  constructor(private readonly maxFrameBytes: number) {}

  /** Receives each complete message, in order: `buffer[start, end)`. */
  protected abstract onFrame(buffer: Buffer, start: number, end: number): void;

  /** Forgets any partial frame: the stream it came from is gone. */
  resetFrames(): void {
    this.prefixBytes = 0;
    this.partial = undefined;
    this.partialBytes = 0;
  }

  /** Takes one chunk; throws FrameError when the stream breaks the rules. */
  pushChunk(chunk: Buffer): void {
    let offset = 0;
    const length = chunk.length;
    while (offset < length) {
      const partial = this.partial;
      if (partial !== undefined) {
        const take = Math.min(partial.length - this.partialBytes, length - offset);
        chunk.copy(partial, this.partialBytes, offset, offset + take);
        this.partialBytes += take;
        offset += take;
        if (this.partialBytes < partial.length) return;
        this.partial = undefined;
        this.partialBytes = 0;
        this.onFrame(partial, 0, partial.length);
        continue;
      }
      let size: number;
      if (this.prefixBytes === 0) {
        // The fast path: the whole prefix in this chunk.
        size = -1;
        let value = 0;
        let scale = 1;
        for (let at = offset; at < length && at - offset < MAX_PREFIX_BYTES; at += 1) {
          const byte = chunk[at]!;
          value += (byte & 0x7f) * scale;
          if (byte < 0x80) {
            size = value;
            offset = at + 1;
            break;
          }
          scale *= 0x80;
        }
        if (size < 0) {
          if (length - offset >= MAX_PREFIX_BYTES) throw new FrameError('a frame length that is no varint');
          this.prefixBytes = chunk.copy(this.prefix, 0, offset, length);
          return;
        }
      } else {
        // A prefix begun in an earlier chunk: take bytes until it ends.
        size = -1;
        while (offset < length && size < 0) {
          if (this.prefixBytes >= MAX_PREFIX_BYTES) throw new FrameError('a frame length that is no varint');
          const byte = chunk[offset++]!;
          this.prefix[this.prefixBytes++] = byte;
          if (byte < 0x80) size = readPrefix(this.prefix, this.prefixBytes);
        }
        if (size < 0) return;
        this.prefixBytes = 0;
      }
      if (size > this.maxFrameBytes) {
        throw new FrameError(`a frame of ${size} bytes, over the limit of ${this.maxFrameBytes} (maxReceiveMessageBytes)`);
      }
      if (length - offset >= size) {
        this.onFrame(chunk, offset, offset + size);
        offset += size;
      } else {
        const whole = Buffer.allocUnsafe(size);
        this.partialBytes = chunk.copy(whole, 0, offset, length);
        this.partial = whole;
        return;
      }
    }
  }
}

function readPrefix(bytes: Buffer, count: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < count; i += 1) {
    value += (bytes[i]! & 0x7f) * scale;
    scale *= 0x80;
  }
  return value;
}
