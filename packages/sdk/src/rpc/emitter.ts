import type { Disposable } from './transport.js';

/**
 * A minimal synchronous event source. A throwing listener must not break delivery to the others
 * or the connection's message loop, so errors go to `onListenerError` instead of propagating.
 */
export class Emitter<Args extends unknown[]> {
  /** Created with the first listener: most emitters of an idle connection never get one. */
  #listeners: Set<(...args: Args) => void> | undefined;

  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.#onListenerError = onListenerError;
  }

  /** Adds a listener; dispose the result to remove it. */
  on(listener: (...args: Args) => void): Disposable {
    this.#listeners ??= new Set();
    const listeners = this.#listeners;
    listeners.add(listener);
    return { dispose: () => listeners.delete(listener) };
  }

  /** True when nobody listens, so callers can skip building an event. */
  get empty(): boolean {
    return this.#listeners === undefined || this.#listeners.size === 0;
  }

  /** Calls every listener in registration order. */
  fire(...args: Args): void {
    if (this.#listeners === undefined || this.#listeners.size === 0) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener(...args);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /** Drops every listener. */
  clear(): void {
    this.#listeners?.clear();
  }
}
