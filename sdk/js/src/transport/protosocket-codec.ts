// The protosocket messages (proto/protosocket/cache.proto, common.proto),
// encoded and decoded by hand.
//
// Why not the generated @bufbuild/protobuf code the gRPC calls use: per call
// it builds a message object (create), a BinaryWriter with its chunk list
// and a result array (toBinary), and on the way back a message object with
// its oneof wrapper and a BinaryReader (fromBinary); string keys are first
// copied into a Buffer. Measured with bench/protosocket-codec.mjs (Node
// 20.20.2, young generation fixed at 1 MB, 2 million rounds of: a Get and a
// Set of a string key and a 100-byte value encoded, a hit and a Set answer
// decoded; 3 runs on a shared machine): @bufbuild/protobuf on the gRPC
// messages of the same shape allocated ~2,800-2,900 bytes per round in
// 5.2-7.5 us; this codec ~150 bytes (the bench's own key string and the
// hit's value view) in 0.6-0.9 us, about 19x less garbage for the young
// generation to sweep. The messages are few and small, so the whole format
// fits on this page:
//
// - commands are written straight into the connection's output buffer:
//   sizes first (varint lengths nest), then the bytes; string keys and values
//   are written as UTF-8 in place, never copied into a Buffer first;
// - an answer is read from the frame where it lies into the fields of one
//   reusable ResponseReader: no object per answer. A Get hit's value is a
//   view of the received bytes (as protobuf-es gives), a miss is recognised
//   by comparing bytes with "Key not found", and only an error's message
//   and reason (CommandError field 3, jiffy's extension) become strings.
//
// Field numbers and wire types are the protocol's and must not change.

/** Control codes of protosocket-rpc. */
export const CONTROL_NORMAL = 0;
export const CONTROL_CANCEL = 1;

/** The message id the official client authenticates under. */
export const AUTH_MESSAGE_ID = 0xdeadbeef;

/** What a CacheResponse carried (its oneof `kind`, by field number). */
export const Kind = {
  NONE: 0,
  ERROR: 9,
  AUTH: 10,
  GET: 11,
  SET: 12,
  DELETE: 13,
  /** Not on the wire: an error NOT_FOUND whose message is exactly MISS. */
  MISS: -1,
} as const;

/** The server's message for a Get of a missing key; any other NOT_FOUND is the cache. */
export const MISS = 'Key not found';
const MISS_BYTES = Buffer.from(MISS, 'utf8');
const NOT_FOUND = 5;

// Tags: field number << 3 | wire type (0 varint, 2 length-delimited).
const TAG_MESSAGE_ID = 0x10; // CacheCommand.message_id = 2, varint
const TAG_CONTROL_CODE = 0x18; // CacheCommand.control_code = 3, varint
const TAG_UNARY = 0x52; // CacheCommand.unary = 10, message
const TAG_AUTH = 0x0a; // Unary.auth = 1
const TAG_GET = 0x12; // Unary.get = 2
const TAG_SET = 0x1a; // Unary.set = 3
const TAG_DELETE = 0x22; // Unary.delete = 4
const TAG_TOKEN = 0x0a; // AuthenticateCommand.token = 1
const TAG_NAMESPACE = 0x0a; // Get/Set/DeleteCommand.namespace = 1
const TAG_KEY = 0x12; // .key = 2
const TAG_VALUE = 0x1a; // SetCommand.value = 3
const TAG_TTL = 0x20; // SetCommand.ttl_milliseconds = 4, varint

/** A command's kind: the Unary field it fills. */
export const Command = { AUTH: TAG_AUTH, GET: TAG_GET, SET: TAG_SET, DELETE: TAG_DELETE } as const;

/** A key, value or token: UTF-8 text or bytes. */
export type Field = string | Uint8Array;

/** Bytes a varint of `value` (an integer, 0 <= value < 2^53) takes. */
export function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  let size = 5;
  for (let rest = Math.floor(value / 0x800000000); rest > 0; rest = Math.floor(rest / 0x80)) size += 1;
  return size;
}

