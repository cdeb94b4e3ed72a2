import type { MessageReader, MessageReaderListener, MessageWriter, Transport } from '../rpc/index.js';
import { notificationSession } from './notification-session.js';
import { type SseSink, SseOutbox } from './sse-outbox.js';

/** The fields of a JSON-RPC message the router looks at. */
export interface RoutedMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
}

/** The answer a POST gets from the connection: 202, or a status with a reason phrase. */
export type PostOutcome =
  | { status: 202 }
  | { status: 400 | 404; reason: string }
  | { status: 503; reason: string; retryAfter: number };

/** What {@link HttpConnection.openStream} did with a GET. */
export type StreamOutcome = 'open' | 'busy' | 'too-many';

/** Settings of one Streamable HTTP connection. */
export interface HttpConnectionSettings {
  /** The `Acp-Connection-Id`. */
  id: string;
  /** Bytes each of its streams may hold for a reader that has not taken them. */
  streamLimitBytes: number;
  /** Streams (connection-scoped plus session-scoped) it may hold at once. */
  maxStreams: number;
  /** A connection with no stream open and no POST for this long is ended. */
  idleTimeoutMs: number;
  /** Called once when the connection ends, for whatever reason. */
  onEnd(): void;
}

/** Answers to these go on the connection-scoped stream even when the request names a session. */
const CONNECTION_SCOPED_ANSWERS = new Set<unknown>(['session/load']);

/** One settled promise for every message a stream took (a write has nothing to wait for). */
const TAKEN = Promise.resolve();

const idKey = (id: unknown): string | undefined =>
  typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;

/** The `sessionId` a message's params (or a result) name, if any. */
export const sessionIdIn = (value: unknown): string | undefined => {
  if (value === null || typeof value !== 'object') return undefined;
  const id = (value as { sessionId?: unknown }).sessionId;
  return typeof id === 'string' ? id : undefined;
};

/** `map` without `key`; undefined once it holds nothing. */
function without<V>(map: Map<string, V> | undefined, key: string): Map<string, V> | undefined {
  if (map === undefined) return undefined;
  map.delete(key);
  return map.size === 0 ? undefined : map;
}

/** The connection's reader and writer in one object, its methods on the prototype (no closures per connection). */
class HttpConnectionPort implements MessageReader, MessageWriter {
  readonly #connection: HttpConnection;

  constructor(connection: HttpConnection) {
    this.#connection = connection;
  }

  listen(listener: MessageReaderListener): void {
    this.#connection.listen(listener);
  }

  dispose(): void {
    this.#connection.unlisten();
  }

  write(json: string): Promise<void> {
    return this.#connection.write(json);
  }

  writeBatch(jsons: readonly string[]): Promise<void> {
    return this.#connection.writeBatch(jsons);
  }

  async close(): Promise<void> {
    this.#connection.end();
  }

  abort(reason: string): void {
    this.#connection.end(new Error(reason));
  }

  pause(): void {
    this.#connection.paused = true;
  }

  resume(): void {
    this.#connection.paused = false;
  }
}

/**
 * One Streamable HTTP connection on the agent side, as an ordinary {@link Transport}: POSTed
 * messages come out of its reader, and what the agent writes is routed onto SSE streams as the RFD
 * says — an answer goes where its request's session is (`session/new`, `session/load` and requests
 * naming no session: the connection-scoped stream), a server→client request or notification goes
 * on the stream of the session its params name, anything else on the connection-scoped stream.
 *
 * Every stream is bounded ({@link HttpConnectionSettings.streamLimitBytes}); a stream whose reader
 * stops taking its messages ends the whole connection, like a stalled stdio peer, while the
 * agent's sessions live on for a client that resumes them.
 */
export class HttpConnection {
  readonly id: string;
  /** The transport to hand to the agent. */
  readonly transport: Transport;
  /**
   * The protocol version the agent's `initialize` answer negotiated (as the client sends it in
   * `Acp-Protocol-Version`), once that answer went out.
   */
  protocolVersion: string | undefined;
  /**
   * Set while whoever reads this connection's messages cannot take more (its reader was paused):
   * POSTs are answered 503 with `Retry-After` instead of being buffered.
   */
  paused = false;

