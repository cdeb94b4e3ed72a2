import { type Connection, ErrorCodes, RpcError } from '@acp-kit/sdk';

/** The part of a connection the watcher uses (any method maps). */
export type ConnectionLike = Pick<Connection, 'onDiagnostic' | 'onClose' | 'close'>;

/** Errors that mean the wrapped peer is gone rather than that it refused something. */
const GONE = new Set<number>([ErrorCodes.ConnectionClosed, ErrorCodes.OutgoingBufferFull]);

/**
 * Watches the connection to the process a bridge wraps. Garbage on its stdout (a line that is not
 * JSON-RPC) is a broken peer, not a recoverable glitch: a request it should have answered would
 * otherwise wait forever. So the first such line closes the connection, and every pending and
 * later call fails with an error that says what happened.
 */
export class WrappedPeer {
  readonly #name: string;
  readonly #connection: ConnectionLike;
  #failure: string | undefined;
  readonly closed: Promise<string>;

  constructor(name: string, connection: ConnectionLike) {
    this.#name = name;
    this.#connection = connection;
    connection.onDiagnostic((diagnostic) => {
      if (
        diagnostic.kind !== 'parse-error' &&
        diagnostic.kind !== 'frame-error' &&
        diagnostic.kind !== 'invalid-message'
      )
        return;
      if (this.#failure !== undefined) return;
      const excerpt = diagnostic.excerpt === undefined ? '' : `: ${JSON.stringify(diagnostic.excerpt)}`;
      this.#failure = `the ${name} wrote output that is not JSON-RPC (${diagnostic.message})${excerpt}`;
      connection.close();
    });
    this.closed = new Promise((resolve) =>
      connection.onClose((reason) => {
        this.#failure ??= `the ${name} is gone: ${reason.message}`;
        resolve(this.#failure);
      }),
    );
  }

  /** Why the peer failed, once it has. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /**
   * The error a bridge answers with when a call to the wrapped peer failed: the peer's own
   * JSON-RPC error as it was, or -32603 naming the failure when the peer is gone.
   */
  toBridgeError(error: unknown): RpcError {
    if (error instanceof RpcError && !GONE.has(error.code)) return error;
    const reason = this.#failure ?? (error instanceof Error ? error.message : String(error));
    return new RpcError(ErrorCodes.InternalError, `${this.#name} unavailable: ${reason}`);
  }

  /** Closes the connection to the peer. */
  close(): void {
    this.#connection.close();
  }

  /** The peer's name as used in errors. */
  get name(): string {
    return this.#name;
  }
}
