import type { ContentBlock, PromptResponse, SessionId, SessionUpdate } from '@acp-kit/schema';
import { HistoryStoreError } from '../history/errors.js';
import type { SessionLog } from '../history/session-log.js';
import { ErrorCodes, RpcError } from '../rpc/errors.js';
import { AgentSession } from './agent-session.js';
import type { ClientPeer } from './connection/client-peer.js';
import { PendingPrompt } from './turns/pending-prompt.js';

/** Options of an {@link AdapterSession}. */
export interface AdapterSessionOptions {
  /** The session's ID: usually the adapted agent's own, so both sides name the session alike. */
  readonly sessionId: SessionId;
  /** The session's working directory. */
  readonly cwd: string;
  /**
   * The log the session lives in. Its directory gets a record for the session if it has none
   * (see {@link AdapterSession.ready}).
   */
  readonly history: SessionLog;
  /**
   * Live updates a client may have waiting while it receives a replay before it is disconnected
   * as too slow (default 65 536), like an `Agent`'s `maxHeldUpdates`.
   */
  readonly maxHeldUpdates?: number;
  /**
   * Whether the session may report the update kinds of upstream's unstable surface (subagents,
   * session messages, plan removals, file and Markdown plans), as an `Agent` created with
   * `unstable: true` may: an adapter whose adapted agent sends them sets it. A client that did not
   * opt in keeps them as unknown kinds. Default `false` (they throw a `TypeError`).
   */
  readonly unstable?: boolean;
}

/** A `session/prompt` an adapter took: the prompt to settle, and the answer the client gets. */
export interface ReceivedPrompt {
  /**
   * The prompt, settled by the adapter with `insert()` once the adapted agent has taken it, or
   * `reject()` when it refused it. Already rejected with -32800 if the session is closed first.
   */
  readonly prompt: PendingPrompt;
  /**
   * The `session/prompt` result to answer the client with: resolves with `{ messageId }` only after
   * the insertion was appended to the log and handed to the submitting client; rejects with the
   * JSON-RPC error the prompt was rejected with.
   */
  readonly response: Promise<PromptResponse>;
}

/**
 * The supported seam for adapters and bridges that serve v2 clients on behalf of an agent you do not
 * own (a v1 agent behind a process bridge, an agent with its own SDK): one session whose
 * connections, ID choice and prompt routing the adapter runs itself, instead of an `Agent`.
 *
 * What stays the SDK's, with the guarantees it gives an `Agent`'s sessions:
 * - everything reported goes through the session log — {@link AdapterSession.session} is the same
 *   `AgentSession` agent authors write to (`update`, `agentMessage`, `running`, `idle`,
 *   `requestPermission`, …) — and each attached client follows the log with its own bounded queue;
 * - a prompt is answered successfully only by its insertion ({@link AdapterSession.receivePrompt});
 * - a client receiving a replay gets the live updates appended meanwhile after it, in order
 *   ({@link AdapterSession.attach} with `replay`, then {@link AdapterSession.endReplay}).
 *
 * What is the adapter's: the client connections and the {@link ClientPeer} standing for each, which
 * clients are attached, when the adapted agent has taken a prompt, and what a replay contains (for
 * example a v1 `session/load` translated update by update).
 */
export class AdapterSession {
  /**
   * The session as agent authors see it: report updates, messages, activity and permission requests
   * here, and they reach every attached client through the log.
   */
  readonly session: AgentSession;
  /**
   * Settles once the log's directory holds the session (created now if it had no record) and the
   * session follows the log; rejects with the store's error. The session's own methods wait for
   * it too, so awaiting it is needed only to learn of a failure early.
   */
  readonly ready: Promise<void>;

  /**
   * Opens the session synchronously — so an adapter can register it before anything about it
   * can arrive from the adapted agent — and starts {@link AdapterSession.ready}.
   */
  constructor(options: AdapterSessionOptions) {
    const { sessionId, cwd, history } = options;
    this.session = new AgentSession(sessionId, cwd, history, {
      ...(options.maxHeldUpdates === undefined ? {} : { maxHeldUpdates: options.maxHeldUpdates }),
      ...(options.unstable === undefined ? {} : { unstable: options.unstable }),
    });
    this.ready = ensureRecord(history, sessionId, cwd).then(() => this.session.following());
    // Awaited by whoever cares; an adapter that never does must not see it as unhandled.
    this.ready.catch(() => undefined);
  }

