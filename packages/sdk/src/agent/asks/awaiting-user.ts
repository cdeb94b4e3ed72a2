import type { SessionActivity, TurnTracker } from '../turns/turn-tracker.js';

/** The two reports {@link AwaitingUser} makes of the session's turn. */
export interface BlockingReports {
  /** Reports `requires_action`. */
  requiresAction(): Promise<void>;
  /** Reports `running`. */
  running(): Promise<void>;
}

/**
 * The questions a session has pending with its clients (permission requests, elicitations asked
 * during a turn) and what the turn reports meanwhile: `requires_action` once the first of them is
 * asked, `running` again once the last one is settled — however many overlap, each state is
 * reported once.
 */
export class AwaitingUser {
  readonly #turn: { readonly activity: SessionActivity };
  readonly #reports: BlockingReports;
  #pending = 0;

  /** `turn` says the session's activity (its {@link TurnTracker}); `reports` reports the changes. */
  constructor(turn: { readonly activity: SessionActivity }, reports: BlockingReports) {
    this.#turn = turn;
    this.#reports = reports;
  }

  /**
   * Runs `ask` as one pending question; once it settles and no other question is pending, a turn
   * that reports `requires_action` reports `running` again.
   */
  async during<T>(ask: () => Promise<T>): Promise<T> {
    this.#pending += 1;
    try {
      return await ask();
    } finally {
      this.#pending -= 1;
      if (this.#pending === 0 && this.#turn.activity === 'requires_action') await this.#reports.running();
    }
  }

  /** Reports `requires_action` when this is the only question pending and the turn does not say so yet. */
  async blocked(): Promise<void> {
    if (this.#pending === 1 && this.#turn.activity !== 'requires_action')
      await this.#reports.requiresAction();
  }
}
