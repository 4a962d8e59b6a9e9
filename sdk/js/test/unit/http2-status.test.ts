import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Code,
  decodeGrpcMessage,
  encodeGrpcTimeout,
  grpcCodeForHttpStatus,
  grpcCodeForRstCode,
  readGrpcStatus,
  statusErrorFromTrailers,
} from '../../src/transport/http2-status.js';

describe('encodeGrpcTimeout', () => {
  test('milliseconds while they fit in 8 digits, rounded up', () => {
    assert.equal(encodeGrpcTimeout(1500), '1500m');
    assert.equal(encodeGrpcTimeout(0.2), '1m');
    assert.equal(encodeGrpcTimeout(10.01), '11m');
    assert.equal(encodeGrpcTimeout(99_999_999), '99999999m');
  });

  test('coarser units past 8 digits, never shorter than asked', () => {
    assert.equal(encodeGrpcTimeout(100_000_000), '100000S');
    assert.equal(encodeGrpcTimeout(100_000_001), '100001S');
    assert.equal(encodeGrpcTimeout(200_000_000_000), '3333334M');
  });

  test('zero or negative still sends a valid header (the call fails locally first)', () => {
    assert.equal(encodeGrpcTimeout(0), '1m');
    assert.equal(encodeGrpcTimeout(-5), '1m');
  });
});

describe('decodeGrpcMessage', () => {
  test('percent escapes, multi-byte UTF-8 included', () => {
    assert.equal(decodeGrpcMessage('cache%20%60x%60%20missing'), 'cache `x` missing');
    assert.equal(decodeGrpcMessage('caf%C3%A9%20%E2%9C%93'), 'café ✓');
  });

  test('malformed escapes are kept as they are', () => {
    assert.equal(decodeGrpcMessage('100%'), '100%');
    assert.equal(decodeGrpcMessage('%zz%4'), '%zz%4');
    assert.equal(decodeGrpcMessage('plain'), 'plain');
  });
});

describe('status mapping', () => {
  test('HTTP statuses without grpc-status follow the gRPC spec table', () => {
    assert.equal(grpcCodeForHttpStatus(400), Code.INTERNAL);
    assert.equal(grpcCodeForHttpStatus(401), Code.UNAUTHENTICATED);
    assert.equal(grpcCodeForHttpStatus(403), Code.PERMISSION_DENIED);
    assert.equal(grpcCodeForHttpStatus(404), Code.UNIMPLEMENTED);
    for (const http of [429, 502, 503, 504]) assert.equal(grpcCodeForHttpStatus(http), Code.UNAVAILABLE);
    assert.equal(grpcCodeForHttpStatus(500), Code.UNKNOWN);
  });

  test('RST_STREAM codes', () => {
    assert.equal(grpcCodeForRstCode(7), Code.UNAVAILABLE);
    assert.equal(grpcCodeForRstCode(8), Code.CANCELLED);
    assert.equal(grpcCodeForRstCode(11), Code.RESOURCE_EXHAUSTED);
    assert.equal(grpcCodeForRstCode(2), Code.INTERNAL);
    assert.equal(grpcCodeForRstCode(0), Code.INTERNAL);
  });

  test('grpc-status: absent, numeric, garbage', () => {
    assert.equal(readGrpcStatus({}), undefined);
    assert.equal(readGrpcStatus({ 'grpc-status': '0' }), Code.OK);
    assert.equal(readGrpcStatus({ 'grpc-status': '14' }), 14);
    assert.equal(readGrpcStatus({ 'grpc-status': 'x' }), Code.UNKNOWN);
  });

  test('trailers become a StatusError with the decoded message and the err reason', () => {
    const error = statusErrorFromTrailers(8, {
      ':status': '200',
      'grpc-status': '8',
      'grpc-message': 'item%20too%20large',
      err: 'item_size_limit_exceeded',
    });
    assert.equal(error.code, 8);
    assert.equal(error.details, 'item too large');
    assert.equal(error.trailers.err, 'item_size_limit_exceeded');
    assert.equal(error.trailers[':status'], undefined);
    assert.equal(statusErrorFromTrailers(2, {}).details, '');
  });
});
