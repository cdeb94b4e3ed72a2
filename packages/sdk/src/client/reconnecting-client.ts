import type { InitializeResponse, McpServer, SessionId } from '@acp-kit/schema';
import { Connection } from '../rpc/connection.js';
import type { ConnectionOptions } from '../rpc/connection-options.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { Transport } from '../rpc/transport.js';
import { Client, type ClientConnection, type ClientOptions } from './client.js';
import { ConversationStore } from './conversation/index.js';

/** How {@link connectClient} reconnects after the connection drops. */
export interface ReconnectOptions {
  /** Connection attempts per outage before giving up. Default 8. */
  attempts?: number;
  /** Wait before the second attempt (the first is made at once), doubled after each. Default 100 ms. */
  initialDelayMs?: number;
  /** The longest wait between two attempts. Default 5 000 ms. */
  maxDelayMs?: number;
  /** The connection dropped: `cause` says why; reconnecting starts right after. */
  onDisconnected?(event: DisconnectedEvent): void;
  /** A new connection is initialized and every session it could resume is resumed with replay. */
  onReconnected?(event: ReconnectedEvent): void;
}

/** What {@link ReconnectOptions.onDisconnected} is told. */
export interface DisconnectedEvent {
  /** Why the connection closed (its `cause` is the transport's error, e.g. an `HttpStatusError`). */
  readonly cause: RpcError;
  /** The sessions that will be resumed. */
  readonly sessions: readonly SessionId[];
}

/** What {@link ReconnectOptions.onReconnected} is told. */
export interface ReconnectedEvent {
  /** The client over the new connection (also {@link ReconnectingClient.client} from now on). */
  readonly client: Client;
  /** Why the previous connection closed. */
  readonly cause: RpcError;
  /** How many attempts it took (1: the first one). */
  readonly attempts: number;
  /** The sessions resumed, each with replay from the start. */
  readonly resumed: readonly SessionId[];
  /** Sessions the agent refused to resume (deleted meanwhile, say), with its error. */
  readonly lost: readonly { readonly sessionId: SessionId; readonly error: unknown }[];
}

/**
 * Reconnecting gave up: a permanent refusal (HTTP 401, 403, 404 or 410, an `initialize` the agent
 * refused) or every attempt failed. `status` is the HTTP status of the last refusal, if any.
 */
export class ReconnectFailedError extends Error {
  constructor(
    /** Attempts made in this outage. */
    readonly attempts: number,
    /** The HTTP status of the last failure, when the server answered one. */
    readonly status: number | undefined,
    /** Whether it stopped on a refusal that retrying cannot change. */
    readonly permanent: boolean,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `ACP: reconnecting failed after ${attempts} attempt${attempts === 1 ? '' : 's'}` +
        `${status === undefined ? '' : ` (HTTP ${status}${permanent ? ', permanent' : ''})`}: ${reason}`,
      { cause },
    );
    this.name = 'ReconnectFailedError';
  }
}

/** Options of {@link connectClient}: the {@link Client}'s, plus how to reconnect. */
export interface ReconnectingClientOptions extends ClientOptions {
  /** Reconnection settings and events. */
  reconnect?: ReconnectOptions;
  /** Options of each connection (limits, validator). */
  connection?: ConnectionOptions;
}

/** HTTP statuses that no retry changes: credentials or origin refused, the endpoint is not there. */
const PERMANENT_STATUSES = new Set([401, 403, 404, 410]);

/** What a session needs to be resumed: the parameters it was created or last resumed with. */
interface SessionSetup {
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: McpServer[];
}

type Message = { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

/** The HTTP status carried by an error or one of its causes (`HttpStatusError`, `WebSocketHandshakeError`). */
function statusOf(error: unknown): number | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    const status =
      (current as { status?: unknown }).status ?? (current as { data?: { status?: unknown } }).data?.status;
    if (typeof status === 'number') return status;
    current = current.cause;
  }
  return undefined;
}

const isClosedError = (error: unknown): boolean =>
  error instanceof RpcError && error.code === ErrorCodes.ConnectionClosed;

