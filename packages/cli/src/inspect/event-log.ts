/** One event the inspector streams to the page. `seq` orders them; a reconnecting page asks for those after its last. */
/**
 * `conn` names the connection to the agent: absent for the main one (the stdio agent, or the first
 * connection to a remote one), 2 and up for the extra clients a remote agent can take.
 */
export type InspectorEvent =
  | {
      seq: number;
      type: 'started';
      run: number;
      conn?: number;
      description: string;
      /** What the inspector drives: a stdio process (one connection) or a remote agent (several). */
      target?: 'stdio' | 'remote';
      /** Where `acp-kit inspect` was started: the page's default working directory for sessions. */
      cwd?: string;
    }
  | { seq: number; type: 'frame'; run: number; conn?: number; t: number; text: string }
  | { seq: number; type: 'sent'; run: number; conn?: number; t: number; text: string }
  | { seq: number; type: 'stderr'; run: number; text: string }
  | {
      seq: number;
      type: 'ended';
      run: number;
      conn?: number;
      code: number | null;
      signal: string | null;
      reason: string;
      stderr: string;
    };

/** An event before it is numbered. */
export type NewInspectorEvent = InspectorEvent extends infer E
  ? E extends InspectorEvent
    ? Omit<E, 'seq'>
    : never
  : never;

/**
 * The events of this inspector process, kept so a page that reloads or reconnects sees the whole
 * session again, bounded so a flooding agent cannot grow it without end (the oldest go first; the
 * page is told how many it missed).
 */
export class EventLog {
  readonly #limit: number;
  readonly #events: InspectorEvent[] = [];
  readonly #listeners = new Set<(event: InspectorEvent) => void>();
  #next = 1;

  constructor(limit = 50_000) {
    this.#limit = limit;
  }

  /** Numbers the event, keeps it and hands it to every subscriber. */
  push(event: NewInspectorEvent): void {
    const numbered = { ...event, seq: this.#next++ } as InspectorEvent;
    this.#events.push(numbered);
    // Trimmed in batches: dropping one event per push would move the whole array on every frame of a flood.
    if (this.#events.length > this.#limit + Math.ceil(this.#limit / 10))
      this.#events.splice(0, this.#events.length - this.#limit);
    for (const listener of this.#listeners) listener(numbered);
  }

  /** The kept events numbered after `seq`. */
  since(seq: number): InspectorEvent[] {
    return this.#events.filter((event) => event.seq > seq);
  }

  /** Calls `listener` for every later event; returns the unsubscribe function. */
  subscribe(listener: (event: InspectorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
