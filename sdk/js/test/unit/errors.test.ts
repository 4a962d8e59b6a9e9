import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as errors from '../../src/errors.js';
import { StatusError } from '../../src/transport/channel.js';
import { Status } from '../../src/status.js';

const context = { call: 'Get', deadlineMs: 5000, target: '127.0.0.1:8080', cacheCall: true };

function map(code: number, trailers: Record<string, string> = {}, cacheCall = true): errors.CacheError {
  return errors.errorFromStatus(new StatusError(code, 'details here', trailers), { ...context, cacheCall });
}

describe('errorFromStatus', () => {
  const cases: [number, new (...args: never[]) => errors.CacheError][] = [
    [Status.UNAVAILABLE, errors.ConnectionError],
    [Status.DEADLINE_EXCEEDED, errors.TimeoutError],
    [Status.UNAUTHENTICATED, errors.AuthenticationError],
    [Status.PERMISSION_DENIED, errors.PermissionError],
    [Status.ALREADY_EXISTS, errors.AlreadyExistsError],
    [Status.RESOURCE_EXHAUSTED, errors.LimitExceededError],
    [Status.INVALID_ARGUMENT, errors.InvalidArgumentError],
    [Status.OUT_OF_RANGE, errors.InvalidArgumentError],
    [Status.FAILED_PRECONDITION, errors.WrongTypeError],
    [Status.INTERNAL, errors.ServerError],
    [Status.UNKNOWN, errors.ServerError],
    [Status.UNIMPLEMENTED, errors.ServerError],
    [Status.CANCELLED, errors.ServerError],
    [99, errors.ServerError],
  ];
  for (const [code, expected] of cases) {
    test(`status ${code} -> ${expected.name}`, () => {
      const err = map(code);
      assert.equal(err.constructor, expected);
      assert.ok(err instanceof errors.CacheError);
      assert.equal(err.name, expected.name);
      assert.ok(err.cause instanceof StatusError);
    });
  }

  test('NOT_FOUND: the cache for a cache call without reason or with store_not_found', () => {
    assert.equal(map(Status.NOT_FOUND).constructor, errors.CacheNotFoundError);
    assert.equal(map(Status.NOT_FOUND, { err: 'store_not_found' }, false).constructor, errors.CacheNotFoundError);
    assert.equal(map(Status.NOT_FOUND, { err: 'item_not_found' }).constructor, errors.NotFoundError);
    assert.equal(map(Status.NOT_FOUND, {}, false).constructor, errors.NotFoundError);
    assert.ok(map(Status.NOT_FOUND) instanceof errors.NotFoundError);
  });

  test('WrongTypeError is an InvalidArgumentError', () => {
    assert.ok(map(Status.FAILED_PRECONDITION) instanceof errors.InvalidArgumentError);
  });

  test('the message names the status, the details and the option to change', () => {
    const timeout = map(Status.DEADLINE_EXCEEDED);
    assert.equal(timeout.status, 'DEADLINE_EXCEEDED');
    assert.match(timeout.message, /^Get failed: DEADLINE_EXCEEDED: details here: .*`deadlineMs`/);
    assert.match(map(Status.UNAVAILABLE).message, /127\.0\.0\.1:8080.*`retry\.maxAttempts`/);
  });

  test('the err trailer becomes the reason and its advice', () => {
    const err = map(Status.RESOURCE_EXHAUSTED, { err: 'item_size_limit_exceeded' });
    assert.equal(err.reason, 'item_size_limit_exceeded');
    assert.match(err.message, /--max-value-size/);
  });

  test("protosocket's reason travels as the err trailer; an older server's is read from its message's end", () => {
    const tooLarge = errors.Reason.ANSWER_TOO_LARGE_FOR_PROTOSOCKET;
    assert.equal(map(Status.RESOURCE_EXHAUSTED, { err: tooLarge }).reason, tooLarge);
    const older = new StatusError(Status.RESOURCE_EXHAUSTED, 'the value is 9 bytes, over the 8 bytes a protosocket answer can carry; read it over gRPC');
    assert.equal(errors.reasonOf(older), tooLarge);
    assert.equal(errors.reasonOf(new StatusError(Status.RESOURCE_EXHAUSTED, 'read it over gRPC, a protosocket answer can carry')), undefined);
    assert.equal(errors.reasonOf(new StatusError(Status.RESOURCE_EXHAUSTED, older.details, { err: 'item_size_limit_exceeded' })), 'item_size_limit_exceeded');
  });

  test('toCacheError keeps CacheErrors and wraps anything else as ServerError', () => {
    const original = new errors.TimeoutError('t');
    assert.equal(errors.toCacheError(original, context), original);
    const wrapped = errors.toCacheError(new Error('boom'), context);
    assert.ok(wrapped instanceof errors.ServerError);
    assert.match(wrapped.message, /Get failed: boom/);
  });

  test('queue timeouts name maxConcurrentRequests', () => {
    const err = errors.queueTimeout('Set', 100, 7);
    assert.ok(err instanceof errors.TimeoutError);
    assert.match(err.message, /7 in-flight slots.*`maxConcurrentRequests`/);
  });
});
