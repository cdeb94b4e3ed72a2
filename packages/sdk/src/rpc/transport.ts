import type { FrameError } from './ndjson.js';

/** Something a transport or connection hands back to let the caller stop listening. */
export interface Disposable {
  /** Stops the subscription; calling it twice is harmless. */
  dispose(): void;
}

/** What a {@link MessageReader} reports to the one connection listening to it. */
export interface MessageReaderListener {
  /** One complete frame of text: a single JSON-RPC message, not yet parsed. */
  onMessage(text: string): void;
  /** A frame that could not be turned into text; the reader keeps going afterwards. */
  onFrameError(error: FrameError): void;
  /** The source ended. `reason` explains an abnormal end (process exit, socket error). */
  onClose(reason?: Error): void;
}

/**
 * The incoming half of a transport. It frames and decodes; it never parses JSON, so the
 * connection alone decides how malformed input is answered.
 */
export interface MessageReader {
  /** Starts delivering frames. A reader has exactly one listener. */
  listen(listener: MessageReaderListener): void;
  /** Stops delivering and releases the source. */
  dispose(): void;
  /**
   * Optional: stops taking input from the peer until {@link resume} (backpressure). A socket or
   * pipe stops being read, so the peer's sends block; a transport that cannot stop its peer (HTTP
   * POSTs) refuses its input meanwhile. A few frames already read may still be delivered.
   */
  pause?(): void;
  /** Optional: takes input again after {@link pause}. */
  resume?(): void;
}

/**
 * The outgoing half of a transport.
 *
 * `write` resolves when the transport has taken the message off the caller's hands without
 * exceeding its own buffer (for a Node stream: the write returned true, or 'drain' fired). Until
 * then the connection counts the message's bytes as queued; that count is what the connection's
 * outgoing-buffer limit applies to. Writes are delivered in call order.
 */
export interface MessageWriter {
  /**
   * Sends one serialized JSON-RPC message (no trailing newline; the writer frames it). `note` is
   * what the sender knows about the message beyond its text, for a writer that translates it (a
   * wire codec); a writer that only frames ignores it.
   */
  write(json: string, note?: WriteNote): Promise<void>;
  /**
   * Optional: sends several serialized messages in order, each as a message of its own (as that
   * many `write` calls would), and resolves once the transport took the last one. A transport that
   * frames messages in one byte stream hands them over in a single write; the connection falls back
   * to `write` per message when this is absent.
   */
  writeBatch?(jsons: readonly string[]): Promise<void>;
  /** Flushes what it can and closes the sink (end of stdin, WebSocket close). */
  close(): Promise<void>;
  /**
   * Optional: ends the transport at once because its peer broke a bound, telling the peer why
   * where the wire can (a WebSocket closes with code 1008 and `reason`; a Streamable HTTP
   * connection ends). Without it, callers fall back to {@link close}.
   */
  abort?(reason: string): void;
}

/** What the sender of an outgoing message knows about it beyond its text (see {@link MessageWriter.write}). */
export interface WriteNote {
  /**
   * For a `session/update` reporting an entry of a session log: the entry's seq. Absent for updates
   * sent outside the log (a replay, the current state after a resume).
   */
  readonly seq?: number;
}

/** A connected reader/writer pair: all a connection knows about the outside world. */
export interface Transport {
  /** Frames coming from the peer. */
  reader: MessageReader;
  /** Frames going to the peer. */
  writer: MessageWriter;
}
