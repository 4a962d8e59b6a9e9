// The topic calls behind CacheClient.publish and CacheClient.subscribe, and
// the client's open subscriptions (its close() ends them).
import type { CallRunner } from '../call-runner.js';
import { type Bytes, describe } from '../codec.js';
import { InvalidArgumentError } from '../errors.js';
import { RPCS } from '../rpcs.gen.js';
import { type TopicPosition, TopicCursor, checkTopicName, publishRequest } from './items.js';
import { type SubscribeCallbacks, type TopicContext, TopicSubscription } from './subscription.js';


/**
 * Silence (no message, no heartbeat) after which a subscription's stream
 * counts as dead and is opened again. jiffy-server sends a heartbeat after
 * 5 s of silence (`--topic-heartbeat-interval`); the margin leaves room for
 * servers that send them more rarely.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

export interface SubscribeOptions extends Partial<SubscribeCallbacks> {
  /**
   * Where to start: a sequence number, or `{ sequenceNumber, sequencePage }`
   * (`positionAfter(message)` goes on after a message seen earlier).
   * @default the topic's newest message, if the server still holds one, then every later one
   */
  resumeAt?: TopicPosition | number;
  /** Aborting it closes the subscription; while subscribe() waits, it rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Silence after which the stream is taken for dead and opened again; 0 = never.
   * @default 30000
   */
  idleTimeoutMs?: number;
}

function callbacksOf(options: SubscribeOptions): SubscribeCallbacks | undefined {
  const { onItem, onDiscontinuity, onError } = options;
  if (onItem === undefined && onDiscontinuity === undefined && onError === undefined) return undefined;
  if (typeof onItem !== 'function' || typeof onError !== 'function') {
    throw new InvalidArgumentError(
      'the callback form of subscribe takes both `onItem` and `onError` (and `onDiscontinuity` if wanted)',
      { status: 'INVALID_ARGUMENT' },
    );
  }
  return { onItem, onDiscontinuity, onError };
}

function idleTimeout(options: SubscribeOptions): number {
  const ms = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new InvalidArgumentError(`\`idleTimeoutMs\` is a number of milliseconds >= 0; got ${describe(ms)}`, {
      status: 'INVALID_ARGUMENT',
    });
  }
  return ms;
}

export class Topics {
  readonly #subscriptions = new Set<TopicSubscription>();

  constructor(
    private readonly context: TopicContext,
    private readonly runner: CallRunner,
    private readonly metadataFor: (cacheName: string) => Readonly<Record<string, string>>,
  ) {}

  async publish(cacheName: string, topic: string, value: Bytes): Promise<void> {
    const request = publishRequest(cacheName, topic, value);
    await this.runner.unary(this.context.pool, RPCS.Publish, request, this.metadataFor(cacheName));
  }

  async subscribe(cacheName: string, topic: string, options: SubscribeOptions = {}): Promise<TopicSubscription> {
    const cursor = new TopicCursor(options.resumeAt);
    const callbacks = callbacksOf(options);
    const { signal } = options;
    signal?.throwIfAborted();
    checkTopicName(topic);
    const onAbort = (): void => subscription.close();
    const subscription: TopicSubscription = new TopicSubscription(
      cacheName,
      topic,
      this.context,
      this.metadataFor(cacheName),
      cursor,
      idleTimeout(options),
      callbacks,
      () => {
        this.#subscriptions.delete(subscription);
        signal?.removeEventListener('abort', onAbort);
      },
    );
    this.#subscriptions.add(subscription);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await subscription.open();
    } catch (err) {
      signal?.throwIfAborted();
      throw err;
    }
    return subscription;
  }

  /** Ends every open subscription (the client is closing). */
  closeAll(): void {
    for (const subscription of [...this.#subscriptions]) subscription.close();
  }
}
