import { ErrorCodes, RpcError } from '../../rpc/errors.js';

/** The session's foreground activity, as last reported in a `state_update`. */
export type SessionActivity = 'idle' | 'running' | 'requires_action';

function cancelledError(): RpcError {
  return new RpcError(ErrorCodes.RequestCancelled, 'The session was cancelled.');
}

/**
 * One session's turn and cancel state: its activity (set at once by the session's own reports and
 * by every state update its log delivers), the activity as of the delivered position, whether a
 * turn started here is open, and which work a `session/cancel` applies to. A cancel applies to
 * the work pending or running when it arrives: the running turn's signal aborts, and a prompt
 * received or inserted whose turn has not started yet starts that turn cancelled (each prompt
 * remembers the cancel generation it arrived in). Owned by an `AgentSession`; not exported.
 */
export class TurnTracker {
  /** Set at once by `running()` / `idle()` / `requiresAction()` here, and by the log. */
  activity: SessionActivity = 'idle';
  /** The activity as of the delivered position: set only from the log's entries. */
  reported: SessionActivity = 'idle';
  /** Set by `running()` / `requiresAction()` here, cleared once an `idle()` here was written (or failed). */
  turnHere = false;
  #turn = new AbortController();
  /** Incremented by every `session/cancel` that found work to cancel. */
  #cancelGeneration = 0;
  /** Prompts received and not yet settled. */
  #unsettled = 0;
  /** Arrival generations of prompts inserted since the current turn started (their turn is next). */
  #waiting: number[] = [];

  /** The current turn's cancel signal. */
  get signal(): AbortSignal {
    return this.#turn.signal;
  }

  /** A state update the log delivered (or the last one it holds, when the session loads). */
  fromLog(activity: SessionActivity): void {
    this.activity = activity;
    this.reported = activity;
  }

  /** Counts a prompt that arrived; its `arrival` tells a later cancel whether it applies to it. */
  promptArrived(): { arrival: number; settled: () => void } {
    this.#unsettled += 1;
    let done = false;
    return {
      arrival: this.#cancelGeneration,
      settled: () => {
        if (done) return;
        done = true;
        this.#unsettled -= 1;
      },
    };
  }

  /** A prompt was inserted: while idle its turn is the next one; during a turn, it is that turn's. */
  inserted(arrival: number | undefined): void {
    if (this.activity === 'idle') this.#waiting.push(arrival ?? this.#cancelGeneration);
  }

  /** `running()` here: a new turn (after idle) gets a fresh signal, aborted if a prompt in it was cancelled. */
  running(): void {
    if (this.activity === 'idle') this.#startTurn();
    this.activity = 'running';
    this.turnHere = true;
  }

  /** `requiresAction()` here. */
  requiresAction(): void {
    this.activity = 'requires_action';
    this.turnHere = true;
  }

  #startTurn(): void {
    const cancelled = this.#waiting.some((arrival) => arrival < this.#cancelGeneration);
    this.#waiting = [];
    if (!this.#turn.signal.aborted && !cancelled) return;
    this.#turn = new AbortController();
    if (cancelled) this.#turn.abort(cancelledError());
  }

  /** `session/cancel`: with nothing pending or running it does nothing. */
  cancel(): void {
    const running = this.activity !== 'idle';
    if (!running && this.#unsettled === 0 && this.#waiting.length === 0) return;
    this.#cancelGeneration += 1;
    if (running) this.#turn.abort(cancelledError());
  }

  /** The session closed: its turn is aborted and every prompt pending counts as cancelled. */
  close(): void {
    this.#turn.abort(cancelledError());
    this.#cancelGeneration += 1;
  }
}
