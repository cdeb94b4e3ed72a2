import type { SessionId, SessionNotification, SessionUpdate } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../rpc/ndjson.js';
import type { ClientPeer } from '../connection/client-peer.js';
import { checkedUpdateJson } from './reportable.js';

/** One attached client: entries held while it receives a replay, and its backlog for pacing. */
interface Cursor {
  held: HeldEntry[] | undefined;
  released: (() => void)[];
  /** The last send handed to the connection (resolves when its transport accepted it). */
  last: Promise<unknown> | undefined;
  /** When its backlog last went over {@link PACING_BYTES} (undefined while under). */
  behindSince: number | undefined;
  /** What a failed send to the client runs (made once per client, not once per update). */
  readonly failed: () => void;
}

/** A log entry waiting for a client that receives a replay: the update and its seq. */
interface HeldEntry {
  readonly params: SessionNotification;
  readonly seq: number;
}

/** A client behind for longer than this is not waited for: it is not reading. */
const STALLED_MS = 100;

/** Backlog past which a client counts as behind (see {@link AgentSession} pacing). */
const PACING_BYTES = 64 * 1024;

const noop = (): void => undefined;

/**
 * The delivery side of one session: the attached clients, each a cursor into the session's log
 * stream (live, or holding entries while it receives a replay), the sends to their connections,
 * and the pacing of producers by the fastest live client. A client that cannot take what is sent
 * is detached; one that lets more than `maxHeld` live entries pile up during a replay is closed
 * with -32098. Owned by an `AgentSession`; not exported from the package.
 */
export class SessionDelivery {
  readonly #sessionId: SessionId;
  readonly #maxHeld: number;
  readonly #cursors = new Map<ClientPeer, Cursor>();

  /** `{"sessionId":…,"update":` of this session: what every update's params start with. */
  readonly #ownHead: string;

  constructor(sessionId: SessionId, maxHeld: number) {
    this.#sessionId = sessionId;
    this.#ownHead = `{"sessionId":${JSON.stringify(sessionId)},"update":`;
    this.#maxHeld = maxHeld;
  }

  /** The attached clients, in attach order. */
  peers(): IterableIterator<ClientPeer> {
    return this.#cursors.keys();
  }

  /** How many clients are attached. */
  get size(): number {
    return this.#cursors.size;
  }

  /** Hands one log entry's update to every attached client (held for one receiving a replay). */
  deliver(params: SessionNotification, seq: number): void {
    // Serialized once, however many clients receive it (as it was checked to fit, when it was).
    let paramsJson: string | undefined;
    for (const [peer, cursor] of this.#cursors) {
      if (cursor.held === undefined) {
        paramsJson ??= `${this.#paramsHead(params.sessionId)}${
          checkedUpdateJson(params.update) ?? JSON.stringify(params.update)
        }}`;
        this.#send(peer, cursor, params, seq, paramsJson);
      } else if (cursor.held.length < this.#maxHeld) cursor.held.push({ params, seq });
      else this.#tooSlow(peer);
    }
  }

  /** Resolves once `peer` is not holding entries for a replay (at once when it is not). */
  async released(peer: ClientPeer): Promise<void> {
    const cursor = this.#cursors.get(peer);
    if (cursor?.held !== undefined) await new Promise<void>((resolve) => cursor.released.push(resolve));
  }

  /** Detaches every client (the session closed). */
  detachAll(): void {
    for (const peer of [...this.#cursors.keys()]) this.detach(peer);
  }

  /** Hands one log entry's update to a client's connection; never waits for it to be written. */
  #send(
    peer: ClientPeer,
    cursor: Cursor,
    params: SessionNotification,
    seq: number,
    paramsJson?: string,
  ): void {
    if (!peer.open) {
      this.detach(peer);
      return;
    }
    const sent = peer.notify(params, paramsJson, seq);
    cursor.last = sent;
    sent.catch(cursor.failed);
  }

  /**
   * A write to `peer` failed: a client whose connection failed (closed, or its queue full) is
   * detached; the update itself fitted every attached client's limit when it was appended.
   */
  #failed(peer: ClientPeer): void {
    if (!peer.open) this.detach(peer);
  }

  /** `{"sessionId":…,"update":` for params of `sessionId`: made once for this session's own. */
  #paramsHead(sessionId: SessionId): string {
    return sessionId === this.#sessionId
      ? this.#ownHead
      : `{"sessionId":${JSON.stringify(sessionId)},"update":`;
  }

