import type { MessageReader, MessageReaderListener, MessageWriter, Transport } from '../rpc/index.js';
import { SESSION_LIMIT_ERROR_CODE } from './connection-limits.js';

type Parsed = { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

const parse = (text: string): Parsed | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Parsed)
      : undefined;
  } catch {
    return undefined;
  }
};

const sessionIdOf = (params: unknown): string | undefined => {
  if (params === null || typeof params !== 'object') return undefined;
  const id = (params as { sessionId?: unknown }).sessionId;
  return typeof id === 'string' ? id : undefined;
};

/**
 * Wraps a transport so that one connection can hold at most `max` sessions: each `session/new`
 * counts as one (given back if the agent answers it with an error), and so does each other
 * `session/*` request naming a session the connection has not used yet. A request over the limit
 * is answered here with error {@link SESSION_LIMIT_ERROR_CODE} and never reaches the agent.
 *
 * Only frames that mention `"session/` are parsed here; everything else passes untouched. Outgoing
 * batches ({@link MessageWriter.writeBatch}) reach the transport as batches when it takes them, with
 * the same bookkeeping per frame as single writes.
 */
export function limitSessions(transport: Transport, max: number): Transport {
  const known = new Set<string>();
  /** Request ids of `session/new` calls in flight, each holding one slot. */
  const creating = new Set<string>();
  const key = (id: unknown): string => JSON.stringify(id);
  const used = (): number => known.size + creating.size;
  const { writer } = transport;

  /** The bookkeeping of one outgoing frame: an answer to a `session/new` frees or keeps its slot. */
  const sent = (json: string): void => {
    if (creating.size === 0) return;
    const message = parse(json);
    if (message && message.method === undefined && creating.delete(key(message.id))) {
      const created = sessionIdOf(message.result);
      if (created !== undefined) known.add(created);
    }
  };

  const limitedWriter: MessageWriter = {
    write(json, note) {
      sent(json);
      return note === undefined ? writer.write(json) : writer.write(json, note);
    },
    close: () => writer.close(),
  };
  // Batches stay batches (one write to an ndjson stream) where the transport takes them; without
  // `writeBatch` here the connection falls back to `write` per message, as it would on `writer`.
  if (writer.writeBatch !== undefined) {
    const writeBatch = writer.writeBatch.bind(writer);
    limitedWriter.writeBatch = (jsons) => {
      for (const json of jsons) sent(json);
      return writeBatch(jsons);
    };
  }

  const refuse = (id: unknown): void => {
    void writer
      .write(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: {
            code: SESSION_LIMIT_ERROR_CODE,
            message: `this connection already holds ${max} sessions, the most it may; open another connection or reuse a session`,
            data: { limit: 'sessions-per-connection', max },
          },
        }),
      )
      .catch(() => {});
  };

  const reader: MessageReader = {
    listen(listener: MessageReaderListener) {
      transport.reader.listen({
        onMessage(text) {
          if (text.includes('"session/')) {
            const message = parse(text);
            const method = message?.method;
            const isRequest = message !== undefined && message.id !== undefined && message.id !== null;
            if (isRequest && method === 'session/new') {
              if (used() >= max) return refuse(message.id);
              creating.add(key(message.id));
            } else if (isRequest && typeof method === 'string' && method.startsWith('session/')) {
              const sessionId = sessionIdOf(message.params);
              if (sessionId !== undefined && !known.has(sessionId)) {
                if (used() >= max) return refuse(message.id);
                known.add(sessionId);
              }
            }
          }
          listener.onMessage(text);
        },
        onFrameError: (error) => listener.onFrameError(error),
        onClose: (reason) => listener.onClose(reason),
      });
    },
    dispose: () => transport.reader.dispose(),
  };

  return { reader, writer: limitedWriter };
}
