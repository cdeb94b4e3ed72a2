import type { BackgroundWork, SessionUpdate } from '@acp-kit/schema';
import type { WorkRegistry } from './tool-calls.js';

/**
 * A session's report of its background work (tool calls and terminals moved there with
 * `runInBackground()`): once the session reports any, every state update carries the list, built
 * from the handles — each listed after its announcing update and dropped only after its end was
 * appended. It also keeps the list as of the delivered position (what a resuming client is told)
 * and the last list appended here, so a change is reported once.
 */
export class BackgroundReport {
  readonly #work: WorkRegistry;
  /** Whether the session reports background work: every state update then carries a list. */
  #reports = false;
  /** The list as of the session's position (the last one the log delivered). */
  #reported: BackgroundWork[] = [];
  /** The list the last state update appended here carried (JSON), to report only changes. */
  #listed = '[]';

  constructor(work: WorkRegistry) {
    this.#work = work;
  }

  /** The list as of the delivered position, or undefined while the session reports no background work. */
  get reported(): readonly BackgroundWork[] | undefined {
    return this.#reports ? this.#reported : undefined;
  }

  /** A state update with the current list, once the session reports one (a list the caller set is kept). */
  withList(update: SessionUpdate): SessionUpdate {
    if (this.#work.reportsBackground) this.#reports = true;
    if (!this.#reports) return update;
    const given = (update as { background?: unknown }).background;
    if (given !== undefined && given !== null) return update;
    const background = this.#work.background();
    this.#listed = JSON.stringify(background);
    return { ...update, background } as SessionUpdate;
  }

  /** A state update the log delivered carried this list. */
  fromLog(background: BackgroundWork[]): void {
    this.#reports = true;
    this.#reported = background;
  }

  /** From now on the session reports background work; true when the list differs from the last one appended. */
  changed(): boolean {
    this.#reports = true;
    return JSON.stringify(this.#work.background()) !== this.#listed;
  }
}