  #tooSlow(peer: ClientPeer): void {
    this.detach(peer);
    peer.close?.(
      new RpcError(
        ErrorCodes.OutgoingBufferFull,
        `more than ${this.#maxHeld} live updates waited while the client received a replay: the peer is not reading, so the connection was closed`,
      ),
    );
  }

  /**
   * Attaches a client at the session's current position: it receives every entry after
   * it. With `hold`, those entries wait until {@link release} (while the client gets a replay).
   */
  attach(peer: ClientPeer, hold = false): void {
    const existing = this.#cursors.get(peer);
    if (existing) {
      if (hold && !existing.held) existing.held = [];
      return;
    }
    this.#cursors.set(peer, {
      held: hold ? [] : undefined,
      released: [],
      last: undefined,
      behindSince: undefined,
      failed: () => this.#failed(peer),
    });
  }

  /** Whether a client is attached (receives, or holds during a replay, the entries after its position). */
  isAttached(peer: ClientPeer): boolean {
    return this.#cursors.has(peer);
  }

  /** Sends a client the entries held during its replay, then lets entries flow to it. */
  async release(peer: ClientPeer): Promise<void> {
    const cursor = this.#cursors.get(peer);
    if (!cursor?.held) return;
    const held = cursor.held;
    cursor.held = undefined;
    for (const { params, seq } of held) this.#send(peer, cursor, params, seq);
    for (const resolve of cursor.released.splice(0)) resolve();
  }

  /** Detaches a client (its connection closed). Work in the session goes on. */
  detach(peer: ClientPeer): void {
    const cursor = this.#cursors.get(peer);
    this.#cursors.delete(peer);
    for (const resolve of cursor?.released.splice(0) ?? []) resolve();
  }

  /**
   * Sends one update to one client only, outside the log (replay goes to the resuming
   * client). `json`, when given, is JSON text of `update` on one line (a log entry's stored text).
   */
  async sendTo(peer: ClientPeer, update: SessionUpdate, json?: string): Promise<void> {
    if (!peer.open) {
      this.detach(peer);
      return;
    }
    try {
      const params = { sessionId: this.#sessionId, update };
      await (json === undefined
        ? peer.notify(params)
        : peer.notify(params, `{"sessionId":${JSON.stringify(this.#sessionId)},"update":${json}}`));
    } catch (error) {
      if (!peer.open) {
        this.detach(peer);
        return;
      }
      throw error;
    }
  }

  /**
   * Sends several updates to one client only, outside the log, in order, handed to its
   * connection together (see {@link ClientPeer.notifyBatch}; one by one without it). Each item's
   * `paramsJson` is the JSON text of its params on one line.
   */
  async sendBatchTo(
    peer: ClientPeer,
    items: readonly { params: SessionNotification; paramsJson: string }[],
  ): Promise<void> {
    if (!peer.open) {
      this.detach(peer);
      return;
    }
    try {
      await (peer.notifyBatch !== undefined
        ? peer.notifyBatch(items)
        : Promise.all(items.map(({ params, paramsJson }) => peer.notify(params, paramsJson))));
    } catch (error) {
      if (!peer.open) {
        this.detach(peer);
        return;
      }
      throw error;
    }
  }

  /**
   * Paces a producer by the fastest live client, never the slowest: while every live client has
   * more than {@link PACING_BYTES} waiting, wait until one of them has taken its backlog — but never
   * for a client that has been behind for more than {@link STALLED_MS}: it is not reading, so it
   * holds nobody up (its own queue fills until it is cut off with -32098), while healthy clients
   * are not flooded faster than they read.
   */
  async pace(): Promise<void> {
    if (!this.mustPace()) return;
    for (;;) {
      const now = performance.now();
      const pending: Promise<unknown>[] = [];
      for (const [peer, cursor] of this.#cursors) {
        if (cursor.held !== undefined || !peer.open) continue;
        if ((peer.pendingBytes ?? 0) <= PACING_BYTES || cursor.last === undefined) {
          cursor.behindSince = undefined;
          return;
        }
        cursor.behindSince ??= now;
        if (now - cursor.behindSince <= STALLED_MS) pending.push(cursor.last.then(noop, noop));
      }
      if (pending.length === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STALLED_MS);
      });
      await Promise.race([...pending, timeout]);
      clearTimeout(timer);
    }
  }

  /**
   * Whether {@link pace} would wait now: every live client is over {@link PACING_BYTES}. False
   * (that client's lag forgotten, and when the ones before it went behind noted, as `pace` does) as
   * soon as one is within it, so a producer
   * ahead of no one calls `pace` not at all (a streamed chunk is the hot path).
   */
  mustPace(): boolean {
    let live = false;
    for (const [peer, cursor] of this.#cursors) {
      if (cursor.held !== undefined || !peer.open) continue;
      if ((peer.pendingBytes ?? 0) <= PACING_BYTES || cursor.last === undefined) {
        cursor.behindSince = undefined;
        return false;
      }
      cursor.behindSince ??= performance.now();
      live = true;
    }
    return live;
  }

  /** The largest update any attached client's connection sends (the default limit when none is attached). */
  messageLimit(): number {
    let limit = DEFAULT_MAX_MESSAGE_BYTES;
    for (const peer of this.#cursors.keys()) limit = Math.min(limit, peer.maxMessageBytes ?? limit);
    return limit;
  }
}
