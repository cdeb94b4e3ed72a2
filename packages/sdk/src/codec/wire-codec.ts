/**
 * The seam between the version a connection speaks on the wire and the version the SDK's core
 * speaks (ACP v2). The core — `Agent`, `Client`, their handlers and the session log — is
 * version-neutral: it only ever sees v2. A {@link WireCodec} translates one other version, per
 * connection, and is chosen at `initialize` by {@link negotiateAgentVersion}; for v2 itself the
 * codec is the identity (messages pass through as text, untouched and unparsed).
 */

import type { WriteNote } from '../rpc/transport.js';

/** Where a {@link CodecSession} sends what it produced. */
export interface CodecChannel {
  /**
   * Hands a message in the core's version (v2) to this side's connection, as if the peer had sent
   * it. Use it for the translation of what the peer sent, and for answers the core expects from the
   * peer that the codec gives itself.
   */
  deliver(message: unknown): void;
  /**
   * Writes a message in the wire version to the peer. Resolves once the transport took it (the
   * connection's outgoing-buffer accounting applies to the core's messages, not to these).
   */
  write(message: unknown): Promise<void>;
}

/** The translation of one connection: created when the codec is chosen, dropped when it closes. */
export interface CodecSession {
  /**
   * A message the peer sent (parsed JSON in the wire version; the first one is the `initialize`
   * request that chose this codec). Validate it against the wire version's schema — bad input gets
   * its JSON-RPC error (code, pointer, what was expected) written back with
   * {@link CodecChannel.write} — then {@link CodecChannel.deliver} its translation.
   */
  fromPeer(message: unknown): void;
  /**
   * A message this side's core sends (parsed JSON, v2). Write its translation with
   * {@link CodecChannel.write}, now or later (a v1 prompt answer waits for the end of the turn).
   * Resolves when what was written for it was taken by the transport, or at once when nothing was.
   * `note` is what the core said about the message: for a `session/update` of a log entry, the
   * entry's seq in its session's log (so a translation can order updates by the log, and knows
   * which ones came from outside it: a replay, the current state after a resume).
   */
  fromCore(message: unknown, note?: WriteNote): Promise<void>;
  /** The connection closed: fail or drop whatever the session still waits for. */
  close?(reason?: Error): void;
}

/** One protocol version other than v2, served by translation. */
export interface WireCodec {
  /** The protocol version this codec speaks on the wire (for example 1). */
  readonly protocolVersion: number;
  /**
   * Opens the translation for one agent-side connection whose client asked for
   * {@link WireCodec.protocolVersion} in `initialize`.
   */
  agent(channel: CodecChannel): CodecSession;
  /**
   * Opens the translation for one client-side connection whose agent answered `initialize` with
   * {@link WireCodec.protocolVersion}. `handshake` holds the client's `initialize` request (v2, as
   * the core sent it) and the agent's result (wire version): the session answers that request to
   * the core itself, from the result, without asking the agent again. Absent when the codec only
   * serves agents.
   */
  client?(channel: CodecChannel, handshake: CodecHandshake): CodecSession;
  /**
   * Amends the `params` of a client's `initialize` before it goes out, while the agent's version is
   * not known yet: adds what the client offers in this codec's version only (v1's `fs` and
   * `terminal` client capabilities, say). Return the params to send. The additions must be fields
   * a v2 agent ignores; the core's own request is unchanged ({@link CodecHandshake.request}).
   */
  amendInitialize?(params: unknown): unknown;
}

/** What the client side learned at `initialize` when the agent answered with an older version. */
export interface CodecHandshake {
  /** The client's `initialize` request message (JSON-RPC envelope, v2 params). */
  readonly request: { readonly id: unknown; readonly params?: unknown };
  /** The `result` of the agent's answer, in the agent's version. */
  readonly result: unknown;
}