  readonly #settings: HttpConnectionSettings;
  readonly #connectionStream: SseOutbox;
  // A server may hold thousands of idle connections: what most of them never need is created
  // when first needed, and the in-flight routes are dropped when they empty.
  readonly #sessionStreams = new Map<string, SseOutbox>();
  /** Sessions this connection has named or been told about: a GET may open their streams. */
  readonly #known = new Set<string>();
  /** Where the answer to each client request in flight goes (a session ID, or null). */
  #answerRoutes: Map<string, string | null> | undefined;
  /** Which session's stream each server→client request in flight went on. */
  #requestRoutes: Map<string, string | null> | undefined;
  #listener: MessageReaderListener | undefined;
  #early: string[] | undefined;
  #initial: { key: string; resolve(json: string): void; reject(error: Error): void } | undefined;
  #ended = false;
  #endReason: Error | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(settings: HttpConnectionSettings) {
    this.id = settings.id;
    this.#settings = settings;
    this.#connectionStream = new SseOutbox(settings.streamLimitBytes);
    const port = new HttpConnectionPort(this);
    this.transport = { reader: port, writer: port };
    this.#touch();
  }

  /** The reader's `listen` (see {@link HttpConnectionPort}). */
  listen(listener: MessageReaderListener): void {
    if (this.#listener) throw new Error('HTTP connection reader.listen() was already called');
    this.#listener = listener;
    const early = this.#early;
    this.#early = undefined;
    for (const text of early ?? []) listener.onMessage(text);
    if (this.#ended) listener.onClose(this.#endReason);
  }

  /** The reader's `dispose`. */
  unlisten(): void {
    this.#listener = undefined;
  }

  /** The writer's `write`: routes one message the agent wrote onto its stream. */
  write(json: string): Promise<void> {
    return this.#send(json);
  }

  /** The writer's `writeBatch`: all at once, so a write made meanwhile (the answer that follows a replay) cannot land inside. */
  writeBatch(jsons: readonly string[]): Promise<void> {
    for (const json of jsons) {
      const sent = this.#send(json);
      if (this.#ended) return sent;
    }
    return Promise.resolve();
  }

  /** Writes a keepalive comment on each open stream that is otherwise quiet (the endpoint's ticker calls it). */
  keepAlive(): void {
    this.#eachStream((stream) => stream.keepAlive());
  }

  /** Whether the connection has ended (DELETE, idle, a stalled stream, the agent closing it). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Hands the `initialize` request to the agent; resolves with the text of its answer. */
  initialize(text: string, id: unknown): Promise<string> {
    const key = idKey(id);
    if (key === undefined) return Promise.reject(new Error('initialize needs a string or number id'));
    return new Promise<string>((resolve, reject) => {
      this.#initial = { key, resolve, reject };
      this.#deliver(text);
    });
  }

  /** Whether a GET may open the stream of `sessionId` without asking the agent. */
  knows(sessionId: string): boolean {
    return this.#known.has(sessionId);
  }

  /**
   * Remembers a session this connection uses, unless it already knows as many as it may hold
   * streams ({@link HttpConnectionSettings.maxStreams}): what a peer names cannot grow it further.
   */
  #learn(sessionId: string): boolean {
    if (this.#known.has(sessionId)) return true;
    if (this.#known.size >= this.#settings.maxStreams) return false;
    this.#known.add(sessionId);
    return true;
  }

  /** Takes one POSTed message (already parsed as an object) with its `Acp-Session-Id` header. */
  post(message: RoutedMessage, text: string, sessionHeader: string | undefined): PostOutcome {
    this.#touch();
    if (this.paused)
      return {
        status: 503,
        reason: 'the agent is not taking input on this connection yet: retry later',
        retryAfter: 1,
      };
    const key = idKey(message.id);
    if (message.method === undefined) {
      // An answer to a request the agent sent: it must come with the session that request went to.
      const route = key === undefined ? undefined : this.#requestRoutes?.get(key);
      if (route !== undefined && route !== null) {
        if (sessionHeader === undefined)
          return {
            status: 400,
            reason: `Missing Acp-Session-Id: this answers a request of session ${route}`,
          };
        if (sessionHeader !== route)
          return {
            status: 400,
            reason: `Mismatched Acp-Session-Id: this answers a request of session ${route}`,
          };
      }
      if (key !== undefined) this.#requestRoutes = without(this.#requestRoutes, key);
      this.#deliver(text);
      return { status: 202 };
    }
    const named = sessionIdIn(message.params);
    if (named !== undefined && sessionHeader === undefined)
      return {
        status: 400,
        reason: `Missing Acp-Session-Id: ${String(message.method)} names session ${named}`,
      };
    if (named !== undefined && sessionHeader !== undefined && named !== sessionHeader)
      return {
        status: 400,
        reason: `Mismatched Acp-Session-Id: the header says ${sessionHeader}, params.sessionId says ${named}`,
      };
    const session = sessionHeader ?? named;
    const isRequest = key !== undefined;
    // A notification may name only a session this connection uses (the RFD's 404 for a session
    // unknown for this connection); a request may name a new one (session/load, session/resume).
    if (session !== undefined && !isRequest && !this.#known.has(session))
      return { status: 404, reason: `Unknown Acp-Session-Id for this connection: ${session}` };
    // Past the cap a request's answer goes on the connection-scoped stream (the session limit
    // refuses such a request anyway).
    const learned = session !== undefined && this.#learn(session);
    if (isRequest) {
      const answerOnSession = learned && !CONNECTION_SCOPED_ANSWERS.has(message.method);
      this.#answerRoutes ??= new Map();
      this.#answerRoutes.set(key, answerOnSession ? session : null);
    }
    this.#deliver(text);
    return { status: 202 };
  }

  /**
   * Attaches a GET's response to the connection-scoped stream (`sessionId` undefined) or to a
   * session's. `busy` when another GET holds that stream; `too-many` past the stream cap.
   */
  openStream(
    sessionId: string | undefined,
    sink: SseSink,
    beforeAttach: () => void = () => {},
  ): StreamOutcome {
    let stream: SseOutbox | undefined;
    if (sessionId === undefined) stream = this.#connectionStream;
    else {
      stream = this.#sessionStreams.get(sessionId);
      if (!stream) {
        if (this.#sessionStreams.size + 1 >= this.#settings.maxStreams || !this.#learn(sessionId))
          return 'too-many';
        stream = new SseOutbox(this.#settings.streamLimitBytes);
        this.#sessionStreams.set(sessionId, stream);
      }
    }
    if (stream.attached) return 'busy';
    beforeAttach();
    stream.attach(sink);
    this.#touch();
    return 'open';
  }

  /** The GET holding a stream went away. */
  closeStream(sessionId: string | undefined, sink: SseSink): void {
    const stream = sessionId === undefined ? this.#connectionStream : this.#sessionStreams.get(sessionId);
    stream?.detach(sink);
    this.#touch();
  }

  /** Ends the connection: the agent sees its transport close, every open stream ends. */
  end(reason?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#endReason = reason;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#eachStream((stream) => stream.close());
    this.#initial?.reject(reason ?? new Error('HTTP connection ended before initialize was answered'));
    this.#initial = undefined;
    this.#settings.onEnd();
    this.#listener?.onClose(reason);
  }

  #eachStream(action: (stream: SseOutbox) => void): void {
    action(this.#connectionStream);
    for (const stream of this.#sessionStreams.values()) action(stream);
  }

  #deliver(text: string): void {
    if (this.#ended) return;
    if (this.#listener) this.#listener.onMessage(text);
    else {
      this.#early ??= [];
      this.#early.push(text);
    }
  }

  /** Restarts the idle clock, or stops it while a stream is open. */
  #touch(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (this.#ended) return;
    let open = this.#connectionStream.attached;
    for (const stream of this.#sessionStreams.values()) open ||= stream.attached;
    if (open) return;
    this.#idleTimer = setTimeout(() => {
      this.end(new Error(`HTTP connection idle for ${this.#settings.idleTimeoutMs} ms with no stream open`));
    }, this.#settings.idleTimeoutMs);
    this.#idleTimer.unref?.();
  }

  #send(json: string): Promise<void> {
    if (this.#ended) return Promise.reject(this.#endReason ?? new Error('HTTP connection ended'));
    // The common case — a session's notification, as this SDK writes it — is routed without a parse.
    const notified = notificationSession(json);
    if (notified !== undefined) return this.#push(this.#sessionStream(notified), notified, json);
    let message: RoutedMessage | undefined;
    try {
      const value: unknown = JSON.parse(json);
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        message = value as RoutedMessage;
    } catch {
      // Not JSON (never written by a connection); it goes on the connection-scoped stream.
    }
    const key = idKey(message?.id);
    const isAnswer = message !== undefined && message.method === undefined && key !== undefined;
    if (isAnswer && this.#initial?.key === key) {
      const { resolve } = this.#initial;
      this.#initial = undefined;
      resolve(json);
      return Promise.resolve();
    }
    let route: string | null = null;
    if (isAnswer) {
      route = this.#answerRoutes?.get(key) ?? null;
      this.#answerRoutes = without(this.#answerRoutes, key);
      const created = sessionIdIn(message?.result);
      if (created !== undefined) this.#learn(created);
    } else if (message !== undefined) {
      route = sessionIdIn(message.params) ?? null;
      if (key !== undefined && message.method !== undefined) {
        this.#requestRoutes ??= new Map();
        this.#requestRoutes.set(key, route);
      }
    }
    return this.#push(route === null ? this.#connectionStream : this.#sessionStream(route), route, json);
  }

  /** Puts one message on a stream, or ends the connection when the stream's reader is too far behind. */
  #push(stream: SseOutbox, route: string | null, json: string): Promise<void> {
    if (!stream.push(json)) {
      const which = route === null ? 'the connection-scoped stream' : `the stream of session ${route}`;
      const error = new Error(
        `HTTP connection cut off: ${which} holds ${stream.pendingBytes} bytes its reader has not taken (limit ${this.#settings.streamLimitBytes})`,
      );
      this.end(error);
      return Promise.reject(error);
    }
    return TAKEN;
  }

  #sessionStream(sessionId: string): SseOutbox {
    let stream = this.#sessionStreams.get(sessionId);
    if (!stream) {
      stream = new SseOutbox(this.#settings.streamLimitBytes);
      this.#sessionStreams.set(sessionId, stream);
      this.#known.add(sessionId);
    }
    return stream;
  }
}