/** Writes `value` as a varint at `at`; returns the offset after it. */
export function writeVarint(buffer: Uint8Array, at: number, value: number): number {
  let offset = at;
  let rest = value;
  while (rest >= 0x80000000) {
    buffer[offset++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  let small = rest >>> 0;
  while (small >= 0x80) {
    buffer[offset++] = (small & 0x7f) | 0x80;
    small >>>= 7;
  }
  buffer[offset++] = small;
  return offset;
}

/** UTF-8 length of a field. */
export function fieldBytes(field: Field): number {
  return typeof field === 'string' ? Buffer.byteLength(field, 'utf8') : field.length;
}

/** A length-delimited field of `bytes` bytes: tag, length, data (omitted when empty, as proto3 does). */
function delimitedSize(bytes: number): number {
  return bytes === 0 ? 0 : 1 + varintSize(bytes) + bytes;
}

/**
 * The sizes of one command, worked out once and then written by
 * writeCommand. Reused by its owner: sizing a command allocates nothing.
 */
export class CommandLayout {
  command = 0;
  messageId = 0;
  namespaceBytes = 0;
  keyBytes = 0;
  valueBytes = 0;
  ttlMs = 0;
  /** The inner command (Get/Set/Delete/Authenticate) message. */
  innerBytes = 0;
  /** The Unary message. */
  unaryBytes = 0;
  /** The CacheCommand message. */
  messageBytes = 0;
  /** The frame: length prefix and message. */
  frameBytes = 0;

  /**
   * Sizes a command. `namespaceBytes`, `keyBytes` and `valueBytes` are the
   * UTF-8 lengths (fieldBytes); `valueBytes` and `ttlMs` are for Set only.
   */
  plan(command: number, messageId: number, namespaceBytes: number, keyBytes: number, valueBytes = 0, ttlMs = 0): this {
    this.command = command;
    this.messageId = messageId;
    this.namespaceBytes = namespaceBytes;
    this.keyBytes = keyBytes;
    this.valueBytes = valueBytes;
    this.ttlMs = ttlMs;
    let inner: number;
    if (command === TAG_AUTH) {
      inner = delimitedSize(keyBytes); // the token rides in the key slot
    } else {
      inner = delimitedSize(namespaceBytes) + delimitedSize(keyBytes);
      if (command === TAG_SET) inner += delimitedSize(valueBytes) + (ttlMs === 0 ? 0 : 1 + varintSize(ttlMs));
    }
    this.innerBytes = inner;
    this.unaryBytes = 1 + varintSize(inner) + inner;
    this.messageBytes = 1 + varintSize(messageId) + 1 + varintSize(this.unaryBytes) + this.unaryBytes;
    this.frameBytes = varintSize(this.messageBytes) + this.messageBytes;
    return this;
  }

  /** Bytes of the frame before the value (a Set's value may be written apart, uncopied). */
  get headBytes(): number {
    return this.frameBytes - this.tailBytes;
  }

  /** The Set's value and what follows it (the TTL), or 0 for other commands. */
  get tailBytes(): number {
    if (this.command !== TAG_SET || this.valueBytes === 0) return 0;
    return this.valueBytes + (this.ttlMs === 0 ? 0 : 1 + varintSize(this.ttlMs));
  }
}

function writeField(buffer: Buffer, at: number, tag: number, field: Field, bytes: number): number {
  if (bytes === 0) return at;
  buffer[at] = tag;
  let offset = writeVarint(buffer, at + 1, bytes);
  if (typeof field === 'string') offset += buffer.write(field, offset, bytes, 'utf8');
  else {
    buffer.set(field, offset);
    offset += bytes;
  }
  return offset;
}

/**
 * Writes the frame `layout` planned at `at`, up to and including the value's
 * length when `withValue` is false (the caller then writes the value and
 * writeTail). Returns the offset after what was written.
 */
export function writeCommand(
  buffer: Buffer,
  at: number,
  layout: CommandLayout,
  namespace: Field,
  key: Field,
  value: Field | undefined,
  withValue = true,
): number {
  let offset = writeVarint(buffer, at, layout.messageBytes);
  buffer[offset++] = TAG_MESSAGE_ID;
  offset = writeVarint(buffer, offset, layout.messageId);
  buffer[offset++] = TAG_UNARY;
  offset = writeVarint(buffer, offset, layout.unaryBytes);
  buffer[offset++] = layout.command;
  offset = writeVarint(buffer, offset, layout.innerBytes);
  if (layout.command === TAG_AUTH) return writeField(buffer, offset, TAG_TOKEN, key, layout.keyBytes);
  offset = writeField(buffer, offset, TAG_NAMESPACE, namespace, layout.namespaceBytes);
  offset = writeField(buffer, offset, TAG_KEY, key, layout.keyBytes);
  if (layout.command !== TAG_SET) return offset;
  if (layout.valueBytes > 0) {
    if (!withValue) {
      buffer[offset++] = TAG_VALUE;
      return writeVarint(buffer, offset, layout.valueBytes);
    }
    offset = writeField(buffer, offset, TAG_VALUE, value!, layout.valueBytes);
  }
  return writeTtl(buffer, offset, layout);
}

/** The bytes after a Set's value: its TTL. */
export function writeTtl(buffer: Buffer, at: number, layout: CommandLayout): number {
  if (layout.ttlMs === 0) return at;
  buffer[at] = TAG_TTL;
  return writeVarint(buffer, at + 1, layout.ttlMs);
}

/** Bytes of a cancel frame for `messageId`. */
export function cancelFrameBytes(messageId: number): number {
  const message = 1 + varintSize(messageId) + 2;
  return varintSize(message) + message;
}

/** Writes a cancel (control_code 1) for `messageId`; returns the offset after it. */
export function writeCancel(buffer: Uint8Array, at: number, messageId: number): number {
  let offset = writeVarint(buffer, at, 1 + varintSize(messageId) + 2);
  buffer[offset++] = TAG_MESSAGE_ID;
  offset = writeVarint(buffer, offset, messageId);
  buffer[offset++] = TAG_CONTROL_CODE;
  buffer[offset++] = CONTROL_CANCEL;
  return offset;
}

/** Why an answer could not be read. */
export class MalformedResponse extends Error {}

/**
 * Reads CacheResponse messages into its own fields, one at a time: read()
 * fills them, and they hold until the next read(). Unknown fields are
 * skipped, as protobuf requires.
 */
export class ResponseReader {
  messageId = 0;
  controlCode = 0;
  /** A Kind. */
  kind: number = Kind.NONE;
  /** For ERROR: the status code, message and reason (CommandError.reason; '' when not sent). */
  errorCode = 0;
  errorMessage = '';
  errorReason = '';
  /** For GET: where the value lies in the buffer read. */
  valueStart = 0;
  valueEnd = 0;

  private buffer: Buffer = Buffer.alloc(0);
  private offset = 0;

  /** Reads the message in `buffer[start, end)`; throws MalformedResponse. */
  read(buffer: Buffer, start: number, end: number): void {
    this.buffer = buffer;
    this.offset = start;
    this.messageId = 0;
    this.controlCode = 0;
    this.kind = Kind.NONE;
    this.errorCode = 0;
    this.errorMessage = '';
    this.errorReason = '';
    this.valueStart = 0;
    this.valueEnd = 0;
    while (this.offset < end) {
      const tag = this.varint(end);
      const field = Math.floor(tag / 8);
      const wireType = tag & 7;
      if (wireType === 0 && field === 1) this.messageId = this.varint(end);
      else if (wireType === 0 && field === 2) this.controlCode = this.varint(end);
      else if (wireType === 2 && field >= Kind.ERROR && field <= Kind.DELETE) {
        const length = this.varint(end);
        const stop = this.offset + length;
        if (stop > end) throw new MalformedResponse('a field runs past the end of the answer');
        this.kind = field;
        this.valueStart = 0;
        this.valueEnd = 0;
        if (field === Kind.ERROR) this.readError(stop);
        else if (field === Kind.GET) this.readGet(stop);
        this.offset = stop;
      } else this.skip(wireType, end);
    }
    if (this.offset !== end) throw new MalformedResponse('a field runs past the end of the answer');
  }

  /** The Get hit's value, a view of the bytes read (no copy). */
  value(): Buffer {
    return this.buffer.subarray(this.valueStart, this.valueEnd);
  }

  /** Drops the reference to the last buffer read, so that it is not kept alive. */
  release(): void {
    this.buffer = EMPTY;
  }

  private readError(end: number): void {
    let messageStart = 0;
    let messageEnd = 0;
    while (this.offset < end) {
      const tag = this.varint(end);
      if (tag === 0x08) this.errorCode = this.varint(end);
      else if (tag === 0x12) {
        const length = this.varint(end);
        messageStart = this.offset;
        messageEnd = this.offset + length;
        if (messageEnd > end) throw new MalformedResponse('an error message runs past its field');
        this.offset = messageEnd;
      } else if (tag === 0x1a) {
        const length = this.varint(end);
        const reasonEnd = this.offset + length;
        if (reasonEnd > end) throw new MalformedResponse('an error reason runs past its field');
        this.errorReason = this.buffer.toString('utf8', this.offset, reasonEnd);
        this.offset = reasonEnd;
      } else this.skip(tag & 7, end);
    }
    const buffer = this.buffer;
    if (
      this.errorCode === NOT_FOUND &&
      messageEnd - messageStart === MISS_BYTES.length &&
      buffer.compare(MISS_BYTES, 0, MISS_BYTES.length, messageStart, messageEnd) === 0
    ) {
      this.kind = Kind.MISS;
      return;
    }
    this.errorMessage = buffer.toString('utf8', messageStart, messageEnd);
  }

  private readGet(end: number): void {
    while (this.offset < end) {
      const tag = this.varint(end);
      if (tag === 0x0a) {
        const length = this.varint(end);
        this.valueStart = this.offset;
        this.valueEnd = this.offset + length;
        if (this.valueEnd > end) throw new MalformedResponse('a value runs past its field');
        this.offset = this.valueEnd;
      } else this.skip(tag & 7, end);
    }
  }

  private skip(wireType: number, end: number): void {
    switch (wireType) {
      case 0:
        this.varint(end);
        return;
      case 1:
        this.offset += 8;
        break;
      case 2: {
        const length = this.varint(end);
        this.offset += length;
        break;
      }
      case 5:
        this.offset += 4;
        break;
      default:
        throw new MalformedResponse(`wire type ${wireType} in an answer`);
    }
    if (this.offset > end) throw new MalformedResponse('a field runs past the end of the answer');
  }

  /** A varint as a number (exact below 2^53, which every field here is). */
  private varint(end: number): number {
    const buffer = this.buffer;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i += 1) {
      if (this.offset >= end) throw new MalformedResponse('the answer ends inside a varint');
      const byte = buffer[this.offset++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
    throw new MalformedResponse('a varint longer than 10 bytes');
  }
}

const EMPTY = Buffer.alloc(0);
