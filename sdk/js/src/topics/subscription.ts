// A subscription: one topic's items, as an async iterable or through
// callbacks, its stream opened again where it left off when it breaks.
// The rules are the Python SDK's (_async_topics.py):
//
// - Opening is retried as any idempotent call (UNAVAILABLE / INTERNAL,
//   within `deadlineMs` and `retry.maxAttempts`); subscribe() resolves once
//   the server's first message (jiffy-server: a heartbeat) says the stream
//   is open, so nothing published after that is missed.
// - Once open, a stream that breaks (UNAVAILABLE, INTERNAL, an end without
//   an error, or silence longer than `idleTimeoutMs`) is opened again with
//   backoff (`retry.initialBackoffMs` doubling to `retry.maxBackoffMs`) for
//   as long as the client and the subscription are open, resuming just after
//   the last message or discontinuity seen. Any other failure (the cache
//   deleted, a permission, a subscriber too slow) ends it with its CacheError.
// - A reader that falls behind pauses the stream (HTTP/2 flow control then
//   holds the server back, which tells it with a discontinuity) instead of
//   queueing without bound.
import type { ChannelPool } from '../channel-pool.js';
import type { ResolvedKnobs } from '../config.js';
import { type CacheError, type CallContext, ServerError, TimeoutError, clientClosed, toCacheError } from '../errors.js';
import { RPCS } from '../rpcs.gen.js';
import { backoffMs, isRetryableStatus } from '../retry.js';
import type { OpenStream, StatusError } from '../transport/channel.js';
import type { TopicCursor, TopicDiscontinuity, TopicItem, TopicMessage } from './items.js';

export const SUBSCRIBE_PATH = '/cache_client.pubsub.Pubsub/Subscribe';

/** Items queued for a reader before the stream is paused; it resumes at half. */
const HIGH_WATER = 256;

/** The callback form of a subscription: items go to these instead of an iterator. */
export interface SubscribeCallbacks {
  /** Each message, in order. */
  onItem: (message: TopicMessage) => void;
  /** Each discontinuity, in order with the messages; ignored when left out. */
  onDiscontinuity?: (discontinuity: TopicDiscontinuity) => void;
  /** The subscription ended with this error (it is then closed). */
  onError: (error: CacheError) => void;
}

/** What a subscription needs from its client. */
export interface TopicContext {
  readonly pool: ChannelPool;
  readonly knobs: Readonly<ResolvedKnobs>;
  /** host:port, for error messages. */
  readonly target: string;
  /** Whether the client is closed. */
  closed(): boolean;
}

type Connected =
  | { kind: 'open' }
  | { kind: 'error'; error: StatusError }
  | { kind: 'ended' }
  | { kind: 'silent' }
  | { kind: 'closed' };

interface Waiter {
  resolve: (result: IteratorResult<TopicItem>) => void;
  reject: (error: unknown) => void;
}

/**
 * An open subscription. Iterate it (`for await (const item of subscription)`)
 * for TopicMessage and TopicDiscontinuity items, unless it was made with
 * callbacks. Leaving the loop (`break`), close(), the subscribe call's
 * AbortSignal and the client's close() end it; iteration then stops.
 */
