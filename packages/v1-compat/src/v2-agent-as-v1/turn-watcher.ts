import type { MessageId, StopReason, Usage } from '@acp-kit/schema';

/** A JSON-RPC error object, as an idle update with stopReason `error` may carry it. */
export interface TurnError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

interface Idle {
  readonly seq: number;
  readonly stopReason: StopReason | null | undefined;
  readonly error?: TurnError | null;
  readonly usage?: Usage | null;
}

/** How a turn ended: the idle's stop reason and its position in the session's update stream. */
export interface TurnEnd {
  readonly stopReason: StopReason | null | undefined;
  readonly seq: number;
  /** With stopReason `error`: what went wrong, when the agent said. */
  readonly error?: TurnError | null;
  /** The token counts the idle carried, when the agent reported them. */
  readonly usage?: Usage | null;
  /**
   * The idle ended this turn as it arrived, while the prompt waited (so the session holds the
   * updates behind it until the answer is out; see `SessionView.answered`). False when the turn
   * had already ended when its prompt's response came.
   */
  readonly held: boolean;
}

interface Waiter {
  readonly messageId: MessageId;
  /** Position at which the prompt response arrived; an idle after it counts if the message was never reported. */
  readonly answeredAt: number;
  readonly resolve: (end: TurnEnd) => void;
  readonly reject: (error: unknown) => void;
}

/** Idles kept for responses still on their way; older ones cannot matter to a new prompt. */
const KEPT_IDLES = 64;

/**
 * Decides when a v1 prompt's turn is over: at the first `idle` the v2 agent reports after it
 * reported the prompt's user message. Updates may arrive before or after the prompt response,
 * so both orders are handled: the watcher remembers where each user message and each idle
 * appeared in the session's stream.
 */
export class TurnWatcher {
  /** Position of the last update seen, counted by the caller over every update of the session. */
  #seq = 0;
  readonly #userSeenAt = new Map<MessageId, number>();
  readonly #idles: Idle[] = [];
  #waiters: Waiter[] = [];

  /** Records a user message report (update or chunk) at position `seq`. */
  userMessage(messageId: MessageId, seq: number): void {
    this.#seq = seq;
    if (!this.#userSeenAt.has(messageId)) this.#userSeenAt.set(messageId, this.#seq);
  }

  /**
   * Records an idle state update at position `seq` (with the error and token usage it carried);
   * returns how many waited-for turns it ended.
   */
  idle(
    stopReason: StopReason | null | undefined,
    seq: number,
    error?: TurnError | null,
    usage?: Usage | null,
  ): number {
    this.#seq = seq;
    this.#idles.push({ seq: this.#seq, stopReason, error, usage });
    if (this.#idles.length > KEPT_IDLES) this.#idles.shift();
    const before = this.#waiters.length;
    this.#waiters = this.#waiters.filter((w) => !this.#settle(w, true));
    return before - this.#waiters.length;
  }

  #settle(waiter: Waiter, held: boolean): boolean {
    const after = this.#userSeenAt.get(waiter.messageId) ?? waiter.answeredAt;
    const idle = this.#idles.find((i) => i.seq > after);
    if (idle === undefined) return false;
    waiter.resolve({ ...idle, held });
    return true;
  }

  /**
   * The end of the turn that processes `messageId`, when an idle after it was already seen (the
   * prompt's response came after that idle); undefined while its turn runs.
   */
  endedFor(messageId: MessageId): TurnEnd | undefined {
    const after = this.#userSeenAt.get(messageId) ?? this.#seq;
    const idle = this.#idles.find((i) => i.seq > after);
    return idle === undefined ? undefined : { ...idle, held: false };
  }

  /** Notes the position of an update that is neither a user message nor an idle. */
  saw(seq: number): void {
    this.#seq = seq;
  }

  /** Resolves with the end of the turn that processes the inserted message `messageId`. */
  turnEnd(messageId: MessageId): Promise<TurnEnd> {
    return new Promise((resolve, reject) => {
      const waiter = { messageId, answeredAt: this.#seq, resolve, reject };
      if (!this.#settle(waiter, false)) this.#waiters.push(waiter);
    });
  }

  /** The v2 agent is gone: every turn still waited for fails with `error`. */
  fail(error: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
  }
}
