import type { MessageId, SessionId } from '@acp-kit/schema';
import type { MessageKind } from '../message-ids.js';

/**
 * One record of a session's ID ledger. The ledger is append-only; a session's state is the fold
 * of its records in order.
 *
 * - `issue`: the bridge issued `messageId` for a new message of `kind`. `v1Id` is the v1 agent's
 *   own ID for it, when it gave one. `chunks` is how many v1 chunks the message is expected to
 *   span when the agent replays it (for a prompt the agent did not echo: its number of blocks);
 *   absent while the message is still streaming. `anchor`: the message is a prompt the bridge
 *   itself forwarded. `after` (agent messages and thoughts): the ID of the user message the
 *   message followed (`''` before any), the turn a replay looks for it in.
 * - `end`: a message streamed from v1 chunks ended after `chunks` chunks.
 * - `v1`: a replay revealed the v1 agent's own ID for a message the bridge named itself.
 * - `content`: what the message says, as a `ContentHash` (`hash`, and `head` for its first
 *   block), so a replay reuses the ID only for the same content; `hash: null` when it is no
 *   longer known (the agent went back to a message it named and added to it).
 *
 * Records written before content hashes existed carry no `content` record: such a message's
 * content is unknown, and a replay reuses its ID only when the agent names it by its own v1 ID.
 */
export type LedgerRecord =
  | {
      readonly type: 'issue';
      readonly kind: MessageKind;
      readonly messageId: MessageId;
      readonly v1Id?: string;
      readonly chunks?: number;
      readonly anchor?: boolean;
      readonly after?: MessageId | '';
    }
  | {
      readonly type: 'end';
      readonly kind: MessageKind;
      readonly messageId: MessageId;
      readonly chunks: number;
    }
  | { readonly type: 'v1'; readonly kind: MessageKind; readonly messageId: MessageId; readonly v1Id: string }
  | {
      readonly type: 'content';
      readonly kind: MessageKind;
      readonly messageId: MessageId;
      readonly hash: string | null;
      readonly head?: string;
    };

/**
 * Where the v1 → v2 bridge keeps the message IDs it has issued, per session, so that an ID names
 * one message forever: replay reuses it and no later message gets it again. A record is appended
 * before the ID it describes reaches any client.
 */
export interface IdLedger {
  /** Every record of the session, in append order (empty for a session the ledger never saw). */
  read(sessionId: SessionId): Promise<readonly LedgerRecord[]>;
  /** Appends records to the session's ledger; resolves once they are stored. */
  append(sessionId: SessionId, records: readonly LedgerRecord[]): Promise<void>;
}

/**
 * The default ledger: in memory, for the life of the bridge process. A restarted bridge starts
 * with an empty ledger and derives IDs from the replay again (see `userMessageId` and
 * `replyMessageId`); give a {@link FileIdLedger} to keep them exactly across restarts.
 */
export class MemoryIdLedger implements IdLedger {
  readonly #sessions = new Map<SessionId, LedgerRecord[]>();

  async read(sessionId: SessionId): Promise<readonly LedgerRecord[]> {
    return [...(this.#sessions.get(sessionId) ?? [])];
  }

  async append(sessionId: SessionId, records: readonly LedgerRecord[]): Promise<void> {
    let stored = this.#sessions.get(sessionId);
    if (stored === undefined) {
      stored = [];
      this.#sessions.set(sessionId, stored);
    }
    stored.push(...records);
  }
}
