// Topics without I/O: what a subscriber gets, the requests, and where to
// resume after a broken stream. The Python SDK's _topics.py is the same.
//
// A subscription yields items of two kinds, in the order the server sent
// them: messages, and discontinuities (messages were missed here).
// Discontinuities are items rather than only a callback: a gap matters
// where it happened (a cache kept fresh by topic messages must drop what it
// holds now, not at the next message, which may never come), and a
// `for await` loop sees it without a second code path. Heartbeats never
// reach the caller; the subscription uses them to tell a quiet topic from
// a dead stream.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { type Bytes, describe } from '../codec.js';
import { InvalidArgumentError } from '../errors.js';
import {
  _PublishRequestSchema,
  _SubscriptionItemSchema,
  _SubscriptionRequestSchema,
  type _TopicValue,
} from '../gen/cachepubsub_pb.js';

/** One published message as a subscriber receives it. */
export interface TopicMessage {
  kind: 'message';
  /** A string if it was published as a string, bytes if as bytes. */
  value: string | Uint8Array;
  /** 1, 2, 3, ... per topic; every subscriber sees a message under the same number. */
  sequenceNumber: number;
  /** Changes (to a larger number) when the topic's numbering starts again at 1. */
  sequencePage: number;
  /** Who published it where the server knows (jiffy-server: the token's subject), else ''. */
  publisherId: string;
}

/**
 * Messages were missed here: the subscriber fell behind, came back after
 * the topic dropped what it missed, or the topic started again (a flush).
 * The next message is `newSequenceNumber + 1` on page `newSequencePage`.
 */
export interface TopicDiscontinuity {
  kind: 'discontinuity';
  /** The last number the subscriber had (0 if none). */
  lastSequenceNumber: number;
  newSequenceNumber: number;
  newSequencePage: number;
}

export type TopicItem = TopicMessage | TopicDiscontinuity;

/** Where a subscription starts: `sequenceNumber` on `sequencePage` (omitted or 0: the current page). */
export interface TopicPosition {
  sequenceNumber: number;
  sequencePage?: number;
}

/** The `resumeAt` of a later subscription that should go on after `message`. */
export function positionAfter(message: TopicMessage): TopicPosition {
  return { sequenceNumber: message.sequenceNumber + 1, sequencePage: message.sequencePage };
}

function invalid(message: string): InvalidArgumentError {
  return new InvalidArgumentError(message, { status: 'INVALID_ARGUMENT' });
}

export function checkTopicName(topic: string): string {
  if (typeof topic !== 'string') throw invalid(`a topic name is a string; got ${describe(topic)}`);
  return topic;
}

/** A string goes as text, bytes as binary: a subscriber gets back the type published. */
function topicValue(value: Bytes): _TopicValue['kind'] {
  if (typeof value === 'string') return { case: 'text', value };
  if (value instanceof Uint8Array) return { case: 'binary', value };
  throw invalid(`a topic message is a string or a Uint8Array; got ${describe(value)}`);
}

export function publishRequest(cacheName: string, topic: string, value: Bytes): Uint8Array {
  return toBinary(
    _PublishRequestSchema,
    create(_PublishRequestSchema, { cacheName, topic: checkTopicName(topic), value: { kind: topicValue(value) } }),
  );
}

function wireNumber(value: unknown, what: string): bigint {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(`\`resumeAt\`: ${what} is an integer >= 0; got ${describe(value)}`);
  }
  return BigInt(value);
}

/**
 * Where a subscription is in its topic: turns stream messages into items
 * and says where to resume. One that has seen a message or discontinuity
 * resumes just after it, on its page (kept exact, as the wire's uint64);
 * one that has seen nothing resumes at `resumeAt`, else at the newest.
 */
export class TopicCursor {
  private seen = false;
  private number = 0n;
  private page = 0n;
  private readonly start: { number: bigint; page: bigint } | undefined;

  constructor(resumeAt: TopicPosition | number | undefined) {
    if (resumeAt === undefined) return;
    const position = typeof resumeAt === 'number' ? { sequenceNumber: resumeAt } : resumeAt;
    if (typeof position !== 'object' || position === null) {
      throw invalid(`\`resumeAt\` is a sequence number or { sequenceNumber, sequencePage }; got ${describe(resumeAt)}`);
    }
    this.start = {
      number: wireNumber(position.sequenceNumber, 'sequenceNumber'),
      page: wireNumber(position.sequencePage ?? 0, 'sequencePage'),
    };
  }

  subscriptionRequest(cacheName: string, topic: string): Uint8Array {
    const [resumeAtTopicSequenceNumber, sequencePage] = this.seen
      ? [this.number + 1n, this.page]
      : this.start !== undefined
        ? [this.start.number, this.start.page]
        : [0n, 0n];
    return toBinary(
      _SubscriptionRequestSchema,
      create(_SubscriptionRequestSchema, { cacheName, topic: checkTopicName(topic), resumeAtTopicSequenceNumber, sequencePage }),
    );
  }

  /**
   * The item a stream message stands for; undefined for a heartbeat, or for
   * a message already delivered (a server that resends after a resume).
   */
  take(bytes: Uint8Array): TopicItem | undefined {
    const kind = fromBinary(_SubscriptionItemSchema, bytes).kind;
    if (kind.case === 'item') {
      const item = kind.value;
      const number = item.topicSequenceNumber;
      const page = item.sequencePage;
      if (this.seen && page === this.page && number <= this.number) return undefined;
      this.seen = true;
      this.number = number;
      this.page = page;
      const value = item.value?.kind;
      return {
        kind: 'message',
        value: value?.case === 'text' ? value.value : value?.case === 'binary' ? value.value : new Uint8Array(0),
        sequenceNumber: Number(number),
        sequencePage: Number(page),
        publisherId: item.publisherId,
      };
    }
    if (kind.case === 'discontinuity') {
      const gap = kind.value;
      this.seen = true;
      this.number = gap.newTopicSequence;
      this.page = gap.newSequencePage;
      return {
        kind: 'discontinuity',
        lastSequenceNumber: Number(gap.lastTopicSequence),
        newSequenceNumber: Number(gap.newTopicSequence),
        newSequencePage: Number(gap.newSequencePage),
      };
    }
    return undefined;
  }
}
