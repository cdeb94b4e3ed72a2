/** A JSON-RPC error answered by the agent. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data: unknown) {
    super(`${message} (${code})`);
    this.code = code;
    this.data = data;
  }
}

/** What the page answers to a request the agent sends (permission, elicitation, …). */
export type AgentRequestHandler = (method: string, params: unknown, id: unknown) => Promise<unknown>;

interface Waiting {
  method: string;
  /** `performance.now()` when it was sent. */
  since: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A request of this page the agent has not answered yet. */
export interface WaitingRequest {
  readonly id: number;
  readonly method: string;
  /** Milliseconds since it was sent. */
  readonly age: number;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * The page's JSON-RPC client: it writes frames through `send`, is fed every frame the agent wrote,
 * and matches responses to its requests by id. Deliberately small and version-neutral, so the page
 * can speak v1 or v2 exactly as the user chose, and every frame it sends is one the traffic shows.
 */
export class Peer {
  readonly #send: (text: string) => Promise<void>;
  readonly #onRequest: AgentRequestHandler;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 1;

  constructor(send: (text: string) => Promise<void>, onRequest: AgentRequestHandler) {
    this.#send = send;
    this.#onRequest = onRequest;
  }

  /** Sends a request and resolves with its result (rejects with an {@link RpcError}). */
  request(method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { method, since: performance.now(), resolve, reject });
      this.#send(JSON.stringify({ jsonrpc: '2.0', id, method, params })).catch((error: Error) => {
        this.#waiting.delete(id);
        reject(error);
      });
    });
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): Promise<void> {
    return this.#send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  /**
   * Notes a request id an earlier page of this inspector already used (seen in the replayed log),
   * so this page's ids never collide with requests the agent may still answer.
   */
  noteUsedId(id: unknown): void {
    if (typeof id === 'number' && id >= this.#nextId) this.#nextId = id + 1;
  }

  /** Feeds one parsed frame from the agent. */
  receive(message: unknown): void {
    const msg = record(message);
    if (msg === undefined) return;
    if (typeof msg.method === 'string' && 'id' in msg) {
      const id = msg.id;
      this.#onRequest(msg.method, msg.params, id).then(
        (result) => this.#send(JSON.stringify({ jsonrpc: '2.0', id, result })),
        (error: unknown) =>
          this.#send(
            JSON.stringify({
              jsonrpc: '2.0',
              id,
              error:
                error instanceof RpcError
                  ? { code: error.code, message: error.message }
                  : { code: -32603, message: error instanceof Error ? error.message : String(error) },
            }),
          ),
      );
      return;
    }
    if (typeof msg.id !== 'number') return;
    const waiting = this.#waiting.get(msg.id);
    if (waiting === undefined) return;
    this.#waiting.delete(msg.id);
    const error = record(msg.error);
    if (error) waiting.reject(new RpcError(Number(error.code), String(error.message), error.data));
    else waiting.resolve(msg.result);
  }

  /** The requests still waiting for the agent's answer, oldest first. */
  waiting(): WaitingRequest[] {
    const now = performance.now();
    return [...this.#waiting].map(([id, w]) => ({ id, method: w.method, age: now - w.since }));
  }

  /** Fails every request still waiting: the agent is gone. */
  abandon(reason: string): void {
    for (const waiting of this.#waiting.values()) waiting.reject(new Error(reason));
    this.#waiting.clear();
  }
}
