/**
 * What the remote-transports benchmark drives: one client connection with one session, ours or
 * the official SDK's, over one transport. Both implementations count the `agent_message_chunk`
 * updates their client has taken in (ours: applied to its `ConversationStore`; the official one,
 * which has no store: delivered to its `session/update` handler), so a turn's throughput is timed
 * to the moment its last chunk is in.
 */

/** One connected client with one session. */
export interface BenchClient {
  /** The agent process this client talks to (for its CPU time). */
  readonly agentPid: number;
  /** Sends a prompt that only asks for its receipt; resolves when the `session/prompt` answer is in. */
  receipt(text: string): Promise<void>;
  /**
   * Asks for a turn of `chunks` chunks; resolves with the milliseconds from sending the prompt to
   * the turn's last chunk being in, after the turn has also ended (`idle`).
   */
  streamTurn(chunks: number): Promise<number>;
  /** Ends the connection (and the agent process, for stdio). */
  close(): Promise<void>;
}

/** Counts chunks taken in and resolves waiters once a count is reached. */
export class ChunkCounter {
  #count = 0;
  readonly #waiters: { target: number; resolve(): void }[] = [];

  get count(): number {
    return this.#count;
  }

  /** Records one chunk. */
  add(): void {
    this.#count += 1;
    for (let i = this.#waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.#waiters[i]!;
      if (this.#count >= waiter.target) {
        this.#waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  /** Resolves once `target` chunks have been counted in all. */
  until(target: number): Promise<void> {
    if (this.#count >= target) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ target, resolve }));
  }
}
