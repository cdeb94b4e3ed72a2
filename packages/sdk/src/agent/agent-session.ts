import type {
  ContentBlock,
  JsonRpcError,
  MessageId,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionId,
  SessionNotification,
  SessionUpdate,
  StopReason,
  Usage,
} from '@acp-kit/schema';
import type { HistoryStore, ReplayVia, RetainedMessageKind } from '../history/history-store.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import type { ClientPeer } from './client-peer.js';
import type { InsertOptions, Inserter } from './pending-prompt.js';

/** The session's foreground activity, as last reported in a `state_update`. */
export type SessionActivity = 'idle' | 'running' | 'requires_action';

/** Options for a message the agent writes (an agent message or thought). */
export interface OutgoingMessageOptions {
  /** Keep it for replay (default `true`). */
  retain?: boolean;
  /** Use this ID instead of a fresh one (an adapter reusing the underlying agent's IDs); must be unused. */
  messageId?: MessageId;
}

/**
 * An agent message or thought being written. Chunks append; `replace` upserts the whole content.
 * Every call reports the change to attached clients and, when retained, records it for replay.
 */
export interface OutgoingMessage {
  /** The agent-assigned ID the message is reported under. */
  readonly messageId: MessageId;
  /** Appends one block (`agent_message_chunk` / `agent_thought_chunk`). */
  chunk(block: ContentBlock): Promise<void>;
  /** Replaces the whole content (`agent_message` / `agent_thought` with `content`). */
  replace(content: readonly ContentBlock[]): Promise<void>;
}

const chunkKind = {
  user_message: 'user_message_chunk',
  agent_message: 'agent_message_chunk',
  agent_thought: 'agent_thought_chunk',
} as const;

interface Attachment {
  /** Updates held back while this client receives a replay, so live updates follow it in order. */
  held: SessionNotification[] | undefined;
}

/**
 * One session inside an agent: its attached clients, its activity state and its retained
 * history. Everything a prompt handler reports goes through here, so every attached client sees
 * the same updates in the same order.
 */
