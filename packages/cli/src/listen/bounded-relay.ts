import type { MessageReader, MessageWriter } from '@acp-kit/sdk';

/** Bounds of one direction of a {@link relay}. */
export interface RelayBounds {
  /** Bytes waiting for the destination at which the source is paused (backpressure). */
  pauseAtBytes: number;
  /** Bytes waiting at or below which a paused source is resumed. */
  resumeAtBytes: number;
  /**
   * Bytes waiting past which the source is cut off (`onOverflow`): reached only by a source that
   * keeps sending while paused (frames it had in flight).
   */
  maxBytes: number;
}

/** What a {@link relay} reports. */
export interface RelayHooks {
  /** Sees each frame before it is forwarded. */
  look?(text: string): void;
  /** The source ended. */
  onClose(): void;
  /** More than {@link RelayBounds.maxBytes} wait for the destination; the relay stops forwarding. */
  onOverflow(waiting: number): void;
  /** The destination refused a write (it closed, or cut itself off at its own bound); the relay stops forwarding. */
  onWriteError(error: Error): void;
}

/**
 * Copies every frame `from` reads to `to`, unchanged, holding at most a bounded number of bytes
 * for a destination that does not take them: a write counts as waiting until the destination's
 * `write` resolved (for a pipe: its buffer took it; for a WebSocket: the socket took it). Past
 * `pauseAtBytes` the source is paused (a socket or pipe stops being read, a Streamable HTTP
 * connection answers its POSTs 503) until the waiting bytes fall to `resumeAtBytes`; past
 * `maxBytes` the relay gives up and reports the overflow. A write the destination refuses ends the
 * relay too (`onWriteError`).
 */
export function relay(from: MessageReader, to: MessageWriter, bounds: RelayBounds, hooks: RelayHooks): void {
  let waiting = 0;
  let paused = false;
  let stopped = false;
  const failed = (bytes: number, error: unknown): void => {
    taken(bytes);
    if (stopped) return;
    stopped = true;
    hooks.onWriteError(error instanceof Error ? error : new Error(String(error)));
  };
  const taken = (bytes: number): void => {
    waiting -= bytes;
    if (paused && waiting <= bounds.resumeAtBytes) {
      paused = false;
      from.resume?.();
    }
  };
  from.listen({
    onMessage: (text) => {
      if (stopped) return;
      hooks.look?.(text);
      const bytes = Buffer.byteLength(text) + 1;
      waiting += bytes;
      to.write(text).then(
        () => taken(bytes),
        (error: unknown) => failed(bytes, error),
      );
      if (stopped) return;
      if (waiting > bounds.maxBytes) {
        stopped = true;
        hooks.onOverflow(waiting);
      } else if (!paused && waiting > bounds.pauseAtBytes && from.pause) {
        paused = true;
        from.pause();
      }
    },
    // A frame that is not JSON still goes through: the agent (or client) answers it as it would on stdio.
    onFrameError: () => {},
    onClose: hooks.onClose,
  });
}
