import type { MessageId, SessionId } from '@acp-kit/schema';
import { derivedMessageId, type MessageKind } from '../message-ids.js';

/** Where a v1 chunk goes in v2 terms. */
export interface ChunkTarget {
  readonly messageId: MessageId;
  /** The chunk starts a message the client has not seen in this stream. */
  readonly isNew: boolean;
}

interface Run {
  readonly kind: MessageKind;
  readonly messageId: MessageId;
  /** The v1 agent's own ID for the run, if it gave one. */
  readonly v1Id: string | undefined;
}

/**
 * Turns a v1 session's chunk stream into v2 messages. v1 chunks may omit `messageId`; then a run
 * of consecutive chunks of one kind is one message, and anything else in between (another kind, a
 * tool call, a turn boundary) ends it. Every message start — with or without a v1 ID — advances
 * its kind's position, so live streaming and a later `session/load` replay number the same
 * messages the same way (see {@link derivedMessageId}).
 */
export class MessageTracker {
  readonly #sessionId: SessionId;
  readonly #positions: Record<MessageKind, number> = { user_message: 0, agent_message: 0, agent_thought: 0 };
  readonly #seenV1Ids = new Set<string>();
  #run: Run | undefined;
  #epoch: string;

  constructor(sessionId: SessionId, epoch = '') {
    this.#sessionId = sessionId;
    this.#epoch = epoch;
  }

  /** Forgets positions before counting a replay from the start (the replay brings them back). */
  restart(epoch = ''): void {
    this.#positions.user_message = 0;
    this.#positions.agent_message = 0;
    this.#positions.agent_thought = 0;
    this.#seenV1Ids.clear();
    this.#run = undefined;
    this.#epoch = epoch;
  }

  /** Ends the current run: the next chunk starts a new message. */
  breakRun(): void {
    this.#run = undefined;
  }

  /** Starts a message the bridge itself creates (a prompt the v1 agent did not echo). */
  startMessage(kind: MessageKind): MessageId {
    const messageId = derivedMessageId(this.#sessionId, kind, this.#positions[kind]++, this.#epoch);
    this.#run = { kind, messageId, v1Id: undefined };
    return messageId;
  }

  /** Places one v1 chunk. */
  chunk(kind: MessageKind, v1Id: string | null | undefined): ChunkTarget {
    const id = v1Id ?? undefined;
    const run = this.#run;
    if (run !== undefined && run.kind === kind && run.v1Id === id)
      return { messageId: run.messageId, isNew: false };
    if (id !== undefined) {
      const key = `${kind}\u0000${id}`;
      if (this.#seenV1Ids.has(key)) {
        // The agent went back to a message it named before: chunks append to it.
        this.#run = { kind, messageId: id, v1Id: id };
        return { messageId: id, isNew: false };
      }
      this.#seenV1Ids.add(key);
      this.#positions[kind]++;
      this.#run = { kind, messageId: id, v1Id: id };
      return { messageId: id, isNew: true };
    }
    const messageId = this.startMessage(kind);
    return { messageId, isNew: true };
  }
}
