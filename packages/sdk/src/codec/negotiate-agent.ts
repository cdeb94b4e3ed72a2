import type { FrameError } from '../rpc/ndjson.js';
import type { MessageReaderListener, Transport, WriteNote } from '../rpc/transport.js';
import { batchedInitialize, initializeVersion, refuseBatch } from './initialize-version.js';
import { unsupportedProtocolVersion } from './unsupported-version.js';
import type { CodecChannel, CodecSession, WireCodec } from './wire-codec.js';

/** The protocol version the SDK's core speaks; a connection that chooses it needs no translation. */
export const CORE_PROTOCOL_VERSION = 2;

/** Options of {@link negotiateAgentVersion}. */
export interface AgentNegotiationOptions {
  /** Versions served by translation besides v2, e.g. `[v1WireCodec]` from `@acp-kit/v1-compat`. */
  codecs?: readonly WireCodec[];
  /** Called once per connection with the version it will speak. */
  onNegotiated?(protocolVersion: number): void;
}

/**
 * Wraps an agent-side transport so that the connection over it speaks whatever version the
 * client's `initialize` chooses, while the agent behind it only ever sees v2.
 *
 * The first `initialize` request decides, following ACP's rule (the agent answers with the version
 * asked for if it speaks it, otherwise with its latest below it):
 * - `protocolVersion` 2 or higher: v2, the identity — from then on every frame passes through as
 *   text, unparsed;
 * - a lower version a codec speaks (1 with `v1WireCodec`): that codec translates every message of
 *   the connection, both ways, and validates the wire version's messages itself;
 * - a version below everything served: the answer is -32022 with `{requested, supported}`, and the
 *   connection stays undecided (the client may try again);
 * - no usable `protocolVersion`: the request goes to the agent as is, whose validator answers
 *   -32602 naming `/params/protocolVersion`.
 *
 * Until `initialize` decides, messages pass through as v2 (the agent refuses session methods
 * before `initialize` anyway). A JSON-RPC batch holding the first `initialize` negotiates v2 when
 * it asks for 2 or more; asking for less, the whole batch is refused in one answer array (-32600
 * per request, -32022 for the `initialize` when no codec serves its version), since no earlier
 * version has batches, and the connection stays undecided.
 */
export function negotiateAgentVersion(
  transport: Transport,
  options: AgentNegotiationOptions = {},
): Transport {
  const codecs = [...(options.codecs ?? [])].sort((a, b) => b.protocolVersion - a.protocolVersion);
  const supported = [CORE_PROTOCOL_VERSION, ...codecs.map((codec) => codec.protocolVersion)];
  let decided: 'v2' | CodecSession | undefined;
  let listener: MessageReaderListener | undefined;

  const writeToPeer = (message: unknown): Promise<void> => transport.writer.write(JSON.stringify(message));
  const channel: CodecChannel = {
    deliver: (message) => listener?.onMessage(JSON.stringify(message)),
    write: writeToPeer,
  };

  const choose = (requested: number, message: { id: unknown }, text: string): void => {
    if (requested >= CORE_PROTOCOL_VERSION) {
      decided = 'v2';
      options.onNegotiated?.(CORE_PROTOCOL_VERSION);
      listener?.onMessage(text);
      return;
    }
    const codec = codecs.find((candidate) => candidate.protocolVersion <= requested);
    if (codec === undefined) {
      const error = unsupportedProtocolVersion(requested, supported);
      writeToPeer({ jsonrpc: '2.0', id: message.id, error: error.toObject() }).catch(() => undefined);
      return;
    }
    const session = codec.agent(channel);
    decided = session;
    options.onNegotiated?.(codec.protocolVersion);
    session.fromPeer(message);
  };

  const write = (json: string, note?: WriteNote): Promise<void> => {
    if (decided === undefined || decided === 'v2') return transport.writer.write(json);
    return decided.fromCore(JSON.parse(json), note);
  };

  const receive = (text: string): void => {
    if (decided === 'v2') {
      listener?.onMessage(text);
      return;
    }
    if (decided === undefined && !text.includes('initialize')) {
      listener?.onMessage(text);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // The connection answers malformed JSON itself (-32700).
      listener?.onMessage(text);
      return;
    }
    if (decided !== undefined) {
      decided.fromPeer(value);
      return;
    }
    if (Array.isArray(value)) {
      receiveBatch(value, text);
      return;
    }
    const requested = initializeVersion(value);
    if (requested === undefined) listener?.onMessage(text);
    else choose(requested, value as { id: unknown }, text);
  };

  /**
   * A batch before any version was chosen. One whose `initialize` asks for 2 or more negotiates v2
   * (v2 takes batches) and goes to the connection whole; one asking for less is refused entry by
   * entry in one array (no earlier version has batches) and decides nothing; a batch without a
   * usable `initialize` goes to the connection, which answers it as v2.
   */
  const receiveBatch = (entries: unknown[], text: string): void => {
    const initialize = batchedInitialize(entries);
    if (initialize === undefined) {
      listener?.onMessage(text);
      return;
    }
    if (initialize.requested >= CORE_PROTOCOL_VERSION) {
      decided = 'v2';
      options.onNegotiated?.(CORE_PROTOCOL_VERSION);
      listener?.onMessage(text);
      return;
    }
    const served = codecs.some((codec) => codec.protocolVersion <= initialize.requested);
    const refusal = served ? undefined : unsupportedProtocolVersion(initialize.requested, supported);
    writeToPeer(refuseBatch(entries, initialize, refusal)).catch(() => undefined);
  };

  return {
    reader: {
      listen(next) {
        listener = next;
        transport.reader.listen({
          onMessage: receive,
          onFrameError: (error: FrameError) => next.onFrameError(error),
          onClose: (reason) => {
            if (decided !== undefined && decided !== 'v2') decided.close?.(reason);
            next.onClose(reason);
          },
        });
      },
      dispose: () => transport.reader.dispose(),
    },
    writer: {
      write,
      writeBatch(jsons) {
        if ((decided === undefined || decided === 'v2') && transport.writer.writeBatch !== undefined) {
          return transport.writer.writeBatch(jsons);
        }
        return Promise.all(jsons.map((json) => write(json))).then(() => undefined);
      },
      close: () => transport.writer.close(),
    },
  };
}
