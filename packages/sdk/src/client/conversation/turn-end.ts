import type { JsonRpcError, MessageId, StopReason, Usage } from '@acp-kit/schema';

/** How the work that took in a submission ended: the first `idle` with a stop reason after its insertion. */
export interface TurnEnd {
  /** The submitted message's ID (from the prompt response). */
  readonly messageId: MessageId;
  /** Why the work ended (`end_turn`, `cancelled`, `error`, …, or a value of a newer protocol version). */
  readonly stopReason: StopReason;
  /** Token counts the `idle` carried, or null. */
  readonly usage: Usage | null;
  /** With stop reason `error`: the JSON-RPC error object the `idle` carried, or null. */
  readonly error: JsonRpcError | null;
}

/** What an `idle` that ends work reported, before it is tied to a submission. */
export type IdleOutcome = Omit<TurnEnd, 'messageId'>;

/**
 * The turn of one submission: settled once, then kept, so a caller asking after the end gets the
 * same outcome. A submission's turn ends at the first `idle` carrying a stop reason that the store
 * applies after the submission's insertion — the `user_message` update with its ID or, when that
 * update never came first, the prompt response. An `idle` applied before the insertion belongs to
 * earlier work and never ends this turn.
 */
export class TurnWatch {
  #outcome: { end: TurnEnd } | { error: unknown } | null = null;
  #waiters: { resolve: (end: TurnEnd) => void; reject: (error: unknown) => void }[] = [];

  get settled(): boolean {
    return this.#outcome !== null;
  }

  end(messageId: MessageId, idle: IdleOutcome): void {
    this.#settle({ end: Object.freeze({ messageId, ...idle }) });
  }

  fail(error: unknown): void {
    this.#settle({ error });
  }

  /** A promise of the outcome; `signal` stops waiting (the promise rejects with its reason). */
  wait(signal?: AbortSignal): Promise<TurnEnd> {
    const outcome = this.#outcome;
    if (outcome !== null)
      return 'end' in outcome ? Promise.resolve(outcome.end) : Promise.reject(outcome.error);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<TurnEnd>((resolve, reject) => {
      const stop = (): void => {
        this.#waiters = this.#waiters.filter((waiter) => waiter !== entry);
        reject(signal?.reason);
      };
      const entry = {
        resolve: (end: TurnEnd) => {
          signal?.removeEventListener('abort', stop);
          resolve(end);
        },
        reject: (error: unknown) => {
          signal?.removeEventListener('abort', stop);
          reject(error);
        },
      };
      this.#waiters.push(entry);
      signal?.addEventListener('abort', stop, { once: true });
    });
  }

  #settle(outcome: { end: TurnEnd } | { error: unknown }): void {
    if (this.#outcome !== null) return;
    this.#outcome = outcome;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) {
      if ('end' in outcome) waiter.resolve(outcome.end);
      else waiter.reject(outcome.error);
    }
  }
}
