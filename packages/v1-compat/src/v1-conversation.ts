import type { ContentBlock, SessionNotification, SessionUpdate } from '@acp-kit/schema';
import { v1ToV2ContentBlock, v1ToV2StopReason } from './generated/compat/converters.js';
import type * as V1 from './generated/v1/types.js';
import { UPDATES_TO_V2 } from './generated/compat/update-to-v2.js';
import type { IdLedger } from './v1-agent-as-v2/id-ledger.js';
import { MessageTracker, type V1Chunk } from './v1-agent-as-v2/message-tracker.js';
import { SessionOptions, type V1SessionSettings } from './v1-agent-as-v2/session-options.js';
import { messageChunkToV2, replayedToV2 } from './v1-agent-as-v2/update-converters.js';
import { v1UpdateToV2 } from './v1-agent-as-v2/update-to-v2.js';

/** The v1 chunk kinds: the updates that continue a run of chunks rather than end it. */
const CHUNK_KINDS: ReadonlySet<string> = new Set(
  Object.entries(UPDATES_TO_V2)
    .filter(([, entry]) => entry.convert === messageChunkToV2)
    .map(([kind]) => kind),
);

/** A ledger that keeps nothing: the translator sees a session's traffic once, from its start. */
const NO_LEDGER: IdLedger = { read: async () => [], append: async () => {} };

interface Session {
  readonly tracker: MessageTracker;
  readonly options: SessionOptions;
  /** The prompt the v1 agent is answering, until its response. */
  turn: { readonly prompt: readonly V1.ContentBlock[]; inserted: boolean } | undefined;
}

