// Presigned URLs without a server: the URL's token checked against the
// key's public half (as the server checks it), the URL's shape, and the
// arguments refused.
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, test } from 'node:test';
import { createPresignedUrl, InvalidArgumentError, type SigningKey } from '../../src/index.js';

/** A P-256 JWK as CreateSigningKey answers it. */
function newJwk(kid = 'k1'): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), alg: 'ES256', kid });
}

/** The token's header and claims, once its ES256 signature verifies against the key's public half. */
function verifiedClaims(jwk: string, token: string): { header: unknown; claims: Record<string, unknown> } {
  const { kty, crv, x, y } = JSON.parse(jwk) as Record<string, string>;
  const publicKey = createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' });
  const [head, body, signature] = token.split('.') as [string, string, string];
  const valid = verify('sha256', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  assert.ok(valid, 'the signature verifies');
  const decode = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString());
  return { header: decode(head), claims: decode(body) as Record<string, unknown> };
}

describe('createPresignedUrl', () => {
  test('a get URL carries a token the key signed for that get', () => {
    const jwk = newJwk();
    const before = Math.floor(Date.now() / 1000);
    const url = new URL(
      createPresignedUrl(jwk, { baseUrl: 'https://h:9005/', cache: 'my cache', key: 'a/b', operation: 'get', expiresInMs: 60_000 }),
    );
    assert.equal(url.origin, 'https://h:9005');
    assert.equal(url.pathname, '/cache/get/my%20cache/a%2Fb');
    const { header, claims } = verifiedClaims(jwk, url.searchParams.get('token')!);
    assert.deepEqual(header, { alg: 'ES256', typ: 'JWT', kid: 'k1' });
    const exp = claims.exp as number;
    assert.ok(exp >= before + 60 && exp <= Math.floor(Date.now() / 1000) + 60);
    assert.deepEqual({ ...claims, exp: 0 }, { exp: 0, cache: 'my cache', key: 'a/b', method: ['get'] });
  });

  test('a set URL carries its TTL, signed in seconds and in the URL in milliseconds', () => {
    const jwk = newJwk();
    const key: SigningKey = { keyId: 'k1', endpoint: 'e', expiresAt: new Date(0), key: jwk };
    const options = { baseUrl: 'http://h', cache: 'c', key: 'k', operation: 'set', expiresInMs: 300_000, ttlMs: 30_000 } as const;
    const url = new URL(createPresignedUrl(key, options));
    assert.equal(url.searchParams.get('ttl_milliseconds'), '30000');
    const { claims } = verifiedClaims(jwk, url.searchParams.get('token')!);
    assert.deepEqual([claims.method, claims.ttl], [['set'], 30]);
  });

  test("another key's signature does not verify", () => {
    const url = new URL(createPresignedUrl(newJwk(), { baseUrl: 'http://h', cache: 'c', key: 'k', operation: 'get', expiresInMs: 60_000 }));
    assert.throws(() => verifiedClaims(newJwk(), url.searchParams.get('token')!), assert.AssertionError);
  });

  test('bad arguments are InvalidArgumentError', () => {
    const jwk = newJwk();
    const get = { baseUrl: 'http://h', cache: 'c', key: 'k', operation: 'get', expiresInMs: 60_000 } as const;
    const bad: [SigningKey | string, object][] = [
      [jwk, { ...get, operation: 'set' }],
      [jwk, { ...get, operation: 'set', ttlMs: 1500 }],
      [jwk, { ...get, operation: 'delete' }],
      [jwk, { ...get, expiresInMs: 0 }],
      ['{}', get],
      ['not json', get],
      [{ keyId: 'k1', endpoint: 'e', expiresAt: new Date(0) }, get],
    ];
    for (const [key, options] of bad) {
      assert.throws(() => createPresignedUrl(key, options as typeof get), InvalidArgumentError, JSON.stringify(options));
    }
  });
});
