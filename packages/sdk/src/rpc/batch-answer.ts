import { ErrorCodes } from './errors.js';
import type { RpcErrorResponse, RpcId, RpcSuccessResponse } from './messages.js';
import { utf8ByteLength } from './utf8-length.js';

/** A response to one received request. */
export type RpcResponse = RpcSuccessResponse | RpcErrorResponse;

/** Where the answer to one received request goes: written at once, or into its batch's answer. */
export type Answer = (message: RpcResponse, idText?: string) => Promise<void>;

/** What a {@link BatchAnswer} needs from its connection. */
export interface BatchAnswerSink {
  /** The largest message the connection sends, in bytes: the whole answer array must fit. */
  limit: number;
  /** Serializes one answer (splicing in the exact text of a big integer ID); may throw. */
  serialize(message: RpcResponse, idText: string | undefined): string;
  /** Writes the finished array; `answers` are the entries (for the message tap), `ids` their IDs. */
  write(json: string, answers: readonly RpcResponse[], ids: readonly RpcId[]): Promise<void>;
  /** Reports an answer that had to be replaced by an error (too large, or not serializable). */
  replaced(id: RpcId | null, reason: string): void;
}

/**
 * Collects the answers to the requests of one incoming batch and writes them as one JSON array
 * once every request in it has been answered (JSON-RPC 2.0 §6): entries in completion order,
 * nothing at all when the batch held no request.
 *
 * The array is one outgoing message, so the connection's size limit applies to it as a whole. A
 * result is replaced by a -32603 "result too large" answer for its request whenever the array
 * would otherwise exceed the limit (the largest results first) — the same policy as a single oversized result — so every request still gets
 * its answer; only when even those errors cannot fit (a tiny limit and a large batch) does the
 * batch get one -32603 with `id: null` instead. Answers are serialized as they arrive, and a
 * result is given up as soon as the array would exceed the limit, so what a batch holds in memory
 * stays within about the size limit.
 */
/** One answer kept for the array. */
interface Part {
  json: string;
  bytes: number;
  message: RpcResponse;
  /** The exact text of a big integer ID, to splice into a replacement answer too. */
  idText: string | undefined;
}

export class BatchAnswer {
  readonly #sink: BatchAnswerSink;
  readonly #parts: Part[] = [];
  /** Bytes of the array so far: brackets, entries and the commas between them. */
  #bytes = 2;
  #expected = 0;
  #received = 0;
  #sealed = false;
  #overflow = false;
  #resolve!: () => void;
  readonly #done = new Promise<void>((resolve) => {
    this.#resolve = resolve;
  });

  constructor(sink: BatchAnswerSink) {
    this.#sink = sink;
  }

  /** Counts one entry that will be answered (a request, or an invalid entry). */
  expect(): void {
    this.#expected += 1;
  }

  /**
   * Takes one entry's answer. The promise resolves once the whole array has been handed to the
   * transport (or dropped because the connection closed), like a single answer's write.
   */
  readonly answer: Answer = (message, idText) => {
    this.#add(message, idText);
    this.#received += 1;
    this.#maybeFlush();
    return this.#done;
  };

  /** Marks the end of the batch's entries: from now on the array goes out when the last answer arrives. */
  seal(): void {
    this.#sealed = true;
    this.#maybeFlush();
  }

  #add(message: RpcResponse, idText: string | undefined): void {
    if (this.#overflow) return;
    const json = this.#serialize(message, idText);
    this.#push(
      json === undefined
        ? this.#tooLarge(message, idText)
        : { json, bytes: utf8ByteLength(json), message, idText },
    );
    // Over the limit: the largest results give way to short errors, largest first.
    while (this.#bytes > this.#sink.limit) {
      let largest = -1;
      for (let i = 0; i < this.#parts.length; i += 1) {
        const part = this.#parts[i]!;
        if ('result' in part.message && (largest < 0 || part.bytes > this.#parts[largest]!.bytes))
          largest = i;
      }
      if (largest < 0) {
        this.#overflow = true;
        this.#parts.length = 0;
        return;
      }
      const evicted = this.#parts[largest]!;
      this.#sink.replaced(evicted.message.id, 'result too large');
      const replacement = this.#tooLarge(evicted.message, evicted.idText);
      this.#bytes += replacement.bytes - evicted.bytes;
      this.#parts[largest] = replacement;
    }
  }

  #push(part: Part): void {
    this.#bytes += part.bytes + (this.#parts.length > 0 ? 1 : 0);
    this.#parts.push(part);
  }

  /** The -32603 answer that stands in for a result that cannot be sent. */
  #tooLarge(message: RpcResponse, idText: string | undefined): Part {
    const error: RpcErrorResponse = {
      jsonrpc: '2.0',
      id: message.id,
      error: { code: ErrorCodes.InternalError, message: 'Internal error: result too large' },
    };
    const json = this.#sink.serialize(error, idText);
    return { json, bytes: utf8ByteLength(json), message: error, idText };
  }

  #serialize(message: RpcResponse, idText: string | undefined): string | undefined {
    try {
      return this.#sink.serialize(message, idText);
    } catch {
      this.#sink.replaced(message.id, 'result not serializable to JSON');
      return undefined;
    }
  }

  #maybeFlush(): void {
    if (!this.#sealed || this.#received < this.#expected) return;
    this.#sealed = false;
    if (this.#expected === 0) {
      this.#resolve();
      return;
    }
    let json: string;
    let answers: RpcResponse[];
    if (this.#overflow) {
      const error: RpcErrorResponse = {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: ErrorCodes.InternalError,
          message: `Internal error: the answers to this batch of ${this.#expected} entries exceed the message limit of ${this.#sink.limit} bytes`,
          data: { reason: 'oversized', limit: this.#sink.limit },
        },
      };
      json = JSON.stringify(error);
      answers = [error];
    } else {
      json = `[${this.#parts.map((part) => part.json).join(',')}]`;
      answers = this.#parts.map((part) => part.message);
    }
    const ids = answers.flatMap((answer) => (answer.id === null ? [] : [answer.id]));
    this.#parts.length = 0;
    this.#sink
      .write(json, answers, ids)
      .catch(() => {})
      .then(() => this.#resolve());
  }
}
