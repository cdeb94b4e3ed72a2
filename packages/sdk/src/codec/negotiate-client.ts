import type { MessageReaderListener, Transport } from '../rpc/transport.js';
import { CORE_PROTOCOL_VERSION } from './negotiate-agent.js';
import type { CodecChannel, CodecSession, WireCodec } from './wire-codec.js';

/** Options of {@link negotiateClientVersion}. */
export interface ClientNegotiationOptions {
  /** Versions the client can fall back to by translation, e.g. `[v1WireCodec]`. */
  codecs?: readonly WireCodec[];
  /** Called once with the version the agent chose. */
  onNegotiated?(protocolVersion: number): void;
}

/**
 * Wraps a client-side transport so that a client built on the SDK (which speaks v2) keeps its v2
 * API when the agent answers `initialize` with an older version a codec speaks.
 *
 * The client's `initialize` goes out asking for 2, with what each codec offers in its own version
 * added ({@link WireCodec.amendInitialize}). The agent's answer decides:
 * `protocolVersion` 2 (or none) — the identity, frames pass through as text from then on; an
 * older version with a codec that can serve clients — that codec's client session answers the
 * `initialize` to the client from the agent's result (translated to v2) and translates every
 * later message both ways. An older version without a codec is handed on as it is: the client
 * sees the version and may disconnect, as ACP prescribes.
 */
export function negotiateClientVersion(
  transport: Transport,
  options: ClientNegotiationOptions = {},
): Transport {
  const codecs = options.codecs ?? [];
  let decided: 'v2' | CodecSession | undefined;
  let listener: MessageReaderListener | undefined;
  /** The client's `initialize` requests not answered yet, by id. */
  const initializing = new Map<unknown, { id: unknown; params?: unknown }>();

  const channel: CodecChannel = {
    deliver: (message) => listener?.onMessage(JSON.stringify(message)),
    write: (message) => transport.writer.write(JSON.stringify(message)),
  };

  const answered = (text: string): boolean => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return false;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const message = value as { id?: unknown; result?: unknown };
    const request = initializing.get(message.id);
    if (request === undefined) return false;
    initializing.delete(message.id);
    if (typeof message.result !== 'object' || message.result === null) return false;
    const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
    if (typeof version !== 'number' || version >= CORE_PROTOCOL_VERSION) {
      decided = 'v2';
      options.onNegotiated?.(CORE_PROTOCOL_VERSION);
      return false;
    }
    const codec = codecs.find((candidate) => candidate.protocolVersion === version && candidate.client);
    if (codec?.client === undefined) return false;
    options.onNegotiated?.(version);
    decided = codec.client(channel, { request, result: message.result });
    return true;
  };

  return {
    reader: {
      listen(next) {
        listener = next;
        transport.reader.listen({
          onMessage: (text) => {
            if (decided === 'v2') next.onMessage(text);
            else if (decided !== undefined) fromPeer(decided, text, next);
            else if (initializing.size === 0 || !answered(text)) next.onMessage(text);
          },
          onFrameError: (error) => next.onFrameError(error),
          onClose: (reason) => {
            if (decided !== undefined && decided !== 'v2') decided.close?.(reason);
            next.onClose(reason);
          },
        });
      },
      dispose: () => transport.reader.dispose(),
    },
    writer: {
      write(json) {
        if (decided !== undefined && decided !== 'v2') return decided.fromCore(JSON.parse(json));
        if (decided === undefined && json.includes('"initialize"')) {
          const message = JSON.parse(json) as { id?: unknown; method?: unknown; params?: unknown };
          if (message.method === 'initialize' && message.id !== undefined) {
            initializing.set(message.id, { id: message.id, params: message.params });
            const amend = codecs.filter((codec) => codec.client && codec.amendInitialize);
            if (amend.length > 0) {
              const params = amend.reduce<unknown>(
                (p, codec) => codec.amendInitialize?.(p) ?? p,
                message.params,
              );
              return transport.writer.write(JSON.stringify({ ...message, params }));
            }
          }
        }
        return transport.writer.write(json);
      },
      close: () => transport.writer.close(),
    },
  };
}

/** A frame from the agent on a translated connection; malformed JSON goes to the connection as is. */
function fromPeer(session: CodecSession, text: string, next: MessageReaderListener): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    next.onMessage(text);
    return;
  }
  session.fromPeer(value);
}