export class TopicSubscription implements AsyncIterable<TopicItem> {
  /** How many times the stream broke and was opened again. */
  reconnects = 0;
  readonly #context: TopicContext;
  readonly #request: () => Uint8Array;
  readonly #metadata: Readonly<Record<string, string>>;
  readonly #cursor: TopicCursor;
  readonly #idleTimeoutMs: number;
  readonly #callbacks: SubscribeCallbacks | undefined;
  readonly #onClose: () => void;
  #stream: OpenStream | undefined;
  /** Counts streams, so events of a stream left behind are ignored. */
  #generation = 0;
  #settleConnect: ((connected: Connected) => void) | undefined;
  #queue: TopicItem[] = [];
  #waiters: Waiter[] = [];
  #failure: CacheError | undefined;
  #closed = false;
  #paused = false;
  #lastMessageAt = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;
  #wakeTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly cacheName: string,
    readonly topic: string,
    context: TopicContext,
    metadata: Readonly<Record<string, string>>,
    cursor: TopicCursor,
    idleTimeoutMs: number,
    callbacks: SubscribeCallbacks | undefined,
    onClose: () => void,
  ) {
    this.#context = context;
    this.#metadata = metadata;
    this.#cursor = cursor;
    this.#request = () => cursor.subscriptionRequest(cacheName, topic);
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#callbacks = callbacks;
    this.#onClose = onClose;
  }

  /** Whether it has ended (closed, or failed). */
  get closed(): boolean {
    return this.#closed;
  }

  [Symbol.asyncIterator](): AsyncIterator<TopicItem> {
    if (this.#callbacks !== undefined) {
      throw new TypeError('this subscription hands its items to onItem; subscribe without callbacks to iterate it');
    }
    return {
      next: () => this.#next(),
      return: () => {
        this.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  /** Ends the subscription: iteration stops, the stream is cancelled. */
  close(): void {
    if (this.#closed) return;
    this.#shut();
    this.#queue = [];
    for (const waiter of this.#waiters.splice(0)) waiter.resolve({ done: true, value: undefined });
  }

  /** The first opening: retried as an idempotent call; rejects with its error. */
  async open(): Promise<void> {
    const knobs = this.#context.knobs;
    const giveUpAt = Date.now() + knobs.deadlineMs;
    const maxAttempts = RPCS.Subscribe.idempotent ? knobs.retry.maxAttempts : 1;
    for (let attempt = 1; ; attempt += 1) {
      if (this.#context.closed()) this.close();
      if (this.#closed) throw clientClosed('Subscribe');
      const connected = await this.#connect(Math.max(1, giveUpAt - Date.now()));
      if (connected.kind === 'open') return;
      if (connected.kind === 'closed') throw clientClosed('Subscribe');
      if (connected.kind !== 'error') {
        this.close();
        throw connected.kind === 'silent'
          ? new TimeoutError(
              `Subscribe failed: the server sent nothing within ${knobs.deadlineMs} ms of opening the stream; ` +
                'check the server, or raise `deadlineMs` in the options',
              { status: 'DEADLINE_EXCEEDED' },
            )
          : new ServerError('Subscribe failed: the server ended the stream before its first message', { status: 'OK' });
      }
      const delay = backoffMs(attempt, knobs.retry);
      if (attempt >= maxAttempts || !isRetryableStatus(connected.error.code) || Date.now() + delay >= giveUpAt) {
        this.close();
        throw toCacheError(connected.error, this.#errorContext());
      }
      await this.#sleep(delay);
    }
  }

  #next(): Promise<IteratorResult<TopicItem>> {
    const item = this.#queue.shift();
    if (item !== undefined) {
      if (this.#paused && this.#queue.length <= HIGH_WATER / 2) {
        this.#paused = false;
        this.#stream?.resume();
      }
      return Promise.resolve({ value: item, done: false });
    }
    const failure = this.#failure;
    if (failure !== undefined) {
      this.#failure = undefined;
      return Promise.reject(failure);
    }
    if (this.#closed) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /**
   * Opens a stream at the cursor and waits up to `timeoutMs` for its first
   * message; once that came, later events go to #deliver / #broken.
   */
  #connect(timeoutMs: number): Promise<Connected> {
    return new Promise((resolve) => {
      const generation = ++this.#generation;
      let opened = false;
      const settle = (connected: Connected): void => {
        clearTimeout(timer);
        if (this.#settleConnect === settle) this.#settleConnect = undefined;
        resolve(connected);
      };
      this.#settleConnect = settle;
      const timer = setTimeout(() => {
        if (generation !== this.#generation || opened) return;
        this.#cut();
        settle({ kind: 'silent' });
      }, timeoutMs);
      this.#paused = false;
      this.#stream = this.#context.pool.openStream(SUBSCRIBE_PATH, this.#request(), this.#metadata, {
        onMessage: (bytes) => {
          if (generation !== this.#generation) return;
          this.#lastMessageAt = Date.now();
          if (!opened) {
            opened = true;
            this.#armIdle();
            settle({ kind: 'open' });
          }
          this.#deliver(bytes);
        },
        onEnd: (error) => {
          if (generation !== this.#generation) return;
          this.#stream = undefined;
          if (opened) this.#broken(error);
          else settle(error === undefined ? { kind: 'ended' } : { kind: 'error', error });
        },
      });
    });
  }

  #deliver(bytes: Uint8Array): void {
    let item: TopicItem | undefined;
    try {
      item = this.#cursor.take(bytes);
    } catch (err) {
      this.#fail(new ServerError(`Subscribe failed: unreadable message: ${(err as Error).message}`, { status: 'INTERNAL', cause: err }));
      return;
    }
    if (item === undefined) return;
    const callbacks = this.#callbacks;
    if (callbacks !== undefined) {
      try {
        if (item.kind === 'message') callbacks.onItem(item);
        else callbacks.onDiscontinuity?.(item);
      } catch (err) {
        // As a throwing event listener: the subscription stops, the error is the caller's.
        this.close();
        queueMicrotask(() => {
          throw err;
        });
      }
      return;
    }
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      waiter.resolve({ value: item, done: false });
      return;
    }
    this.#queue.push(item);
    if (this.#queue.length >= HIGH_WATER && !this.#paused) {
      this.#paused = true;
      this.#stream?.pause();
    }
  }

  /** An open stream ended: open it again, or end the subscription. */
  #broken(error: StatusError | undefined): void {
    this.#clearIdle();
    if (this.#stopped()) return;
    if (error !== undefined && !isRetryableStatus(error.code)) {
      this.#fail(toCacheError(error, this.#errorContext()));
      return;
    }
    void this.#reconnect();
  }

  async #reconnect(): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      await this.#sleep(backoffMs(attempt, this.#context.knobs.retry));
      if (this.#stopped()) return;
      const connected = await this.#connect(this.#context.knobs.deadlineMs);
      if (this.#stopped()) return;
      if (connected.kind === 'open') {
        this.reconnects += 1;
        return;
      }
      if (connected.kind === 'error' && !isRetryableStatus(connected.error.code)) {
        this.#fail(toCacheError(connected.error, this.#errorContext()));
        return;
      }
    }
  }

  #stopped(): boolean {
    if (!this.#closed && this.#context.closed()) this.close();
    return this.#closed;
  }

  #fail(error: CacheError): void {
    if (this.#closed) return;
    this.#shut();
    if (this.#callbacks !== undefined) {
      this.#callbacks.onError(error);
      return;
    }
    const [waiter, ...others] = this.#waiters.splice(0);
    if (waiter === undefined) {
      this.#failure = error; // after the items queued before it
      return;
    }
    waiter.reject(error);
    for (const other of others) other.resolve({ done: true, value: undefined });
  }

  /** Closed from now on: the stream, its timers and any wait end. */
  #shut(): void {
    this.#closed = true;
    this.#cut();
    this.#settleConnect?.({ kind: 'closed' });
    this.#wake?.();
    this.#onClose();
  }

  /** Ends the current stream; its events are ignored from now on. */
  #cut(): void {
    this.#generation += 1;
    this.#clearIdle();
    const stream = this.#stream;
    this.#stream = undefined;
    stream?.cancel();
  }

  /** The idle check: one timer per stream, re-armed when it fires early. */
  #armIdle(): void {
    const idle = this.#idleTimeoutMs;
    if (idle <= 0) return;
    this.#clearIdle();
    const check = (): void => {
      const quietUntil = this.#lastMessageAt + idle;
      if (Date.now() < quietUntil) {
        this.#idleTimer = setTimeout(check, quietUntil - Date.now());
        return;
      }
      this.#idleTimer = undefined;
      this.#cut();
      this.#broken(undefined);
    };
    this.#idleTimer = setTimeout(check, idle);
  }

  #clearIdle(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  /** A backoff wait that close() cuts short. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(this.#wakeTimer);
        this.#wake = undefined;
        resolve();
      };
      this.#wake = wake;
      this.#wakeTimer = setTimeout(wake, ms);
    });
  }

  #errorContext(): CallContext {
    const { knobs, target } = this.#context;
    return { call: 'Subscribe', deadlineMs: knobs.deadlineMs, target, cacheCall: true };
  }
}
