// BytesMap and BytesSet: what dictionaryFetch and setFetch answer. Field
// names and set members are bytes, as the server keeps them (Python answers
// dict[bytes, bytes] and set[bytes]); JavaScript's Map and Set compare a
// Uint8Array by identity, so two equal names would be two keys and no
// lookup would ever hit. These compare by content instead, and a string
// looks up its UTF-8 bytes.
//
// Written here rather than taken from a library: no maintained package keys
// a Map by byte content, and the whole job is one lossless key per byte
// string (latin1 maps each byte to one UTF-16 unit) over the built-in Map,
// which keeps insertion order (dictionaryFetch's ascending byte order).
import { inspect } from 'node:util';
import { type Bytes, toBytes, toUtf8 } from './codec.js';

/** One string per byte string, equal exactly when the bytes are. */
function contentKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** A key as a plain Uint8Array (a view, not a copy), whether given as text, a Buffer or bytes. */
function plainBytes(key: Bytes): Uint8Array {
  const bytes = toBytes(key);
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A read-only map from bytes to `V`, keyed by content: `get(field)` and
 * `has(field)` take a string (its UTF-8 bytes) or a Uint8Array; iteration
 * yields `[Uint8Array, V]` in the order the map was built. It is a
 * `ReadonlyMap<Uint8Array, V>`, and `dictionarySetFields` takes it back.
 * `toStringMap()` gives a `Map<string, V>` for fields known to be text.
 */
export class BytesMap<V> implements ReadonlyMap<Uint8Array, V> {
  // A plain field rather than #private: node:assert's deepEqual compares
  // own fields, so two maps with the same entries are equal in tests.
  private readonly entriesByContent = new Map<string, readonly [Uint8Array, V]>();

  /** A later entry with the same bytes replaces an earlier one's value. */
  constructor(entries: Iterable<readonly [Bytes, V]> = []) {
    for (const [key, value] of entries) {
      const bytes = plainBytes(key);
      this.entriesByContent.set(contentKey(bytes), [bytes, value]);
    }
  }

  get size(): number {
    return this.entriesByContent.size;
  }

  get(key: Bytes): V | undefined {
    return this.entriesByContent.get(contentKey(toBytes(key)))?.[1];
  }

  has(key: Bytes): boolean {
    return this.entriesByContent.has(contentKey(toBytes(key)));
  }

  *entries(): MapIterator<[Uint8Array, V]> {
    for (const [key, value] of this.entriesByContent.values()) yield [key, value];
  }

  *keys(): MapIterator<Uint8Array> {
    for (const [key] of this.entriesByContent.values()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entriesByContent.values()) yield value;
  }

  [Symbol.iterator](): MapIterator<[Uint8Array, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: Uint8Array, map: BytesMap<V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entriesByContent.values()) callback.call(thisArg, value, key, this);
  }

  /**
   * The same entries keyed by the keys decoded as UTF-8. Bytes that are not
   * UTF-8 become U+FFFD, so two such keys could become one: for text keys only.
   */
  toStringMap(): Map<string, V> {
    return new Map(Array.from(this.entriesByContent.values(), ([key, value]) => [toUtf8(key), value]));
  }

  get [Symbol.toStringTag](): string {
    return 'BytesMap';
  }

  /** console.log shows the keys as text, as a Map<string, V> would. */
  [inspect.custom](depth: number, options: object): string {
    return `BytesMap(${this.size}) ${inspect(Object.fromEntries(this.toStringMap()), { ...options, depth })}`;
  }
}

/**
 * A read-only set of byte strings, compared by content: `has(member)` takes a
 * string (its UTF-8 bytes) or a Uint8Array; iteration yields Uint8Arrays. It
 * is a `ReadonlySet<Uint8Array>`; `decodeUtf8(set)` or `toStringSet()` give
 * the members as text.
 */
export class BytesSet implements ReadonlySet<Uint8Array> {
  // A plain field, as BytesMap's: deepEqual compares two sets by their members.
  private readonly members: BytesMap<true>;

  constructor(members: Iterable<Bytes> = []) {
    this.members = new BytesMap(Array.from(members, (member): [Bytes, true] => [member, true]));
  }

  get size(): number {
    return this.members.size;
  }

  has(member: Bytes): boolean {
    return this.members.has(member);
  }

  *entries(): SetIterator<[Uint8Array, Uint8Array]> {
    for (const member of this.members.keys()) yield [member, member];
  }

  keys(): SetIterator<Uint8Array> {
    return this.values();
  }

  values(): SetIterator<Uint8Array> {
    return this.members.keys();
  }

  [Symbol.iterator](): SetIterator<Uint8Array> {
    return this.values();
  }

  forEach(callback: (value: Uint8Array, key: Uint8Array, set: BytesSet) => void, thisArg?: unknown): void {
    for (const member of this.members.keys()) callback.call(thisArg, member, member, this);
  }

  /** The members decoded as UTF-8 (bytes that are not UTF-8 become U+FFFD: for text members only). */
  toStringSet(): Set<string> {
    return new Set(Array.from(this.members.keys(), toUtf8));
  }

  get [Symbol.toStringTag](): string {
    return 'BytesSet';
  }

  /** console.log shows the members as text, as a Set<string> would. */
  [inspect.custom](depth: number, options: object): string {
    return `BytesSet(${this.size}) ${inspect([...this.toStringSet()], { ...options, depth })}`;
  }
}