export class AgentSession implements Inserter {
  /** The session's ID. */
  readonly id: SessionId;
  /** The working directory it was created or last resumed with. */
  cwd: string;
  readonly #history: HistoryStore;
  readonly #peers = new Map<ClientPeer, Attachment>();
  #activity: SessionActivity = 'idle';
  #turn = new AbortController();
  #permissionsPending = 0;
  #section: Promise<void> = Promise.resolve();
  /** IDs supplied by the caller (for example an adapter reusing the underlying agent's IDs). */
  readonly #usedIds: Record<RetainedMessageKind, Set<MessageId>> = {
    user_message: new Set(),
    agent_message: new Set(),
    agent_thought: new Set(),
  };

  /** @internal Sessions are created by the agent. */
  constructor(id: SessionId, cwd: string, history: HistoryStore) {
    this.id = id;
    this.cwd = cwd;
    this.#history = history;
  }

  /** The activity last reported. */
  get activity(): SessionActivity {
    return this.#activity;
  }

  /** Aborted by `session/cancel`; replaced by a fresh signal when the next work starts running. */
  get signal(): AbortSignal {
    return this.#turn.signal;
  }

  /** How many clients are attached. */
  get attachedCount(): number {
    return this.#peers.size;
  }

  /** @internal Attaches a client; with `hold`, its live updates wait until {@link release}. */
  attach(peer: ClientPeer, hold = false): void {
    const existing = this.#peers.get(peer);
    if (existing) {
      if (hold && !existing.held) existing.held = [];
      return;
    }
    this.#peers.set(peer, { held: hold ? [] : undefined });
  }

  /** @internal Delivers held live updates to a client after its replay, then lets updates flow. */
  async release(peer: ClientPeer): Promise<void> {
    const attachment = this.#peers.get(peer);
    if (!attachment?.held) return;
    while (attachment.held.length > 0) {
      const batch = attachment.held.splice(0);
      for (const params of batch) await this.#deliver(peer, params);
    }
    attachment.held = undefined;
  }

  /**
   * @internal Runs `task` while no history write can be paired with its report. Every change to
   * retained history happens together with the broadcast of its update inside this section, so
   * a replay that runs inside it sees each retained change either in history (and the client was
   * not yet attached for its live update) or live (after the replay) — never both, never neither.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#section.then(task);
    this.#section = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Retains a change (if `retain` is given) and starts reporting its updates, as one step. */
  async #retainAndReport(
    retain: (() => Promise<unknown>) | undefined,
    updates: SessionUpdate[],
  ): Promise<void> {
    const delivery = await this.exclusive(async () => {
      await retain?.();
      // Start every send inside the section (writes keep call order); wait for them outside it,
      // so a slow client never holds up the section.
      return { done: Promise.all(updates.map((update) => this.#broadcast(update))) };
    });
    await delivery.done;
  }

  /** @internal Detaches a client (its connection closed). Work in the session goes on. */
  detach(peer: ClientPeer): void {
    this.#peers.delete(peer);
  }

  /** @internal Sends one update to one client only (replay goes to the resuming client). */
  async sendTo(peer: ClientPeer, update: SessionUpdate): Promise<void> {
    await this.#deliver(peer, { sessionId: this.id, update });
  }

  /**
   * Reports an update to every attached client. A client whose connection fails is detached;
   * the others still get the update.
   */
  async update(update: SessionUpdate): Promise<void> {
    await this.#broadcast(update);
  }

  async #broadcast(update: SessionUpdate): Promise<void> {
    const params: SessionNotification = { sessionId: this.id, update };
    const sends: Promise<void>[] = [];
    for (const [peer, attachment] of this.#peers) {
      if (attachment.held) attachment.held.push(params);
      else sends.push(this.#deliver(peer, params));
    }
    if (sends.length === 1) await sends[0];
    else if (sends.length > 1) await Promise.all(sends);
  }

  async #deliver(peer: ClientPeer, params: SessionNotification): Promise<void> {
    if (!peer.open) {
      this.#peers.delete(peer);
      return;
    }
    try {
      await peer.notify(params);
    } catch (error) {
      // A client that went away must not stop the work other clients are watching…
      if (!peer.open) {
        this.#peers.delete(peer);
        return;
      }
      // …but an update that cannot be sent (unserializable, over the size limit) is the update's
      // fault, not the client's: the caller hears about it and the client stays attached.
      throw error;
    }
  }

  /**
   * Throws an invalid-params error unless every update can be sent to every attached client, so
   * that a message is either retained, reported and acknowledged, or none of these.
   */
  #assertReportable(updates: readonly SessionUpdate[]): void {
    let limit = Number.POSITIVE_INFINITY;
    for (const peer of this.#peers.keys()) limit = Math.min(limit, peer.maxMessageBytes ?? limit);
    for (const update of updates) {
      let json: string;
      try {
        json = JSON.stringify({
          jsonrpc: '2.0',
          method: 'session/update',
          params: { sessionId: this.id, update },
        });
      } catch {
        throw new RpcError(
          ErrorCodes.InvalidParams,
          'The message cannot be reported: its content cannot be serialized',
          {
            pointer: '/params/prompt',
            expected: 'content that can be serialized to JSON',
          },
        );
      }
      const bytes = Buffer.byteLength(json, 'utf8');
      if (bytes > limit) {
        throw new RpcError(
          ErrorCodes.InvalidParams,
          `The message cannot be reported: its update would be ${bytes} bytes, over the ${limit}-byte message limit`,
          { pointer: '/params/prompt', expected: `content whose report fits in ${limit} bytes` },
        );
      }
    }
  }

  /** @internal Implements {@link PendingPrompt.insert}. */
  async insertUserMessage(
    content: readonly ContentBlock[],
    options: Required<Omit<InsertOptions, 'messageId'>> & { messageId: MessageId | undefined },
  ): Promise<MessageId> {
    const updates = reportUpdates('user_message', 'pending', content, options.via);
    this.#assertReportable(updates);
    const messageId = await this.#claimId('user_message', options.messageId);
    const retain = options.retain
      ? () =>
          this.#history.appendMessage(this.id, { messageId, kind: 'user_message', content, via: options.via })
      : undefined;
    await this.#retainAndReport(retain, reportUpdates('user_message', messageId, content, options.via));
    return messageId;
  }

  /**
   * Reserves a fresh message ID without inserting anything. Holding an ID is not insertion: a
   * prompt is acknowledged only by `insert({ messageId })`, which may use the reserved ID later.
   */
  reserveMessageId(): Promise<MessageId> {
    return this.#history.nextMessageId(this.id);
  }

  async #claimId(kind: RetainedMessageKind, wanted: MessageId | undefined): Promise<MessageId> {
    if (wanted === undefined) return this.#history.nextMessageId(this.id);
    const used = this.#usedIds[kind];
    if (used.has(wanted) || (await this.#history.isRetained(this.id, { kind, messageId: wanted }))) {
      throw new RpcError(
        ErrorCodes.InternalError,
        `messageId ${JSON.stringify(wanted)} is already used in this session`,
      );
    }
    used.add(wanted);
    return wanted;
  }

  /**
   * Inserts a message that did not come from a prompt (imported history, a message the agent
   * writes on the user's behalf). It gets an agent-generated ID, is retained unless told otherwise,
   * and is reported like any other message.
   */
  async importMessage(
    kind: RetainedMessageKind,
    content: readonly ContentBlock[],
    options: { retain?: boolean; via?: ReplayVia; messageId?: MessageId } = {},
  ): Promise<MessageId> {
    const via = options.via ?? 'full';
    this.#assertReportable(reportUpdates(kind, 'pending', content, via));
    const messageId = await this.#claimId(kind, options.messageId);
    const retain =
      (options.retain ?? true)
        ? () => this.#history.appendMessage(this.id, { messageId, kind, content, via })
        : undefined;
    await this.#retainAndReport(retain, reportUpdates(kind, messageId, content, via));
    return messageId;
  }

  /** Starts an agent message, streamed with chunks or replaced whole. */
  agentMessage(options: OutgoingMessageOptions = {}): Promise<OutgoingMessage> {
    return this.#outgoing('agent_message', options);
  }

  /** Starts an agent thought (visible reasoning), streamed with chunks or replaced whole. */
  thought(options: OutgoingMessageOptions = {}): Promise<OutgoingMessage> {
    return this.#outgoing('agent_thought', options);
  }

  async #outgoing(
    kind: 'agent_message' | 'agent_thought',
    options: OutgoingMessageOptions,
  ): Promise<OutgoingMessage> {
    const retain = options.retain ?? true;
    const messageId = await this.#claimId(kind, options.messageId);
    const ref = { kind, messageId };
    if (retain)
      await this.exclusive(() =>
        this.#history.appendMessage(this.id, { ...ref, content: [], via: 'chunks' }),
      );
    const history = this.#history;
    const sessionId = this.id;
    return {
      messageId,
      chunk: (block) =>
        this.#retainAndReport(retain ? () => history.appendChunk(sessionId, ref, block) : undefined, [
          { sessionUpdate: chunkKind[kind], messageId, content: block },
        ]),
      replace: (content) =>
        this.#retainAndReport(retain ? () => history.replaceContent(sessionId, ref, content) : undefined, [
          { sessionUpdate: kind, messageId, content: [...content] },
        ]),
    };
  }

  /** Reports that foreground work started (or resumed); gives the work a fresh cancel signal. */
  async running(): Promise<void> {
    if (this.#activity === 'idle' || this.#turn.signal.aborted) this.#turn = new AbortController();
    this.#activity = 'running';
    await this.update({ sessionUpdate: 'state_update', state: 'running' });
  }

  /**
   * Reports that foreground work ended, with why and, when known, its token usage. With stop
   * reason `error`, `error` says what failed (the prompt's response was already sent, so a failure
   * after insertion is reported here).
   */
  async idle(stopReason?: StopReason, usage?: Usage, error?: JsonRpcError): Promise<void> {
    this.#activity = 'idle';
    await this.update({
      sessionUpdate: 'state_update',
      state: 'idle',
      ...(stopReason === undefined ? {} : { stopReason }),
      ...(usage === undefined ? {} : { usage }),
      ...(error === undefined ? {} : { error }),
    });
  }

  /**
   * @internal Sends one client the session's current state (after a resume, so the client does not
   * take the resume response for `idle`).
   */
  async sendStateTo(peer: ClientPeer): Promise<void> {
    await this.sendTo(peer, { sessionUpdate: 'state_update', state: this.#activity });
  }

  /** Reports that the work is blocked on the user. */
  async requiresAction(): Promise<void> {
    this.#activity = 'requires_action';
    await this.update({ sessionUpdate: 'state_update', state: 'requires_action' });
  }

  /** @internal `session/cancel`: aborts the current work's signal. */
  cancel(): void {
    this.#turn.abort(new RpcError(ErrorCodes.RequestCancelled, 'The session was cancelled.'));
  }

  /**
   * Asks a client for permission. While the request is pending the session reports
   * `requires_action`; once answered it reports `running` again. `preferred` is the client to
   * ask (normally the one whose prompt started the work); when it has gone, another attached
   * client is asked. With no client attached the outcome is `cancelled`.
   */
  async requestPermission(
    params: Omit<RequestPermissionRequest, 'sessionId'>,
    preferred?: ClientPeer,
  ): Promise<RequestPermissionResponse> {
    const peer =
      preferred?.open && this.#peers.has(preferred)
        ? preferred
        : [...this.#peers.keys()].find((candidate) => candidate.open);
    if (!peer) return { outcome: { outcome: 'cancelled' } };
    this.#permissionsPending += 1;
    if (this.#permissionsPending === 1) await this.requiresAction();
    const signal = this.signal;
    try {
      const answer = peer.request('session/request_permission', { ...params, sessionId: this.id }, signal);
      // On cancel the request is withdrawn ($/cancel_request); the work does not wait for the
      // client to acknowledge that.
      return await Promise.race([answer, aborted(signal)]);
    } catch (error) {
      if (signal.aborted) return { outcome: { outcome: 'cancelled' } };
      throw error;
    } finally {
      this.#permissionsPending -= 1;
      if (this.#permissionsPending === 0 && this.#activity === 'requires_action') await this.running();
    }
  }
}

/** The updates that report a message: one whole update, or a reset followed by one chunk per block. */
function reportUpdates(
  kind: RetainedMessageKind,
  messageId: MessageId,
  content: readonly ContentBlock[],
  via: ReplayVia,
): SessionUpdate[] {
  if (via === 'full') return [{ sessionUpdate: kind, messageId, content: [...content] }];
  return [
    { sessionUpdate: kind, messageId, content: [] },
    ...content.map((block): SessionUpdate => ({ sessionUpdate: chunkKind[kind], messageId, content: block })),
  ];
}

/** Resolves with a `cancelled` outcome once `signal` aborts (never, if it never does). */
function aborted(signal: AbortSignal): Promise<RequestPermissionResponse> {
  const cancelled: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };
  if (signal.aborted) return Promise.resolve(cancelled);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(cancelled), { once: true }));
}
