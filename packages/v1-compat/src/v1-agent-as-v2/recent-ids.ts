/**
 * A set of the most recently added IDs, at most `limit` of them: adding one more forgets the
 * oldest. For what a peer can make the bridge remember without end (the tool calls of a long
 * session), where forgetting an old ID only costs a repeated announcement.
 */
export class RecentIds {
  readonly #limit: number;
  readonly #ids = new Set<string>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Adds `id` (as the newest). */
  add(id: string): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > this.#limit) {
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** How many IDs are kept. */
  get size(): number {
    return this.#ids.size;
  }
}