/** Watches one connection's traffic for the sessions (and the login) a reconnect must restore. */
function observe(
  connection: ClientConnection,
  sessions: Map<SessionId, SessionSetup>,
  login: { methodId?: string },
): void {
  const pending = new Map<string, Message>();
  connection.onMessage((direction, value) => {
    const message = value as Message;
    if (message === null || typeof message !== 'object' || message.id === undefined) return;
    const key = JSON.stringify(message.id);
    if (direction === 'out') {
      if (typeof message.method === 'string') pending.set(key, message);
      return;
    }
    if (message.method !== undefined) return;
    const request = pending.get(key);
    pending.delete(key);
    if (request === undefined || message.error !== undefined) return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const result = (message.result ?? {}) as Record<string, unknown>;
    switch (request.method) {
      case 'session/new':
        if (typeof result.sessionId === 'string') sessions.set(result.sessionId, setupOf(params));
        break;
      case 'session/resume':
        if (typeof params.sessionId === 'string') sessions.set(params.sessionId, setupOf(params));
        break;
      case 'session/close':
      case 'session/delete':
        if (typeof params.sessionId === 'string') sessions.delete(params.sessionId);
        break;
      case 'auth/login':
        if (typeof params.methodId === 'string') login.methodId = params.methodId;
        break;
      case 'auth/logout':
        delete login.methodId;
        break;
    }
  });
}

function setupOf(params: Record<string, unknown>): SessionSetup {
  return {
    cwd: params.cwd as string,
    ...(Array.isArray(params.additionalDirectories)
      ? { additionalDirectories: params.additionalDirectories as string[] }
      : {}),
    ...(Array.isArray(params.mcpServers) ? { mcpServers: params.mcpServers as McpServer[] } : {}),
  };
}

/**
 * A {@link Client} that survives its connection: when the connection drops (an SSE stream fails, the
 * replica behind a load balancer dies, the socket closes), it opens a new one with `connect`,
 * initializes it (and logs in again with the method used before), and resumes every session the
 * client had with `session/resume` and replay from the start, into the same
 * {@link ConversationStore}. The store folds the replay by message ID, so nothing is duplicated.
 *
 * What the drop interrupted is reported as for any lost connection: requests without an answer
 * reject with -32099, a prompt whose receipt never came is "outcome unknown", `turnEnd` promises
 * reject and the sessions are `disconnected` until resumed. Get the current client from
 * {@link ReconnectingClient.client} (or {@link ReconnectingClient.ready}) for each call.
 */
export class ReconnectingClient {
  /** The conversation(s), kept across connections. */
  readonly store: ConversationStore;
  /** Settles when the client stops for good: resolves after {@link close}, rejects with a {@link ReconnectFailedError}. */
  readonly closed: Promise<void>;

  readonly #connect: () => Promise<Transport>;
  readonly #options: ReconnectingClientOptions;
  readonly #sessions = new Map<SessionId, SessionSetup>();
  readonly #login: { methodId?: string } = {};
  #client: Client | undefined;
  #initialized: InitializeResponse | undefined;
  #ready: Promise<Client>;
  #settle!: { resolve: () => void; reject: (error: Error) => void };
  #stopped = false;
  #wake: (() => void) | undefined;

  /** @internal Use {@link connectClient}. */
  constructor(connect: () => Promise<Transport>, options: ReconnectingClientOptions) {
    this.#connect = connect;
    this.#options = options;
    this.store = options.store ?? new ConversationStore({ unstable: options.unstable ?? false });
    this.closed = new Promise<void>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    this.closed.catch(() => undefined);
    this.#ready = Promise.resolve(undefined as never);
  }

  /** @internal Opens the first connection and initializes it (no retry: the caller sees the refusal). */
  static async open(
    connect: () => Promise<Transport>,
    options: ReconnectingClientOptions,
  ): Promise<ReconnectingClient> {
    const self = new ReconnectingClient(connect, options);
    const client = await self.#open();
    self.#ready = Promise.resolve(client);
    self.#watch(client);
    return self;
  }

  /** The client over the current connection (a closed one while reconnecting: its calls reject -32099). */
  get client(): Client {
    return this.#client!;
  }

  /** The agent's answer to the latest `initialize`. */
  get initialized(): InitializeResponse {
    return this.#initialized!;
  }