  /** The session's ID. */
  get id(): SessionId {
    return this.session.id;
  }

  /**
   * Attaches a client: from now on it receives every update appended to the session's log. With
   * `replay: true` those updates wait, in order, while the adapter sends the client a replay with
   * {@link AdapterSession.replayTo}, until {@link AdapterSession.endReplay}. Attaching an attached
   * client again changes nothing (except that `replay: true` starts holding its updates).
   */
  attach(client: ClientPeer, options: { replay?: boolean } = {}): void {
    this.session.clients.attach(client, options.replay ?? false);
  }

  /**
   * Sends one update to one client only, outside the log: a replayed update (of history the adapted
   * agent keeps). Nothing is retained, no other client sees it.
   */
  replayTo(client: ClientPeer, update: SessionUpdate): Promise<void> {
    return this.session.clients.sendTo(client, update);
  }

  /** Ends a client's replay: the updates held meanwhile are sent, then updates flow to it live. */
  endReplay(client: ClientPeer): Promise<void> {
    return this.session.clients.release(client);
  }

  /**
   * Sends one client a `state_update` with the session's current activity (after a resume, so the
   * client does not take the resume response for `idle`). Outside the log.
   */
  sendStateTo(client: ClientPeer): Promise<void> {
    return this.session.sendStateTo(client);
  }

  /** Detaches a client (its connection closed, or it closed the session). Work in the session goes on. */
  detach(client: ClientPeer): void {
    this.session.clients.detach(client);
  }

  /**
   * Takes a `session/prompt` from `client`: the prompt counts as the session's pending work (a
   * {@link AdapterSession.cancel} before it is settled applies to its turn), and its insertion is
   * acknowledged only after the report was handed to `client`. Answer the client's request with
   * `response`. `signal` is the request's: the adapter decides what a cancelled request means for a
   * prompt the adapted agent may already have taken.
   */
  receivePrompt(
    content: readonly ContentBlock[],
    context: { client: ClientPeer; signal: AbortSignal },
  ): ReceivedPrompt {
    const session = this.session;
    const arrived = session.promptArrived();
    const prompt = new PendingPrompt(session.id, content, context.signal, {
      insertUserMessage: (inserted, options) =>
        session.insertUserMessage(inserted, options, { peer: context.client, arrival: arrived.arrival }),
    });
    const response = prompt.response;
    response.then(arrived.settled, arrived.settled);
    if (session.closed.aborted) rejectClosed(prompt);
    else {
      const onClosed = (): void => rejectClosed(prompt);
      session.closed.addEventListener('abort', onClosed, { once: true });
      const forget = (): void => session.closed.removeEventListener('abort', onClosed);
      response.then(forget, forget);
    }
    return { prompt, response };
  }

  /**
   * `session/cancel`: the running turn's signal aborts (a permission request it has open is
   * withdrawn and answers `cancelled`), and a prompt received but whose turn has not started yet
   * starts it already cancelled. Tell the adapted agent yourself.
   */
  cancel(): void {
    this.session.cancel();
  }

  /**
   * Closes the live session (the adapted agent closed or deleted it): its work is aborted, prompts
   * not inserted yet are answered -32800, every client is detached. The log is untouched.
   */
  close(): void {
    this.session.close();
  }
}

/** Rejects a prompt still pending because its session was closed. */
function rejectClosed(prompt: PendingPrompt): void {
  if (prompt.state !== 'pending') return;
  prompt.reject(
    new RpcError(ErrorCodes.RequestCancelled, 'The session was closed before the prompt was inserted.'),
  );
}

/** Creates the session's directory record unless it exists (also when another writer just made it). */
async function ensureRecord(log: SessionLog, sessionId: SessionId, cwd: string): Promise<void> {
  if (await log.getSession(sessionId)) return;
  try {
    await log.createSession({ sessionId, cwd });
  } catch (error) {
    if (error instanceof HistoryStoreError && (await log.getSession(sessionId))) return;
    throw error;
  }
}
