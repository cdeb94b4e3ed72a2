/** Output merged into one `terminal_output_chunk` at most, in UTF-8 bytes (a single larger call is written alone). */
export const TASK_CHUNK_BYTES = 32 * 1024;

/**
 * Output one background task holds while it waits for the log, in UTF-8 bytes. Past it, further
 * output is dropped until the task catches up, and the gap is written in its place.
 */
export const TASK_HELD_BYTES = 1024 * 1024;

/** Output waiting for its turn: merged into one chunk when its turn comes. */
interface Group {
  readonly parts: string[];
  bytes: number;
  /** Bytes dropped just before this group's output (the task was over {@link TASK_HELD_BYTES}). */
  readonly droppedBefore: number;
  done: Promise<void>;
}

const noop = (): void => undefined;

/** The text written in place of output a flooding task dropped. */
export function droppedNotice(bytes: number): string {
  return `\n[${bytes} bytes of output dropped: this background task wrote faster than the session could report it]\n`;
}

/**
 * One background task's own queue (a terminal's or tool call's reports, once it was moved to the
 * background): its reports reach the session's writer in call order, **one at a time**, so however
 * fast the task reports, the session's write queue holds at most one of its entries and the
 * foreground turn's updates and other tasks' reports are written right behind it (one append
 * later), never behind a backlog.
 *
 * Terminal output that arrives while the task waits is merged into one chunk (up to
 * {@link TASK_CHUNK_BYTES}); a task that holds more than {@link TASK_HELD_BYTES} unwritten — a
 * producer that does not wait for `output()`, such as a child process's `data` events — has the
 * excess dropped, and {@link droppedNotice} written where it was, instead of growing without bound.
 * A caller that awaits each call never loses output.
 */
export class TaskQueue {
  readonly #writeOutput: (data: string) => Promise<void>;
  #tail: Promise<void> = Promise.resolve();
  /** The group still taking output (queued, not yet written). */
  #open: Group | undefined;
  #held = 0;
  #dropped = 0;

  /** `writeOutput` writes one merged chunk of output (a terminal's; a tool call's queue has none). */
  constructor(writeOutput: (data: string) => Promise<void> = () => Promise.resolve()) {
    this.#writeOutput = writeOutput;
  }

  /**
   * Runs `op` once everything queued before it was written (after the report of any output dropped
   * just before it); output after it starts a new chunk.
   */
  run<T>(op: () => Promise<T>): Promise<T> {
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.#open = undefined;
    const result = this.#tail.then(async () => {
      if (dropped > 0) await this.#writeOutput(droppedNotice(dropped));
      return op();
    });
    this.#tail = result.then(noop, noop);
    return result;
  }

  /** Queues output; resolves once the chunk holding it was written (or at its place, if dropped). */
  output(data: string): Promise<void> {
    const bytes = Buffer.byteLength(data);
    if (this.#held > 0 && this.#held + bytes > TASK_HELD_BYTES) {
      this.#dropped += bytes;
      // Output after the gap starts a new chunk, which reports the gap first.
      this.#open = undefined;
      return this.#tail;
    }
    this.#held += bytes;
    const open = this.#open;
    if (open !== undefined && open.bytes + bytes <= TASK_CHUNK_BYTES) {
      open.parts.push(data);
      open.bytes += bytes;
      return open.done;
    }
    const group: Group = { parts: [data], bytes, droppedBefore: this.#dropped, done: this.#tail };
    this.#dropped = 0;
    this.#open = group;
    group.done = this.#tail.then(() => {
      if (this.#open === group) this.#open = undefined;
      this.#held -= group.bytes;
      const text = group.parts.join('');
      return this.#writeOutput(group.droppedBefore > 0 ? droppedNotice(group.droppedBefore) + text : text);
    });
    this.#tail = group.done.then(noop, noop);
    return group.done;
  }
}
