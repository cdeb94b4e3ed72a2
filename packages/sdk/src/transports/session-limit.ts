import type { MessageReader, MessageReaderListener, MessageWriter, Transport } from '../rpc/index.js';
import { SESSION_LIMIT_ERROR_CODE } from './connection-limits.js';

type Parsed = { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

/** A frame's JSON value: a message, a batch (array), or undefined when it is not JSON. */
const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The value as a single message (an object), or undefined. */
const asMessage = (value: unknown): Parsed | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Parsed) : undefined;

const sessionIdOf = (params: unknown): string | undefined => {
  if (params === null || typeof params !== 'object') return undefined;
  const id = (params as { sessionId?: unknown }).sessionId;
  return typeof id === 'string' ? id : undefined;
};

/** What a request takes: a new slot for a `session/new` (by request id), or a session it names. */
type Claim = { kind: 'new'; key: string } | { kind: 'session'; sessionId: string };

/**
 * Wraps a transport so that one connection can hold at most `max` sessions: each `session/new`
 * counts as one (given back if the agent answers it with an error), and so does each other
 * `session/*` request naming a session the connection has not used yet. A request over the limit
 * is answered here with error {@link SESSION_LIMIT_ERROR_CODE} and never reaches the agent. The
 * requests of a JSON-RPC batch count the same way, all together: a batch that would take the
 * connection past the limit is refused whole (one answer array, that error for each of its
 * requests) and none of it reaches the agent; answers in a batch answer free or keep slots as
 * single answers do.
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

  /** An answer to a `session/new` in flight frees its slot, or keeps it for the session it created. */
  const answered = (message: Parsed | undefined): void => {
    if (message && message.method === undefined && creating.delete(key(message.id))) {
      const created = sessionIdOf(message.result);
      if (created !== undefined) known.add(created);
    }
  };

  /** The bookkeeping of one outgoing frame: a single message or a batch answer (an array). */
  const sent = (json: string): void => {
    if (creating.size === 0) return;
    const value = parse(json);
    if (Array.isArray(value)) for (const entry of value) answered(asMessage(entry));
    else answered(asMessage(value));
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

  const FULL = `this connection already holds ${max} sessions, the most it may; open another connection or reuse a session`;
  const BATCH = `this batch would take this connection past ${max} sessions, the most it may hold, so none of it was run; send fewer session requests at once, or open another connection`;
  const refusal = (id: unknown, message: string) => ({
    jsonrpc: '2.0',
    id,
    error: { code: SESSION_LIMIT_ERROR_CODE, message, data: { limit: 'sessions-per-connection', max } },
  });
  const send = (value: unknown): void => {
    void writer.write(JSON.stringify(value)).catch(() => {});
  };

  const isRequest = (message: Parsed | undefined): message is Parsed & { id: unknown } =>
    message !== undefined && message.id !== undefined && message.id !== null;

  /** What the message takes that the connection does not hold yet, if it is such a request. */
  const claimOf = (message: Parsed | undefined): Claim | undefined => {
    if (!isRequest(message) || typeof message.method !== 'string') return undefined;
    if (message.method === 'session/new') return { kind: 'new', key: key(message.id) };
    if (!message.method.startsWith('session/')) return undefined;
    const sessionId = sessionIdOf(message.params);
    return sessionId !== undefined && !known.has(sessionId) ? { kind: 'session', sessionId } : undefined;
  };
  const take = (claim: Claim): void => {
    if (claim.kind === 'new') creating.add(claim.key);
    else known.add(claim.sessionId);
  };

  /** Whether a single message may pass (refused here when it would pass the limit). */
  const admit = (message: Parsed | undefined): boolean => {
    const claim = claimOf(message);
    if (claim === undefined) return true;
    if (used() >= max) {
      send(refusal(message!.id, FULL));
      return false;
    }
    take(claim);
    return true;
  };

  /** Whether a batch may pass: only if all of its requests fit together; otherwise refused whole. */
  const admitBatch = (entries: readonly unknown[]): boolean => {
    const claims: Claim[] = [];
    const named = new Set<string>();
    for (const entry of entries) {
      const claim = claimOf(asMessage(entry));
      if (claim === undefined) continue;
      if (claim.kind === 'session') {
        if (named.has(claim.sessionId)) continue;
        named.add(claim.sessionId);
      }
      claims.push(claim);
    }
    if (claims.length === 0) return true;
    if (used() + claims.length > max) {
      const requests = entries.map(asMessage).filter(isRequest);
      send(requests.map((request) => refusal(request.id, BATCH)));
      return false;
    }
    for (const claim of claims) take(claim);
    return true;
  };

  const reader: MessageReader = {
    listen(listener: MessageReaderListener) {
      transport.reader.listen({
        onMessage(text) {
          if (text.includes('"session/')) {
            const value = parse(text);
            if (!(Array.isArray(value) ? admitBatch(value) : admit(asMessage(value)))) return;
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
