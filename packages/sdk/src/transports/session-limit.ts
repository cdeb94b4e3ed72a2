import type {
  FrameError,
  MessageReader,
  MessageReaderListener,
  MessageWriter,
  Transport,
  WriteNote,
} from '../rpc/index.js';
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
  const limited = new SessionLimitedTransport(transport, max);
  return { reader: limited, writer: limited };
}

/** Why a request over the limit is refused. */
const full = (max: number): string =>
  `this connection already holds ${max} sessions, the most it may; open another connection or reuse a session`;
/** Why a batch over the limit is refused. */
const batchOver = (max: number): string =>
  `this batch would take this connection past ${max} sessions, the most it may hold, so none of it was run; send fewer session requests at once, or open another connection`;

const key = (id: unknown): string => JSON.stringify(id);

const isRequest = (message: Parsed | undefined): message is Parsed & { id: unknown } =>
  message !== undefined && message.id !== undefined && message.id !== null;

/**
 * The reader and writer {@link limitSessions} returns, in one object whose methods live on the
 * prototype: a server holding thousands of idle connections keeps no closures per connection.
 */
class SessionLimitedTransport implements MessageReader, MessageWriter, MessageReaderListener {
  readonly #transport: Transport;
  readonly #max: number;
  /** Sessions this connection uses. */
  readonly #known = new Set<string>();
  /** `session/new` requests not answered yet, by request id (created when one is pending). */
  #creating: Set<string> | undefined;
  #listener: MessageReaderListener | undefined;

  constructor(transport: Transport, max: number) {
    this.#transport = transport;
    this.#max = max;
    // Batches stay batches (one write to an ndjson stream) where the transport takes them; without
    // `writeBatch` here the connection falls back to `write` per message, as it would on `writer`.
    if (transport.writer.writeBatch === undefined) this.writeBatch = undefined;
  }

  #used(): number {
    return this.#known.size + (this.#creating?.size ?? 0);
  }

  #answered(message: Parsed | undefined): void {
    const creating = this.#creating;
    if (!message || message.method !== undefined || !creating?.delete(key(message.id))) return;
    if (creating.size === 0) this.#creating = undefined;
    const created = sessionIdOf(message.result);
    if (created !== undefined) this.#known.add(created);
  }

  #sent(json: string): void {
    if (this.#creating === undefined) return;
    const value = parse(json);
    if (Array.isArray(value)) for (const entry of value) this.#answered(asMessage(entry));
    else this.#answered(asMessage(value));
  }

  write(json: string, note?: WriteNote): Promise<void> {
    this.#sent(json);
    const { writer } = this.#transport;
    return note === undefined ? writer.write(json) : writer.write(json, note);
  }

  writeBatch?(jsons: readonly string[]): Promise<void> {
    for (const json of jsons) this.#sent(json);
    return this.#transport.writer.writeBatch!(jsons);
  }

  close(): Promise<void> {
    return this.#transport.writer.close();
  }

  abort(reason: string): void {
    const { writer } = this.#transport;
    if (writer.abort) writer.abort(reason);
    else void writer.close().catch(() => {});
  }

  #refusal(id: unknown, message: string) {
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: SESSION_LIMIT_ERROR_CODE,
        message,
        data: { limit: 'sessions-per-connection', max: this.#max },
      },
    };
  }

  #send(value: unknown): void {
    void this.#transport.writer.write(JSON.stringify(value)).catch(() => {});
  }

  #claimOf(message: Parsed | undefined): Claim | undefined {
    if (!isRequest(message) || typeof message.method !== 'string') return undefined;
    if (message.method === 'session/new') return { kind: 'new', key: key(message.id) };
    if (!message.method.startsWith('session/')) return undefined;
    const sessionId = sessionIdOf(message.params);
    return sessionId !== undefined && !this.#known.has(sessionId)
      ? { kind: 'session', sessionId }
      : undefined;
  }

  #take(claim: Claim): void {
    if (claim.kind === 'new') {
      this.#creating ??= new Set();
      this.#creating.add(claim.key);
    } else this.#known.add(claim.sessionId);
  }

  #admit(message: Parsed | undefined): boolean {
    const claim = this.#claimOf(message);
    if (claim === undefined) return true;
    if (this.#used() >= this.#max) {
      this.#send(this.#refusal(message!.id, full(this.#max)));
      return false;
    }
    this.#take(claim);
    return true;
  }

  #admitBatch(entries: readonly unknown[]): boolean {
    const claims: Claim[] = [];
    const named = new Set<string>();
    for (const entry of entries) {
      const claim = this.#claimOf(asMessage(entry));
      if (claim === undefined) continue;
      if (claim.kind === 'session') {
        if (named.has(claim.sessionId)) continue;
        named.add(claim.sessionId);
      }
      claims.push(claim);
    }
    if (claims.length === 0) return true;
    if (this.#used() + claims.length > this.#max) {
      const requests = entries.map(asMessage).filter(isRequest);
      const reason = batchOver(this.#max);
      this.#send(requests.map((request) => this.#refusal(request.id, reason)));
      return false;
    }
    for (const claim of claims) this.#take(claim);
    return true;
  }

  listen(listener: MessageReaderListener): void {
    this.#listener = listener;
    this.#transport.reader.listen(this);
  }

  dispose(): void {
    this.#transport.reader.dispose();
  }

  pause(): void {
    this.#transport.reader.pause?.();
  }

  resume(): void {
    this.#transport.reader.resume?.();
  }

  onMessage(text: string): void {
    if (text.includes('"session/')) {
      const value = parse(text);
      if (!(Array.isArray(value) ? this.#admitBatch(value) : this.#admit(asMessage(value)))) return;
    }
    this.#listener?.onMessage(text);
  }

  onFrameError(error: FrameError): void {
    this.#listener?.onFrameError(error);
  }

  onClose(reason?: Error): void {
    this.#listener?.onClose(reason);
  }
}
