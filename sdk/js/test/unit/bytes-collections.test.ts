// BytesMap and BytesSet: keyed by content, looked up by string or bytes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import { BytesMap, BytesSet, decodeUtf8 } from '../../src/index.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('BytesMap', () => {
  test('looks up by content: a string is its UTF-8 bytes, another Uint8Array with the same bytes hits', () => {
    const map = new BytesMap<number>([[bytes('a'), 1], ['é', 2]]);
    assert.equal(map.get('a'), 1);
    assert.equal(map.get(bytes('a')), 1);
    assert.equal(map.get(Uint8Array.of(0xc3, 0xa9)), 2);
    assert.equal(map.has('é'), true);
    assert.equal(map.has('b'), false);
    assert.equal(map.get('b'), undefined);
  });

  test('keys that are not UTF-8 stay apart; iteration yields bytes in the order given', () => {
    const map = new BytesMap([[Uint8Array.of(0xff), 'ff'], [Uint8Array.of(0xfe), 'fe'], ['', 'empty']]);
    assert.equal(map.size, 3);
    assert.deepEqual([...map.keys()].map((key) => [...key]), [[0xff], [0xfe], []]);
    assert.deepEqual([...map.values()], ['ff', 'fe', 'empty']);
    assert.deepEqual([...map].map(([key, value]) => [key.length, value]), [[1, 'ff'], [1, 'fe'], [0, 'empty']]);
    assert.deepEqual([...map.entries()], [...map]);
    const seen: string[] = [];
    map.forEach((value, key, self) => seen.push(`${key.length}:${value}:${self === map}`));
    assert.deepEqual(seen, ['1:ff:true', '1:fe:true', '0:empty:true']);
  });

  test('a later entry with the same bytes replaces the value', () => {
    const map = new BytesMap([['k', 1], [bytes('k'), 2]]);
    assert.equal(map.size, 1);
    assert.equal(map.get('k'), 2);
  });

  test('a key given as a view into a larger buffer is its own bytes', () => {
    const buffer = bytes('xkeyx');
    const map = new BytesMap([[buffer.subarray(1, 4), 1]]);
    assert.equal(map.get('key'), 1);
    assert.equal(map.has('xkeyx'), false);
  });

  test('deepEqual compares entries by content, whether keys were given as text or bytes', () => {
    assert.deepStrictEqual(new BytesMap([['a', 1]]), new BytesMap([[bytes('a'), 1]]));
    assert.notDeepStrictEqual(new BytesMap([['a', 1]]), new BytesMap([['a', 2]]));
    assert.notDeepStrictEqual(new BytesMap([['a', 1]]), new BytesMap([['b', 1]]));
    assert.deepStrictEqual(new BytesSet(['a']), new BytesSet([bytes('a')]));
    assert.notDeepStrictEqual(new BytesSet(['a']), new BytesSet(['a', 'b']));
  });

  test('toStringMap keys the values by text; console.log shows text keys', () => {
    const map = new BytesMap([['a', 1], ['b', 2]]);
    assert.deepEqual(map.toStringMap(), new Map([['a', 1], ['b', 2]]));
    assert.equal(inspect(map), "BytesMap(2) { a: 1, b: 2 }");
    assert.equal(inspect(new BytesMap()), 'BytesMap(0) {}');
  });
});

describe('BytesSet', () => {
  test('members are compared by content, looked up by string or bytes', () => {
    const set = new BytesSet([bytes('a'), 'a', Uint8Array.of(0), 'b']);
    assert.equal(set.size, 3);
    assert.equal(set.has('a'), true);
    assert.equal(set.has(Uint8Array.of(0)), true);
    assert.equal(set.has('c'), false);
    assert.deepEqual(decodeUtf8(set), ['a', '\u0000', 'b']);
    assert.deepEqual([...set.keys()], [...set.values()]);
    assert.deepEqual([...set.entries()].map(([key, value]) => key === value), [true, true, true]);
    let count = 0;
    set.forEach((value, key, self) => {
      assert.equal(value, key);
      assert.equal(self, set);
      count += 1;
    });
    assert.equal(count, 3);
  });

  test('toStringSet gives text; console.log shows text members', () => {
    const set = new BytesSet(['x', 'y']);
    assert.deepEqual(set.toStringSet(), new Set(['x', 'y']));
    assert.equal(inspect(set), "BytesSet(2) [ 'x', 'y' ]");
  });
});
