/** The part of a socket {@link PendingSockets} looks at (a TCP socket, or a TLS socket over one). */
export interface PeerSocket {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
}

/**
 * The key of a socket's peer: its address and port. The TCP socket and the TLS socket over it
 * share it, so either finds the same entry.
 */
export const peerKey = (socket: {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
}): string => `${socket.remoteAddress ?? 'unknown'}|${socket.remotePort ?? 0}`;

/**
 * The sockets of a listener that have not authenticated yet: accepted, but no request of theirs
 * has passed the token check (still in TLS or in their headers, or refused so far). They are
 * capped per remote address and in total, below the budget of authenticated sockets, so sockets
 * that never present a token — from one address or from many — cannot take the room of clients
 * that do, or of connections already open. A socket leaves this count when it authenticates or
 * closes; the tables hold only sockets that are open and pending.
 */
export class PendingSockets {
  readonly #perAddress = new Map<string, number>();
  /** Address of each pending socket, by {@link peerKey}. */
  readonly #pending = new Map<string, string>();
  readonly #maxTotal: number;
  readonly #maxPerAddress: number;

  constructor(maxTotal: number, maxPerAddress: number) {
    this.#maxTotal = maxTotal;
    this.#maxPerAddress = maxPerAddress;
  }

  /** Sockets pending right now. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Counts a newly accepted socket as pending; false when its address, or the listener, already
   * holds as many pending sockets as it may (the caller closes the socket then).
   */
  admit(socket: PeerSocket): boolean {
    const address = socket.remoteAddress ?? 'unknown';
    const held = this.#perAddress.get(address) ?? 0;
    if (held >= this.#maxPerAddress || this.#pending.size >= this.#maxTotal) return false;
    const key = peerKey(socket);
    this.#pending.set(key, address);
    this.#perAddress.set(address, held + 1);
    return true;
  }

  /** The socket of `key` authenticated (or closed): it no longer counts. Harmless when it did not. */
  settle(key: string): void {
    const address = this.#pending.get(key);
    if (address === undefined) return;
    this.#pending.delete(key);
    const left = (this.#perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.#perAddress.set(address, left);
    else this.#perAddress.delete(address);
  }
}