  /** The sessions a reconnect resumes. */
  get sessions(): readonly SessionId[] {
    return [...this.#sessions.keys()];
  }

  /**
   * Resolves with the client once connected (at once, unless reconnecting); rejects with the
   * {@link ReconnectFailedError} if reconnecting failed, or -32099 if {@link close} ended it first.
   */
  ready(): Promise<Client> {
    return this.#ready;
  }

  /** Closes the connection and stops reconnecting. */
  close(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#wake?.();
    this.#client?.close();
    this.#settle.resolve();
  }

  async #open(): Promise<Client> {
    const transport = await this.#connect();
    const connection = new Connection(transport, this.#options.connection) as unknown as ClientConnection;
    observe(connection, this.#sessions, this.#login);
    const client = new Client(connection, { ...this.#options, store: this.store });
    this.#client = client;
    try {
      this.#initialized = await client.initialize();
      if (this.#login.methodId !== undefined) await client.login(this.#login.methodId);
    } catch (error) {
      client.close();
      throw error;
    }
    return client;
  }

  #watch(client: Client): void {
    client.connection.onClose((cause) => {
      if (this.#stopped || client !== this.#client) return;
      let resolveReady!: (client: Client) => void;
      let rejectReady!: (error: Error) => void;
      this.#ready = new Promise<Client>((resolve, reject) => {
        resolveReady = resolve;
        rejectReady = reject;
      });
      this.#ready.catch(() => undefined);
      void this.#reconnect(cause).then(
        (next) => {
          if (next) resolveReady(next);
          else rejectReady(new RpcError(ErrorCodes.ConnectionClosed, 'the reconnecting client was closed'));
        },
        (error: Error) => {
          this.#stopped = true;
          rejectReady(error);
          this.#settle.reject(error);
        },
      );
    });
  }

  /** Reconnects after `cause`; resolves with the new client, or undefined when closed meanwhile. */
  async #reconnect(cause: RpcError): Promise<Client | undefined> {
    const settings = this.#options.reconnect ?? {};
    const attempts = Math.max(1, settings.attempts ?? 8);
    const initialDelay = settings.initialDelayMs ?? 100;
    const maxDelay = settings.maxDelayMs ?? 5000;
    settings.onDisconnected?.({ cause, sessions: this.sessions });
    let last: unknown = cause;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await this.#sleep(Math.min(maxDelay, initialDelay * 2 ** (attempt - 2)));
      if (this.#stopped) return undefined;
      let client: Client | undefined;
      try {
        client = await this.#open();
        const resumed: SessionId[] = [];
        const lost: { sessionId: SessionId; error: unknown }[] = [];
        for (const [sessionId, setup] of [...this.#sessions]) {
          try {
            await client.resume(sessionId, { ...setup, replay: true });
            resumed.push(sessionId);
          } catch (error) {
            if (isClosedError(error)) throw error;
            this.#sessions.delete(sessionId);
            lost.push({ sessionId, error });
          }
        }
        if (this.#stopped) {
          client.close();
          return undefined;
        }
        this.#watch(client);
        settings.onReconnected?.({ client, cause, attempts: attempt, resumed, lost });
        return client;
      } catch (error) {
        client?.close();
        last = error;
        const status = statusOf(error);
        // An HTTP refusal is permanent by its status; an agent's JSON-RPC refusal (of initialize,
        // of the login) always is; a dropped connection or an unreachable server is retried.
        const permanent =
          status !== undefined
            ? PERMANENT_STATUSES.has(status)
            : error instanceof RpcError && !isClosedError(error);
        if (permanent) {
          throw new ReconnectFailedError(attempt, status, true, error);
        }
      }
    }
    throw new ReconnectFailedError(attempts, statusOf(last), false, last);
  }

  /** Waits `ms`, or less when {@link close} is called meanwhile (or was already). */
  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}

/**
 * Connects a {@link Client} through `connect` (e.g. `() => connectHttp(url, { token, cookies })`),
 * initializes it, and keeps it connected: see {@link ReconnectingClient}. A refusal of the first
 * connection rejects at once (nothing is retried before a first success).
 */
export function connectClient(
  connect: () => Promise<Transport>,
  options: ReconnectingClientOptions,
): Promise<ReconnectingClient> {
  return ReconnectingClient.open(connect, options);
}