interface Asked {
  readonly method: string;
  readonly sessionId: string;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * Reads the traffic between a v1 client and a v1 agent, message by message in wire order, and
 * says which v2 `session/update` notifications it amounts to — what a v2 `ConversationStore`
 * needs to show a v1 conversation (the inspector page initialized as a v1 client folds them into
 * its store). It decides as the v1 → v2 bridge does, with the same converters and message IDs:
 * chunks are grouped into messages by the bridge's {@link MessageTracker} (IDs derived by
 * `derivedMessageId`, the same the bridge issues), a prompt becomes a `user_message` at the
 * first evidence the agent took it (its `user_message_chunk` echo, any other update of the turn,
 * a permission request, or the prompt's response), a turn is `running` from then and `idle` with
 * the converted stop reason at its response, and a `session/load` replays with each message reset
 * to empty first. Runs in a browser: nothing here needs Node.
 */
export class V1ConversationTranslator {
  readonly #sessions = new Map<string, Session>();
  /** The client's requests still unanswered, by their id as JSON. */
  readonly #asked = new Map<string, Asked>();

  #session(sessionId: string): Session {
    let session = this.#sessions.get(sessionId);
    if (session === undefined) {
      session = {
        tracker: new MessageTracker(sessionId, NO_LEDGER),
        options: new SessionOptions(),
        turn: undefined,
      };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  /**
   * Takes one message (parsed JSON) sent by the client (`client->agent`) or the agent
   * (`agent->client`); returns the v2 notifications it amounts to, often none. Anything that is
   * not a JSON-RPC message of a known shape is ignored.
   */
  take(dir: 'client->agent' | 'agent->client', message: unknown): SessionNotification[] {
    const msg = record(message);
    if (msg === undefined) return [];
    const method = typeof msg.method === 'string' ? msg.method : undefined;
    const params = record(msg.params);
    const sessionId = typeof params?.sessionId === 'string' ? params.sessionId : undefined;
    if (dir === 'client->agent') {
      if (method === undefined || !('id' in msg)) return [];
      // session/new names its session in the answer.
      if (method === 'session/new') this.#asked.set(JSON.stringify(msg.id), { method, sessionId: '' });
      if (sessionId === undefined) return [];
      this.#asked.set(JSON.stringify(msg.id), { method, sessionId });
      const session = this.#session(sessionId);
      if (method === 'session/prompt') {
        const prompt = Array.isArray(params?.prompt) ? (params.prompt as V1.ContentBlock[]) : [];
        session.tracker.beginTurn(prompt);
        session.turn = { prompt, inserted: false };
      } else if (method === 'session/load') {
        session.tracker.beginReplay();
      }
      return [];
    }
    if (method === 'session/update' && sessionId !== undefined) {
      const update = record(params?.update);
      if (update === undefined || typeof update.sessionUpdate !== 'string') return [];
      return this.#update(sessionId, update as unknown as V1.SessionUpdate);
    }
    if (method === 'session/request_permission' && sessionId !== undefined) {
      const session = this.#session(sessionId);
      const out = this.#insert(sessionId, session);
      session.tracker.breakRun();
      return this.#flush(session, out);
    }
    if (method === undefined && 'id' in msg) return this.#answered(msg);
    return [];
  }

  /** The v1 answer to a session request (new, load, resume, fork) that reports modes and options. */
  #answered(msg: Record<string, unknown>): SessionNotification[] {
    const key = JSON.stringify(msg.id);
    const asked = this.#asked.get(key);
    if (asked === undefined) return [];
    this.#asked.delete(key);
    const result = record(msg.result);
    const sessionId =
      asked.method === 'session/new' && typeof result?.sessionId === 'string'
        ? result.sessionId
        : asked.sessionId;
    if (sessionId === '') return [];
    const session = this.#session(sessionId);
    if (result !== undefined) session.options.take(result as V1SessionSettings);
    if (asked.method === 'session/load') {
      const last = session.tracker.endReplay().flatMap(replayedToV2);
      return this.#flush(
        session,
        last.map((u) => this.#notify(sessionId, u)),
      );
    }
    if (asked.method !== 'session/prompt') return [];
    const turn = session.turn;
    if (turn === undefined) return [];
    if (result === undefined) {
      session.turn = undefined;
      // Refused before anything was inserted: there was no turn. Failed after: the turn ends in error.
      if (!turn.inserted) return [];
      const error = record(msg.error);
      return [
        this.#notify(sessionId, {
          sessionUpdate: 'state_update',
          state: 'idle',
          stopReason: 'error',
          ...(error === undefined ? {} : { error: error as never }),
        }),
      ];
    }
    const out = this.#insert(sessionId, session);
    session.turn = undefined;
    session.tracker.breakRun();
    const stopReason =
      typeof result.stopReason === 'string'
        ? v1ToV2StopReason(result.stopReason as V1.StopReason)
        : ('end_turn' as const);
    out.push(this.#notify(sessionId, { sessionUpdate: 'state_update', state: 'idle', stopReason }));
    return this.#flush(session, out);
  }

  #update(sessionId: string, update: V1.SessionUpdate): SessionNotification[] {
    const session = this.#session(sessionId);
    const turn = session.turn;
    if (turn !== undefined && !turn.inserted && update.sessionUpdate === 'user_message_chunk') {
      // The agent's echo names the prompt's message and is its content.
      const echo = update as V1.UserMessageChunk;
      const { messageId } = session.tracker.chunk('user_message', echo.messageId, echo.content);
      turn.inserted = true;
      return this.#flush(session, [
        this.#notify(sessionId, {
          sessionUpdate: 'user_message',
          messageId,
          content: [v1ToV2ContentBlock(echo.content)],
        }),
        this.#notify(sessionId, { sessionUpdate: 'state_update', state: 'running' }),
      ]);
    }
    const out = this.#insert(sessionId, session);
    const replaying = session.tracker.replaying;
    if (replaying) {
      // A replayed message is held until its ID is decided (by content: see MessageTracker).
      const decided = CHUNK_KINDS.has(update.sessionUpdate)
        ? session.tracker.replayChunk(update as V1Chunk)
        : session.tracker.replayBreak();
      for (const converted of decided.flatMap(replayedToV2)) out.push(this.#notify(sessionId, converted));
      if (CHUNK_KINDS.has(update.sessionUpdate)) return this.#flush(session, out);
    } else if (!CHUNK_KINDS.has(update.sessionUpdate)) session.tracker.breakRun();
    for (const converted of v1UpdateToV2(update, {
      tracker: session.tracker,
      options: session.options,
      replaying,
      leftOut: () => {},
    }))
      out.push(this.#notify(sessionId, converted));
    return this.#flush(session, out);
  }

  /** The running turn's prompt becomes a user message (once), and the turn `running`. */
  #insert(sessionId: string, session: Session): SessionNotification[] {
    const turn = session.turn;
    if (turn === undefined || turn.inserted) return [];
    turn.inserted = true;
    const messageId = session.tracker.startPrompt();
    const content: ContentBlock[] = [];
    for (const block of turn.prompt) {
      try {
        content.push(v1ToV2ContentBlock(block));
      } catch {
        // A block with no v2 form is left out of the view.
      }
    }
    return [
      this.#notify(sessionId, { sessionUpdate: 'user_message', messageId, content }),
      this.#notify(sessionId, { sessionUpdate: 'state_update', state: 'running' }),
    ];
  }

  /** Drops the tracker's records of issued IDs (kept in memory by the tracker itself); returns `out`. */
  #flush(session: Session, out: SessionNotification[]): SessionNotification[] {
    void session.tracker.persist();
    return out;
  }

  #notify(sessionId: string, update: SessionUpdate): SessionNotification {
    return { sessionId, update };
  }
}
