/** What the queue needs to know of one `append` call. */
export interface QueuedWrite {
  /** How many entries it appends. */
  readonly entryCount: number;
  /** Bytes of its update bodies. */
  readonly bytes: number;
  /**
   * Appends with different keys are never written by one call for the same session (a fence: the
   * lease and epoch it is written under).
   */
  readonly groupKey: string;
}

/** One session's appends, in call order, taken off the queue to be written together. */
export interface SessionBatch<T extends QueuedWrite> {
  readonly sessionId: string;
  readonly items: readonly T[];
}

/** Bounds of one write call. */
export interface AppendQueueLimits {
  /** Most write calls in flight at once. */
  readonly lanes: number;
  /** Most entries in one call (the first batch is always taken). */
  readonly maxEntries: number;
  /** Most bytes of update bodies in one call (the first batch is always taken). */
  readonly maxBytes: number;
}

/**
 * Group commit for appends: appends made while a write is in flight are written together by the
 * next call — those of one session as one batch, those of many sessions in one call, one round
 * trip and one commit for all of them. Each session has at most one write in flight, so its
 * appends are written (and numbered) in the order they were made. `write` settles every append of
 * the group it is given and must not throw.
 */
export class AppendQueue<T extends QueuedWrite> {
  readonly #write: (group: readonly SessionBatch<T>[]) => Promise<void>;
  readonly #limits: AppendQueueLimits;
  /** Appends not yet written, per session, in call order (a Map keeps sessions in arrival order). */
  readonly #pending = new Map<string, T[]>();
  /** Sessions with a write in flight: their next batch waits for it. */
  readonly #writing = new Set<string>();
  #writes = 0;
  #scheduled = false;

  constructor(write: (group: readonly SessionBatch<T>[]) => Promise<void>, limits: AppendQueueLimits) {
    this.#write = write;
    this.#limits = limits;
  }

  /** Queues one append of `sessionId`; `write` settles it. */
  push(sessionId: string, item: T): void {
    const queue = this.#pending.get(sessionId);
    if (queue === undefined) this.#pending.set(sessionId, [item]);
    else queue.push(item);
    if (this.#scheduled || this.#writes >= this.#limits.lanes) return; // a finishing write takes it
    this.#scheduled = true;
    // Nothing in flight: write as soon as the appends made in this turn are queued. A write in
    // flight: wait for the end of this turn of the event loop, so appends made as other writes
    // complete share the next call.
    if (this.#writes === 0) queueMicrotask(this.#pump);
    else setImmediate(this.#pump);
  }

  readonly #pump = (): void => {
    this.#scheduled = false;
    while (this.#writes < this.#limits.lanes) {
      const group = this.#take();
      if (group.length === 0) return;
      this.#writes++;
      void this.#write(group).finally(() => {
        this.#writes--;
        for (const batch of group) this.#writing.delete(batch.sessionId);
        if (this.#pending.size > 0) this.#pump();
      });
    }
  };

  /** The next group: a batch for each session with appends waiting and no write in flight. */
  #take(): SessionBatch<T>[] {
    const group: SessionBatch<T>[] = [];
    let entries = 0;
    let bytes = 0;
    for (const [sessionId, queue] of this.#pending) {
      if (this.#writing.has(sessionId)) continue;
      const head = queue[0]!;
      let n = 0;
      let batchEntries = 0;
      let batchBytes = 0;
      for (const item of queue) {
        if (n > 0 && item.groupKey !== head.groupKey) break;
        const over =
          entries + batchEntries + item.entryCount > this.#limits.maxEntries ||
          bytes + batchBytes + item.bytes > this.#limits.maxBytes;
        if (over && (n > 0 || group.length > 0)) break;
        batchEntries += item.entryCount;
        batchBytes += item.bytes;
        n++;
      }
      if (n === 0) break; // the call is full
      group.push({ sessionId, items: queue.splice(0, n) });
      if (queue.length === 0) this.#pending.delete(sessionId);
      this.#writing.add(sessionId);
      entries += batchEntries;
      bytes += batchBytes;
    }
    return group;
  }
}
