/**
 * The requests a {@link Connection} sent and awaits answers to: their IDs, the pending table, the
 * ones withdrawn by `$/cancel_request` (bounded by {@link MAX_WITHDRAWN_REQUESTS}), and settling
 * each with the peer's (validated) answer.
 */

import { MAX_WITHDRAWN_REQUESTS, withdrawnGivenUpError } from './cancellation.js';
import { invalidResultError } from './connection-errors.js';
import type { Diagnostic } from './diagnostics.js';
import type { Emitter } from './emitter.js';
import { RpcError } from './errors.js';
import type { RpcErrorResponse, RpcSuccessResponse } from './messages.js';
import { excerpt } from './ndjson.js';
import type { Validator } from './validation.js';

/** One request this side sent and awaits the answer to. */
export interface PendingRequest {
  method: string;
  resolve(value: unknown): void;
  reject(error: RpcError): void;
  cleanup(): void;
}

/** The requests this side sent; one per connection, built with it. */
export class OutgoingRequests {
  readonly #diagnostics: Emitter<[Diagnostic]>;
  // Created when first needed and dropped when they empty: an idle connection pays for neither.
  #pending: Map<number, PendingRequest> | undefined;
  /** Pending requests already withdrawn, oldest first (at most {@link MAX_WITHDRAWN_REQUESTS}). */
  #withdrawn: Set<number> | undefined;
  #nextId = 1;

  constructor(diagnostics: Emitter<[Diagnostic]>) {
    this.#diagnostics = diagnostics;
  }

  /** The ID of the next request sent. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Registers the request `id` as awaiting its answer. */
  add(id: number, request: PendingRequest): void {
    this.#pending ??= new Map();
    this.#pending.set(id, request);
  }

  /** Whether the request `id` still awaits its answer. */
  has(id: number): boolean {
    return this.#pending?.has(id) === true;
  }

  /**
   * Keeps a withdrawn request waiting for the peer's late answer, as long as no more than
   * {@link MAX_WITHDRAWN_REQUESTS} wait: past that the oldest is given up (rejected -32800).
   */
  withdraw(id: number): void {
    this.#withdrawn ??= new Set();
    this.#withdrawn.add(id);
    if (this.#withdrawn.size <= MAX_WITHDRAWN_REQUESTS) return;
    const oldest = this.#withdrawn.values().next().value as number;
    const method = this.#pending?.get(oldest)?.method ?? 'request';
    this.settle(oldest, undefined, withdrawnGivenUpError(method));
  }

  /** Settles the request `id`, if it still awaits its answer: rejects with `error`, else resolves with `value`. */
  settle(id: number, value: unknown, error?: RpcError): void {
    const all = this.#pending;
    const pending = all?.get(id);
    if (!all || !pending) return;
    all.delete(id);
    if (all.size === 0) this.#pending = undefined;
    if (this.#withdrawn?.delete(id) && this.#withdrawn.size === 0) this.#withdrawn = undefined;
    pending.cleanup();
    if (error) pending.reject(error);
    else pending.resolve(value);
  }

  /** Rejects every request still awaiting its answer with `reason` (the connection closed). */
  rejectAll(reason: RpcError): void {
    for (const id of [...(this.#pending?.keys() ?? [])]) this.settle(id, undefined, reason);
  }

  /** Settles the request a response answers, its result checked by `validator`; reports any other. */
  receive(response: RpcSuccessResponse | RpcErrorResponse, validator: Validator): void {
    const { id } = response;
    if (id === null) {
      const { error } = response as RpcErrorResponse;
      this.#diagnostics.fire({
        kind: 'peer-error',
        message: `peer reported ${error.code}: ${excerpt(error.message)}`,
        id,
      });
      return;
    }
    const pending = typeof id === 'number' ? this.#pending?.get(id) : undefined;
    if (!pending) {
      this.#diagnostics.fire({
        kind: 'unknown-response',
        message: `response for unknown request id ${JSON.stringify(id)}`,
        id,
      });
      return;
    }
    if ('error' in response) {
      this.settle(id as number, undefined, RpcError.fromObject(response.error));
      return;
    }
    const checked = validator.result(pending.method, response.result);
    if (checked && !checked.ok) {
      const error = invalidResultError(pending.method, checked.issues);
      this.#diagnostics.fire({
        kind: 'invalid-result',
        message: error.message,
        id,
        method: pending.method,
        pointer: error.data?.pointer,
      });
      this.settle(id as number, undefined, error);
      return;
    }
    this.settle(id as number, checked ? checked.value : response.result);
  }
}
