import type { ContentBlock, MessageId, PromptResponse, SessionId } from '@acp-kit/schema';
import { ErrorCodes, RpcError, type RpcErrorObject } from '../../rpc/errors.js';
import { deferred } from './deferred.js';
import { toWireError } from '../connection/wire-errors.js';

/** How an inserted user message is reported to clients and kept for replay. */
export interface InsertOptions {
  /**
   * Keep the message in retained history so `session/resume` replays it (default `true`).
   * `false` makes it live-only: reported now, absent from later replay — as the RFD allows for
   * locally handled commands.
   */
  retain?: boolean;
  /**
   * Report the message as one `user_message` update (`'full'`, the default) or as a
   * `user_message` with `content: []` followed by one `user_message_chunk` per block (`'chunks'`).
   */
  via?: 'full' | 'chunks';
  /**
   * Insert under this ID instead of a fresh one: an ID reserved earlier with
   * `session.reserveMessageId()`, or the underlying agent's own ID in an adapter. It must not have
   * been used in the session before. Holding an ID is not insertion; this call is.
   */
  messageId?: MessageId;
}

/** What the session does when a prompt is inserted; implemented by the agent session. */
export interface Inserter {
  insertUserMessage(
    content: readonly ContentBlock[],
    options: Required<Omit<InsertOptions, 'messageId'>> & { messageId: MessageId | undefined },
  ): Promise<MessageId>;
}

/**
 * A `session/prompt` request the agent has received but not yet answered.
 *
 * The only ways to settle it are {@link PendingPrompt.insert}, which inserts the user message
 * and then answers with its `messageId`, and {@link PendingPrompt.reject}, which answers with a
 * JSON-RPC error and inserts nothing. There is deliberately no way to answer it successfully
 * without inserting: the insertion receipt is produced by the insertion itself.
 */
export class PendingPrompt {
  /** The session the prompt was submitted to. */
  readonly sessionId: SessionId;
  /** The submitted content, as received. */
  readonly content: readonly ContentBlock[];
  /** Aborted when the client cancels this request (`$/cancel_request`) or the connection closes. */
  readonly signal: AbortSignal;
  readonly #inserter: Inserter;
  readonly #response = deferred<PromptResponse>();
  #state: 'pending' | 'inserting' | 'inserted' | 'rejected' = 'pending';
  #messageId: MessageId | undefined;

  /** @internal Created by the agent for each `session/prompt` request. */
  constructor(
    sessionId: SessionId,
    content: readonly ContentBlock[],
    signal: AbortSignal,
    inserter: Inserter,
  ) {
    this.sessionId = sessionId;
    this.content = content;
    this.signal = signal;
    this.#inserter = inserter;
    // The response promise is awaited by the connection; a rejection before that must not be unhandled.
    this.#response.promise.catch(() => undefined);
  }

  /** `pending` until settled; `inserting` while the insertion is being reported. */
  get state(): 'pending' | 'inserting' | 'inserted' | 'rejected' {
    return this.#state;
  }

  /** The inserted message's ID, once inserted. */
  get messageId(): MessageId | undefined {
    return this.#messageId;
  }

  /** @internal The response the connection sends; resolves only after insertion. */
  get response(): Promise<PromptResponse> {
    return this.#response.promise;
  }

  /**
   * Inserts the user message into the conversation: assigns a fresh `messageId`, retains it
   * (unless `retain: false`), reports it to every client attached to the session, and only
   * then answers the request with `{ messageId }`. Resolves with the ID.
   */
  async insert(options: InsertOptions = {}): Promise<MessageId> {
    if (this.#state !== 'pending') {
      throw new Error(`This prompt is already ${this.#state}; it can be settled only once.`);
    }
    this.#state = 'inserting';
    try {
      const messageId = await this.#inserter.insertUserMessage(this.content, {
        retain: options.retain ?? true,
        via: options.via ?? 'full',
        messageId: options.messageId,
      });
      this.#messageId = messageId;
      this.#state = 'inserted';
      this.#response.resolve({ messageId });
      return messageId;
    } catch (error) {
      this.#state = 'rejected';
      // An RpcError says what was wrong with the prompt (for example content that cannot be
      // reported); anything else stays internal.
      this.#response.reject(
        toWireError(
          error,
          () => new RpcError(ErrorCodes.InternalError, 'The message could not be inserted.'),
        ),
      );
      throw error;
    }
  }

  /**
   * Rejects the prompt before insertion: the client gets this JSON-RPC error and no user
   * message is reported. Rejecting an already settled prompt throws.
   */
  reject(error: RpcError | RpcErrorObject): void {
    if (this.#state !== 'pending') {
      throw new Error(`This prompt is already ${this.#state}; it can be settled only once.`);
    }
    this.#state = 'rejected';
    this.#response.reject(error instanceof RpcError ? error : RpcError.fromObject(error));
  }
}
